// Every workload kind of a manifest set is checked (issue #20): StatefulSets, DaemonSets and Argo Rollouts carry the
// same probes, preStop hooks and grace periods as Deployments, plus what is theirs; and HAProxy is recognised by
// what runs, not only by the image's name.
import { describe, expect, it } from 'vitest';
import type { Container, Deployment, KubeObject } from '../../../../src/types/kube.ts';
import {
  haproxyController,
  imageStopSignal,
  isHAProxyImage,
  runsHAProxy,
} from '../../../../src/model/doctor/pod-template.ts';
import { parseWorkloadName } from '../../../../src/kube/resources.ts';
import { shownInput } from '../../../../src/lib/errors.ts';
import { workloadName } from '../../../../src/services/targets.ts';
import {
  app,
  haproxy,
  haproxyConfigMap,
  haproxyPdb,
  haproxyService,
  ids,
  one,
  pdb,
  staticReport,
  web,
  webService,
} from '../../fixtures/doctor.ts';

/** The web app's template as another workload kind (its strategy dropped: each kind has its own). */
function as(kind: string, patch?: (o: Record<string, any>) => void): KubeObject {
  const d = web() as unknown as Record<string, any>;
  const { strategy: _strategy, ...spec } = d.spec;
  const o = { ...d, kind, spec, ...(kind === 'Rollout' ? { apiVersion: 'argoproj.io/v1alpha1' } : {}) };
  if (kind === 'DaemonSet') delete o.spec.replicas;
  patch?.(o);
  return o as unknown as KubeObject;
}

