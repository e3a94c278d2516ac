// A StatefulSet's rollout as kubectl rollout status (StatefulSetStatusViewer) and the StatefulSet controller decide
// it: the phase and its words, pods by revision in ordinal order, the controller's maxUnavailable, what a partition
// holds and which claims are not bound.
import { describe, expect, it } from 'vitest';
import {
  byOrdinal,
  ordinalOf,
  splitByRevision,
  statefulSetPhase,
  statefulSetStrategy,
  statefulSetView,
} from '../../../../src/model/rollout/statefulset.ts';
import type { KubeEvent, PersistentVolumeClaim, Pod, StatefulSet } from '../../../../src/types/kube.ts';

const sts = (
  spec: Partial<StatefulSet['spec']> = {},
  status: StatefulSet['status'] = {},
  generation = 2,
): StatefulSet => ({
  metadata: { name: 'db', namespace: 'shop', generation },
  spec: {
    replicas: 3,
    selector: { matchLabels: { app: 'db' } },
    template: { spec: { containers: [] } },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
    ...spec,
  },
  status: {
    observedGeneration: 2,
    replicas: 3,
    readyReplicas: 3,
    updatedReplicas: 3,
    currentRevision: 'db-1',
    updateRevision: 'db-2',
    currentReplicas: 0,
    ...status,
  },
});

describe('statefulSetPhase: kubectl rollout status statefulset, rule by rule', () => {
  it.each([
    [
      'OnDelete',
      sts({ updateStrategy: { type: 'OnDelete' } }),
      'paused',
      'rollout status is only available for RollingUpdate strategy type',
    ],
    [
      'not observed',
      sts({}, { observedGeneration: 1 }),
      'progressing',
      'Waiting for statefulset spec update to be observed...',
    ],
    [
      'never observed',
      sts({}, { observedGeneration: 0 }, 0),
      'progressing',
      'Waiting for statefulset spec update to be observed...',
    ],
    ['pods not ready', sts({}, { readyReplicas: 1 }), 'progressing', 'Waiting for 2 pods to be ready...'],
    [
      'partitioned, under way',
      sts({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 1 } } }, { updatedReplicas: 1 }),
      'progressing',
      'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...',
    ],
    [
      'partition 0 (the API server default), under way',
      sts({}, { updatedReplicas: 2 }),
      'progressing',
      'Waiting for partitioned roll out to finish: 2 out of 3 new pods have been updated...',
    ],
    [
      'partitioned, done',
      sts({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }, { updatedReplicas: 1 }),
      'complete',
      'partitioned roll out complete: 1 new pods have been updated...',
    ],
    [
      'no rollingUpdate, revisions differ',
      sts({ updateStrategy: { type: 'RollingUpdate' } }, { updatedReplicas: 2 }),
      'progressing',
      'waiting for statefulset rolling update to complete 2 pods at revision db-2...',
    ],
    [
      'no rollingUpdate, one revision',
      sts({ updateStrategy: {} }, { currentRevision: 'db-2', currentReplicas: 3 }),
      'complete',
      'statefulset rolling update complete 3 pods at revision db-2...',
    ],
  ] as const)('%s', (_, s, phase, message) => expect(statefulSetPhase(s)).toEqual({ phase, message }));
});

describe('pods by revision, in ordinal order', () => {
  const pod = (name: string, revision: string) =>
    ({ metadata: { name, labels: { 'controller-revision-hash': revision } }, spec: { containers: [] } }) as Pod;

  it('reads the ordinal from NAME-ORDINAL only', () => {
    expect([
      ordinalOf('db-0', 'db'),
      ordinalOf('db-12', 'db'),
      ordinalOf('db-01', 'db'),
      ordinalOf('dbx-1', 'db'),
      ordinalOf('db-a', 'db'),
    ]).toEqual([0, 12, undefined, undefined, undefined]);
    expect(
      ['db-10', 'db-2', 'db-1']
        .map((name) => ({ name }))
        .sort(byOrdinal('db'))
        .map((p) => p.name),
    ).toEqual(['db-1', 'db-2', 'db-10']);
  });

  it('new pods carry the update revision in controller-revision-hash; the others are old', () => {
    const split = splitByRevision(sts(), [pod('db-0', 'db-1'), pod('db-1', 'db-1'), pod('db-2', 'db-2')]);
    expect([split.newPods.map((p) => p.metadata.name), split.oldPods.map((p) => p.metadata.name)]).toEqual([
      ['db-2'],
      ['db-0', 'db-1'],
    ]);
    // before the controller has written an update revision, nothing is new
    expect(splitByRevision(sts({}, { updateRevision: undefined }), [pod('db-0', 'db-1')]).newPods).toEqual([]);
  });
});

