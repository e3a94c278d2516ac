// A StatefulSet's rollout: its phase as `kubectl rollout status statefulset` decides it, which pods are of the update
// revision and which of an older one, and what holds its pods back (partition, OnDelete, claims). Pure functions of
// the StatefulSet, its pods and claims.
import type { KubeEvent, PersistentVolumeClaim, Pod, StatefulSet } from '../../types/kube.ts';
import type { ResolvedStrategy } from './strategy.ts';

/** The label the StatefulSet controller puts on each pod: the name of the ControllerRevision it was made from. */
export const REVISION_LABEL = 'controller-revision-hash';

export interface StatefulSetView {
  updateStrategy: 'RollingUpdate' | 'OnDelete';
  podManagementPolicy: 'OrderedReady' | 'Parallel';
  /** ordinals below start + partition keep their revision (0: every pod is rolled) */
  partition: number;
  /** the first ordinal (spec.ordinals.start) */
  startOrdinal: number;
  /** ControllerRevision names, as the pods' controller-revision-hash label holds them */
  currentRevision?: string | undefined;
  updateRevision?: string | undefined;
  /** pods of an older revision that the partition holds back on purpose */
  heldByPartition: string[];
  /** the names of its volumeClaimTemplates: a pod's claims are TEMPLATE-NAME-ORDINAL */
  claimTemplates: string[];
  /** claims of its pods (volumeClaimTemplates × ordinals) that exist and are not Bound */
  pendingClaims: {
    name: string;
    ordinal: number;
    phase: string;
    storageClass?: string | undefined;
    /** the claim's latest event (FailedBinding, ProvisioningFailed…): why it is not bound */
    event?: { reason: string; message: string } | undefined;
  }[];
}

export type Phase = 'progressing' | 'complete' | 'failed' | 'paused';

/** The ordinal of a StatefulSet's pod, from its name (NAME-ORDINAL); undefined for a name of another shape. */
export function ordinalOf(podName: string, setName: string): number | undefined {
  if (!podName.startsWith(`${setName}-`)) return undefined;
  const rest = podName.slice(setName.length + 1);
  return /^(0|[1-9]\d*)$/.test(rest) ? Number(rest) : undefined;
}

/** Pods in ordinal order (web-2 before web-10), as the controller counts them; others after, by name. */
export function byOrdinal(setName: string) {
  return (a: { name: string }, b: { name: string }): number => {
    const x = ordinalOf(a.name, setName) ?? Number.MAX_SAFE_INTEGER;
    const y = ordinalOf(b.name, setName) ?? Number.MAX_SAFE_INTEGER;
    return x - y || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);
  };
}

/**
 * `kubectl rollout status statefulset`'s rules, in its order (k8s.io/kubectl/pkg/polymorphichelpers/
 * rollout_status.go, StatefulSetStatusViewer). The API server defaults rollingUpdate to {partition: 0}, so a
 * StatefulSet read from a cluster always takes the partitioned branch: its words are "partitioned roll out". OnDelete
 * is kubectl's error ("only available for RollingUpdate"): the controller replaces no pod until one is deleted by
 * hand, so the rollout is 'paused' on a person, never complete.
 */
export function statefulSetPhase(s: StatefulSet): { phase: Phase; message: string } {
  const st = s.status ?? {};
  const type = s.spec.updateStrategy?.type ?? 'RollingUpdate';
  if (type !== 'RollingUpdate')
    return { phase: 'paused', message: 'rollout status is only available for RollingUpdate strategy type' };
  if (!st.observedGeneration || (s.metadata.generation ?? 0) > st.observedGeneration)
    return { phase: 'progressing', message: 'Waiting for statefulset spec update to be observed...' };
  const replicas = s.spec.replicas ?? 1;
  const ready = st.readyReplicas ?? 0;
  const updated = st.updatedReplicas ?? 0;
  if (ready < replicas) return { phase: 'progressing', message: `Waiting for ${replicas - ready} pods to be ready...` };
  const rolling = s.spec.updateStrategy?.rollingUpdate;
  if (rolling) {
    if (rolling.partition !== undefined && updated < replicas - rolling.partition)
      return {
        phase: 'progressing',
        message: `Waiting for partitioned roll out to finish: ${updated} out of ${replicas - rolling.partition} new pods have been updated...`,
      };
    return { phase: 'complete', message: `partitioned roll out complete: ${updated} new pods have been updated...` };
  }
  if (st.updateRevision !== st.currentRevision)
    return {
      phase: 'progressing',
      message: `waiting for statefulset rolling update to complete ${updated} pods at revision ${st.updateRevision}...`,
    };
  return {
    phase: 'complete',
    message: `statefulset rolling update complete ${st.currentReplicas ?? 0} pods at revision ${st.currentRevision}...`,
  };
}

/**
 * How the controller rolls: one pod at a time from the highest ordinal down, none added beside it (no surge);
 * maxUnavailable (MaxUnavailableStatefulSet) scales a percentage down and is at least 1
 * (kubernetes/pkg/controller/statefulset/stateful_set_control.go, getStatefulSetMaxUnavailable). OnDelete rolls
 * nothing by itself.
 */
