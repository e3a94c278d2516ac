// The follower's history and the rollout report built from it: times from the objects where they carry them, from
// the observation otherwise, none for what happened before the follower started; drains against the grace period.
import { describe, expect, it } from 'vitest';
import { observe } from '../../../../src/model/rollout/history.ts';
import { buildReport } from '../../../../src/model/rollout/report.ts';
import { buildRollout } from '../../../../src/model/rollout/rollout.ts';
import { deployment, hapticInputs, NOW, pod, slice, snapshot } from '../../fixtures/rollout.ts';

const servers = [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }];
const model = (pods: ReturnType<typeof pod>[], o: { complete?: boolean } = {}) =>
  buildRollout(
    snapshot({
      deployment: o.complete
        ? deployment({
            status: { observedGeneration: 2, replicas: 1, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
            replicas: 1,
          })
        : deployment({ replicas: 1 }),
      pods,
      slices: [
        slice(
          pods
            .filter((p) => p.status?.podIP)
            .map((p) => ({
              pod: p.metadata.name,
              ip: p.status!.podIP!,
              ready: !p.metadata.deletionTimestamp,
              terminating: !!p.metadata.deletionTimestamp,
            })),
        ),
      ],
      haptic: hapticInputs({ servers }),
    }),
    NOW,
  );

describe('observe', () => {
  it('takes times from conditions and deadlines; stages already reached at the start have none', () => {
    const first = observe(
      undefined,
      model([pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' })]),
      NOW,
      false,
    );
    // the fixture's conditions: ContainersReady 20 s before NOW, the gate and Ready 18 s before
    expect(first.pods['uid-web-new-1']).toMatchObject({
      role: 'new',
      containersReadyAt: NOW - 20_000,
      gateAt: NOW - 18_000,
      readyAt: NOW - 18_000,
      routedAt: null,
    });
    expect(first.configs).toEqual([
      {
        installation: 'haptic/haptic-config',
        checksum: '7c1f5e2a9b0d4e63',
        firstSeenAt: null,
        convergedAt: NOW,
        haproxyPods: 2,
      },
    ]);
  });

  it('an old pod: deletion from its deadline and grace period, gone when it leaves the model', () => {
    const draining = pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: 25 });
    const h1 = observe(
      undefined,
      model([draining, pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' })]),
      NOW,
      false,
    );
    expect(h1.pods['uid-web-old-1']).toMatchObject({
      role: 'old',
      deletedAt: NOW - 5_000,
      deadlineAt: NOW + 25_000,
      unreadyAt: null,
    });
    const h2 = observe(
      h1,
      model([pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' })], { complete: true }),
      NOW + 8_000,
      true,
    );
    expect(h2.pods['uid-web-old-1']).toMatchObject({ goneAt: NOW + 8_000, exitedAt: NOW + 8_000 });
    expect(h2).toMatchObject({ startedAt: NOW, doneAt: NOW + 8_000, progressed: true });
  });
});

describe('buildReport', () => {
  it('gate latency per pod, Ready → deletion, drains against the grace period, HAProxy convergence', () => {
    const report = buildReport(model([], { complete: true }), {
      startedAt: NOW - 40_000,
      doneAt: NOW,
      progressed: true,
      pods: {
        a: {
          name: 'web-new-a',
          role: 'new',
          containersReadyAt: NOW - 30_000,
          gateAt: NOW - 29_000,
          readyAt: NOW - 29_000,
        },
        b: {
          name: 'web-new-b',
          role: 'new',
          containersReadyAt: NOW - 20_000,
          gateAt: NOW - 17_000,
          readyAt: NOW - 17_000,
        },
        c: { name: 'web-new-c', role: 'new', containersReadyAt: null, gateAt: null },
        x: {
          name: 'web-old-x',
          role: 'old',
          deletedAt: NOW - 28_500,
          deadlineAt: NOW + 1_500,
          exitedAt: NOW - 24_500,
          goneAt: NOW - 24_000,
        },
        y: {
          name: 'web-old-y',
          role: 'old',
          deletedAt: NOW - 16_000,
          deadlineAt: NOW + 14_000,
          exitedAt: NOW + 14_000,
          goneAt: NOW + 14_200,
        },
      },
      configs: [
        {
          installation: 'haptic/haptic-config',
          checksum: 'aaaa',
          firstSeenAt: NOW - 30_000,
          convergedAt: NOW - 29_200,
          haproxyPods: 2,
        },
        {
          installation: 'haptic/haptic-config',
          checksum: 'bbbb',
          firstSeenAt: null,
          convergedAt: NOW - 40_000,
          haproxyPods: 2,
        },
      ],
    });
    expect(report).toMatchObject({
      kind: 'RolloutReport',
      totalMs: 40_000,
      gateLatency: {
        minMs: 1_000,
        medianMs: 2_000,
        maxMs: 3_000,
        count: 2,
        pods: [
          { pod: 'web-new-a', ms: 1_000 },
          { pod: 'web-new-b', ms: 3_000 },
        ],
      },
      readyToDeletion: {
        pairs: [
          { newPod: 'web-new-a', oldPod: 'web-old-x', ms: 500 },
          { newPod: 'web-new-b', oldPod: 'web-old-y', ms: 1_000 },
        ],
      },
      drains: [
        { pod: 'web-old-x', drainMs: 4_000, graceMs: 30_000, killedAtEndOfGrace: false, gone: true },
        { pod: 'web-old-y', drainMs: 30_000, graceMs: 30_000, killedAtEndOfGrace: true, gone: true },
      ],
      // a config already live when the follower started has no known start: left out
      haproxy: [{ checksum: 'aaaa', convergenceMs: 800, haproxyPods: 2 }],
    });
  });
});

describe("a StatefulSet's pod made again under its name", () => {
  it('is a new pod of its own in the history and the transitions, and its predecessor is gone', async () => {
    const { loadScenario, snapshotOf } = await import('../../../fixtures/load.ts');
    const { transitions: changes, transitionText } = await import('../../../../src/model/rollout/transitions.ts');
    const transitions = (...a: Parameters<typeof changes>) => changes(...a).map(transitionText);
    const before = snapshotOf(loadScenario('hs214-on-delete'), 'web');
    // web-2 deleted by hand (OnDelete) and made again from the update revision, under the same name
    const after = structuredClone(before);
    const web2 = after.pods.find((p) => p.metadata.name === 'web-2')!;
    web2.metadata.uid = 'uid-web-2-again';
    web2.metadata.labels!['controller-revision-hash'] = 'web-7f5b4';
    web2.metadata.creationTimestamp = '2026-11-29T11:59:58Z';
    const m1 = buildRollout(before, NOW);
    const m2 = buildRollout(after, NOW + 2000);
    const h1 = observe(undefined, m1, NOW, false);
    const h2 = observe(h1, m2, NOW + 2000, false);
    expect(h2.pods['uid-web-2']).toMatchObject({ name: 'web-2', role: 'old', goneAt: NOW + 2000 });
    expect(h2.pods['uid-web-2-again']).toMatchObject({ name: 'web-2', role: 'new' });
    expect(transitions(m1, m2, { history: h2, now: NOW + 2000 })).toEqual(
      expect.arrayContaining(['pod/web-2 created', 'pod/web-2 (old) gone']),
    );
  });
});
