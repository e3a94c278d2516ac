import type { RolloutTarget } from '../../../types/kube.ts';
import { argoRolloutKind } from './argo-rollout.ts';
import { daemonSetKind } from './daemonset.ts';
import { deploymentKind } from './deployment.ts';
import type { KindModule } from './kind.ts';
import { statefulSetKind } from './statefulset.ts';

// The registry: each kind of rollout the plugin follows, and its module. Adding a kind is adding its module here.

const MODULES: { [K in RolloutTarget['kind']]: KindModule<Extract<RolloutTarget, { kind: K }>> } = {
  Deployment: deploymentKind,
  StatefulSet: statefulSetKind,
  DaemonSet: daemonSetKind,
  Rollout: argoRolloutKind,
};

/** The kinds followed, in the order a bare NAME is looked up and listed. */
export const ROLLOUT_KINDS = Object.keys(MODULES) as RolloutTarget['kind'][];

/**
 * The module of a workload's kind, or of a kind by name. One cast, here: each module takes only its own kind, and a
 * workload tagged with a kind is of that kind.
 */
export function kindOf(kind: RolloutTarget['kind']): KindModule {
  return MODULES[kind] as unknown as KindModule;
}

/**
 * The labels the workload's new pods carry, which a Service selects them by: the template's, and what the kind's
 * controller adds that Services select too (an Argo Rollout's pod-template hash, in its preview and canary Services).
 */
export function podLabelsOf(w: RolloutTarget): Record<string, string> | undefined {
  return kindOf(w.kind).podLabels?.(w) ?? w.spec.template?.metadata?.labels;
}

/** status.observedGeneration, as a number whatever the kind writes (an Argo Rollout a string). */
export function observedGenerationOf(w: RolloutTarget): number {
  return (
    kindOf(w.kind).observedGeneration?.(w) ??
    (w.status as { observedGeneration?: number } | undefined)?.observedGeneration ??
    0
  );
}

export type { ArgoView, DaemonSetView, KindModule, RolloutCounts, RolloutPods } from './kind.ts';
