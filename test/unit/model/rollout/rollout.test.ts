import { describe, expect, it } from 'vitest';
import { buildHaptic } from '../../../../src/model/haptic/haptic.ts';
import { buildRollout, withOwnServers } from '../../../../src/model/rollout/rollout.ts';
import {
  CHECKSUM,
  deployment,
  GATE,
  hapticInputs,
  NOW,
  pod,
  replicaSet,
  service,
  slice,
  snapshot,
} from '../../fixtures/rollout.ts';

const haptic = (o: Parameters<typeof hapticInputs>[0] = {}) => hapticInputs(o);
const oldPods = [
  pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
  pod({ name: 'web-old-2', rs: '1', ip: '10.0.0.2' }),
];

describe('buildRollout: new pods and the gate', () => {
  it('gate missing: containers ready, not Ready, HAProxy routes to it on 1 of 2 pods', () => {
    const m = buildRollout(
      snapshot({
        pods: [...oldPods, pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'missing' })],
        slices: [
          slice([
            { pod: 'web-old-1', ip: '10.0.0.1', ready: true },
            { pod: 'web-old-2', ip: '10.0.0.2', ready: true },
            { pod: 'web-new-1', ip: '10.0.0.3', ready: false },
          ]),
        ],
        haptic: haptic({
          servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }],
          fleet: [
            { name: 'haptic-haproxy-a', runs: 'current' },
            { name: 'haptic-haproxy-b', runs: 'retained' },
          ],
        }),
      }),
      NOW,
    );
    expect(m.phase).toBe('progressing');
    expect(m.message).toBe(
      'Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...',
    );
    expect(m.gated).toBe(true);
    expect(m.newReplicaSet?.name).toBe('web-rs2');
    expect(m.oldPods.map((p) => p.name)).toEqual(['web-old-1', 'web-old-2']);
    const p = m.newPods[0]!;
    expect(p.containersReady.status).toBe('True');
    expect(p.gate).toMatchObject({ state: 'missing', type: GATE });
    expect(p.ready.status).toBe('False');
    expect(p.endpoints).toEqual([
      { service: 'web', slice: 'web-abc', ready: false, serving: false, terminating: false },
    ]);
    expect(p.haproxy).toEqual([
      {
        installation: 'haptic/haptic-config',
        inConfig: true,
        disabled: false,
        runningOn: 1,
        unknown: 0,
        of: 2,
        pods: [
          {
            name: 'haptic-haproxy-a',
            checksum: CHECKSUM.current,
            source: 'live',
            settled: true,
            routes: true,
            pending: undefined,
          },
          {
            name: 'haptic-haproxy-b',
            checksum: CHECKSUM.old,
            source: 'retained',
            settled: true,
            routes: false,
            pending: undefined,
          },
        ],
      },
    ]);
  });

  describe('what each HAProxy pod runs, without observedGeneration', () => {
    const routes = { servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] };
    const newPod = () => pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'missing' });
    const route = (o: Parameters<typeof hapticInputs>[0]) =>
      buildRollout(snapshot({ pods: [newPod()], haptic: haptic({ ...routes, ...o }) }), NOW).newPods[0]!.haproxy[0];
    it.each<[string, Parameters<typeof hapticInputs>[0], { runningOn: number; unknown: number }]>([
      ['both run the live config', {}, { runningOn: 2, unknown: 0 }],
      [
        'one runs a retained config without the server',
        {
          fleet: [
            { name: 'a', runs: 'current' },
            { name: 'b', runs: 'retained' },
          ],
        },
        { runningOn: 1, unknown: 0 },
      ],
      [
        'one runs a retained config that routes the pod too',
        {
          fleet: [
            { name: 'a', runs: 'current' },
            { name: 'b', runs: 'retained' },
          ],
          oldServers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }],
        },
        { runningOn: 2, unknown: 0 },
      ],
      [
        'one runs an older config nobody keeps: cannot tell, never counted',
        {
          fleet: [
            { name: 'a', runs: 'current' },
            { name: 'b', runs: 'old' },
          ],
        },
        { runningOn: 1, unknown: 1 },
      ],
      [
        'one has a reload pending (running plan behind the applied one)',
        {
          fleet: [
            { name: 'a', runs: 'current' },
            { name: 'b', runs: 'current', reloadPending: true },
          ],
        },
        { runningOn: 1, unknown: 0 },
      ],
      [
        'one rejected the plan',
        {
          fleet: [
            { name: 'a', runs: 'current' },
            { name: 'b', runs: 'current', mode: 'rejected', reasons: ['config check failed'] },
          ],
        },
        { runningOn: 1, unknown: 0 },
      ],
      [
        'one was never deployed to',
        {
          fleet: [
            { name: 'a', runs: 'current' },
            { name: 'b', runs: 'none' },
          ],
        },
        { runningOn: 1, unknown: 0 },
      ],
    ])('%s', (_, o, want) => expect(route(o)).toMatchObject({ ...want, of: 2 }));

    it("a one-shot answer keeps its own pods' servers only, live and retained, and the routing built from all", () => {
      const others = [
        { pod: 'api-1', ip: '10.0.1.1', disabled: false },
        { pod: 'api-2', ip: '10.0.1.2', disabled: true },
      ];
      const m = buildRollout(
        snapshot({
          pods: [newPod()],
          haptic: haptic({
            servers: [...others, ...routes.servers],
            oldServers: [others[0]!, { pod: 'web-new-1', ip: '10.0.0.3', disabled: true }],
            fleet: [
              { name: 'a', runs: 'current' },
              { name: 'b', runs: 'retained' },
            ],
          }),
        }),
        NOW,
      );
      expect(m.installations[0]!.config!.servers.map((s) => s.pod)).toEqual(['api-1', 'api-2', 'web-new-1']);
      const own = withOwnServers(m);
      expect(own.installations[0]!.config!.servers.map((s) => s.pod)).toEqual(['web-new-1']);
      expect(
        own.installations[0]!.config!.retained.map((r) =>
          r.servers?.map((s) => `${s.pod}${s.disabled ? ' disabled' : ''}`),
        ),
      ).toEqual([['web-new-1 disabled']]);
      expect(own.newPods).toBe(m.newPods);
      expect(own.newPods[0]!.haproxy[0]).toMatchObject({ inConfig: true, runningOn: 1, of: 2 });
      // the model it came from is untouched (a follower's, or another model's in -A, may share its installations)
      expect(m.installations[0]!.config!.servers).toHaveLength(3);
    });

    it('remembers configs it saw: an older config read earlier in watch mode still tells', () => {
      const seen = buildHaptic(
        haptic({
          ...routes,
          fleet: [
            { name: 'a', runs: 'current' },
            { name: 'b', runs: 'old' },
          ],
        }),
        NOW,
      );
      const memory = new Map([[`haptic/${CHECKSUM.old}`, seen.installations[0]!.config!.servers]]);
      const m = buildRollout(
        snapshot({
          pods: [newPod()],
          haptic: haptic({
            ...routes,
            fleet: [
              { name: 'a', runs: 'current' },
              { name: 'b', runs: 'old' },
            ],
          }),
        }),
        NOW,
        { memory },
      );
      expect(m.newPods[0]!.haproxy[0]).toMatchObject({ runningOn: 2, unknown: 0 });
    });

    it('matches entries by podUID: an entry of an earlier pod with the same name is stale', () => {
      const inputs = haptic(routes);
      inputs.pods.items.find((p) => p.metadata.name === 'haptic-haproxy-b')!.metadata.uid = 'uid-recreated';
      const inst = buildHaptic(inputs, NOW).installations[0]!;
      const b = inst.haproxyPods.find((p) => p.name === 'haptic-haproxy-b')!;
      expect(b.entry).toBeUndefined();
      expect(b.staleEntry).toMatchObject({ podName: 'haptic-haproxy-b', podUID: 'uid-haptic-haproxy-b' });
    });

    it('HAPTIC configs the user may not read: routing cannot be told, and why', () => {
      const inputs = haptic(routes);
      const m = buildRollout(
        snapshot({
          pods: [newPod()],
          haptic: {
            ...inputs,
            haproxyCfgs: {
              items: [],
              error: { kind: 'Forbidden', message: 'forbidden: cannot list haproxycfgs.haproxy-haptic.org' },
            },
          },
        }),
        NOW,
      );
      expect(m.newPods[0]!.haproxyUnreadable).toBe(
        'cannot read HAProxyCfgs: forbidden: cannot list haproxycfgs.haproxy-haptic.org',
      );
    });
  });

  it('gate True: latency from ContainersReady, HAProxy counted as converged on every pod with an entry', () => {
    const m = buildRollout(
      snapshot({
        pods: [pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' })],
        haptic: haptic({
          servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }],
          fleet: [
            { name: 'haptic-haproxy-a', runs: 'old' },
            { name: 'haptic-haproxy-b', runs: 'current' },
          ],
        }),
      }),
      NOW,
    );
    const p = m.newPods[0]!;
    expect(p.gate.state).toBe('True');
    expect(p.gateLatencyMs).toBe(2000);
    expect(p.ready.status).toBe('True');
    expect(p.haproxy[0]).toMatchObject({ runningOn: 2, of: 2 });
  });

  it('gate False is reported as such; a pod no Service selects has no endpoints', () => {
    const m = buildRollout(
      snapshot({
        services: [service({ app: 'other' }, 'other')],
        pods: [pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'False' })],
        haptic: haptic(),
      }),
      NOW,
    );
    expect(m.newPods[0]).toMatchObject({ gate: { state: 'False' }, services: [], endpoints: [], haproxy: [] });
  });

  it('a Deployment without the gate in its template is not gated', () => {
    const m = buildRollout(
      snapshot({
        deployment: deployment({ gated: false }),
        replicaSets: [replicaSet('1'), replicaSet('2', false)],
        pods: [],
        haptic: haptic(),
      }),
      NOW,
    );
    expect(m.gated).toBe(false);
  });
});