export function statefulSetStrategy(s: StatefulSet): ResolvedStrategy {
  if ((s.spec.updateStrategy?.type ?? 'RollingUpdate') !== 'RollingUpdate')
    return { type: 'OnDelete', maxSurge: 0, maxUnavailable: 0 };
  const replicas = s.spec.replicas ?? 1;
  const v = s.spec.updateStrategy?.rollingUpdate?.maxUnavailable ?? 1;
  const percent = typeof v === 'string' ? /^(\d+)%$/.exec(v) : null;
  const scaled =
    typeof v === 'number'
      ? v
      : percent
        ? Math.floor((Number(percent[1]) * replicas) / 100)
        : Number.parseInt(v, 10) || 0;
  return { type: 'RollingUpdate', maxSurge: 0, maxUnavailable: Math.max(1, scaled) };
}

/** The pods of the update revision and the others, by the controller-revision-hash label. */
export function splitByRevision(s: StatefulSet, pods: Pod[]): { newPods: Pod[]; oldPods: Pod[] } {
  const update = s.status?.updateRevision;
  const isNew = (p: Pod) => !!update && p.metadata.labels?.[REVISION_LABEL] === update;
  return { newPods: pods.filter(isNew), oldPods: pods.filter((p) => !isNew(p)) };
}

/**
 * What the model says of a StatefulSet beside its pods. Claims: the controller names each pod's claim
 * TEMPLATE-NAME-ORDINAL (stateful_set_utils.go, getPersistentVolumeClaimName); one that exists and is not Bound keeps
 * its pod from being scheduled (the scheduler's VolumeBinding plugin) — a claim not created yet is the controller's
 * next step, not a stall.
 */
export function statefulSetView(
  s: StatefulSet,
  oldPods: string[],
  claims: PersistentVolumeClaim[],
  events: KubeEvent[],
): StatefulSetView {
  const name = s.metadata.name;
  const start = s.spec.ordinals?.start ?? 0;
  const partition = s.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  const replicas = s.spec.replicas ?? 1;
  const templates = (s.spec.volumeClaimTemplates ?? []).map((t) => t.metadata.name);
  // the latest event of each claim, one pass over the events
  const latestEvent = new Map<string, KubeEvent>();
  for (const e of events) {
    const claim = e.involvedObject.name;
    if (e.involvedObject.kind !== 'PersistentVolumeClaim' || !claim) continue;
    const seen = latestEvent.get(claim);
    if (!seen || eventTime(e) > eventTime(seen)) latestEvent.set(claim, e);
  }
  // by the claims that exist, not by spec.replicas: the work is bounded by the objects, whatever the spec says
  const pending: (StatefulSetView['pendingClaims'][number] & { template: number })[] = [];
  for (const claim of claims) {
    if (claim.status?.phase === 'Bound') continue;
    templates.forEach((template, index) => {
      const prefix = `${template}-${name}-`;
      if (!claim.metadata.name.startsWith(prefix)) return;
      const suffix = claim.metadata.name.slice(prefix.length);
      // the controller writes the ordinal in decimal, without leading zeros (strconv.Itoa)
      if (!/^(0|[1-9]\d{0,15})$/.test(suffix)) return;
      const ordinal = Number(suffix);
      if (ordinal < start || ordinal >= start + replicas) return;
      const latest = latestEvent.get(claim.metadata.name);
      pending.push({
        name: claim.metadata.name,
        ordinal,
        template: index,
        phase: claim.status?.phase ?? 'Pending',
        storageClass: claim.spec?.storageClassName ?? undefined,
        event: latest && { reason: latest.reason ?? '', message: latest.message ?? '' },
      });
    });
  }
  const pendingClaims = pending
    .sort((a, b) => a.ordinal - b.ordinal || a.template - b.template)
    .map(({ template: _, ...claim }) => claim);
  const updateStrategy =
    (s.spec.updateStrategy?.type ?? 'RollingUpdate') === 'RollingUpdate' ? 'RollingUpdate' : 'OnDelete';
  return {
    updateStrategy,
    podManagementPolicy: s.spec.podManagementPolicy === 'Parallel' ? 'Parallel' : 'OrderedReady',
    partition,
    startOrdinal: start,
    claimTemplates: templates,
    currentRevision: s.status?.currentRevision,
    updateRevision: s.status?.updateRevision,
    heldByPartition:
      updateStrategy === 'RollingUpdate'
        ? oldPods.filter((p) => {
            const ordinal = ordinalOf(p, name);
            return ordinal !== undefined && ordinal - start < partition;
          })
        : [],
    pendingClaims,
  };
}

function eventTime(e: KubeEvent): number {
  return Date.parse(e.series?.lastObservedTime ?? e.lastTimestamp ?? e.eventTime ?? e.firstTimestamp ?? '') || 0;
}
