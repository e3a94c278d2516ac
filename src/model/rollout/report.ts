import type { Transition } from './transitions.ts';
import type { Finding } from '../../types/finding.ts';
import type { ConfigHistory, Moment, PodHistory, RolloutHistory } from './history.ts';
import { MODEL_VERSION, type RolloutModel } from './rollout.ts';

// The report a team tunes maxSurge, grace periods and preStop hooks with: how long the rollout took, how long each
// new pod waited for HAProxy (ContainersReady → gate True), how soon an old pod went after a new one turned Ready,
// how long each old pod drained against its grace period, and how long each config took to reach every HAProxy pod.
// Pure: built from the history a follower recorded.

export interface Spread {
  minMs: number;
  medianMs: number;
  maxMs: number;
  count: number;
}

export interface RolloutReport {
  apiVersion: typeof MODEL_VERSION;
  kind: 'RolloutReport';
  workloadKind: RolloutModel['workloadKind'];
  name: string;
  namespace: string;
  phase: RolloutModel['phase'];
  drained: boolean;
  startedAt: string;
  finishedAt?: string | undefined;
  totalMs?: number | undefined;
  gateLatency?: (Spread & { pods: { pod: string; ms: number }[] }) | undefined;
  readyToDeletion?: (Spread & { pairs: { newPod: string; oldPod: string; ms: number }[] }) | undefined;
  drains: {
    pod: string;
    drainMs?: number | undefined;
    graceMs?: number | undefined;
    killedAtEndOfGrace: boolean;
    gone: boolean;
    /** HAProxy's sessions to it, when they were read (status --sessions) */
    sessions?: DrainSessions | undefined;
  }[];
  haproxy: { installation: string; checksum: string; convergenceMs?: number | undefined; haproxyPods: number }[];
}

/** How an old pod's sessions ended: drained to none, or cut with sessions open. */
export interface DrainSessions {
  /** the most HAProxy held to it at once while followed */
  peak: number;
  /** none left this long after its deletion was asked, and when */
  drainedAfterMs?: number | undefined;
  drainedAt?: string | undefined;
  /** its last sessions finished as it ended (between the last read that saw them and its end) */
  asItEnded?: boolean | undefined;
  /** of its grace period, this much was left then */
  graceLeftMs?: number | undefined;
  /** it ended with this many open at its last read, and no read after could tell whether they finished */
  unsettled?: number | undefined;
  /** it ended with this many open, or HAProxy saw this many cut */
  killedWith?: number | undefined;
  /** how long before its end the last read was */
  readBeforeEndMs?: number | undefined;
  /** since its deletion: responses that failed, and attempts HAProxy retried on another server */
  failed: number;
  retried: number;
}

/** A pod killed at the end of its grace period is gone at its deadline; one that exited on its own went earlier. */
const KILL_TOLERANCE_MS = 1000;

export function spread(values: number[]): Spread | undefined {
  if (!values.length) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  const median = sorted.length % 2 ? sorted[mid]! : Math.round((sorted[mid - 1]! + sorted[mid]!) / 2);
  return { minMs: sorted[0]!, medianMs: median, maxMs: sorted.at(-1)!, count: sorted.length };
}

const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());

export function buildReport(model: RolloutModel, history: RolloutHistory): RolloutReport {
  const pods = Object.values(history.pods);
  const fresh = pods.filter((p) => p.role === 'new');
  const old = pods.filter((p) => p.role === 'old');
  const known = (t: Moment): t is number => typeof t === 'number';
  const latencies = fresh
    .filter((p) => known(p.containersReadyAt) && known(p.gateAt))
    .map((p) => ({ pod: p.name, ms: Math.max(0, (p.gateAt as number) - (p.containersReadyAt as number)) }));
  const readies = fresh.filter((p) => known(p.readyAt)).sort((a, b) => (a.readyAt as number) - (b.readyAt as number));
  const pairs = old
    .filter((o) => known(o.deletedAt))
    .flatMap((o) => {
      const before = readies.filter((n) => (n.readyAt as number) <= (o.deletedAt as number)).at(-1);
      return before
        ? [{ newPod: before.name, oldPod: o.name, ms: (o.deletedAt as number) - (before.readyAt as number) }]
        : [];
    });
  const gateSpread = spread(latencies.map((l) => l.ms));
  const pairSpread = spread(pairs.map((p) => p.ms));
  return {
    apiVersion: MODEL_VERSION,
    kind: 'RolloutReport',
    workloadKind: model.workloadKind,
    name: model.name,
    namespace: model.namespace,
    phase: model.phase,
    drained: model.drained,
    startedAt: iso(history.startedAt)!,
    finishedAt: iso(history.doneAt),
    totalMs: history.doneAt === undefined ? undefined : history.doneAt - history.startedAt,
    gateLatency: gateSpread && { ...gateSpread, pods: latencies },
    readyToDeletion: pairSpread && { ...pairSpread, pairs },
    drains: old.filter((o) => known(o.deletedAt)).map(drainOf),
    // configs already live when the follower started have no known start
    haproxy: history.configs
      .filter((c: ConfigHistory) => c.firstSeenAt !== null)
      .map((c) => ({
        installation: c.installation,
        checksum: c.checksum,
        convergenceMs: c.convergedAt === undefined ? undefined : c.convergedAt - (c.firstSeenAt as number),
        haproxyPods: c.haproxyPods,
      })),
  };
}

