import type { FindingText } from '../../types/finding.ts';
import type { RolloutHistory } from '../rollout/history.ts';
import type { RolloutReport } from '../rollout/report.ts';
import { MODEL_VERSION } from '../rollout/rollout.ts';
import type { RolloutTarget } from '../../types/kube.ts';

// `kubectl haptic drill`: what the probe pod's requests say about a rollout. The probe writes one line per request,
// `<sequence> <curl exit code> <HTTP status> <seconds>`, and the kubelet timestamps each line as it is written
// (pods/log?timestamps=true), so a request ended at its line's time and started `seconds` before. Each request is
// classed as curl's exit code and the status say; each failure is set against the rollout change closest before it
// (the restart, a new pod created or Ready, an old pod starting to drain or gone). Pure.

/** How a failed request failed. */
export const FAILURE_CLASSES = ['refused', 'reset', 'timeout', 'http5xx', 'other'] as const;
export type FailureClass = (typeof FAILURE_CLASSES)[number];
export type Outcome = 'ok' | FailureClass;

export const CLASS_WORDS: Record<FailureClass, string> = {
  refused: 'connection refused',
  reset: 'connection reset',
  timeout: 'timeout',
  http5xx: 'HTTP 5xx',
  other: 'other',
};

/**
 * curl's exit code and HTTP status as a class (curl(1), "EXIT CODES"): 7 could not connect (refused, or no route);
 * 52 empty reply and 55/56 send/receive failure (the connection was cut: reset); 28 operation timed out; exit 0
 * with a status of 500 or more is an HTTP 5xx, with 200–399 a success; anything else (a 4xx, another exit code)
 * is other.
 */
export function classifyProbe(exitCode: number, httpCode: number): Outcome {
  if (exitCode === 0) {
    if (httpCode >= 500) return 'http5xx';
    return httpCode >= 200 && httpCode < 400 ? 'ok' : 'other';
  }
  if (exitCode === 7) return 'refused';
  if (exitCode === 52 || exitCode === 55 || exitCode === 56) return 'reset';
  if (exitCode === 28) return 'timeout';
  return 'other';
}

export interface ProbeRequest {
  seq: number;
  startedAt: number;
  endedAt: number;
  outcome: Outcome;
  exitCode: number;
  httpCode: number;
}

const LINE = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z) (\d+) (\d+) (\d{3}) (\d+(?:\.\d+)?)$/;

/** The probe's requests from its log with kubelet timestamps; lines of another shape are counted apart. */
export function parseProbeLog(text: string): { requests: ProbeRequest[]; unreadable: number } {
  const requests: ProbeRequest[] = [];
  let unreadable = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    const m = LINE.exec(line.trim());
    const endedAt = m ? Date.parse(m[1]!) : Number.NaN;
    if (!m || Number.isNaN(endedAt)) {
      unreadable++;
      continue;
    }
    const exitCode = Number(m[3]);
    const httpCode = Number(m[4]);
    requests.push({
      seq: Number(m[2]),
      endedAt,
      startedAt: endedAt - Math.round(Number(m[5]) * 1000),
      exitCode,
      httpCode,
      outcome: classifyProbe(exitCode, httpCode),
    });
  }
  return { requests: requests.sort((a, b) => a.seq - b.seq), unreadable };
}

export type EventKind = 'restart' | 'created' | 'ready' | 'draining' | 'gone';

export interface RolloutEvent {
  at: number;
  kind: EventKind;
  pod?: string | undefined;
  /** for pods: whether it belongs to the new or an old ReplicaSet */
  role?: 'new' | 'old' | undefined;
}

/** The rollout's changes in time order: the restart, each new pod created and Ready, each old pod draining and gone. */
export function rolloutEvents(history: RolloutHistory | undefined, restartedAt: number | undefined): RolloutEvent[] {
  const events: RolloutEvent[] = restartedAt === undefined ? [] : [{ at: restartedAt, kind: 'restart' }];
  const known = (t: number | null | undefined): t is number => typeof t === 'number';
  for (const pod of Object.values(history?.pods ?? {})) {
    const add = (at: number | null | undefined, kind: EventKind) =>
      known(at) && events.push({ at, kind, pod: pod.name, role: pod.role });
    if (pod.role === 'new') {
      add(pod.createdAt, 'created');
      add(pod.readyAt, 'ready');
    } else {
      add(pod.deletedAt, 'draining');
      add(pod.goneAt, 'gone');
    }
  }
  const order: Record<EventKind, number> = { restart: 0, created: 1, ready: 2, draining: 3, gone: 4 };
  return events.sort((a, b) => a.at - b.at || order[a.kind] - order[b.kind]);
}

export interface FailureGroup {
  class: FailureClass;
  count: number;
  /** the first and last failed request of the group (their start) */
  firstAt: number;
  lastAt: number;
  /** the rollout change closest before the first of them; none when they came before any */
  after?: RolloutEvent | undefined;
}

/**
 * The failed requests, each set against the latest rollout change at or before its start, grouped by that change
 * and class, in time order. A request that began before every change but failed after one was in flight as the
 * rollout began (a slow request the old pod's end cut): it is set against the latest change before it ended.
 */
