import type { ArgoRollout, CanaryStep, ReplicaSet } from '../../../types/kube.ts';
import { compareText } from '../../../lib/order.ts';
import type { ResolvedStrategy } from '../strategy.ts';
import { podsByReplicaSet, replicaCounts } from './deployment.ts';
import type { ArgoView, KindModule, Phase } from './kind.ts';

// An Argo Rollout rolls through ReplicaSets it owns, as a Deployment does, but its controller decides by steps
// (canary) or by a preview and an active Service (blue-green), and says where it stands in its own status: the
// phase and message `kubectl argo rollouts status` prints (github.com/argoproj/argo-rollouts v1.10,
// utils/rollout/rolloututil.go GetRolloutPhase). Its ReplicaSets and pods carry the label
// rollouts-pod-template-hash; status.currentPodHash names the ReplicaSet of the current template, status.stableRS
// the one it promoted last.

type Tagged = ArgoRollout & { kind: 'Rollout' };

/** The label Argo puts on a Rollout's ReplicaSets, their pods and the selectors of its Services. */
export const ROLLOUT_HASH_LABEL = 'rollouts-pod-template-hash';
/** GetRolloutPhase's wait for the referenced workload: its generation annotated (utils/annotations), not yet observed. */
const WORKLOAD_GENERATION = 'rollout.argoproj.io/workload-generation';
/** Argo's revision annotation on the Rollout and its ReplicaSets (utils/annotations, RevisionAnnotation). */
const REVISION_ANNOTATION = 'rollout.argoproj.io/revision';

const hashOf = (rs: ReplicaSet) => rs.metadata.labels?.[ROLLOUT_HASH_LABEL];

const GO_UNITS: Record<string, number> = {
  ns: 1e-6,
  us: 1e-3,
  µs: 1e-3,
  μs: 1e-3,
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
};

/**
 * A pause's duration in milliseconds, as Argo reads it (pkg/apis/rollouts/v1alpha1/types.go, DurationSeconds): a
 * number, or a string of digits, is seconds; another string is a Go duration (`1m30s`, `1.5h`, `500ms`: Go's
 * time.ParseDuration), cut to whole seconds. Undefined when Argo cannot read it either (it then never resumes).
 */
export function pauseDurationMs(duration: string | number | undefined): number | undefined {
  if (duration === undefined) return undefined;
  if (typeof duration === 'number') return duration * 1000;
  if (/^[+-]?\d+$/.test(duration)) return Number(duration) * 1000;
  const sign = duration.startsWith('-') ? -1 : 1;
  const body = duration.replace(/^[+-]/, '');
  if (body === '0') return 0;
  const part = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let ms = 0;
  let at = 0;
  while (at < body.length) {
    part.lastIndex = at;
    const m = part.exec(body);
    if (!m) return undefined;
    ms += Number(m[1]) * GO_UNITS[m[2]!]!;
    at = part.lastIndex;
  }
  if (!body.length) return undefined;
  return sign * Math.trunc(ms / 1000) * 1000;
}

/** A step in the words of `kubectl argo rollouts get rollout` (utils/rollout/rolloututil.go, CanaryStepString). */
export function stepText(step: CanaryStep | undefined): string | undefined {
  if (!step) return undefined;
  if (step.setWeight !== undefined) return `setWeight: ${step.setWeight}`;
  if (step.pause) return step.pause.duration === undefined ? 'pause' : `pause: ${step.pause.duration}`;
  if (step.experiment) return 'experiment';
  if (step.analysis) return 'analysis';
  if (step.setCanaryScale) {
    const c = step.setCanaryScale;
    if (c.weight !== undefined) return `setCanaryScale{weight: ${c.weight}}`;
    if (c.matchTrafficWeight) return 'setCanaryScale{matchTrafficWeight: true}';
    if (c.replicas !== undefined) return `setCanaryScale{replicas: ${c.replicas}}`;
  }
  if (step.plugin) return `plugin: ${step.plugin.name ?? ''}`;
  if (step.setHeaderRoute) return `setHeaderRoute: ${(step.setHeaderRoute as { name?: string }).name ?? ''}`;
  if (step.setMirrorRoute) return `setMirrorRoute: ${(step.setMirrorRoute as { name?: string }).name ?? ''}`;
  return 'invalid';
}

/**
 * GetRolloutPhase: the controller's phase and message once it observed this generation (and, for a workloadRef,
 * the Deployment's), mapped to the model's phases: Healthy is complete, Degraded failed, Paused paused.
 */
