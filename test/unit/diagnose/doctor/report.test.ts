// The report around the rules: suppression, what a mode cannot run, the HAProxy tier in front of a Deployment,
// and a malformed object that never becomes a crash.
import { describe, expect, it } from 'vitest';
import { doctorExitCode } from '../../../../src/cli/outcomes.ts';
import type { KubeObject, Pod } from '../../../../src/types/kube.ts';
import { countingFindings } from '../../../../src/diagnose/doctor/counting.ts';
import {
  app,
  GOOD_CFG,
  haproxy,
  haproxyConfigMap,
  ids,
  liveReport,
  one,
  pdb,
  staticReport,
  web,
  webService,
} from '../../fixtures/doctor.ts';
import { hapticInputs } from '../../fixtures/rollout.ts';

const noPreStop = () => web((d) => delete app(d).lifecycle);

describe('suppression by annotation', () => {
  const annotated = (value: string) =>
    web((d) => {
      delete app(d).lifecycle;
      delete app(d).readinessProbe;
      d.metadata.annotations = { 'kubectl-haptic.dev/ignore': value };
    });

  it('marks the listed checks suppressed (kept in the report), and they do not count', () => {
    const r = staticReport([annotated('DR201, dr103'), webService(), pdb()]);
    expect(one(r, 'DR201')[0]?.suppressed).toBe('annotation kubectl-haptic.dev/ignore on deployment.apps/web');
    expect(one(r, 'DR103')[0]?.suppressed).toBe('annotation kubectl-haptic.dev/ignore on deployment.apps/web');
    expect(countingFindings(r, true)).toEqual([]);
  });

  it("a finding on another object (a PDB) is suppressed by its Deployment's annotation too", () => {
    const r = staticReport([
      web((d) => (d.metadata.annotations = { 'kubectl-haptic.dev/ignore': 'DR403' })),
      webService(),
      pdb('web', { maxUnavailable: 0, selector: { matchLabels: { app: 'web' } } }),
    ]);
    expect(one(r, 'DR403')[0]).toMatchObject({
      suppressed: 'annotation kubectl-haptic.dev/ignore on deployment.apps/web',
      object: { kind: 'PodDisruptionBudget' },
    });
  });

  it('names an id that is not a doctor check (DR699)', () => {
    const r = staticReport([annotated('DR101,DR699'), webService(), pdb()]);
    expect(r.notes).toEqual([
      'deployment.apps/web -n shop: annotation kubectl-haptic.dev/ignore names DR699, which is not a doctor check',
    ]);
    expect(one(r, 'DR201')[0]?.suppressed).toBeUndefined();
  });
});

describe('what counts for the exit code', () => {
  it('errors count; warnings only with --strict; info never', () => {
    const warning = staticReport([noPreStop(), webService(), pdb()]);
    expect(one(warning, 'DR201')[0]?.severity).toBe('warning');
    expect(countingFindings(warning, false)).toEqual([]);
    expect(countingFindings(warning, true).map((f) => f.id)).toEqual(['DR201']);
    const info = staticReport([web((d) => delete d.spec.minReadySeconds), webService(), pdb()]);
    expect(countingFindings(info, true)).toEqual([]);
  });
});

