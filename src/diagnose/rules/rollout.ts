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
  // an Argo Rollout's pause is its own rule's (argo.ts), with Argo's command
  if (m.paused && m.phase !== 'complete' && !m.argo) {
    findings.push(finding('HS206', { name: m.name, namespace: m.namespace }, ['spec.paused: true']));
  }
  return findings;
}

/** Old pods that outlive their grace period: a drain stall (usually a finalizer nobody removes). */
export function drainRules(ctx: DiagnoseContext): Finding[] {
  const stuck = [...ctx.model.oldPods, ...ctx.model.newPods].filter((p) => p.terminating?.pastDeadline);
  return stuck.map((p) => {
    const t = p.terminating!;
    // read by --sessions: a process that still holds HAProxy's sessions past its grace period was never stopped
    const s = p.sessions;
    const open = s?.sessions ?? s?.atLeast ?? 0;
    const held = s?.on.filter((o) => (o.sessions ?? 0) > 0).map((o) => `${o.haproxyPod} ${o.sessions}`);
    return finding(
      'HS208',
      {
        pod: p.name,
        age: formatAge(ctx.now - Date.parse(t.deadline ?? '')),
        namespace: ctx.model.namespace,
        node: p.node ?? '?',
        sessions: s?.sessions !== undefined ? String(open) : `at least ${open}`,
      },
      [
        `deletionTimestamp ${t.deadline}`,
        t.finalizers.length
          ? `finalizers: ${t.finalizers.join(', ')}`
          : open > 0
            ? 'no finalizers'
            : 'no finalizers: the node may be unreachable',
        ...(s
          ? [
              open > 0
                ? `HAProxy still holds ${s.sessions !== undefined ? '' : 'at least '}${open} session${open === 1 ? '' : 's'} to it (${held!.join(', ')})`
                : s.sessions === 0
                  ? 'HAProxy holds no session to it'
                  : 'HAProxy could not be read on every HAProxy pod',
            ]
          : []),
      ],
      { variant: t.finalizers.length ? 'finalizers' : open > 0 ? 'serving' : 'none', pod: p.name },
    );
  });
}

/** Reported with the underlying cause, never instead of it: the rules' order puts it last. */
export function deadlineRule(ctx: DiagnoseContext, causes: number): Finding[] {
  const m = ctx.model;
  // Argo's Degraded says more than its Progressing condition: argoDegradedRule
  if (m.phase !== 'failed' || m.argo) return [];
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