describe('statefulSetStrategy: the controller, not the Deployment arithmetic', () => {
  it.each([
    [undefined, 3, 1],
    [2, 3, 2],
    ['50%', 3, 1],
    ['10%', 3, 1],
    ['67%', 3, 2],
  ] as const)(
    'maxUnavailable %s of %s replicas is %s (scaled down, at least 1), never a surge',
    (value, replicas, expected) => {
      const s = sts({
        replicas,
        updateStrategy: { type: 'RollingUpdate', rollingUpdate: value === undefined ? {} : { maxUnavailable: value } },
      });
      expect(statefulSetStrategy(s)).toEqual({ type: 'RollingUpdate', maxSurge: 0, maxUnavailable: expected });
    },
  );
  it('OnDelete rolls nothing by itself', () => {
    expect(statefulSetStrategy(sts({ updateStrategy: { type: 'OnDelete' } }))).toEqual({
      type: 'OnDelete',
      maxSurge: 0,
      maxUnavailable: 0,
    });
  });
});

describe('statefulSetView', () => {
  it('holds the ordinals below start + partition, and names claims that exist and are not bound with their latest warning', () => {
    const s = sts({
      ordinals: { start: 1 },
      updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } },
      volumeClaimTemplates: [{ metadata: { name: 'data' } }],
    });
    const claim = (name: string, phase: string) =>
      ({ metadata: { name, namespace: 'shop' }, status: { phase } }) as PersistentVolumeClaim;
    const event = (message: string, last: string) =>
      ({
        metadata: { name: `e-${last}` },
        type: 'Warning',
        reason: 'FailedBinding',
        message,
        involvedObject: { kind: 'PersistentVolumeClaim', name: 'data-db-3' },
        lastTimestamp: last,
      }) as KubeEvent;
    const view = statefulSetView(
      s,
      ['db-1', 'db-2', 'db-3'],
      [claim('data-db-1', 'Bound'), claim('data-db-3', 'Pending'), claim('data-other-3', 'Pending')],
      [event('older', '2026-11-29T11:00:00Z'), event('newest', '2026-11-29T11:59:00Z')],
    );
    expect(view).toMatchObject({
      partition: 2,
      startOrdinal: 1,
      heldByPartition: ['db-1', 'db-2'],
      pendingClaims: [
        { name: 'data-db-3', ordinal: 3, phase: 'Pending', event: { reason: 'FailedBinding', message: 'newest' } },
      ],
    });
  });

  it('works by the claims that exist: 2^31-1 replicas with two claim templates answer at once, in ordinal order', () => {
    const s = sts({
      replicas: 2_147_483_647,
      volumeClaimTemplates: [{ metadata: { name: 'data' } }, { metadata: { name: 'logs' } }],
    });
    const claim = (name: string) =>
      ({ metadata: { name, namespace: 'shop' }, status: { phase: 'Pending' } }) as PersistentVolumeClaim;
    const view = statefulSetView(
      s,
      [],
      // not the controller's names: a leading zero, a sign, an ordinal past the replicas
      ['logs-db-7', 'data-db-2147483646', 'data-db-7', 'data-db-07', 'data-db-+1', 'data-db-2147483647'].map(claim),
      [],
    );
    expect(view.pendingClaims.map((c) => [c.name, c.ordinal])).toEqual([
      ['data-db-7', 7],
      ['logs-db-7', 7],
      ['data-db-2147483646', 2147483646],
    ]);
  });
});