describe('modes', () => {
  it('static mode lists the live-only checks once; live mode only --helm-history', () => {
    expect(staticReport([web(), webService(), pdb()]).notRun.map((n) => n.id)).toEqual([
      'DR102',
      'DR404',
      'DR502',
      'DR602',
    ]);
    expect(liveReport([web(), webService(), pdb()]).notRun).toEqual([{ id: 'DR404', reason: 'needs --helm-history' }]);
    expect(liveReport([web(), webService(), pdb()], { helm: [] }).notRun).toEqual([]);
  });

  it('a rule that fails on a malformed object becomes a note; the other checks still run', () => {
    const broken = web((d) => {
      app(d).readinessProbe = { httpGet: { path: '/', port: 8080, httpHeaders: 'X-Probe' as never } };
      d.spec.replicas = 1;
      d.spec.strategy = { type: 'Recreate' };
    });
    const r = liveReport([broken, webService(), pdb()]);
    expect(
      r.notes.some((n) =>
        /^deployment\.apps\/web -n shop: a check failed on this object \(.+\); its other checks ran$/.test(n),
      ),
    ).toBe(true);
    expect(ids(r)).toContain('DR603');
  });

  it('static mode skips the malformed object as unreadable instead (exit 3: it was not checked)', () => {
    const broken = web(
      (d) => (app(d).readinessProbe = { httpGet: { path: '/', port: 8080, httpHeaders: 'X-Probe' as never } }),
    );
    const r = staticReport([broken, webService(), pdb()]);
    expect(r.subjects).toEqual([]);
    expect(r.unreadable).toEqual([
      'test.yaml:1: Deployment web: spec.template.spec.containers[0].readinessProbe.httpGet.httpHeaders is not a list; skipped',
    ]);
    expect(doctorExitCode(r, false)).toBe(3);
  });
});

