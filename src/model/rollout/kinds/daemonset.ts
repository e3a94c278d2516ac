import type { DaemonSet, Pod } from '../../../types/kube.ts';
import { compareText } from '../../../lib/order.ts';
import type { ResolvedStrategy } from '../strategy.ts';
import { ownedBy } from './deployment.ts';
import type { DaemonSetView, KindModule, Phase } from './kind.ts';

// A DaemonSet rolls one pod per node, node by node (kubernetes/pkg/controller/daemon/update.go, rollingUpdate): its
// new pods are those of its current template. The controller tells them by the ControllerRevision's hash or by the
// template generation (daemon/util/daemonset_util.go, IsPodUpdated); the generation is on the DaemonSet itself (the
// annotation apps/v1 keeps spec.templateGeneration in) and on each pod (label pod-template-generation), so no
// ControllerRevision needs to be read.

type Tagged = DaemonSet & { kind: 'DaemonSet' };

/** apps/v1's home of the DaemonSet's template generation, which the API server raises on each template change. */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';
/** the label the DaemonSet controller puts on each pod: the template generation it was made from */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

const generationOf = (d: DaemonSet) => d.metadata.annotations?.[TEMPLATE_GENERATION_ANNOTATION];

/** A percentage of the nodes, rounded up, as GetScaledValueFromIntOrPercent(…, roundUp true) scales it. */
function scaled(v: number | string, nodes: number): number {
  if (typeof v === 'number') return v;
  const percent = /^(\d+)%$/.exec(v);
  return percent ? Math.ceil((Number(percent[1]) * nodes) / 100) : Number.parseInt(v, 10) || 0;
}

/**
 * How the controller rolls (daemon/util SurgeCount, UnavailableCount; update.go updatedDesiredNodeCounts): both
 * scaled to the nodes that should run a pod, rounding up; maxSurge 0 unless set (the old pod goes first on each
 * node), maxUnavailable 1 unless set; both 0 counts as maxUnavailable 1. OnDelete replaces no pod by itself.
 */
export function daemonSetStrategy(d: DaemonSet): ResolvedStrategy {
  if ((d.spec.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate')
    return { type: 'OnDelete', maxSurge: 0, maxUnavailable: 0 };
  const nodes = d.status?.desiredNumberScheduled ?? 0;
  const rolling = d.spec.updateStrategy?.rollingUpdate ?? {};
  const maxSurge = scaled(rolling.maxSurge ?? 0, nodes);
  const maxUnavailable = scaled(rolling.maxUnavailable ?? 1, nodes);
  return {
    type: 'RollingUpdate',
    maxSurge,
    maxUnavailable: maxSurge === 0 && maxUnavailable === 0 ? 1 : maxUnavailable,
  };
}

/**
 * `kubectl rollout status daemonset`'s rules and words (k8s.io/kubectl/pkg/polymorphichelpers/rollout_status.go,
 * DaemonSetStatusViewer). OnDelete is kubectl's error there: nothing is replaced until a person deletes a pod, so the
 * rollout is 'paused' on that person, as a StatefulSet's OnDelete is.
 */
export function daemonSetPhase(d: DaemonSet): { phase: Phase; message: string } {
  if ((d.spec.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate')
    return { phase: 'paused', message: 'rollout status is only available for RollingUpdate strategy type' };
  const s = d.status ?? {};
  const name = `daemon set "${d.metadata.name}"`;
  if ((d.metadata.generation ?? 0) > (s.observedGeneration ?? 0))
    return { phase: 'progressing', message: 'Waiting for daemon set spec update to be observed...' };
  const desired = s.desiredNumberScheduled ?? 0;
  const updated = s.updatedNumberScheduled ?? 0;
  const available = s.numberAvailable ?? 0;
  if (updated < desired)
    return {
      phase: 'progressing',
      message: `Waiting for ${name} rollout to finish: ${updated} out of ${desired} new pods have been updated...`,
    };
  if (available < desired)
    return {
      phase: 'progressing',
      message: `Waiting for ${name} rollout to finish: ${available} of ${desired} updated pods are available...`,
    };
  return { phase: 'complete', message: `${name} successfully rolled out` };
}

function splitByGeneration(d: DaemonSet, pods: Pod[]): { newPods: Pod[]; oldPods: Pod[] } {
  const generation = generationOf(d);
  const isNew = (p: Pod) => !!generation && p.metadata.labels?.[POD_TEMPLATE_GENERATION_LABEL] === generation;
  return { newPods: pods.filter(isNew), oldPods: pods.filter((p) => !isNew(p)) };
}

export const daemonSetKind: KindModule<Tagged> = {
  kind: 'DaemonSet',
  word: 'daemonset',
  noun: 'daemonset.apps',
  bareName: false,
  pods: (w, snap) => ({
    ...splitByGeneration(
      w,
      snap.pods.filter((p) => ownedBy(p, w.metadata.uid)),
    ),
    oldReplicaSets: [],
  }),
  phase: daemonSetPhase,
  strategy: daemonSetStrategy,
  revision: generationOf,
  counts: (w) => {
    const s = w.status ?? {};
    return {
      desired: s.desiredNumberScheduled ?? 0,
      current: s.currentNumberScheduled ?? 0,
      updated: s.updatedNumberScheduled ?? 0,
      ready: s.numberReady ?? 0,
      available: s.numberAvailable ?? 0,
    };
  },
  progressDeadlineSeconds: () => 0,
  paused: () => false,
  conditions: (w) => w.status?.conditions,
  order: () => (a, b) => compareText(a.name, b.name),
  daemonSet: (w, oldPods): DaemonSetView => ({
    templateGeneration: generationOf(w),
    oldGenerations: [...new Set(oldPods.map((p) => p.metadata.labels?.[POD_TEMPLATE_GENERATION_LABEL] ?? '?'))].sort(
      compareText,
    ),
    misscheduled: w.status?.numberMisscheduled ?? 0,
  }),
  // the controller deletes an old pod that is not available first, outside its maxUnavailable budget (update.go):
  // such a pod is replaced, not waited on
  oldPodsHold: false,
  followed: [{ group: 'apps', resource: 'daemonsets' }],
};
