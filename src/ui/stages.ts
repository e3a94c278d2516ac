import type { PodHistory, RolloutHistory } from '../model/rollout/history.ts';
import type { PodView } from '../model/rollout/pod.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';

// A pod's way into or out of a gated rollout as stages a person reads at a glance, for the live view: each stage
// done, in progress, not reached yet, or stuck, with how long it took once done.

export type StageState = 'done' | 'now' | 'todo' | 'bad';

export interface Stage {
  /** full and short words, the short ones for a narrow terminal */
  label: string;
  short: string;
  state: StageState;
  /** how long the stage took (from the previous stage), once done */
  tookMs?: number | undefined;
}

const since = (a: number | null | undefined, b: number | null | undefined) =>
  typeof a === 'number' && typeof b === 'number' ? Math.max(0, b - a) : undefined;
const counts = (p: PodView) =>
  p.haproxy.map((h) => `${h.runningOn}/${h.of}${h.unknown ? `+${h.unknown}?` : ''}`).join(',');

/** A new pod: containers ready → routed on k/K HAProxy pods → gate True → Ready. */
export function newPodStages(p: PodView, h: PodHistory | undefined): Stage[] {
  const containersOk = p.containersReady.status === 'True';
  const problem = p.containerProblems.find(
    (c) => c.reason !== 'NotReady' && c.reason !== 'ContainerCreating' && c.reason !== 'PodInitializing',
  );
  const routed = p.haproxy.length > 0 && p.haproxy.every((r) => !r.disabled && r.of > 0 && r.runningOn === r.of);
  const gateOk = p.gate.state === 'True';
  const readyOk = p.ready.status === 'True';
  const gated = p.gate.state !== 'not-gated';
  // no HAPTIC route reaches the pod's Services while its gate waits: the stage is stuck, as why-stalled says
  const unrouted =
    p.haproxy.length === 0 && p.notRouted !== undefined && gated && !gateOk && !readyOk && !p.terminating;
  // k/K counts only where HAProxy's configs were read; a gate True alone says routed, not on how many
  const routedLabel = counts(p) ? ` ${counts(p)}` : '';
  const stages: Stage[] = [
    {
      label: 'containers',
      short: 'ctr',
      state: containersOk ? 'done' : problem ? 'bad' : 'now',
      tookMs: since(h?.createdAt, h?.containersReadyAt),
    },
    unrouted
      ? { label: `not routed (${p.notRouted})`, short: 'rt none', state: 'bad' }
      : {
          label: `routed${routedLabel}`,
          short: `rt${routedLabel}`,
          state: routed || gateOk ? 'done' : !containersOk ? 'todo' : p.haproxyUnreadable ? 'bad' : 'now',
          tookMs: since(h?.containersReadyAt, h?.routedAt),
        },
  ];
  if (gated)
    stages.push({
      label: 'gate',
      short: 'gate',
      state: gateOk ? 'done' : routed ? 'now' : 'todo',
      tookMs: since(h?.routedAt !== undefined ? h.routedAt : h?.containersReadyAt, h?.gateAt),
    });
  stages.push({
    label: 'Ready',
    short: 'rdy',
    state: readyOk ? 'done' : (gated ? gateOk : containersOk) ? 'now' : 'todo',
    tookMs: since(gated ? h?.gateAt : h?.containersReadyAt, h?.readyAt),
  });
  return stages;
}

/** An old pod: out of the ready set → still serving → server disabled on k/K HAProxy pods → containers exited → gone. */
export function oldPodStages(p: PodView, h: PodHistory | undefined): Stage[] {
  const t = p.terminating;
  if (!t)
    return [
      {
        label: p.ready.status === 'True' ? 'serving, Ready' : `${p.phase}, not Ready`,
        short: p.ready.status === 'True' ? 'Ready' : p.phase,
        state: p.ready.status === 'True' ? 'done' : 'now',
      },
    ];
  const unready = p.endpoints.length === 0 || p.endpoints.every((e) => !e.ready);
  const serving = p.endpoints.some((e) => e.serving);
  const disabled = p.haproxy.length === 0 || p.haproxy.every((r) => r.disabled && r.runningOn === r.of);
  const exited = p.phase === 'Succeeded' || p.phase === 'Failed';
  return [
    { label: 'unready', short: 'out', state: unready ? 'done' : 'now', tookMs: since(h?.deletedAt, h?.unreadyAt) },
    { label: serving ? 'serving' : 'not serving', short: serving ? 'srv' : 'nosrv', state: serving ? 'now' : 'done' },
    {
      label: `disabled ${counts(p) || '-'}`,
      short: `off ${counts(p) || '-'}`,
      state: disabled ? 'done' : 'now',
      tookMs: since(h?.deletedAt, h?.disabledAt),
    },
    {
      label: 'exited',
      short: 'exit',
      state: exited ? 'done' : t.pastDeadline ? 'bad' : 'todo',
      tookMs: since(h?.deletedAt, h?.exitedAt),
    },
    { label: 'gone', short: 'gone', state: t.pastDeadline ? 'bad' : 'todo' },
  ];
}

/** How far an old pod is through its grace period. */
export function drainProgress(p: PodView, now: number): { elapsedMs: number; totalMs: number } | undefined {
  const t = p.terminating;
  if (!t?.since || !t.deadline) return undefined;
  const start = Date.parse(t.since);
  const total = Date.parse(t.deadline) - start;
  return { elapsedMs: Math.min(Math.max(0, now - start), Math.max(total, 0)), totalMs: Math.max(total, 0) };
}

/** The rollout as a whole: new pods Ready through the gate n/N, old pods gone m/M (of those seen). */
export function rolloutProgress(
  m: RolloutModel,
  history: RolloutHistory | undefined,
): { ready: number; desired: number; gone: number; old: number } {
  const ready = m.newPods.filter((p) => p.ready.status === 'True' && !p.terminating).length;
  const oldSeen = Object.values(history?.pods ?? {}).filter((p) => p.role === 'old');
  const oldNames = new Set([...oldSeen.map((p) => p.name), ...m.oldPods.map((p) => p.name)]);
  const gone = oldSeen.filter((p) => p.goneAt !== undefined).length;
  return { ready, desired: m.counts.desired, gone, old: oldNames.size };
}

/** A bar of `width` cells, `fraction` of them full. */
export function bar(fraction: number, width: number): string {
  const full = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return '█'.repeat(full) + '░'.repeat(width - full);
}