describe('buildRollout: old pods draining', () => {
  it('terminating with the endpoint still serving, grace left, HAProxy server disabled everywhere', () => {
    const m = buildRollout(
      snapshot({
        deployment: deployment({
          status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
        }),
        pods: [
          pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: 12 }),
          pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' }),
          pod({ name: 'web-new-2', rs: '2', ip: '10.0.0.4', gate: 'True' }),
        ],
        slices: [slice([{ pod: 'web-old-1', ip: '10.0.0.1', ready: false, serving: true, terminating: true }])],
        haptic: haptic({ servers: [{ pod: 'web-old-1', ip: '10.0.0.1', disabled: true }] }),
      }),
      NOW,
    );
    expect(m.phase).toBe('complete');
    expect(m.drained).toBe(false);
    expect(m.counts.terminating).toBe(1);
    const old = m.oldPods[0]!;
    expect(old.terminating).toEqual({
      since: '2026-11-29T11:59:42.000Z',
      deadline: '2026-11-29T12:00:12Z',
      graceRemainingMs: 12_000,
      pastDeadline: false,
      finalizers: [],
    });
    expect(old.endpoints[0]).toMatchObject({ ready: false, serving: true, terminating: true });
    expect(old.haproxy[0]).toMatchObject({ disabled: true, runningOn: 2, of: 2 });
  });

  it('past its deadline with a finalizer, and drained once old pods are gone', () => {
    const stuck = buildRollout(
      snapshot({
        deployment: deployment({
          status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 },
        }),
        pods: [
          pod({
            name: 'web-old-1',
            rs: '1',
            ip: '10.0.0.1',
            terminatingDeadlineIn: -40,
            finalizers: ['example.com/cleanup'],
          }),
        ],
        haptic: haptic(),
      }),
      NOW,
    );
    expect(stuck.oldPods[0]?.terminating).toMatchObject({
      pastDeadline: true,
      graceRemainingMs: 0,
      finalizers: ['example.com/cleanup'],
    });
    const done = buildRollout(
      snapshot({
        deployment: deployment({
          status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 2 },
        }),
        pods: [],
        haptic: haptic(),
      }),
      NOW,
    );
    expect(done).toMatchObject({
      phase: 'complete',
      drained: true,
      message: 'deployment "web" successfully rolled out',
    });
  });
});

