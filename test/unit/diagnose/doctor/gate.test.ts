// DR501–DR502 (what endpoints say) and DR601–DR605 (the gate and the rollout strategy): trap and fixed form.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/types/kube.ts';
import { GATE, ids, liveReport, one, pdb, staticReport, web, webService } from '../../fixtures/doctor.ts';
import { hapticInputs } from '../../fixtures/rollout.ts';

const hpa = {
  apiVersion: 'autoscaling/v2',
  kind: 'HorizontalPodAutoscaler',
  metadata: { name: 'web', namespace: 'shop' },
  spec: { scaleTargetRef: { kind: 'Deployment', name: 'web' }, minReplicas: 2, maxReplicas: 6 },
} as KubeObject;
const ungated = () => web((d) => delete d.spec.template.spec.readinessGates);

type Row = [string, string, string | undefined, () => KubeObject[], () => KubeObject[]];
const rows: Row[] = [
  [
    'publishNotReadyAddresses on a Service of gated pods',
    'DR501',
    undefined,
    () => [web(), webService((s) => (s.spec.publishNotReadyAddresses = true)), pdb()],
    () => [web(), webService(), pdb()],
  ],
  ['gated, no Service selects the pods', 'DR601', 'none', () => [web(), pdb()], () => [web(), webService(), pdb()]],
  [
    'gated, a near-miss Service',
    'DR601',
    'nearMiss',
    () => [web(), webService((s) => (s.spec.selector = { app: 'wbe' })), pdb()],
    () => [web(), webService(), pdb()],
  ],
  [
    'one replica, maxUnavailable 1',
    'DR603',
    'rolling',
    () => [
      web((d) => {
        d.spec.replicas = 1;
        d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: 0, maxUnavailable: 1 } };
      }),
      webService(),
    ],
    () => [web((d) => (d.spec.replicas = 1)), webService()],
  ],
  [
    'one replica (replicas unset), default strategy rounds 25% surge up',
    'DR603',
    'recreate',
    () => [
      web((d) => {
        delete d.spec.replicas;
        d.spec.strategy = { type: 'Recreate' };
      }),
      webService(),
    ],
    () => [
      web((d) => {
        delete d.spec.replicas;
        delete d.spec.strategy;
      }),
      webService(),
    ],
  ],
  [
    'gated with minReadySeconds 0',
    'DR604',
    undefined,
    () => [web((d) => delete d.spec.minReadySeconds), webService(), pdb()],
    () => [web(), webService(), pdb()],
  ],
  [
    'an HPA and spec.replicas in the manifest',
    'DR605',
    undefined,
    () => [web(), webService(), pdb(), hpa],
    () => [web((d) => delete d.spec.replicas), webService(), pdb(), hpa],
  ],
];

describe('gate and rollout: trap and fixed form', () => {
  it.each(rows)('%s → %s', (_, id, variant, trap, fixed) => {
    const found = one(staticReport(trap()), id);
    expect(found).toHaveLength(1);
    expect(found[0]?.variant).toBe(variant);
    expect(ids(staticReport(fixed()))).not.toContain(id);
  });

  it('the gate checks are not asked of an ungated Deployment', () => {
    expect(ids(staticReport([ungated(), webService((s) => (s.spec.publishNotReadyAddresses = true)), pdb()]))).toEqual(
      [],
    );
    expect(
      ids(
        staticReport([
          web((d) => {
            delete d.spec.template.spec.readinessGates;
            delete d.spec.minReadySeconds;
          }),
          pdb(),
        ]),
      ),
    ).toEqual([]);
  });
});

describe('evidence', () => {
  it("DR601 shares why-stalled and enable-gate's words for Services and near misses", () => {
    const [f] = one(staticReport([web(), webService((s) => (s.spec.selector = { app: 'wbe' })), pdb()]), 'DR601');
    expect(f?.title).toBe(
      `deployment web lists readiness gate ${GATE}, but no Service in namespace shop selects its pods: they would never become Ready`,
    );
    expect(f?.evidence).toEqual([
      'pod template labels: app=web,tier=front',
      'Services in namespace shop: web (app=wbe)',
      'service/web almost matches: it wants app=wbe, the template has app=web',
    ]);
  });

  it('DR603 shows the strategy as written and as the Deployment controller resolves it', () => {
    const [f] = one(
      staticReport([
        web((d) => {
          d.spec.replicas = 1;
          d.spec.strategy = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: 1 } };
        }),
        webService(),
      ]),
      'DR603',
    );
    expect(f?.evidence).toEqual([
      'replicas: spec.replicas 1',
      'spec.strategy.rollingUpdate: maxSurge 25%, maxUnavailable 1',
      'resolved for 1 replica: maxSurge 1, maxUnavailable 1',
    ]);
  });

  it('DR605 live: only when a field manager other than the HPA set spec.replicas', () => {
    const applied = web(
      (d) =>
        (d.metadata.managedFields = [
          { manager: 'kubectl-client-side-apply', operation: 'Update', fieldsV1: { 'f:spec': { 'f:replicas': {} } } },
        ]),
    );
    const scaled = web(
      (d) =>
        (d.metadata.managedFields = [
          {
            manager: 'kube-controller-manager',
            operation: 'Update',
            subresource: 'scale',
            fieldsV1: { 'f:spec': { 'f:replicas': {} } },
          },
        ]),
    );
    expect(one(liveReport([applied, webService(), pdb(), hpa]), 'DR605')[0]?.evidence).toEqual([
      'horizontalpodautoscaler/web: scaleTargetRef Deployment web, minReplicas 2, maxReplicas 6',
      'spec.replicas: 3, set by field manager kubectl-client-side-apply (Update)',
    ]);
    expect(ids(liveReport([scaled, webService(), pdb(), hpa]))).not.toContain('DR605');
  });
});