describe('workload kinds in manifests', () => {
  it.each(['StatefulSet', 'DaemonSet', 'Rollout'])('a %s gets the pod template checks of a Deployment', (kind) => {
    const spoiled = as(kind, (o) => {
      delete o.spec.template.spec.containers[0].readinessProbe;
      delete o.spec.template.spec.containers[0].lifecycle;
    });
    const r = staticReport([spoiled, webService(), pdb()]);
    expect(r.subjects.map((s) => s.ref.kind)).toEqual([kind]);
    expect(ids(r)).toEqual(expect.arrayContaining(['DR103', 'DR201']));
    expect(one(r, 'DR103')[0]?.title).toContain('container app serves service web');
  });

  it('a StatefulSet with 2 or more replicas and no PodDisruptionBudget: DR401, named as a StatefulSet', () => {
    const [f] = one(staticReport([as('StatefulSet'), webService()]), 'DR401');
    expect(f?.title).toBe(
      'no PodDisruptionBudget selects the pods of statefulset web (3 replicas): a drain may evict them all at once',
    );
  });

  it("a DaemonSet's pods are left by a drain: no PodDisruptionBudget checks", () => {
    expect(ids(staticReport([as('DaemonSet'), webService()]))).not.toContain('DR401');
  });

  it('a single-replica StatefulSet rolls with no pod serving: DR603 (not with OnDelete)', () => {
    const one1 = as('StatefulSet', (o) => (o.spec.replicas = 1));
    const [f] = one(staticReport([one1, webService(), pdb()]), 'DR603');
    expect(f).toMatchObject({ variant: 'statefulSet', severity: 'error' });
    expect(f?.fix).toBe(
      'run at least 2 replicas (kubectl -n shop scale statefulset web --replicas=2), or accept the gap',
    );
    const onDelete = as('StatefulSet', (o) => {
      o.spec.replicas = 1;
      o.spec.updateStrategy = { type: 'OnDelete' };
    });
    expect(ids(staticReport([onDelete, webService(), pdb()]))).not.toContain('DR603');
  });

  it('DR606: a serving DaemonSet with maxSurge 0 (the default); not with surge, nor with a hostPort', () => {
    const [f] = one(staticReport([as('DaemonSet'), webService()]), 'DR606');
    expect(f?.title).toBe(
      "daemonset web rolls with maxSurge 0 (maxUnavailable 1): each node's pod stops before its replacement is Ready, and the node serves nothing in between",
    );
    expect(f?.evidence[0]).toBe('spec.updateStrategy: RollingUpdate, maxSurge 0 (default), maxUnavailable 1 (default)');
    const surging = as('DaemonSet', (o) => {
      o.spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } };
    });
    expect(ids(staticReport([surging, webService()]))).not.toContain('DR606');
    const hostPort = as('DaemonSet', (o) => (o.spec.template.spec.containers[0].ports[0].hostPort = 80));
    expect(ids(staticReport([hostPort, webService()]))).not.toContain('DR606');
    const worker = as('DaemonSet');
    expect(ids(staticReport([worker]))).not.toContain('DR606');
  });

  it('DR607: a gated blue-green Rollout whose preview Service no route names while its active one is routed; not once it is, nor without any route', () => {
    const blueGreen = as('Rollout', (o) => {
      o.spec.strategy = { blueGreen: { activeService: 'web', previewService: 'web-preview' } };
    });
    const preview = webService((s) => (s.metadata.name = 'web-preview'));
    const ingress = (service: string): KubeObject =>
      ({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'Ingress',
        metadata: { name: service, namespace: 'shop' },
        spec: {
          ingressClassName: 'haproxy',
          rules: [
            {
              http: {
                paths: [
                  { path: '/', pathType: 'Prefix', backend: { service: { name: service, port: { number: 80 } } } },
                ],
              },
            },
          ],
        },
      }) as unknown as KubeObject;
    const [f] = one(staticReport([blueGreen, webService(), preview, ingress('web'), pdb()]), 'DR607');
    expect(f?.title).toBe(
      'rollout web: no Ingress or HTTPRoute names its preview Service web-preview, which Argo points at the new pods, while service web is routed: HAPTIC would never set the gate on them and the Rollout would never promote',
    );
    expect(f?.evidence).toEqual([
      'spec.strategy.blueGreen.previewService: web-preview',
      'ingress/web routes service web',
      'no Ingress or HTTPRoute in the manifests names service web-preview',
    ]);
    expect(
      ids(staticReport([blueGreen, webService(), preview, ingress('web'), ingress('web-preview'), pdb()])),
    ).not.toContain('DR607');
    expect(ids(staticReport([blueGreen, webService(), preview, pdb()]))).not.toContain('DR607');
    // an HTTPRoute to the preview Service routes it as well
    const route = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'HTTPRoute',
      metadata: { name: 'preview', namespace: 'shop' },
      spec: { parentRefs: [{ name: 'gw' }], rules: [{ backendRefs: [{ name: 'web-preview', port: 80 }] }] },
    } as unknown as KubeObject;
    expect(ids(staticReport([blueGreen, webService(), preview, ingress('web'), route, pdb()]))).not.toContain('DR607');
    const ungated = as('Rollout', (o) => {
      o.spec.strategy = { blueGreen: { activeService: 'web', previewService: 'web-preview' } };
      delete o.spec.template.spec.readinessGates;
    });
    expect(ids(staticReport([ungated, webService(), preview, ingress('web'), pdb()]))).not.toContain('DR607');
  });

  it('an autoscaler targets its own kind; the gate checks name the kind', () => {
    const ungatedService = webService((s) => (s.spec.selector = { app: 'other' }));
    const [f] = one(staticReport([as('StatefulSet'), ungatedService, pdb()]), 'DR601');
    expect(f?.title).toContain('statefulset web lists readiness gate');
  });
});

describe('suppression on the pod template', () => {
  it("counts, and says it came from the template; the workload's own list adds up with it", () => {
    const annotated = web((d) => {
      d.spec.template.metadata!.annotations = { 'kubectl-haptic.dev/ignore': 'DR201' };
      d.metadata.annotations = { 'kubectl-haptic.dev/ignore': 'DR103' };
      delete app(d).lifecycle;
      delete app(d).readinessProbe;
    });
    const findings = staticReport([annotated, webService(), pdb()]).subjects[0]!.findings;
    expect(findings.filter((f) => f.suppressed).map((f) => [f.id, f.suppressed])).toEqual([
      ['DR103', 'annotation kubectl-haptic.dev/ignore on deployment.apps/web'],
      ['DR201', "annotation kubectl-haptic.dev/ignore on deployment.apps/web's pod template"],
    ]);
  });
});