describe('buildRollout: phase by kubectl rollout status rules', () => {
  it.each([
    [
      'spec not observed',
      { generation: 3 },
      'progressing',
      'Waiting for deployment "web" spec update to be observed...',
    ],
    [
      'deadline exceeded',
      {
        status: {
          observedGeneration: 2,
          replicas: 3,
          updatedReplicas: 1,
          conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
        },
      },
      'failed',
      'deployment "web" exceeded its progress deadline',
    ],
    [
      'paused',
      { paused: true },
      'paused',
      'deployment "web" is paused: Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...',
    ],
    [
      'old replicas pending',
      { status: { observedGeneration: 2, replicas: 3, updatedReplicas: 2, availableReplicas: 2 } },
      'progressing',
      'Waiting for deployment "web" rollout to finish: 1 old replicas are pending termination...',
    ],
    [
      'updated not available',
      { status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2, availableReplicas: 1 } },
      'progressing',
      'Waiting for deployment "web" rollout to finish: 1 of 2 updated replicas are available...',
    ],
  ] as const)('%s', (_, over, phase, message) => {
    const m = buildRollout(
      snapshot({ deployment: deployment(over as Parameters<typeof deployment>[0]), haptic: haptic() }),
      NOW,
    );
    expect({ phase: m.phase, message: m.message }).toEqual({ phase, message });
  });
});

