import { formatAge } from '../../model/time.ts';
import type { DiagnoseContext } from '../context.ts';
import type { Finding } from '../finding.ts';
import { finding } from '../make.ts';

/** ReplicaSet cannot create pods (quota, admission), and a paused Deployment. */
export function replicaSetRules(ctx: DiagnoseContext): Finding[] {
  const m = ctx.model;
  const findings: Finding[] = [];
  const failure = m.conditions.replicaFailure ?? m.newReplicaSet?.failure;
  const failedCreate = m.events.filter((e) => e.reason === 'FailedCreate' && e.object === `replicaset/${m.newReplicaSet?.name}`);
  if (m.phase !== 'complete' && (failure || failedCreate.length)) {
    findings.push(finding('HS205', `replicaset/${m.newReplicaSet?.name ?? '?'} cannot create pods`,
      [...(failure ? [`condition ReplicaFailure=True reason ${failure.reason}: ${failure.message}`] : []), ...failedCreate.slice(0, 1).map((e) => `event FailedCreate (x${e.count}): ${e.message}`)],
      /quota/i.test(`${failure?.message} ${failedCreate[0]?.message}`) ? `raise the ResourceQuota in namespace ${m.namespace} (kubectl -n ${m.namespace} describe resourcequota) or lower the pods' requests/maxSurge` : 'fix what the API server refused (message above)'));
  }
  if (m.paused && m.phase !== 'complete') {
    findings.push(finding('HS206', `deployment ${m.name} is paused: the rollout does not progress until it is resumed`, ['spec.paused: true'], `kubectl -n ${m.namespace} rollout resume deployment/${m.name}`));
  }
  return findings;
}

/** Old pods that outlive their grace period: a drain stall (usually a finalizer nobody removes). */
export function drainRules(ctx: DiagnoseContext): Finding[] {
  const stuck = [...ctx.model.oldPods, ...ctx.model.newPods].filter((p) => p.terminating?.pastDeadline);
  return stuck.map((p) => {
    const t = p.terminating!;
    return { pod: p.name, ...finding('HS208', `pod ${p.name} is still terminating ${formatAge(ctx.now - Date.parse(t.deadline ?? ''))} past its grace period`,
      [`deletionTimestamp ${t.deadline}`, t.finalizers.length ? `finalizers: ${t.finalizers.join(', ')}` : 'no finalizers: the node may be unreachable'],
      t.finalizers.length ? `find the controller that owns the finalizer; as a last resort: kubectl -n ${ctx.model.namespace} patch pod ${p.name} --type=merge -p '{"metadata":{"finalizers":null}}'` : `kubectl -n ${ctx.model.namespace} delete pod ${p.name} --grace-period=0 --force`) };
  });
}

/** Reported with the underlying cause, never instead of it: the rules' order puts it last. */
export function deadlineRule(ctx: DiagnoseContext, causes: number): Finding[] {
  const m = ctx.model;
  if (m.phase !== 'failed') return [];
  const p = m.conditions.progressing;
  return [finding('HS207', `deployment ${m.name} exceeded its progress deadline (${m.progressDeadlineSeconds}s)${causes ? '; the cause is above' : ''}`,
    [`condition Progressing=False reason ${p?.reason}${p?.message ? `: ${p.message}` : ''}`, 'the Deployment controller only reports this; the rollout resumes by itself once the cause is fixed'])];
}
