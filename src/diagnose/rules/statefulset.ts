import { byOrdinal, ordinalOf } from '../../model/rollout/statefulset.ts';
import type { PodView } from '../../model/rollout/pod.ts';
import { blockingPods, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';
import { containerRules } from './containers.ts';

// What holds a StatefulSet's rollout that a Deployment's never meets (kubernetes/pkg/controller/statefulset,
// stateful_set_control.go): its controller takes pods in ordinal order and, OrderedReady, stops at the first that is
// not Running and Ready, whatever its revision; a claim that is not bound keeps a pod from being scheduled; a
// partition or OnDelete leaves pods on an older revision on purpose.

/**
 * The scheduler's words for a bound volume no candidate node may use: "node(s) didn't match PersistentVolume's node
 * affinity" (volumebinding/binder.go, ErrReasonNodeConflict); older releases said "had volume node affinity conflict".
 */
const VOLUME_ELSEWHERE = /didn't match PersistentVolume's node affinity|volume node affinity conflict/i;

/** What containerRules found, in a word, when no container says it (a pod not scheduled has no container yet). */
const CAUSES: Record<string, string> = {
  HS201: 'readiness probe fails',
  HS202: 'crash loop',
  HS203: 'image cannot be pulled',
  HS204: 'cannot be scheduled',
};

/** The pod the controller waits on: the first by ordinal that is not Ready (its pods are made and judged in order). */
function waitedOn(ctx: DiagnoseContext): PodView | undefined {
  return [...blockingPods(ctx)].sort(byOrdinal(ctx.model.name))[0];
}

export function statefulSetRules(ctx: DiagnoseContext): Finding[] {
  const m = ctx.model;
  const set = m.statefulSet;
  if (!set) return [];
  const findings: Finding[] = [];
  const at = { name: m.name, namespace: m.namespace };
  // a claim that is not bound: its pod cannot be scheduled (the scheduler's VolumeBinding plugin)
  for (const claim of set.pendingClaims) {
    const pod = `${m.name}-${claim.ordinal}`;
    const view = [...m.newPods, ...m.oldPods].find((p) => p.name === pod);
    if (view && view.phase !== 'Pending') continue;
    // a class that binds on the first consumer waits for the pod to be scheduled: what keeps the pod is the cause
    // (pv_controller.go, WaitForFirstConsumer), said by the rules after this one
    if (claim.event?.reason === 'WaitForFirstConsumer') continue;
    const scheduling = view?.events.find((e) => e.reason === 'FailedScheduling');
    const text = `${claim.event?.message ?? ''} ${scheduling?.message ?? ''}`;
    // a claim made without a class had no default StorageClass to take (the DefaultStorageClass admission sets one
    // when there is): nothing will provision it
    const variant = VOLUME_ELSEWHERE.test(text)
      ? 'zone'
      : /storageclass[^"]*"[^"]*" not found/i.test(text)
        ? 'classMissing'
        : !claim.storageClass || /no storage class is set/i.test(text)
          ? 'noClass'
          : 'other';
    findings.push(
      finding(
        'HS212',
        {
          ...at,
          pod,
          claim: claim.name,
          phase: claim.phase,
          because: claim.event ? `: ${claim.event.message}` : '',
          storageClass: claim.storageClass ?? '',
        },
        [
          `persistentvolumeclaim/${claim.name}: ${claim.phase}${claim.storageClass ? `, storageClassName ${claim.storageClass}` : ', no storageClassName'}`,
          ...(claim.event ? [`event ${claim.event.reason}: ${claim.event.message}`] : []),
          ...(scheduling ? [`pod ${pod}: event FailedScheduling (x${scheduling.count}): ${scheduling.message}`] : []),
        ],
        { variant, pod },
      ),
    );
  }
  // a bound claim whose volume only some nodes can reach (a zone, a local volume) that none of the pod's nodes are
  // in: the scheduler's VolumeBinding plugin says so in the pod's FailedScheduling event (VOLUME_ELSEWHERE)
  for (const p of [...m.newPods, ...m.oldPods]) {
    const scheduling = p.events.find((e) => e.reason === 'FailedScheduling');
    const ordinal = ordinalOf(p.name, m.name);
    if (p.phase !== 'Pending' || p.node || ordinal === undefined || !set.claimTemplates.length) continue;
    if (!scheduling || !VOLUME_ELSEWHERE.test(scheduling.message)) continue;
    if (findings.some((f) => f.pod === p.name)) continue;
    const claim = `${set.claimTemplates[0]}-${m.name}-${ordinal}`;
    findings.push(
      finding(
        'HS212',
        { ...at, pod: p.name, claim, phase: 'Bound', because: `: ${scheduling.message}`, storageClass: '' },
        [`pod ${p.name}: event FailedScheduling (x${scheduling.count}): ${scheduling.message}`],
        { variant: 'zone', pod: p.name },
      ),
    );
  }
  // OrderedReady: the first pod that is not Ready and cannot become so stops everything after it
  const pod = set.podManagementPolicy === 'OrderedReady' && set.updateStrategy === 'RollingUpdate' && waitedOn(ctx);
  // a pod that waits for its claim is HS212's: the way out is storage, not the template
  if (pod && !findings.some((f) => f.pod === pod.name)) {
    const fault = containerRules({ ...ctx, model: { ...m, newPods: [pod], oldPods: [] } })[0];
    if (fault) {
      const fresh = pod.revision !== undefined && pod.revision === set.updateRevision;
      const cause = pod.containerProblems[0]?.reason ?? CAUSES[fault.id] ?? fault.id;
      findings.push({
        // how long the pod's fault has held is the fault's to say: its restarts, its probes' allowance
        restarts: fault.restarts,
        withinMs: fault.withinMs,
        ...finding(
          'HS211',
          { ...at, pod: pod.name, revision: pod.revision ?? '?', cause },
          [
            `podManagementPolicy OrderedReady: the controller goes on only once ${pod.name} is Running and Ready`,
            ...fault.evidence,
          ],
          { variant: fresh ? 'updateRevision' : 'olderRevision', pod: pod.name },
        ),
      });
    }
  }
  return findings;
}

/**
 * A StatefulSet's pods left on an older revision on purpose (a partition, OnDelete): warnings, after every cause, as
 * neither stops the controller — it does what it was told.
 */
export function statefulSetHolds(ctx: DiagnoseContext): Finding[] {
  const m = ctx.model;
  const set = m.statefulSet;
  if (!set) return [];
  const findings: Finding[] = [];
  const at = { name: m.name, namespace: m.namespace };
  if (set.heldByPartition.length) {
    const held = set.heldByPartition;
    const revisions = [...new Set(m.oldPods.filter((p) => held.includes(p.name)).map((p) => p.revision ?? '?'))];
    findings.push(
      finding(
        'HS213',
        {
          ...at,
          partition: set.partition,
          held: held.length === 1 ? `pod ${held[0]}` : `pods ${held.join(', ')}`,
          s: held.length === 1 ? 's' : '',
          revision: revisions.join(', '),
        },
        [
          `spec.updateStrategy.rollingUpdate.partition: ${set.partition}`,
          `update revision ${set.updateRevision ?? '?'}; ${held.join(', ')} at ${revisions.join(', ')}`,
        ],
      ),
    );
  }
  const stale = m.oldPods.filter((p) => !p.terminating);
  if (set.updateStrategy === 'OnDelete' && stale.length) {
    const last = [...stale].sort(byOrdinal(m.name)).at(-1)!;
    findings.push(
      finding('HS214', { ...at, count: stale.length, podNoun: stale.length === 1 ? 'pod' : 'pods', pod: last.name }, [
        'spec.updateStrategy.type: OnDelete',
        `update revision ${set.updateRevision ?? '?'}; ${stale.map((p) => `${p.name} at ${p.revision ?? '?'}`).join(', ')}`,
      ]),
    );
  }
  return findings;
}