describe('buildHaptic', () => {
  it('reads leader, convergence and the gate feature', () => {
    const h = buildHaptic(
      hapticInputs({
        fleet: [
          { name: 'haptic-haproxy-a', runs: 'current' },
          { name: 'haptic-haproxy-b', runs: 'old', lastError: 'connection refused' },
        ],
      }),
      NOW,
    );
    const inst = h.installations[0]!;
    expect(inst.leader).toMatchObject({ state: 'held', holder: 'haptic-controller-1', lease: 'haptic' });
    expect(inst.haproxyPods.map((p) => [p.name, p.current, p.entry?.lastError])).toEqual([
      ['haptic-haproxy-a', true, undefined],
      ['haptic-haproxy-b', false, 'connection refused'],
    ]);
    expect(inst.gateFeature).toEqual({ state: 'allowed', clusterRoles: ['haptic'] });
  });

  it.each([
    ['stale lease', { leaseRenewedSecondsAgo: 40 }, 'stale'],
    ['holder gone', { holder: 'haptic-controller-9' }, 'holder-gone'],
    ['holder with suffix', { holder: 'haptic-controller-1_6f1c' }, 'held'],
  ] as const)('leader: %s', (_, o, state) =>
    expect(buildHaptic(hapticInputs(o), NOW).installations[0]?.leader.state).toBe(state),
  );

  it('gate feature off when no bound ClusterRole may patch pods/status; refused render read from conditions', () => {
    const inst = buildHaptic(hapticInputs({ gateFeature: false, refused: true }), NOW).installations[0]!;
    expect(inst.gateFeature).toEqual({ state: 'off', clusterRoles: ['haptic'] });
    expect(inst.config).toMatchObject({ pinned: true, configValidated: { status: 'False', reason: 'HAProxyRefused' } });
    expect(inst.validated).toMatchObject({ status: 'False', reason: 'HAProxyValidationFailed' });
  });
});
