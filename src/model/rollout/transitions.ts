import { type PodHistory, podKey, type RolloutHistory } from './history.ts';
import type { PodView } from './pod.ts';
import type { RolloutModel } from './rollout.ts';
import { formatAge } from '../time.ts';
import { sessionNotes } from './sessions.ts';

/**
 * What changed between two models, as short lines for CI logs (status --wait) and the live view's log. Pure. With
 * the follower's history, a pod's way out says how long it drained.
 */
export function transitions(
  prev: RolloutModel | undefined,
  next: RolloutModel,
  seen?: { history: RolloutHistory; now: number },
): string[] {
  const lines: string[] = [];
  if (!prev || prev.message !== next.message) lines.push(`rollout: ${next.message}`);
  // by UID: a StatefulSet's new web-1 is not its old web-1
  const before = new Map([...(prev?.newPods ?? []), ...(prev?.oldPods ?? [])].map((p) => [podKey(p), p]));
  for (const pod of next.newPods)
    lines.push(...podChanges(before.get(podKey(pod)), pod, next.gateType, prev !== undefined));
  for (const pod of next.oldPods) {
    const was = before.get(podKey(pod));
    if (pod.terminating && !was?.terminating)
      lines.push(
        `pod/${pod.name} (old) terminating, ${Math.round((pod.terminating.graceRemainingMs ?? 0) / 1000)}s grace period`,
      );
    if (pod.terminating?.pastDeadline && !was?.terminating?.pastDeadline)
      lines.push(
        `pod/${pod.name} (old) still terminating past its grace period${pod.terminating.finalizers.length ? ` (finalizers: ${pod.terminating.finalizers.join(', ')})` : ''}`,
      );
  }
  if (prev) {
    const keys = new Set([...next.newPods, ...next.oldPods].map(podKey));
    for (const [key, was] of before) {
      if (keys.has(key)) continue;
      const deleted = seen?.history.pods[key]?.deletedAt;
      const drained = typeof deleted === 'number' && seen ? ` after ${formatAge(seen.now - deleted)} of drain` : '';
      lines.push(`pod/${was.name}${prev.oldPods.includes(was) ? ' (old)' : ''} gone${drained}`);
    }
  }
  if (seen) for (const h of Object.values(seen.history.pods)) lines.push(...sessionVerdict(h, seen.now));
  const said = new Set(sessionNotes(prev));
  for (const note of sessionNotes(next)) if (!said.has(note)) lines.push(`sessions: ${note}`);
  for (const inst of next.installations) {
    const was = prev?.installations.find(
      (i) => i.namespace === inst.namespace && i.templateConfig === inst.templateConfig,
    );
    if (was && was.leader.state !== inst.leader.state) {
      lines.push(
        `HAPTIC ${inst.namespace}/${inst.templateConfig}: ${inst.leader.state === 'held' ? `leader ${inst.leader.holder}` : `no leader (lease ${inst.leader.state})`}`,
      );
    }
  }
  return lines;
}

/** An old pod's sessions, the moment how they ended is known. */
function sessionVerdict(h: PodHistory, now: number): string[] {
  const s = h.sessions;
  if (h.role !== 'old' || !s || s.settledAt !== now) return [];
  const id = `pod/${h.name} (old)`;
  const plural = (n: number) => `${n} session${n === 1 ? '' : 's'}`;
  if (s.openAtEnd !== undefined) return [`${id} killed with ${plural(s.openAtEnd)} open`];
  if (s.unsettled)
    return [
      s.last === undefined
        ? `${id} ended before HAProxy's sessions to it could be read`
        : `${id} ended with ${plural(s.last)} open at its last read; how they ended is not known`,
    ];
  if (s.drainedAt === undefined) return [];
  if (s.asItEnded) return [`${id} drained of connections as it ended`];
  const left =
    typeof h.deadlineAt === 'number' ? `, ${formatAge(Math.max(0, h.deadlineAt - s.drainedAt))} of grace left` : '';
  return [`${id} drained of connections${left}`];
}

function podChanges(was: PodView | undefined, pod: PodView, gateType: string, announceNew: boolean): string[] {
  const lines: string[] = [];
  const id = `pod/${pod.name}`;
  if (!was && announceNew) lines.push(`${id} created`);
  if (pod.containersReady.status === 'True' && was?.containersReady.status !== 'True')
    lines.push(`${id} containers ready`);
  const problem = pod.containerProblems[0];
  if (problem && problem.reason !== 'NotReady' && was?.containerProblems[0]?.reason !== problem.reason)
    lines.push(`${id} container ${problem.container}: ${problem.reason}`);
  const routed = pod.haproxy
    .map((h) => `${h.disabled ? 'disabled' : 'enabled'} on ${h.runningOn}/${h.of} HAProxy pods`)
    .join(', ');
  const wasRouted = was?.haproxy
    .map((h) => `${h.disabled ? 'disabled' : 'enabled'} on ${h.runningOn}/${h.of} HAProxy pods`)
    .join(', ');
  if (routed && routed !== wasRouted) lines.push(`${id} HAProxy: ${routed}`);
  if (pod.gate.state !== 'not-gated' && pod.gate.state !== was?.gate.state) {
    const latency =
      pod.gate.state === 'True' && pod.gateLatencyMs !== undefined
        ? ` (${Math.round(pod.gateLatencyMs / 1000)}s after containers ready)`
        : '';
    lines.push(`${id} gate ${gateType}: ${pod.gate.state}${latency}`);
  }
  if (pod.ready.status === 'True' && was?.ready.status !== 'True') lines.push(`${id} Ready`);
  return lines;
}