export function argoPhase(r: ArgoRollout): { phase: Phase; message: string; argo: string; argoMessage: string } {
  const s = r.status ?? {};
  const observed = Number(s.observedGeneration);
  const said = (argo: string, argoMessage: string) => ({
    phase:
      ({ Healthy: 'complete', Degraded: 'failed', Paused: 'paused' } as Record<string, Phase>)[argo] ?? 'progressing',
    message: argoMessage ? `${argo} - ${argoMessage}` : argo,
    argo,
    argoMessage,
  });
  if (Number.isInteger(observed) && observed < (r.metadata.generation ?? 0))
    return said('Progressing', 'waiting for rollout spec update to be observed');
  if (s.controllerPause && !(s.pauseConditions ?? []).length)
    return said('Progressing', 'waiting for rollout to unpause');
  const workloadGeneration = Number(r.metadata.annotations?.[WORKLOAD_GENERATION]);
  const workloadObserved = Number(s.workloadObservedGeneration);
  if (
    r.spec.workloadRef &&
    Number.isInteger(workloadGeneration) &&
    Number.isInteger(workloadObserved) &&
    workloadObserved !== workloadGeneration
  )
    return said('Progressing', 'waiting for rollout spec update to be observed for the reference workload');
  if (!s.phase) return said('Progressing', 'waiting for the controller to report a phase');
  return said(s.phase, s.message ?? '');
}

/**
 * Argo's fenceposts (utils/replicaset/replicaset.go MaxSurge, MaxUnavailable, resolveFenceposts): a canary's
 * maxSurge rounds up, maxUnavailable down, both 0 is maxUnavailable 1. Unset, Argo takes its defaults "25"
 * (utils/defaults), a string the controller cannot read as a percentage: it resolves both to 0, and so does this.
 */
export function argoStrategy(r: ArgoRollout): ResolvedStrategy {
  const replicas = r.spec.replicas ?? 1;
  const value = (v: number | string | undefined, roundUp: boolean): number | undefined => {
    if (typeof v === 'number') return v;
    const percent = /^(\d+)%$/.exec(v ?? '');
    if (!percent) return undefined;
    const exact = (Number(percent[1]) * replicas) / 100;
    return roundUp ? Math.ceil(exact) : Math.floor(exact);
  };
  const blueGreen = r.spec.strategy?.blueGreen;
  if (blueGreen) {
    const maxUnavailable = value(blueGreen.maxUnavailable, false) ?? 0;
    return { type: 'BlueGreen', maxSurge: 0, maxUnavailable: Math.min(maxUnavailable, replicas) };
  }
  const canary = r.spec.strategy?.canary ?? {};
  const surge = value(canary.maxSurge ?? '25', true);
  const unavailable = value(canary.maxUnavailable ?? '25', false);
  if (surge === undefined || unavailable === undefined) return { type: 'Canary', maxSurge: 0, maxUnavailable: 0 };
  return {
    type: 'Canary',
    maxSurge: surge,
    maxUnavailable: Math.min(surge === 0 && unavailable === 0 ? 1 : unavailable, replicas),
  };
}

/**
 * Whether a ReplicaSet runs the workload's template in what a rollout changes: its labels (but the hash), readiness
 * gates and containers' images. Argo adds its own affinity and ephemeral metadata to the copy (rollout/sync.go).
 */
function sameTemplate(rs: ReplicaSet | undefined, w: ArgoRollout): boolean {
  if (!rs) return false;
  const key = (t: ArgoRollout['spec']['template'] | undefined) => {
    const { [ROLLOUT_HASH_LABEL]: _hash, ...labels } = t?.metadata?.labels ?? {};
    return JSON.stringify([
      Object.entries(labels).sort(),
      (t?.spec?.readinessGates ?? []).map((g) => g.conditionType),
      (t?.spec?.containers ?? []).map((c) => [c.name, c.image]),
    ]);
  };
  return key(rs.spec.template) === key(w.spec.template);
}

/** spec.workloadRef, and whether it names a Deployment (its kind when unset, as Argo reads it). */
function workloadRef(w: ArgoRollout): { kind: string; name: string; deployment: boolean } | undefined {
  const ref = w.spec.workloadRef;
  if (!ref?.name) return undefined;
  const kind = ref.kind ?? 'Deployment';
  return { kind, name: ref.name, deployment: kind === 'Deployment' };
}

function argoView(r: ArgoRollout, now: number): ArgoView {
  const s = r.status ?? {};
  const canary = r.spec.strategy?.canary;
  const blueGreen = r.spec.strategy?.blueGreen;
  const steps = canary?.steps ?? [];
  const index = s.currentStepIndex;
  const current = index !== undefined ? steps[index] : undefined;
  const condition = (s.pauseConditions ?? [])[0];
  const durationMs = condition?.reason === 'CanaryPauseStep' ? pauseDurationMs(current?.pause?.duration) : undefined;
  const autoPromoteMs =
    // autoPromotionSeconds counts only where auto-promotion is on (rollout/pause.go, CompletedBlueGreenPause)
    condition?.reason === 'BlueGreenPause' &&
    blueGreen?.autoPromotionEnabled !== false &&
    blueGreen?.autoPromotionSeconds !== undefined
      ? blueGreen.autoPromotionSeconds * 1000
      : undefined;
  const endsMs = durationMs ?? autoPromoteMs;
  const since = condition?.startTime;
  const { argo, argoMessage } = argoPhase(r);
  return {
    strategy: blueGreen ? 'blueGreen' : 'canary',
    phase: argo,
    message: argoMessage,
    currentPodHash: s.currentPodHash,
    stableHash: s.stableRS,
    step:
      !blueGreen && steps.length && index !== undefined
        ? { index, count: steps.length, text: stepText(current) }
        : undefined,
    pause:
      condition || r.spec.paused
        ? {
            reason: condition?.reason ?? 'manually paused',
            since,
            endsAt:
              endsMs !== undefined && since && Number.isFinite(Date.parse(since))
                ? new Date(Math.max(Date.parse(since) + endsMs, now)).toISOString().replace(/\.\d+Z$/, 'Z')
                : undefined,
            manual: !!r.spec.paused && !condition,
          }
        : undefined,
    aborted: !!s.abort,
    services: {
      canary: canary?.canaryService,
      stable: canary?.stableService,
      active: blueGreen?.activeService,
      preview: blueGreen?.previewService,
    },
    trafficRouting: !!canary?.trafficRouting,
    analysisRun: s.canary?.currentStepAnalysisRunStatus,
  };
}

