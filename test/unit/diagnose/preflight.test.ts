import { describe, expect, it } from 'vitest';
import { preflight } from '../../../src/diagnose/preflight.ts';
import { describeFinding } from '../../../src/diagnose/catalogue.ts';
import type { Deployment, Pod } from '../../../src/types/kube.ts';
import { buildHaptic } from '../../../src/model/haptic/haptic.ts';
import { deployment, GATE, hapticInputs, ingress, NOW, pod, service } from '../fixtures/rollout.ts';

const ids = (
  d: Deployment,
  o: {
    services?: ReturnType<typeof service>[];
    haptic?: Parameters<typeof hapticInputs>[0];
    type?: string;
    pods?: Pod[];
  } = {},
) => {
  const inputs = hapticInputs(o.haptic);
  return preflight({
    workload: { ...d, kind: 'Deployment' },
    services: o.services ?? [service()],
    haptic: buildHaptic(inputs, NOW),
    routes: inputs,
    pods: o.pods,
    conditionType: o.type ?? GATE,
  }).map(describeFinding);
};

const ungated = () => deployment({ gated: false });
/** with a readinessProbe, so the doctor's DR103 has nothing to say */
const probed = (): Deployment => {
  const d = ungated();
  return {
    ...d,
    spec: {
      ...d.spec,
      template: {
        ...d.spec.template,
        spec: {
          ...d.spec.template.spec,
          containers: [{ name: 'app', image: 'web:2', readinessProbe: { httpGet: { path: '/ready', port: 80 } } }],
        },
      },
    },
  };
};