export function alignFailures(requests: ProbeRequest[], events: RolloutEvent[]): FailureGroup[] {
  const groups = new Map<string, FailureGroup>();
  for (const r of requests) {
    if (r.outcome === 'ok') continue;
    let index = -1;
    for (let i = 0; i < events.length && events[i]!.at <= r.startedAt; i++) index = i;
    if (index < 0) for (let i = 0; i < events.length && events[i]!.at <= r.endedAt; i++) index = i;
    const key = `${index}|${r.outcome}`;
    const group = groups.get(key);
    if (group) {
      group.count++;
      group.firstAt = Math.min(group.firstAt, r.startedAt);
      group.lastAt = Math.max(group.lastAt, r.startedAt);
    } else {
      groups.set(key, {
        class: r.outcome,
        count: 1,
        firstAt: r.startedAt,
        lastAt: r.startedAt,
        after: index >= 0 ? events[index] : undefined,
      });
    }
  }
  return [...groups.values()].sort(
    (a, b) => a.firstAt - b.firstAt || FAILURE_CLASSES.indexOf(a.class) - FAILURE_CLASSES.indexOf(b.class),
  );
}

export type DrillOutcome = 'complete' | 'failed' | 'timeout';

export interface DrillTarget {
  /** what the probe requests: the Service, or HAPTIC's HAProxy with a Host header */
  via: 'service' | 'haproxy';
  service: string;
  url: string;
  host?: string | undefined;
}

export interface DrillReport {
  apiVersion: typeof MODEL_VERSION;
  kind: 'DrillReport';
  /** the drilled workload: a Deployment or a StatefulSet */
  workloadKind: RolloutTarget['kind'];
  name: string;
  namespace: string;
  target: DrillTarget;
  probe: { pod: string; image: string; intervalMs: number; timeoutMs: number };
  /** the probe's first and last counted requests */
  startedAt?: string | undefined;
  finishedAt?: string | undefined;
  /** durationMs: from the restart (else from when the rollout was first seen progressing) to complete and drained */
  rollout: {
    outcome: DrillOutcome;
    restartedAt?: string | undefined;
    durationMs?: number | undefined;
    report?: RolloutReport | undefined;
    /** a failed rollout's cause, as why-stalled gives it: a stall that does not clear by itself ended the drill */
    cause?: FindingText | undefined;
  };
  requests: number;
  failed: number;
  failures: Record<FailureClass, number>;
  /** the failures grouped by the rollout change closest before them */
  groups: {
    class: FailureClass;
    count: number;
    from: string;
    to: string;
    after?:
      | { change: EventKind; pod?: string | undefined; role?: 'new' | 'old' | undefined; at: string; beforeMs: number }
      | undefined;
  }[];
  changes: { at: string; change: EventKind; pod?: string | undefined; role?: 'new' | 'old' | undefined }[];
  /** probe log lines that were not a request (an error message of the image, a line cut by the read) */
  unreadableLines: number;
  verdict: 'no-failures' | 'failures';
}

const iso = (ms: number) => new Date(ms).toISOString();

export function buildDrillReport(input: {
  workloadKind: DrillReport['workloadKind'];
  name: string;
  namespace: string;
  target: DrillTarget;
  probe: DrillReport['probe'];
  outcome: DrillOutcome;
  restartedAt?: number | undefined;
  /** when the rollout was first seen progressing, and seen complete and drained */
  progressingAt?: number | undefined;
  doneAt?: number | undefined;
  history?: RolloutHistory | undefined;
  report?: RolloutReport | undefined;
  cause?: FindingText | undefined;
  log: string;
}): DrillReport {
  const { requests, unreadable } = parseProbeLog(input.log);
  const events = rolloutEvents(input.history, input.restartedAt);
  const failures = Object.fromEntries(FAILURE_CLASSES.map((c) => [c, 0])) as Record<FailureClass, number>;
  for (const r of requests) if (r.outcome !== 'ok') failures[r.outcome]++;
  const failed = FAILURE_CLASSES.reduce((sum, c) => sum + failures[c], 0);
  const groups = alignFailures(requests, events).map((g) => ({
    class: g.class,
    count: g.count,
    from: iso(g.firstAt),
    to: iso(g.lastAt),
    after: g.after && {
      change: g.after.kind,
      pod: g.after.pod,
      role: g.after.role,
      at: iso(g.after.at),
      beforeMs: g.firstAt - g.after.at,
    },
  }));
  return {
    apiVersion: MODEL_VERSION,
    kind: 'DrillReport',
    workloadKind: input.workloadKind,
    name: input.name,
    namespace: input.namespace,
    target: input.target,
    probe: input.probe,
    // a loop, not Math.min(...list): spreading a probe log of more than ~125k requests overflows the call stack
    startedAt: requests.length ? iso(requests.reduce((m, r) => Math.min(m, r.startedAt), Infinity)) : undefined,
    finishedAt: requests.length ? iso(requests.reduce((m, r) => Math.max(m, r.endedAt), -Infinity)) : undefined,
    rollout: {
      outcome: input.outcome,
      restartedAt: input.restartedAt === undefined ? undefined : iso(input.restartedAt),
      durationMs:
        input.doneAt === undefined
          ? undefined
          : input.doneAt - (input.restartedAt ?? input.progressingAt ?? input.doneAt),
      report: input.report,
      ...(input.cause ? { cause: input.cause } : {}),
    },
    requests: requests.length,
    failed,
    failures,
    groups,
    changes: events.map((e) => ({ at: iso(e.at), change: e.kind, pod: e.pod, role: e.role })),
    unreadableLines: unreadable,
    verdict: failed === 0 ? 'no-failures' : 'failures',
  };
}