export const argoRolloutKind: KindModule<Tagged> = {
  kind: 'Rollout',
  word: 'rollout',
  noun: 'rollout.argoproj.io',
  bareName: false,
  optional: true,
  pods: (w, snap) =>
    podsByReplicaSet(w.metadata.uid, snap, (owned) => {
      const current = w.status?.currentPodHash;
      return current ? owned.find((rs) => hashOf(rs) === current) : undefined;
    }),
  phase: (w, pods) => {
    const ref = argoRolloutKind.templateRef?.(w);
    // Argo sees a change of the referenced template asynchronously (it then annotates the Rollout with the workload's
    // generation, rollout/templateref.go): until the current ReplicaSet has the template read, the rollout of it
    // has not started, whatever the status says of the one before
    if (ref && pods && !sameTemplate(pods.newReplicaSet, w))
      return {
        phase: 'progressing',
        message: `Progressing - waiting for Argo to observe the template of deployment/${ref.name}`,
      };
    const { phase, message } = argoPhase(w);
    return { phase, message };
  },
  strategy: argoStrategy,
  revision: (w) => w.metadata.annotations?.[REVISION_ANNOTATION],
  replicaSetRevision: (rs) => rs.metadata.annotations?.[REVISION_ANNOTATION],
  counts: replicaCounts,
  observedGeneration: (w) => {
    const n = Number(w.status?.observedGeneration);
    return Number.isInteger(n) ? n : 0;
  },
  progressDeadlineSeconds: (w) => w.spec.progressDeadlineSeconds ?? 600,
  paused: (w) => !!w.spec.paused,
  conditions: (w) => w.status?.conditions,
  order: () => (a, b) => compareText(a.name, b.name),
  // its new pods carry the hash Argo points the preview or canary Service at: routes are judged with it
  podLabels: (w) =>
    w.status?.currentPodHash
      ? { ...(w.spec.template?.metadata?.labels ?? {}), [ROLLOUT_HASH_LABEL]: w.status.currentPodHash }
      : w.spec.template?.metadata?.labels,
  argo: argoView,
  // Argo selects the pods of one ReplicaSet with each (rollout/service.go, ensureSVCTargets): preview and canary the
  // new, active and stable the promoted one
  ownServices: (w) => {
    const canary = w.spec.strategy?.canary;
    const blueGreen = w.spec.strategy?.blueGreen;
    return {
      newPods: [
        ...(blueGreen?.previewService ? [{ role: 'preview' as const, service: blueGreen.previewService }] : []),
        ...(canary?.canaryService ? [{ role: 'canary' as const, service: canary.canaryService }] : []),
      ],
      stable: [blueGreen?.activeService, canary?.stableService].filter((n): n is string => !!n),
    };
  },
  oldPodsHold: false,
  followed: [
    { group: 'argoproj.io', resource: 'rollouts' },
    { group: 'apps', resource: 'replicasets' },
  ],
  // with spec.workloadRef, Argo reads the template from the workload it names, a Deployment it scales to 0 as it
  // takes over (rollout/templateref.go; the API allows a ReplicaSet or a PodTemplate too, which the plugin does not
  // read)
  templateRef: (w) => {
    const ref = workloadRef(w);
    return ref?.deployment ? { kind: 'Deployment', name: ref.name } : undefined;
  },
  unfollowable: (w) => {
    const ref = workloadRef(w);
    return ref && !ref.deployment
      ? `rollout/${w.metadata.name} takes its pod template from ${ref.kind.toLowerCase()}/${ref.name} (spec.workloadRef); kubectl haptic reads a workloadRef to a Deployment only`
      : undefined;
  },
  // what `kubectl argo rollouts restart` sends (pkg/kubectl-argo-rollouts/cmd/restart): the controller then replaces
  // the pods of the stable ReplicaSet older than restartAt, maxUnavailable at a time
  restart: (now) => ({
    body: { spec: { restartAt: new Date(now).toISOString().replace(/\.\d+Z$/, 'Z') } },
    contentType: 'application/merge-patch+json',
    patchType: 'merge',
    as: 'kubectl argo rollouts restart',
  }),
};
