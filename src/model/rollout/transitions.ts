import { type PodHistory, podKey, type RolloutHistory } from './history.ts';
import type { PodView } from './pod.ts';
import type { RolloutModel } from './rollout.ts';
import { formatAge } from '../time.ts';
import { sessionNotes } from './sessions.ts';

/**
 * One change, with when it happened where the object says so (a condition's lastTransitionTime, the pod's
 * creationTimestamp, its deletion request); `atStart` marks a state found when following began, whose time nothing
 * tells: it was already so then.
 */
export interface Transition {
  text: string;
  at?: number | undefined;
  atStart?: boolean | undefined;
}

/** A transition's words, saying when its state was found already so. */
export const transitionText = (t: Transition): string => (t.atStart ? `${t.text} (already so at start)` : t.text);

const timeOf = (iso: string | undefined): number | undefined => {
  const ms = iso === undefined ? Number.NaN : Date.parse(iso);
  return Number.isFinite(ms) ? ms : undefined;
};

/**
 * What changed between two models, as short lines for CI logs (status --wait) and the live view's log, each with
 * its time when the objects tell it. Pure. With the follower's history, a pod's way out says how long it drained.
 * The first model's lines are the backlog found at start: oldest first, then the rollout's state, then what was
 * found so without a time to tell, marked so.
 */
export function transitions(
  prev: RolloutModel | undefined,
  next: RolloutModel,
  seen?: { history: RolloutHistory; now: number },
): Transition[] {
  const lines: Transition[] = [];
  const push = (text: string, iso?: string) => lines.push({ text, at: timeOf(iso), atStart: !prev && !timeOf(iso) });
  // the rollout's words are its state now, as kubectl rollout status prints it: stamped with the time it was read
  if (!prev || prev.message !== next.message) lines.push({ text: `rollout: ${next.message}` });
  // by UID: a StatefulSet's new web-1 is not its old web-1
  const before = new Map([...(prev?.newPods ?? []), ...(prev?.oldPods ?? [])].map((p) => [podKey(p), p]));
  for (const pod of next.newPods)
    for (const [text, iso] of podChanges(before.get(podKey(pod)), pod, next.gateType, prev !== undefined))
      push(text, iso);
  for (const pod of next.oldPods) {
    const was = before.get(podKey(pod));
    if (pod.terminating && !was?.terminating)
      push(
        `pod/${pod.name} (old) terminating, ${Math.round((pod.terminating.graceRemainingMs ?? 0) / 1000)}s of grace left`,
        pod.terminating.since,
      );
    if (pod.terminating?.pastDeadline && !was?.terminating?.pastDeadline)
      push(
        `pod/${pod.name} (old) still terminating past its grace period${pod.terminating.finalizers.length ? ` (finalizers: ${pod.terminating.finalizers.join(', ')})` : ''}`,
        pod.terminating.deadline,
      );
  }
  if (prev) {
    const keys = new Set([...next.newPods, ...next.oldPods].map(podKey));
    for (const [key, was] of before) {
      if (keys.has(key)) continue;
      const deleted = seen?.history.pods[key]?.deletedAt;
      const drained = typeof deleted === 'number' && seen ? ` after ${formatAge(seen.now - deleted)} of drain` : '';
      push(`pod/${was.name}${prev.oldPods.includes(was) ? ' (old)' : ''} gone${drained}`);
    }
  }
  if (seen)
    for (const h of Object.values(seen.history.pods)) for (const text of sessionVerdict(h, seen.now)) push(text);
  const said = new Set(sessionNotes(prev));
  for (const note of sessionNotes(next)) if (!said.has(note)) push(`sessions: ${note}`);
  for (const inst of next.installations) {
    const was = prev?.installations.find(
      (i) => i.namespace === inst.namespace && i.templateConfig === inst.templateConfig,
    );
    if (was && was.leader.state !== inst.leader.state) {
      push(
        `HAPTIC ${inst.namespace}/${inst.templateConfig}: ${inst.leader.state === 'held' ? `leader ${inst.leader.holder}` : `no leader (lease ${inst.leader.state})`}`,
      );
    }
  }
  // the backlog in the order it happened; a stable sort keeps each pod's own order where times tie
  return prev ? lines : lines.sort((a, b) => (a.at ?? Number.POSITIVE_INFINITY) - (b.at ?? Number.POSITIVE_INFINITY));
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

/** A new pod's changes, each with the time its object gives, if any. */
function podChanges(
  was: PodView | undefined,
  pod: PodView,
  gateType: string,
  announceNew: boolean,
): [string, string | undefined][] {
  const lines: [string, string | undefined][] = [];
  const id = `pod/${pod.name}`;
  if (!was && announceNew) lines.push([`${id} created`, pod.createdAt]);
  if (pod.containersReady.status === 'True' && was?.containersReady.status !== 'True')
    lines.push([`${id} containers ready`, pod.containersReady.since]);
  const problem = pod.containerProblems[0];
  if (problem && problem.reason !== 'NotReady' && was?.containerProblems[0]?.reason !== problem.reason)
    lines.push([`${id} container ${problem.container}: ${problem.reason}`, undefined]);
  const routed = pod.haproxy
    .map((h) => `${h.disabled ? 'disabled' : 'enabled'} on ${h.runningOn}/${h.of} HAProxy pods`)
    .join(', ');
  const wasRouted = was?.haproxy
    .map((h) => `${h.disabled ? 'disabled' : 'enabled'} on ${h.runningOn}/${h.of} HAProxy pods`)
    .join(', ');
  if (routed && routed !== wasRouted) lines.push([`${id} HAProxy: ${routed}`, undefined]);
  if (pod.gate.state !== 'not-gated' && pod.gate.state !== was?.gate.state) {
    const latency =
      pod.gate.state === 'True' && pod.gateLatencyMs !== undefined
        ? ` (${Math.round(pod.gateLatencyMs / 1000)}s after containers ready)`
        : '';
    lines.push([`${id} gate ${gateType}: ${pod.gate.state}${latency}`, pod.gate.since]);
  }
  if (pod.ready.status === 'True' && was?.ready.status !== 'True') lines.push([`${id} Ready`, pod.ready.since]);
  return lines;
}
