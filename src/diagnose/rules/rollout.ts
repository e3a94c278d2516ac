import { formatAge } from '../../model/time.ts';
import type { DiagnoseContext } from '../context.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';

/** ReplicaSet cannot create pods (quota, admission), and a paused Deployment. */
export function replicaSetRules(ctx: DiagnoseContext): Finding[] {
  const m = ctx.model;
  const findings: Finding[] = [];
  const failure = m.conditions.replicaFailure ?? m.newReplicaSet?.failure;
  const failedCreate = m.events.filter(
    (e) => e.reason === 'FailedCreate' && e.object === `replicaset/${m.newReplicaSet?.name}`,
  );
  if (m.phase !== 'complete' && (failure || failedCreate.length)) {
    findings.push(
      finding(
        'HS205',
        { replicaSet: m.newReplicaSet?.name ?? '?', namespace: m.namespace },
        [
          ...(failure ? [`condition ReplicaFailure=True reason ${failure.reason}: ${failure.message}`] : []),
          ...failedCreate.slice(0, 1).map((e) => `event FailedCreate (x${e.count}): ${e.message}`),
        ],
        { variant: /quota/i.test(`${failure?.message} ${failedCreate[0]?.message}`) ? 'quota' : 'refused' },
      ),
    );
  }
  if (m.paused && m.phase !== 'complete') {
    findings.push(finding('HS206', { name: m.name, namespace: m.namespace }, ['spec.paused: true']));
  }
  return findings;
}

/** Old pods that outlive their grace period: a drain stall (usually a finalizer nobody removes). */
export function drainRules(ctx: DiagnoseContext): Finding[] {
  const stuck = [...ctx.model.oldPods, ...ctx.model.newPods].filter((p) => p.terminating?.pastDeadline);
  return stuck.map((p) => {
    const t = p.terminating!;
    return finding(
      'HS208',
      { pod: p.name, age: formatAge(ctx.now - Date.parse(t.deadline ?? '')), namespace: ctx.model.namespace },
      [
        `deletionTimestamp ${t.deadline}`,
        t.finalizers.length ? `finalizers: ${t.finalizers.join(', ')}` : 'no finalizers: the node may be unreachable',
      ],
      { variant: t.finalizers.length ? 'finalizers' : 'none', pod: p.name },
    );
  });
}

/** Reported with the underlying cause, never instead of it: the rules' order puts it last. */
export function deadlineRule(ctx: DiagnoseContext, causes: number): Finding[] {
  const m = ctx.model;
  if (m.phase !== 'failed') return [];
  const p = m.conditions.progressing;
  return [
    finding(
      'HS207',
      { name: m.name, seconds: m.progressDeadlineSeconds },
      [
        `condition Progressing=False reason ${p?.reason}${p?.message ? `: ${p.message}` : ''}`,
        'the Deployment controller only reports this; the rollout resumes by itself once the cause is fixed',
      ],
      { variant: causes ? 'withCause' : 'alone' },
    ),
  ];
}