describe('HAProxy, recognised by what runs', () => {
  const c = (patch: Partial<Container>): Container => ({ name: 'proxy', image: 'example/proxy:1', ...patch });

  it.each([
    ['haproxy:3.0', true],
    ['mirror.gcr.io/library/haproxy:3.0', true],
    ['haproxytech/haproxy-alpine:3.2', true],
    ['registry.example.com/platform/redis-haproxy:3.0.5', true],
    ['haproxytech/kubernetes-ingress:3.1', true],
    ['quay.io/jcmoraisjr/haproxy-ingress:v0.15', true],
    ['quay.io/prometheus/haproxy-exporter:v0.15.0', false],
    ['nginx:1.27', false],
  ])('image %s: %s', (image, expected) => {
    expect(isHAProxyImage(image)).toBe(expected);
  });

  it('by its command, the config it loads or a mounted haproxy.cfg, whatever the image', () => {
    expect(runsHAProxy(c({ command: ['/usr/sbin/haproxy', '-W', '-db'] }))).toBe(true);
    expect(runsHAProxy(c({ args: ['-f', '/etc/lb/haproxy.cfg'] }))).toBe(true);
    expect(
      runsHAProxy(c({ volumeMounts: [{ name: 'c', mountPath: '/cfg/haproxy.cfg', subPath: 'haproxy.cfg' }] })),
    ).toBe(true);
    // a shell line that execs the haproxy binary is HAProxy; the Data Plane API in HAProxy's image is not
    expect(
      runsHAProxy(
        c({
          command: ['/bin/sh', '-c'],
          args: [
            'cp /config/haproxy.cfg /etc/haproxy/\nexec /usr/local/sbin/haproxy -W -db -- /etc/haproxy/haproxy.cfg',
          ],
        }),
      ),
    ).toBe(true);
    expect(
      runsHAProxy(
        c({
          image: 'haproxytech/haproxy-debian:3.2',
          command: ['/bin/sh', '-c'],
          args: ['exec dataplaneapi -f /etc/haproxy/dataplaneapi.yaml'],
        }),
      ),
    ).toBe(false);
    // a folder alone is what reloaders and exporters mount too
    expect(runsHAProxy(c({ volumeMounts: [{ name: 'c', mountPath: '/usr/local/etc/haproxy' }] }))).toBe(false);
    expect(runsHAProxy(c({ command: ['envoy'] }))).toBe(false);
  });

  it.each([
    ['haproxy:3.0', 'SIGUSR1'],
    ['docker.io/library/haproxy:3.0', 'SIGUSR1'],
    ['mirror.gcr.io/library/haproxy:3.0', 'SIGUSR1'],
    ['public.ecr.aws/docker/library/haproxy:3.0', 'SIGUSR1'],
    ['registry.example.com:5000/haproxy:3.0@sha256:abc', 'SIGUSR1'],
    ['ghcr.io/haproxytech/haproxy-debian:3.2', 'SIGUSR1'],
    ['bitnami/haproxy:3.0', undefined],
    ['registry.example.com/platform/redis-haproxy:3.0.5', undefined],
  ])('the official image stops with SIGUSR1 through any registry or mirror: %s → %s', (image, signal) => {
    expect(imageStopSignal(image)).toBe(signal);
  });

  it("an ingress controller's HAProxy stops as its controller decides: no DR203, DR201 says so", () => {
    expect(haproxyController('haproxytech/kubernetes-ingress:3.1')).toBe('the HAProxy Kubernetes Ingress Controller');
    const controller = haproxy((d: Deployment) => {
      const container = d.spec.template.spec.containers[0]!;
      container.image = 'haproxytech/kubernetes-ingress:3.1';
      delete container.lifecycle;
      delete container.volumeMounts;
    });
    const r = staticReport([controller, haproxyService(), haproxyPdb()]);
    expect(ids(r)).not.toContain('DR203');
    expect(one(r, 'DR201')[0]?.title).toBe(
      'HAProxy container haproxy has no preStop: it gets SIGUSR1 at once and the HAProxy Kubernetes Ingress Controller shuts HAProxy down, while endpoints still route new connections to it',
    );
    // its configuration is its own: no note about a haproxy.cfg it does not mount
    expect(r.notes.filter((n) => n.includes('haproxy.cfg'))).toEqual([]);
  });

  it("HAProxy Ingress's --wait-before-shutdown keeps it serving as a preStop sleep would: no DR201", () => {
    const ingress = (args: string[]) =>
      haproxy((d: Deployment) => {
        const container = d.spec.template.spec.containers[0]!;
        container.image = 'quay.io/jcmoraisjr/haproxy-ingress:v0.15';
        container.args = args;
        delete container.lifecycle;
      });
    expect(ids(staticReport([ingress(['--wait-before-shutdown=10']), haproxyService(), haproxyPdb()]))).not.toContain(
      'DR201',
    );
    expect(ids(staticReport([ingress(['--configmap=x']), haproxyService(), haproxyPdb()]))).toContain('DR201');
  });

  it('DR101 is not a shared monitor-uri with no monitor fail behind it; it is one with monitor fail', () => {
    const probed = (cfg: string) =>
      staticReport([
        haproxy((d) => {
          const container = d.spec.template.spec.containers[0]!;
          container.readinessProbe = { httpGet: { path: '/healthz', port: 'ready' } };
          container.livenessProbe = { httpGet: { path: '/healthz', port: 'ready' } };
        }),
        haproxyService(),
        haproxyPdb(),
        haproxyConfigMap(cfg),
      ]);
    const frontend = 'frontend health\n  bind :8889\n  mode http\n  monitor-uri /healthz\n';
    const base = 'global\n  hard-stop-after 15s\n';
    expect(ids(probed(`${base}${frontend}`))).not.toContain('DR101');
    const [f] = one(probed(`${base}${frontend}  monitor fail if { nbsrv(be) lt 1 }\n`), 'DR101');
    // the monitor fail condition is the evidence that makes it an error (seed 004)
    expect(f).toMatchObject({ variant: 'restartsFirst', severity: 'error' });
    expect(f?.evidence.at(-1)).toBe(
      'configmap/haproxy (haproxy.cfg) line 6: monitor-uri /healthz in frontend health, which has a monitor fail condition: it answers 503 on every replica at once when that condition holds',
    );
  });
});

describe('names on the command line', () => {
  it('KIND/NAME for every workload kind, by resource name, short name or group', () => {
    expect(parseWorkloadName('web')).toEqual({ name: 'web' });
    expect(['sts/db', 'statefulsets.apps/db', 'StatefulSet/db'].map((a) => parseWorkloadName(a).kind)).toEqual([
      'StatefulSet',
      'StatefulSet',
      'StatefulSet',
    ]);
    expect(parseWorkloadName('ds/proxy').kind).toBe('DaemonSet');
    expect(parseWorkloadName('rollouts.argoproj.io/canary').kind).toBe('Rollout');
    expect(() => workloadName('pod/web')).toThrow(
      '"pod" is not a workload kind: use NAME, deployment/NAME, statefulset/NAME, daemonset/NAME or rollout/NAME',
    );
  });

  it('an error quotes at most 64 characters of one line of what was typed', () => {
    const manifest = `apiVersion: v1\nkind: Secret\ndata:\n  password: ${'x'.repeat(200)}`;
    expect(shownInput(manifest)).toBe(`apiVersion: v1 kind: Secret data: password: ${'x'.repeat(19)}…`);
    expect(() => workloadName(manifest)).toThrow(/^invalid name ".{63}…": /);
  });
});