function drainOf(o: PodHistory): RolloutReport['drains'][number] {
  const deleted = o.deletedAt as number;
  const end = typeof o.exitedAt === 'number' ? o.exitedAt : typeof o.goneAt === 'number' ? o.goneAt : undefined;
  const deadline = typeof o.deadlineAt === 'number' ? o.deadlineAt : undefined;
  return {
    pod: o.name,
    drainMs: end === undefined ? undefined : end - deleted,
    graceMs: deadline === undefined ? undefined : deadline - deleted,
    killedAtEndOfGrace: end !== undefined && deadline !== undefined && end >= deadline - KILL_TOLERANCE_MS,
    gone: o.goneAt !== undefined && o.goneAt !== null,
    sessions: o.sessions && {
      peak: o.sessions.peak,
      drainedAfterMs: o.sessions.drainedAt === undefined ? undefined : Math.max(0, o.sessions.drainedAt - deleted),
      drainedAt: iso(o.sessions.drainedAt),
      asItEnded: o.sessions.asItEnded,
      graceLeftMs:
        o.sessions.drainedAt === undefined || deadline === undefined
          ? undefined
          : Math.max(0, deadline - o.sessions.drainedAt),
      unsettled: o.sessions.unsettled ? (o.sessions.last ?? 0) : undefined,
      killedWith: o.sessions.openAtEnd,
      readBeforeEndMs: o.sessions.readBeforeEndMs,
      failed: o.sessions.failed,
      retried: o.sessions.retried,
    },
  };
}

/** What status --wait reports, as it happens; `workload` (deployment/NAME, statefulset/NAME) is set when several are followed. */
export type WaitEntry = { at: number; workload?: string | undefined } & (
  | { kind: 'transition'; text: string }
  | { kind: 'stalled'; finding: Finding }
  | { kind: 'retrying'; text: string }
  | { kind: 'timeout'; afterMs: number }
);

/** What a follower of a rollout sees after each change: the model, its top stall finding, and any retrying read. */
export interface RolloutUpdate {
  model: RolloutModel;
  /** what happened since the previous update, as --wait prints it */
  transitions: Transition[];
  /** when each pod reached each stage, and each config every HAProxy pod, as seen since the follower started */
  history: RolloutHistory;
  /** once done: the rollout report */
  report?: RolloutReport | undefined;
  /** the first finding of a stalled rollout (why-stalled's answer), none while it progresses normally */
  finding?: Finding | undefined;
  /** every finding of the diagnosis (the live view shows those about a selected pod) */
  findings: Finding[];
  /** one line about a read that is failing and being retried (API server gone, watch forbidden) */
  problem?: string | undefined;
  /** the rollout is complete (and drained, when asked) */
  done: boolean;
}

export type WaitOutcome = 'complete' | 'failed' | 'timeout';

/** A followed workload as the wait last saw it. */
export interface WaitedWorkload {
  workloadKind: RolloutModel['workloadKind'];
  name: string;
  namespace: string;
  phase?: RolloutModel['phase'] | undefined;
  /** kubectl rollout status's words */
  message?: string | undefined;
  complete: boolean;
}

/** Why a wait failed: the workload, the cause (a finding past its hold, or the rollout's own verdict), how long. */
export interface WaitFailure {
  workload: WaitedWorkload;
  /** `cause`: a finding that does not clear by itself (fail fast); `deadline`: progress deadline exceeded; `onDelete` */
  reason: 'cause' | 'deadline' | 'degraded' | 'onDelete';
  /** the first finding at the end: the cause (why-stalled's answer) */
  finding?: Finding | undefined;
  /** how long that finding had held when the wait ended */
  heldMs?: number | undefined;
  /** from the start of the wait to the verdict */
  waitedMs: number;
  /** every other workload followed, as it was then */
  others: WaitedWorkload[];
}

export interface WaitResult {
  outcome: WaitOutcome;
  /** one per workload that completed: how long each step took */
  reports: RolloutReport[];
  /** when the outcome is 'failed' */
  failure?: WaitFailure | undefined;
  /** how long the wait took */
  waitedMs: number;
}
