import type { SessionsView } from '../haptic/sessions.ts';
import type { Pod, ReplicaSet, RolloutTarget } from '../../types/kube.ts';
import { GATE_CONDITION } from '../../haptic/names.ts';
import { findCondition } from '../conditions.ts';
import type { RolloutSnapshot } from '../../types/snapshot.ts';
import { buildHaptic, type ConfigMemory, type HapticModel, type Installation } from '../haptic/haptic.ts';
import { buildPodView, type PodView } from './pod.ts';
import type { RenderedServer } from '../haptic/haptic-config.ts';
import type { ResolvedStrategy } from './strategy.ts';
import { compareText } from '../../lib/order.ts';
import { routeInstallations, routingFor, type Routing } from '../haptic/routes.ts';
import { renderedFor, routedBackends } from '../haptic/rendered.ts';
import { servicesSelecting } from '../services.ts';
import type { Phase, StatefulSetView } from './statefulset.ts';
import {
  type ArgoView,
  type DaemonSetView,
  kindOf,
  observedGenerationOf,
  podLabelsOf,
  type RolloutCounts,
} from './kinds/index.ts';
import { revisionOf } from './kinds/deployment.ts';

export const MODEL_VERSION = 'kubectl-haptic/v1';

export interface BuildOptions {
  /** the readiness gate condition type (--condition-type) */
  gateType?: string | undefined;
  /** configs seen earlier in this process (watch mode; rememberConfigs), to read what an older config routes */
  memory?: ConfigMemory | undefined;
  /**
   * buildHaptic(snap.haptic, now, memory), when rollouts that share HAPTIC's objects are built together (status -A):
   * HAPTIC's configs are then parsed once, not once per Deployment.
   */
  haptic?: HapticModel | undefined;
}

export type { Phase };

export interface ReplicaSetView {
  name: string;
  revision?: string | undefined;
  replicas: number;
  ready: number;
  available: number;
  failure?: { reason?: string | undefined; message?: string | undefined } | undefined;
}

export interface RolloutModel {
  apiVersion: typeof MODEL_VERSION;
  kind: 'Rollout';
  /** what rolls out: a Deployment (ReplicaSets), a StatefulSet (revisions, one ordinal at a time), a DaemonSet (a pod per node) */
  workloadKind: RolloutTarget['kind'];
  name: string;
  namespace: string;
  /** a Deployment's revision number */
  revision?: string | undefined;
  generation: number;
  observedGeneration: number;
  strategy: ResolvedStrategy;
  /** a Deployment's; 0 for a StatefulSet, which has none */
  progressDeadlineSeconds: number;
  minReadySeconds: number;
  paused: boolean;
  gateType: string;
  /** the pod template lists the gate */
  gated: boolean;
  phase: Phase;
  /** kubectl rollout status's words for where the rollout stands */
  message: string;
  /** complete, and no pod of an old ReplicaSet (of a StatefulSet: of an older revision, but those its partition holds) is left, not even terminating */
  drained: boolean;
  /** a DaemonSet's count nodes: those that should run its pod, run one, run one of the current template… */
  counts: RolloutCounts;
  conditions: {
    progressing?:
      | { status: string; reason?: string | undefined; message?: string | undefined; since?: string | undefined }
      | undefined;
    available?: { status: string; reason?: string | undefined } | undefined;
    replicaFailure?: { reason?: string | undefined; message?: string | undefined } | undefined;
  };
  /** a Deployment's ReplicaSets (none for a StatefulSet) */
  newReplicaSet?: ReplicaSetView | undefined;
  oldReplicaSets: ReplicaSetView[];
  /** a StatefulSet's revisions, partition and claims */
  statefulSet?: StatefulSetView | undefined;
  /** a DaemonSet's template generations */
  daemonSet?: DaemonSetView | undefined;
  /** an Argo Rollout's phase, step, pause and Services, in Argo's words */
  argo?: ArgoView | undefined;
  /** pods of the new ReplicaSet or the update revision; a StatefulSet's in ordinal order */
  newPods: PodView[];
  oldPods: PodView[];
  /** HAPTIC's installations; in a one-shot answer (status, why-stalled) their configs list this rollout's servers only */
  installations: Installation[];
  hapticUnreadable?: string | undefined;
  /** the routes that reach the Services selecting the pod template, and whether HAPTIC renders them */
  routing: Routing;
  /** events of the workload and its ReplicaSets (pods carry their own) */
  events: { object: string; type: string; reason: string; message: string; count: number }[];
  /** whether HAProxy's sessions are read, and what could not be (status --sessions) */
  sessions?: SessionsView | undefined;
}