describe('enable-gate preflight', () => {
  it('passes a served Deployment with a healthy installation', () => {
    expect(ids(probed()).map((f) => [f.id, f.severity])).toEqual([
      ['HG100', 'ok'],
      ['HG118', 'ok'],
      ['HG106', 'ok'],
    ]);
    expect(ids(probed())[1]).toMatchObject({ title: 'HAPTIC routes service/web' });
  });

  it('blocks when no route that HAPTIC renders reaches the Service, naming the near miss and the Ingress to create', () => {
    const [, route] = ids(probed(), { haptic: { ingresses: [ingress('web', 'nginx')] } });
    expect(route).toMatchObject({ id: 'HG116', severity: 'blocker' });
    expect(route?.title).toBe(
      'No route that HAPTIC renders reaches service/web: HAPTIC renders backends only for Services its routes name, so it would never route the new pods and they would never become Ready',
    );
    expect(route?.evidence[0]).toBe(
      'ingress shop/web → service/web:80: has ingressClassName nginx; HAPTIC haptic/haptic-config watches Ingresses with spec.ingressClassName=haproxy',
    );
    expect(route?.fix).toBe(
      "fix the route above (its class, its namespace or ReferenceGrant, its listener), or create a route HAPTIC renders: kubectl -n shop create ingress web --class=haproxy --rule='/*=web:80'; then run enable-gate again",
    );
    expect(ids(probed(), { haptic: { ingresses: [] } })[1]).toMatchObject({
      id: 'HG116',
      fix: "create a route HAPTIC renders: kubectl -n shop create ingress web --class=haproxy --rule='/*=web:80'; then run enable-gate again",
    });
  });

  it("takes HAPTIC's live config as proof: a server for a pod of the workload passes, whatever the routes say", () => {
    const running = [
      pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
      pod({ name: 'web-old-2', rs: '1', ip: '10.0.0.2' }),
    ];
    const routedByConfig = ids(probed(), {
      haptic: { ingresses: [], servers: [{ pod: 'web-old-1', ip: '10.0.0.1', disabled: false }] },
      pods: running,
    })[1];
    expect(routedByConfig).toMatchObject({ id: 'HG118', severity: 'ok' });
    expect(routedByConfig?.evidence[0]).toMatch(
      /^haproxycfg haptic\/haptic-config-haproxycfg: backend \S+ server \S+ 10\.0\.0\.1:\d+ → pod web-old-1$/,
    );
    // a server of the pod's name at another address is an earlier pod's; a pod of another workload proves nothing
    const elsewhere = ids(probed(), {
      haptic: { ingresses: [], servers: [{ pod: 'web-old-1', ip: '10.9.9.9', disabled: false }] },
      pods: running,
    })[1];
    expect(elsewhere).toMatchObject({ id: 'HG116' });
    expect(elsewhere?.evidence).toContain(
      'no server for a pod of the workload in a backend of service/web in haproxycfg haptic/haptic-config-haproxycfg',
    );
    const other = {
      ...pod({ name: 'api-1', rs: '1', ip: '10.0.0.1' }),
      metadata: { name: 'api-1', namespace: 'shop', labels: { app: 'api' } },
    };
    expect(
      ids(probed(), {
        haptic: { ingresses: [], servers: [{ pod: 'api-1', ip: '10.0.0.1', disabled: false }] },
        pods: [other],
      })[1],
    ).toMatchObject({ id: 'HG116' });
  });

  it("takes an old pod's server as proof only for the Service of its backend: a template that leaves it is refused", () => {
    // service/web (app=web, track=stable) is routed and holds the old pods; the new template says track=canary, so
    // only service/web-all selects it, and no route names web-all
    const d = probed();
    const canary: Deployment = {
      ...d,
      spec: {
        ...d.spec,
        template: { ...d.spec.template, metadata: { labels: { app: 'web', track: 'canary' } } },
      },
    };
    const stable = { app: 'web', track: 'stable', 'pod-template-hash': 'h1' };
    const running = [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', labels: stable })];
    const services = [service({ app: 'web', track: 'stable' }), service({ app: 'web' }, 'web-all')];
    const servers = [{ pod: 'web-old-1', ip: '10.0.0.1', disabled: false }];
    const [, route] = ids(canary, { services, haptic: { servers }, pods: running });
    expect(route).toMatchObject({ id: 'HG116', severity: 'blocker' });
    expect(route?.evidence).toContain(
      'no server for a pod of the workload in a backend of service/web-all in haproxycfg haptic/haptic-config-haproxycfg',
    );
    expect(route?.evidence.some((e) => /→ pod web-old-1 \(service\/web, not the Services above\)$/.test(e))).toBe(true);
    // the same server, with the template still in service/web: routed
    const kept: Deployment = {
      ...canary,
      spec: { ...canary.spec, template: { ...canary.spec.template, metadata: { labels: stable } } },
    };
    expect(ids(kept, { services, haptic: { servers }, pods: running })[1]).toMatchObject({ id: 'HG118' });
  });

  it('passes a route HAPTIC renders by its rules, though no pod runs yet: a port number the Service lacks', () => {
    const wrongPort = ids(probed(), { haptic: { ingresses: [ingress('web', 'haproxy', 'web', { number: 8080 })] } })[1];
    expect(wrongPort).toMatchObject({ id: 'HG118', evidence: ['ingress shop/web → service/web:8080'] });
  });

  it('warns, without blocking, when no new render reaches HAProxy: the rollout the gate starts waits for a fix', () => {
    const found = ids(probed(), { haptic: { refused: true } });
    const render = found.find((f) => f.id === 'HG122');
    expect(render).toMatchObject({ severity: 'warning' });
    expect(render?.title).toMatch(
      /^HAProxy refuses HAPTIC haptic\/haptic-config's rendered configuration: the new pods will wait/,
    );
    expect(found.some((f) => f.severity === 'blocker')).toBe(false);
    expect(ids(probed()).some((f) => f.id === 'HG122')).toBe(false);
  });

  it('does not warn of a refusal that a later accepted render outlived (the template config keeps saying it)', () =>
    expect(ids(probed(), { haptic: { refusedEarlier: true } }).some((f) => f.id === 'HG122')).toBe(false));

  it('warns, without blocking, when the routes could not be read', () => {
    const inputs = hapticInputs();
    const routes = {
      ...inputs,
      ingresses: { items: [], error: { kind: 'Forbidden', message: 'ingresses.networking.k8s.io is forbidden' } },
    };
    const [, route] = preflight({
      workload: { ...probed(), kind: 'Deployment' },
      services: [service()],
      haptic: buildHaptic(inputs, NOW),
      routes,
      conditionType: GATE,
    }).map(describeFinding);
    expect(route).toMatchObject({ id: 'HG117', severity: 'warning' });
    expect(route?.evidence).toContain(
      'ingresses.networking.k8s.io could not be read: ingresses.networking.k8s.io is forbidden',
    );
  });

  it("warns with the doctor's gate checks that no HG check makes (DR103, DR501), on the template as it will be gated", () => {
    const published = { ...service(), spec: { ...service().spec, publishNotReadyAddresses: true } };
    const found = ids(ungated(), { services: [published] }).filter((f) => f.id.startsWith('DR'));
    expect(found.map((f) => [f.id, f.severity])).toEqual([
      ['DR103', 'warning'],
      ['DR501', 'warning'],
    ]);
    expect(found[0]?.title).toBe(
      'container app serves service web (port 80) but has no readinessProbe: the gate waits for ready containers, so HAProxy routes the pod as soon as the container starts, before it listens',
    );
    // DR601–DR603 are HG101, HG102/HG104 and HG111/HG112 already: not repeated
    const single: Deployment = { ...probed(), spec: { ...probed().spec, replicas: 1, strategy: { type: 'Recreate' } } };
    expect(ids(single, { services: [] }).map((f) => f.id)).toEqual(['HG101', 'HG106', 'HG112']);
  });

  it('blocks when no Service selects the template, naming a near miss but not an unrelated Service', () => {
    const [svc] = ids(ungated(), {
      services: [service({ app: 'wbe' }, 'web-typo'), service({ app: 'billing' }, 'billing')],
    });
    expect(svc).toMatchObject({ id: 'HG101', severity: 'blocker' });
    expect(svc?.evidence).toEqual([
      'pod template labels: app=web',
      'Services in namespace shop: web-typo (app=wbe), billing (app=billing)',
      'service/web-typo almost matches: it wants app=wbe, the template has app=web',
    ]);
  });

  it.each([
    ['no leader', { leaseRenewedSecondsAgo: 60 }, 'HG103'],
    ['gate feature off', { gateFeature: false }, 'HG104'],
  ] as const)('blocks on %s', (_, haptic, id) => {
    expect(ids(ungated(), { haptic }).find((f) => f.severity === 'blocker')?.id).toBe(id);
  });

  it('blocks without any installation', () => {
    const f = preflight({
      workload: { ...ungated(), kind: 'Deployment' },
      services: [service()],
      haptic: {
        installations: [],
        unreadable:
          'HAPTIC is not installed: the HAProxyTemplateConfig CRD (haproxytemplateconfigs.haproxy-haptic.org) does not exist',
      },
      routes: hapticInputs(),
      conditionType: GATE,
    }).map(describeFinding);
    expect(f.find((x) => x.id === 'HG102')?.evidence).toEqual([
      'HAPTIC is not installed: the HAProxyTemplateConfig CRD (haproxytemplateconfigs.haproxy-haptic.org) does not exist',
    ]);
  });

  it('warns: one replica taken down first, Recreate, paused, a gate type that looks like a typo', () => {
    const single: Deployment = {
      ...ungated(),
      spec: {
        ...ungated().spec,
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } },
      },
    };
    expect(ids(single).find((f) => f.id === 'HG111')?.evidence).toEqual([
      'spec.replicas: 1, resolved maxSurge: 0, maxUnavailable: 1',
    ]);
    const recreate: Deployment = { ...ungated(), spec: { ...ungated().spec, strategy: { type: 'Recreate' } } };
    expect(ids(recreate).map((f) => f.id)).toContain('HG112');
    expect(ids(deployment({ gated: false, paused: true })).map((f) => f.id)).toContain('HG113');
    const typo = ids(ungated(), { type: 'haproxy-haptic.org/loadbalancer-ready' }).find((f) => f.id === 'HG114');
    expect(typo?.severity).toBe('warning');
    expect(typo?.fix).toBe(`use --condition-type ${GATE} (the default)`);
  });

  it('a 25% surge on one replica rounds up to 1, so the single pod is not taken down first', () => {
    const d: Deployment = {
      ...ungated(),
      spec: {
        ...ungated().spec,
        replicas: 1,
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } },
      },
    };
    expect(ids(d).map((f) => f.id)).not.toContain('HG111');
  });

  it('blockers block, warnings warn, passes are ok', () => {
    const findings = [
      ...ids(probed(), { services: [] }),
      ...ids({ ...probed(), spec: { ...probed().spec, paused: true } }, { haptic: { gateFeature: false } }),
    ];
    expect(findings.map((f) => [f.id, f.severity])).toEqual([
      ['HG101', 'blocker'],
      ['HG106', 'ok'],
      ['HG100', 'ok'],
      ['HG118', 'ok'],
      ['HG104', 'blocker'],
      ['HG113', 'warning'],
    ]);
  });
});