describe('DR502 (live): endpoints terminating and still serving', () => {
  const slice = (endpoints: { pod: string; terminating: boolean; serving?: boolean }[]) => ({
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-abc', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    endpoints: endpoints.map((e, i) => ({
      addresses: [`10.0.0.${i + 1}`],
      conditions: { ready: !e.terminating, serving: e.serving ?? true, terminating: e.terminating },
      targetRef: { kind: 'Pod', name: e.pod, namespace: 'shop' },
    })),
  });
  const pod = (name: string) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'shop', labels: { app: 'web', tier: 'front' } },
    spec: { containers: [] },
  });
  const objects = (endpoints: { pod: string; terminating: boolean; serving?: boolean }[]) =>
    [web(), webService(), pdb(), ...endpoints.map((e) => pod(e.pod)), slice(endpoints)] as KubeObject[];

  it.each([
    [
      'every endpoint terminating, serving',
      [
        { pod: 'web-a', terminating: true },
        { pod: 'web-b', terminating: true },
      ],
      'allTerminating',
      'warning',
    ],
    [
      'one terminating while another is ready',
      [
        { pod: 'web-a', terminating: true },
        { pod: 'web-b', terminating: false },
      ],
      'someTerminating',
      'info',
    ],
    [
      'terminating and no longer serving',
      [
        { pod: 'web-a', terminating: true, serving: false },
        { pod: 'web-b', terminating: false },
      ],
      undefined,
      undefined,
    ],
    ['nothing terminating', [{ pod: 'web-a', terminating: false }], undefined, undefined],
  ])('%s', (_, endpoints, variant, severity) => {
    const found = one(liveReport(objects(endpoints)), 'DR502');
    expect(found.map((f) => [f.variant, f.severity])).toEqual(variant ? [[variant, severity]] : []);
  });

  it('names the slice, the pod and its conditions', () => {
    const [f] = one(
      liveReport(
        objects([
          { pod: 'web-a', terminating: true },
          { pod: 'web-b', terminating: true },
        ]),
      ),
      'DR502',
    );
    expect(f?.title).toBe(
      'every endpoint of service web is terminating, still serving: 2 (web-a, web-b); kube-proxy falls back to them, so they get new connections while they shut down',
    );
    expect(f?.evidence).toEqual([
      'endpointslice/web-abc: pod web-a 10.0.0.1 ready=false serving=true terminating=true',
      'endpointslice/web-abc: pod web-b 10.0.0.2 ready=false serving=true terminating=true',
      'service/web: all 2 endpoints are terminating, none is ready',
    ]);
    // one of them: no "1 of the endpoints … are"
    const [some] = one(
      liveReport(
        objects([
          { pod: 'web-a', terminating: true },
          { pod: 'web-b', terminating: false },
        ]),
      ),
      'DR502',
    );
    expect(some?.title).toBe(
      'endpoints of service web terminating but still serving: 1 (web-a); ready=false only stops new ordinary traffic, and each must finish what it accepted',
    );
  });
});

describe('DR602 (live): the gate with nobody to set it', () => {
  it.each([
    [
      'no HAPTIC installation',
      {
        ...hapticInputs(),
        templateConfigs: {
          items: [],
          error: { kind: 'NotFound', message: 'the server could not find the requested resource' },
        },
      },
      'absent',
    ],
    ['the gate feature off', hapticInputs({ gateFeature: false }), 'off'],
    ['a healthy installation', hapticInputs(), undefined],
  ])('%s', (_, haptic, variant) => {
    const found = one(liveReport([web(), webService(), pdb()], { haptic }), 'DR602');
    expect(found.map((f) => f.variant)).toEqual(variant ? [variant] : []);
  });

  it('when HAPTIC cannot be read, says so in a note instead of guessing', () => {
    const r = liveReport([web(), webService(), pdb()], {
      haptic: { ...hapticInputs(), templateConfigs: { items: [], error: { kind: 'Forbidden', message: 'forbidden' } } },
    });
    expect(ids(r)).not.toContain('DR602');
    expect(r.notes).toContain(
      'DR602 not judged for deployment shop/web: cannot read HAProxyTemplateConfigs: forbidden',
    );
  });
});