function rsView(rs: ReplicaSet, revision: (rs: ReplicaSet) => string | undefined = revisionOf): ReplicaSetView {
  const failure = findCondition(rs.status?.conditions, 'ReplicaFailure');
  return {
    name: rs.metadata.name,
    revision: revision(rs),
    replicas: rs.status?.replicas ?? 0,
    ready: rs.status?.readyReplicas ?? 0,
    available: rs.status?.availableReplicas ?? 0,
    failure: failure?.status === 'True' ? { reason: failure.reason, message: failure.message } : undefined,
  };
}

/**
 * RBAC that allows patching pods/status shows the gate feature may be on, not that it is; a pod carrying the gate
 * condition True proves that a controller writes it. Proof upgrades `allowed` and `unknown`; `off` stays off (the
 * condition may have been set before the feature was turned off: HAPTIC never removes it).
 */
function withGateProof(installations: Installation[], pods: Pod[], gateType: string): Installation[] {
  const types = [...new Set([gateType, GATE_CONDITION])];
  const proof = pods.find((p) => types.some((t) => findCondition(p.status?.conditions, t)?.status === 'True'));
  if (!proof) return installations;
  const proven = types.find((t) => findCondition(proof.status?.conditions, t)?.status === 'True')!;
  return installations.map((i) =>
    i.gateFeature.state === 'allowed' || i.gateFeature.state === 'unknown'
      ? {
          ...i,
          gateFeature: {
            state: 'on',
            proof: `pod ${proof.metadata.name} carries ${proven}=True`,
            clusterRoles: i.gateFeature.state === 'allowed' ? i.gateFeature.clusterRoles : [],
          },
        }
      : i,
  );
}

/**
 * The model with each installation's servers (of its live config and of its retained ones) cut to those of the
 * rollout's own pods, for a one-shot answer: HAPTIC's config holds a server for every endpoint of every Service it
 * renders, thousands on a big cluster, which the answer about one Deployment would otherwise carry, redact and print.
 * The pods' routing, built from all of them, stays as it is; a follower keeps every server (it compares configs from
 * one update to the next).
 */
export function withOwnServers(model: RolloutModel): RolloutModel {
  const mine = new Set([...model.newPods, ...model.oldPods].map((p) => p.name));
  const own = (servers: RenderedServer[]) => servers.filter((s) => mine.has(s.pod));
  return {
    ...model,
    installations: model.installations.map((i) =>
      i.config
        ? {
            ...i,
            config: {
              ...i.config,
              servers: own(i.config.servers),
              retained: i.config.retained.map((r) => (r.servers ? { ...r, servers: own(r.servers) } : r)),
            },
          }
        : i,
    ),
  };
}