describe('the HAProxy tier in front (live)', () => {
  const hapticPods = (image: string, preStop?: string): Pod[] =>
    ['haptic-haproxy-7d9-a', 'haptic-haproxy-7d9-b'].map((name) => ({
      metadata: {
        name,
        namespace: 'haptic',
        labels: {
          'app.kubernetes.io/name': 'haptic',
          'app.kubernetes.io/component': 'loadbalancer',
          'pod-template-hash': '7d9',
        },
        ownerReferences: [
          { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'haptic-haproxy-7d9', uid: 'rs', controller: true },
        ],
      },
      spec: {
        terminationGracePeriodSeconds: 30,
        containers: [
          {
            name: 'haproxy',
            image,
            ...(preStop ? { lifecycle: { preStop: { exec: { command: ['sh', '-c', preStop] } } } } : {}),
          },
          { name: 'agent', image: 'ghcr.io/haproxy-haptic/haptic-agent:0.9.0' },
        ],
      },
      status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
    }));
  const haptic = (
    image: string,
    preStop?: string,
    content = 'global\n  hard-stop-after 10s\nbackend shop_web_http\n  server web-a 10.0.0.1:8080 check # Pod: web-a\n',
  ) => {
    const base = hapticInputs();
    return {
      ...base,
      pods: {
        items: [
          ...base.pods.items.filter((p) => p.metadata.labels?.['app.kubernetes.io/component'] !== 'loadbalancer'),
          ...hapticPods(image, preStop),
        ],
      },
      haproxyCfgs: { items: [{ ...base.haproxyCfgs.items[0]!, spec: { content } }] },
    };
  };

  it("a gated Deployment's tier: HAPTIC's HAProxy pod template and its live config, checked once for all its Deployments", () => {
    const r = liveReport([web(), web((d) => (d.metadata.name = 'api')), webService(), pdb()], {
      haptic: haptic('haproxytech/haproxy-debian:3.2'),
    });
    const tier = r.subjects.find((s) => s.ref.kind === 'HAProxyTemplateConfig');
    expect(tier?.ref).toEqual({ kind: 'HAProxyTemplateConfig', namespace: 'haptic', name: 'haptic-config' });
    expect(tier?.role).toBe("HAPTIC's HAProxy tier in front of web, api");
    expect(tier?.findings.map((f) => [f.id, f.variant, f.object.kind, f.object.name])).toEqual([
      ['DR201', 'haproxy', 'Deployment', 'haptic-haproxy'],
    ]);
  });

  it('reads the live config for the tier (DR205), and the preStop of its pods', () => {
    const r = liveReport([web(), webService(), pdb()], {
      haptic: haptic('haproxytech/haproxy-debian:3.2', 'sleep 5', 'global\n  maxconn 100\n'),
    });
    const tier = r.subjects.find((s) => s.ref.kind === 'HAProxyTemplateConfig');
    expect(tier?.findings.map((f) => [f.id, f.object.kind])).toEqual([['DR205', 'HAProxyCfg']]);
  });

  it('DR207 (--sessions): a hard-stop-after shorter than the sessions HAProxy says its servers carry', () => {
    const reading = (pod: string, ttimeMs: number) => ({
      pod: `haptic/${pod}`,
      at: 0,
      workers: [
        {
          pid: 9,
          leaving: false,
          servers: [
            {
              backend: 'shop_web_http',
              server: 'web-a',
              addr: '10.0.0.1:8080',
              scur: 1,
              qcur: 0,
              status: 'UP',
              ttimeMs,
              failed: 0,
              retried: 0,
            },
          ],
        },
      ],
    });
    const tier = (readings: ReturnType<typeof reading>[]) =>
      liveReport([web(), webService(), pdb()], {
        haptic: haptic('haproxytech/haproxy-debian:3.2', 'sleep 5'),
        sessions: { readings },
      }).subjects.find((s) => s.ref.kind === 'HAProxyTemplateConfig');
    const f = tier([reading('haptic-haproxy-7d9-a', 4000), reading('haptic-haproxy-7d9-b', 42_500)])?.findings.find(
      (x) => x.id === 'DR207',
    );
    expect(f).toMatchObject({
      object: { kind: 'HAProxyCfg' },
      args: {
        config: 'haproxycfg/haptic-config-haproxycfg',
        hardStop: '10',
        ttime: '42.5',
        server: 'shop_web_http/web-a',
        pod: 'haptic/haptic-haproxy-7d9-b',
      },
      evidence: [
        'haproxycfg/haptic-config-haproxycfg line 2: hard-stop-after 10s',
        'haptic/haptic-haproxy-7d9-b: show stat ttime 42500 ms on shop_web_http/web-a (the average total time of its last 1024 sessions)',
      ],
    });
    // sessions shorter than hard-stop-after, or none read: nothing to say
    expect(tier([reading('haptic-haproxy-7d9-a', 9000)])?.findings.map((x) => x.id)).not.toContain('DR207');
    expect(tier([])?.findings.map((x) => x.id)).not.toContain('DR207');
  });

  it('an ungated Deployment has a tier only when the config routes to its pods', () => {
    const ungated = web((d) => delete d.spec.template.spec.readinessGates);
    const pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-a', namespace: 'shop', labels: { app: 'web', tier: 'front' } },
      spec: { containers: [] },
    } as KubeObject;
    expect(
      liveReport([ungated, webService(), pdb(), pod], { haptic: haptic('haproxy:3.0') }).subjects.map(
        (s) => s.ref.kind,
      ),
    ).toEqual(['Deployment', 'HAProxyTemplateConfig']);
    expect(
      liveReport([ungated, webService(), pdb()], { haptic: haptic('haproxy:3.0') }).subjects.map((s) => s.ref.kind),
    ).toEqual(['Deployment']);
  });

  it('a plain HAProxy Deployment in front of a checked one is checked too, found through its config', () => {
    const backend = webService((s) => {
      s.metadata.name = 'web-headless';
      s.spec.clusterIP = 'None';
    });
    const inFront = haproxy((d) => delete d.spec.template.spec.containers[0]!.lifecycle);
    const r = liveReport([web(), webService(), backend, pdb(), inFront, haproxyConfigMap(GOOD_CFG)], {
      targets: [{ ...web(), kind: 'Deployment' }],
    });
    expect(r.subjects.map((s) => [s.ref.name, s.role])).toEqual([
      ['web', undefined],
      ['haproxy', 'HAProxy in front of web'],
    ]);
    expect(r.subjects[1]?.findings.map((f) => f.id)).toEqual(['DR201']);
  });
});