describe("enable-gate preflight of a StatefulSet: what its controller's way of rolling does to the gate", () => {
  const statefulSet = (spec: Record<string, unknown> = {}) => {
    const d = probed();
    return { ...d, kind: 'StatefulSet' as const, spec: { ...d.spec, replicas: 3, serviceName: 'web', ...spec } };
  };
  const check = (s: ReturnType<typeof statefulSet>) => {
    const inputs = hapticInputs();
    return preflight({
      workload: s as never,
      services: [service()],
      haptic: buildHaptic(inputs, NOW),
      routes: inputs,
      conditionType: GATE,
    })
      .map(describeFinding)
      .filter((f) => f.severity !== 'ok');
  };

  it('passes a served StatefulSet that rolls by itself (RollingUpdate, OrderedReady, no partition)', () => {
    expect(check(statefulSet())).toEqual([]);
  });

  it('warns of OnDelete (no pod gets the gate until deleted), naming the highest ordinal to start with', () => {
    expect(check(statefulSet({ updateStrategy: { type: 'OnDelete' }, ordinals: { start: 1 } }))).toEqual([
      expect.objectContaining({
        id: 'HG119',
        severity: 'warning',
        fix: expect.stringContaining('(kubectl -n shop delete pod web-3)'),
      }),
    ]);
  });

  it('warns of Parallel, of a partition (naming the pods it holds), and of one replica (a StatefulSet never surges)', () => {
    const found = check(
      statefulSet({
        podManagementPolicy: 'Parallel',
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2, maxUnavailable: 2 } },
      }),
    );
    expect(found.map((f) => [f.id, f.title])).toEqual([
      [
        'HG120',
        'statefulset web has podManagementPolicy Parallel: a scale-down removes pods at once, without waiting for HAProxy; rolling updates go 2 pod(s) at a time',
      ],
      [
        'HG121',
        'statefulset web has partition 2: pods web-0 to web-1 keep the old template and get the gate only when the partition is lowered',
      ],
    ]);
    expect(check(statefulSet({ replicas: 1 })).map((f) => [f.id, f.fix])).toEqual([
      ['HG111', 'run at least 2 replicas (kubectl -n shop scale statefulset web --replicas=2), or accept the gap'],
    ]);
  });
});
