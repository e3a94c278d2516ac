import type { StatefulSet } from '../../../types/kube.ts';
import { byOrdinal, splitByRevision, statefulSetPhase, statefulSetStrategy, statefulSetView } from '../statefulset.ts';
import { ownedBy, replicaCounts } from './deployment.ts';
import type { KindModule } from './kind.ts';

// A StatefulSet rolls its own pods, one ordinal at a time: new pods carry its update revision
// (controller-revision-hash), the others an older one (statefulset.ts says how).

type Tagged = StatefulSet & { kind: 'StatefulSet' };

export const statefulSetKind: KindModule<Tagged> = {
  kind: 'StatefulSet',
  word: 'statefulset',
  noun: 'statefulset.apps',
  bareName: false,
  pods: (w, snap) => ({
    ...splitByRevision(
      w,
      snap.pods.filter((p) => ownedBy(p, w.metadata.uid)),
    ),
    oldReplicaSets: [],
  }),
  phase: statefulSetPhase,
  strategy: statefulSetStrategy,
  revision: (w) => w.status?.updateRevision,
  counts: replicaCounts,
  progressDeadlineSeconds: () => 0,
  paused: () => false,
  conditions: () => undefined,
  order: (w) => byOrdinal(w.metadata.name),
  statefulSet: (w, oldPods, snap) => statefulSetView(w, oldPods, snap.claims, snap.events),
  oldPodsHold: true,
  followed: [{ group: 'apps', resource: 'statefulsets' }],
};
