import type { PodView } from './pod.ts';
import { type SessionHistory, sessionStep, sessionsSettled } from './sessions.ts';
import type { RolloutModel } from './rollout.ts';

// What a follower of a rollout has seen happen, and when: each pod's way in (new pods) or out (old pods), and
// each rendered config's way to every HAProxy pod. Pure: the history so far and the next model in, the next
// history out. Times come from the objects where they carry them (condition transition times, the deletion
// deadline, a container's finishedAt), else from when the change was first seen. A stage already reached when the
// follower started has no time it could know: null (and no duration is computed from it).

/** A time in ms; null: reached before the follower started, when is not known. */
export type Moment = number | null | undefined;

export interface PodHistory {
  name: string;
  role: 'new' | 'old';
  createdAt?: number | undefined;
  /** new pods: ContainersReady True, routed by every HAProxy pod, gate True, Ready */
  containersReadyAt?: Moment;
  routedAt?: Moment;
  gateAt?: Moment;
  readyAt?: Moment;
  /** old pods: deletion requested, out of the EndpointSlice's ready set, server disabled on every HAProxy pod,
   * containers exited, the pod gone */
  deletedAt?: Moment;
  deadlineAt?: Moment;
  unreadyAt?: Moment;
  disabledAt?: Moment;
  exitedAt?: Moment;
  goneAt?: Moment;
  /** the sessions HAProxy held to it, when they are read (status --sessions) */
  sessions?: SessionHistory | undefined;
}

export interface ConfigHistory {
  installation: string;
  checksum: string;
  /** null: already live when the follower started */
  firstSeenAt: number | null;
  /** every live HAProxy pod runs it (settled) */
  convergedAt?: number | undefined;
  haproxyPods: number;
}

export interface RolloutHistory {
  startedAt: number;
  /** by podKey, in the order first seen */
  pods: Record<string, PodHistory>;
  configs: ConfigHistory[];
  /** when the rollout was first seen complete (and drained, when that was asked) */
  doneAt?: number | undefined;
  /** the follower saw the rollout not done at some point (else there is nothing to report) */
  progressed?: boolean | undefined;
}

/**
 * Which pod a view stands for, over time: its UID, as a StatefulSet makes a pod again under the same name (the old
 * web-1 drains while the new web-1 is created); its name when the API sent no UID.
 */
export function podKey(p: { uid?: string | undefined; name: string }): string {
  return p.uid ?? p.name;
}

const at = (time: string | undefined) => {
  const t = time ? Date.parse(time) : Number.NaN;
  return Number.isNaN(t) ? undefined : t;
};

const routedEverywhere = (p: PodView) =>
  p.haproxy.length > 0 && p.haproxy.every((h) => !h.disabled && h.of > 0 && h.runningOn === h.of);
const disabledEverywhere = (p: PodView) =>
  p.haproxy.length > 0 && p.haproxy.every((h) => h.disabled && h.of > 0 && h.runningOn === h.of);

/** Sets a stage's time once: precise when the object carries it, else `seen` (now, or null before the start). */
function mark(h: PodHistory, key: keyof PodHistory, precise: number | undefined, seen: number | null): void {
  if ((h as unknown as Record<string, unknown>)[key] !== undefined) return;
  (h as unknown as Record<string, unknown>)[key] = precise ?? seen;
}

function newPodStep(was: PodHistory | undefined, p: PodView, now: number, seen: number | null): PodHistory {
  const h: PodHistory = { ...(was ?? { name: p.name, role: 'new' }) };
  h.createdAt ??= at(p.createdAt) ?? now;
  if (p.containersReady.status === 'True') mark(h, 'containersReadyAt', at(p.containersReady.since), seen);
  if (routedEverywhere(p) || p.gate.state === 'True') mark(h, 'routedAt', undefined, seen);
  if (p.gate.state === 'True') mark(h, 'gateAt', at(p.gate.since), seen);
  if (p.ready.status === 'True') mark(h, 'readyAt', at(p.ready.since), seen);
  h.sessions = sessionStep(h.sessions, p, now, false);
  return h;
}

function oldPodStep(was: PodHistory | undefined, p: PodView, now: number, seen: number | null): PodHistory {
  const h: PodHistory = { ...(was ?? { name: p.name, role: 'old' }), role: 'old' };
  h.createdAt ??= at(p.createdAt);
  const t = p.terminating;
  if (t) {
    mark(h, 'deletedAt', at(t.since), seen);
    mark(h, 'deadlineAt', at(t.deadline), seen);
    if (p.endpoints.length === 0 || p.endpoints.every((e) => !e.ready)) mark(h, 'unreadyAt', undefined, seen);
    if (p.haproxy.length === 0 || disabledEverywhere(p)) mark(h, 'disabledAt', undefined, seen);
    if (p.phase === 'Succeeded' || p.phase === 'Failed') mark(h, 'exitedAt', at(p.containersFinishedAt), seen);
  }
  h.sessions = sessionStep(h.sessions, p, now, h.exitedAt !== undefined);
  return h;
}

/** The history after seeing `model` at `now`. Pods that left the model are gone at `now` (their first absence). */
export function observe(
  history: RolloutHistory | undefined,
  model: RolloutModel,
  now: number,
  done: boolean,
): RolloutHistory {
  const pods: Record<string, PodHistory> = { ...(history?.pods ?? {}) };
  const present = new Set<string>();
  // what the first model shows was reached before the follower started
  const seen = history ? now : null;
  for (const p of model.newPods) {
    const key = podKey(p);
    present.add(key);
    pods[key] = newPodStep(pods[key], p, now, seen);
  }
  for (const p of model.oldPods) {
    const key = podKey(p);
    present.add(key);
    pods[key] = oldPodStep(pods[key], p, now, seen);
  }
  for (const [key, h] of Object.entries(pods)) {
    if (present.has(key)) continue;
    if (h.goneAt === undefined)
      pods[key] = {
        ...h,
        goneAt: now,
        exitedAt: h.exitedAt !== undefined ? h.exitedAt : h.role === 'old' ? now : undefined,
      };
    // a pod gone with sessions open: the reads after tell whether they finished or were cut
    const s = pods[key]!.sessions;
    if (s && !sessionsSettled(s))
      pods[key] = { ...pods[key]!, sessions: sessionStep(s, { sessions: model.sessions?.gone?.[key] }, now, true) };
  }
  const configs = [...(history?.configs ?? [])];
  for (const inst of model.installations) {
    const checksum = inst.config?.checksum;
    if (!checksum) continue;
    const installation = `${inst.namespace}/${inst.templateConfig}`;
    const live = inst.haproxyPods.filter((p) => p.discovered);
    let i = configs.findIndex((c) => c.installation === installation && c.checksum === checksum);
    if (i < 0) i = configs.push({ installation, checksum, firstSeenAt: seen, haproxyPods: live.length }) - 1;
    const c = configs[i]!;
    if (c.convergedAt === undefined && live.length > 0 && live.every((p) => p.current))
      configs[i] = { ...c, convergedAt: now, haproxyPods: live.length };
  }
  return {
    startedAt: history?.startedAt ?? now,
    pods,
    configs,
    doneAt: history?.doneAt ?? (done ? now : undefined),
    progressed: (history?.progressed ?? false) || !done,
  };
}
