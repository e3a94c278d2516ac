import type { Deployment, ReplicaSet } from '../../../types/kube.ts';
import { compareText } from '../../../lib/order.ts';
import { findCondition } from '../../conditions.ts';
import { resolveStrategy } from '../strategy.ts';
import type { RolloutSnapshot } from '../../../types/snapshot.ts';
import type { KindModule, Phase, RolloutPods } from './kind.ts';

// A Deployment rolls through ReplicaSets: its new pods are the new ReplicaSet's (the one of its current template),
// its old pods the other ReplicaSets' it owns (kubernetes/pkg/controller/deployment/util, FindNewReplicaSet).

type Tagged = Deployment & { kind: 'Deployment' };

const TEMPLATE_HASH = 'pod-template-hash';

/** Whether an object's controller is the object of this uid. */
export function ownedBy(
  obj: { metadata: { ownerReferences?: { uid: string; controller?: boolean }[] } },
  uid: string | undefined,
): boolean {
  return !!uid && (obj.metadata.ownerReferences ?? []).some((o) => o.uid === uid && o.controller !== false);
}

export function revisionOf(obj: { metadata: { annotations?: Record<string, string> } }): string | undefined {
  return obj.metadata.annotations?.['deployment.kubernetes.io/revision'];
}

/** The ReplicaSet whose template equals the Deployment's: same pod-template-hash, else the newest revision. */
function findNewReplicaSet(deployment: Deployment, owned: ReplicaSet[]): ReplicaSet | undefined {
  const revision = revisionOf(deployment);
  const byRevision = revision ? owned.find((rs) => revisionOf(rs) === revision) : undefined;
  if (
    byRevision &&
    JSON.stringify(stripHash(byRevision.spec.template)) === JSON.stringify(stripHash(deployment.spec.template))
  )
    return byRevision;
  return owned.find(
    (rs) => JSON.stringify(stripHash(rs.spec.template)) === JSON.stringify(stripHash(deployment.spec.template)),
  );
}

function stripHash(template: ReplicaSet['spec']['template']): unknown {
  const labels = { ...(template.metadata?.labels ?? {}) };
  delete labels[TEMPLATE_HASH];
  return { labels, annotations: template.metadata?.annotations ?? {}, spec: template.spec };
}

/** kubectl rollout status's rules, in its order, plus paused. */
function phaseOf(d: Deployment): { phase: Phase; message: string } {
  const s = d.status ?? {};
  const desired = d.spec.replicas ?? 1;
  const name = `deployment "${d.metadata.name}"`;
  if ((d.metadata.generation ?? 0) > (s.observedGeneration ?? 0))
    return { phase: 'progressing', message: `Waiting for ${name} spec update to be observed...` };
  const progressing = findCondition(s.conditions, 'Progressing');
  if (progressing?.reason === 'ProgressDeadlineExceeded')
    return { phase: 'failed', message: `${name} exceeded its progress deadline` };
  const updated = s.updatedReplicas ?? 0;
  const current = s.replicas ?? 0;
  const available = s.availableReplicas ?? 0;
  const waiting = (m: string) => ({
    phase: (d.spec.paused ? 'paused' : 'progressing') as Phase,
    message: d.spec.paused ? `${name} is paused: ${m}` : m,
  });
  if (updated < desired)
    return waiting(
      `Waiting for ${name} rollout to finish: ${updated} out of ${desired} new replicas have been updated...`,
    );
  if (current > updated)
    return waiting(
      `Waiting for ${name} rollout to finish: ${current - updated} old replicas are pending termination...`,
    );
  if (available < updated)
    return waiting(
      `Waiting for ${name} rollout to finish: ${available} of ${updated} updated replicas are available...`,
    );
  return { phase: 'complete', message: `${name} successfully rolled out` };
}

/**
 * The pods of a workload that rolls through ReplicaSets it owns (a Deployment, an Argo Rollout): the new
 * ReplicaSet's (as `pickNew` finds it among them) and the others'.
 */
export function podsByReplicaSet(
  uid: string | undefined,
  snap: Pick<RolloutSnapshot, 'pods' | 'replicaSets'>,
  pickNew: (owned: ReplicaSet[]) => ReplicaSet | undefined,
): RolloutPods {
  const owned = snap.replicaSets.filter((rs) => ownedBy(rs, uid));
  const newReplicaSet = pickNew(owned);
  const oldReplicaSets = owned.filter((rs) => rs !== newReplicaSet);
  const podsOf = (rss: ReplicaSet[]) => snap.pods.filter((p) => rss.some((rs) => ownedBy(p, rs.metadata.uid)));
  return {
    newPods: newReplicaSet ? podsOf([newReplicaSet]) : [],
    oldPods: podsOf(oldReplicaSets),
    newReplicaSet,
    oldReplicaSets,
  };
}

/** A Deployment's or a StatefulSet's counts: replicas. */
export function replicaCounts(w: {
  spec: { replicas?: number };
  status?: { replicas?: number; updatedReplicas?: number; readyReplicas?: number; availableReplicas?: number };
}) {
  const s = w.status ?? {};
  return {
    desired: w.spec.replicas ?? 1,
    current: s.replicas ?? 0,
    updated: s.updatedReplicas ?? 0,
    ready: s.readyReplicas ?? 0,
    available: s.availableReplicas ?? 0,
  };
}

export const deploymentKind: KindModule<Tagged> = {
  kind: 'Deployment',
  word: 'deployment',
  noun: 'deployment.apps',
  bareName: true,
  pods: (w, snap) => podsByReplicaSet(w.metadata.uid, snap, (owned) => findNewReplicaSet(w, owned)),
  phase: phaseOf,
  strategy: resolveStrategy,
  revision: revisionOf,
  counts: replicaCounts,
  progressDeadlineSeconds: (w) => w.spec.progressDeadlineSeconds ?? 600,
  paused: (w) => !!w.spec.paused,
  conditions: (w) => w.status?.conditions,
  order: () => (a, b) => compareText(a.name, b.name),
  oldPodsHold: false,
  followed: [
    { group: 'apps', resource: 'deployments' },
    { group: 'apps', resource: 'replicasets' },
  ],
};