export function buildRollout(snap: RolloutSnapshot, now: number, options: BuildOptions = {}): RolloutModel {
  const gateType = options.gateType ?? GATE_CONDITION;
  const haptic = options.haptic ?? buildHaptic(snap.haptic, now, options.memory);
  const w = snap.workload;
  const kind = kindOf(w.kind);
  const split = kind.pods(w, snap);
  const { newReplicaSet: newRS, oldReplicaSets: oldRSs } = split;
  const gated = (w.spec.template.spec.readinessGates ?? []).some((g) => g.conditionType === gateType);
  const installations = withGateProof(haptic.installations, snap.pods, gateType);
  const judged = routingFor(podLabelsOf(w), snap.services, snap.haptic, routeInstallations(installations));
  const routing: Routing = {
    ...judged,
    rendered: renderedFor(
      installations,
      [...split.newPods, ...split.oldPods].map((p) => ({
        name: p.metadata.name,
        ip: p.status?.podIP,
        services: servicesSelecting(snap.services, p.metadata.labels).map((s) => s.metadata.name),
      })),
      routedBackends(judged.services),
    ),
  };
  const podCtx = {
    gateType,
    gated,
    services: snap.services,
    slices: snap.slices,
    events: snap.events,
    installations,
    now,
    memory: options.memory,
    configsUnreadable: haptic.configsUnreadable,
    routing,
  };
  const view = (p: Pod) =>
    buildPodView(p, { ...podCtx, gated: (p.spec.readinessGates ?? []).some((g) => g.conditionType === gateType) });
  const newPods = split.newPods.map(view);
  const oldPods = split.oldPods.map(view);
  const { phase, message } = kind.phase(w, split);
  const set = kind.statefulSet?.(
    w,
    oldPods.map((p) => p.name),
    snap,
  );
  const conditions = kind.conditions(w);
  const progressing = findCondition(conditions, 'Progressing');
  const available = findCondition(conditions, 'Available');
  const replicaFailure = findCondition(conditions, 'ReplicaFailure');
  const rsNames = new Set([...(newRS ? [newRS] : []), ...oldRSs].map((rs) => rs.metadata.name));
  const order = kind.order(w);
  const byName = (a: { name: string }, b: { name: string }) => compareText(a.name, b.name);
  const held = new Set(set?.heldByPartition ?? []);
  return {
    apiVersion: MODEL_VERSION,
    kind: 'Rollout',
    workloadKind: w.kind,
    name: w.metadata.name,
    namespace: w.metadata.namespace ?? '',
    revision: kind.revision(w),
    generation: w.metadata.generation ?? 0,
    observedGeneration: observedGenerationOf(w),
    strategy: kind.strategy(w),
    progressDeadlineSeconds: kind.progressDeadlineSeconds(w),
    minReadySeconds: w.spec.minReadySeconds ?? 0,
    paused: kind.paused(w),
    gateType,
    gated,
    phase,
    message,
    drained:
      phase === 'complete' &&
      oldPods.every((p) => held.has(p.name) && !p.terminating) &&
      newPods.every((p) => !p.terminating),
    counts: {
      ...kind.counts(w),
      terminating: [...newPods, ...oldPods].filter((p) => p.terminating).length,
    },
    conditions: {
      progressing: progressing && {
        status: progressing.status,
        reason: progressing.reason,
        message: progressing.message,
        since: progressing.lastUpdateTime ?? progressing.lastTransitionTime,
      },
      available: available && { status: available.status, reason: available.reason },
      replicaFailure:
        replicaFailure?.status === 'True'
          ? { reason: replicaFailure.reason, message: replicaFailure.message }
          : undefined,
    },
    newReplicaSet: newRS && rsView(newRS, kind.replicaSetRevision),
    oldReplicaSets: oldRSs.map((rs) => rsView(rs, kind.replicaSetRevision)).sort(byName),
    statefulSet: set,
    daemonSet: kind.daemonSet?.(w, split.oldPods),
    argo: kind.argo?.(w, now),
    newPods: newPods.sort(order),
    oldPods: oldPods.sort(order),
    installations,
    hapticUnreadable: haptic.unreadable,
    routing,
    events: snap.events
      .filter(
        (e) =>
          (e.involvedObject.kind === w.kind && e.involvedObject.name === w.metadata.name) ||
          (e.involvedObject.kind === 'ReplicaSet' && rsNames.has(e.involvedObject.name ?? '')),
      )
      .map((e) => ({
        object: `${e.involvedObject.kind?.toLowerCase()}/${e.involvedObject.name}`,
        type: e.type ?? 'Normal',
        reason: e.reason ?? '',
        message: e.message ?? '',
        count: e.series?.count ?? e.count ?? 1,
      })),
  };
}
