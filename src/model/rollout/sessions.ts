import {
  type AddressMemory,
  type HAProxyReading,
  type PodSessions,
  rememberAddresses,
  serverNames,
  sessionsByPod,
} from '../haptic/sessions.ts';
import type { Installation } from '../haptic/haptic.ts';
import type { PodView } from './pod.ts';
import type { RolloutModel } from './rollout.ts';

// HAProxy's sessions set on the rollout's pods, and what a follower remembers of them: how many an old pod held at
// most, when it held none left (drained of connections) or how many it still held when it ended. Pure, but for the
// address memory a follower keeps across reads (withSessions adds the pods it sees to it).

const key = (p: { uid?: string | undefined; name: string }) => p.uid ?? p.name;

/** The model with each pod's sessions (matched by address: `memory` keeps the addresses of pods gone since). */
export function withSessions(
  model: RolloutModel,
  state: { readings: HAProxyReading[]; unavailable?: string | undefined },
  memory: AddressMemory,
): RolloutModel {
  const pods = [...model.newPods, ...model.oldPods];
  rememberAddresses(
    memory,
    pods.map((p) => ({ key: key(p), ip: p.ip })),
  );
  if (state.unavailable) return { ...model, sessions: { unavailable: state.unavailable, problems: [] } };
  const expected = haproxyPodsToRead(routingInstallations(model));
  // no HAProxy pod to ask (none discovered, or HAPTIC's objects unreadable): nothing is known, not 0
  if (!expected.length) return { ...model, sessions: { problems: ['no HAProxy pod of HAPTIC to read sessions from'] } };
  // the configs' `# Pod:` comments name the servers of the pods seen now (the live config, its retained checkpoints)
  const keys = new Map(pods.map((p) => [p.name, key(p)]));
  const servers = model.installations.flatMap((i) => [
    ...(i.config?.servers ?? []),
    ...(i.config?.retained.flatMap((r) => r.servers ?? []) ?? []),
  ]);
  const fresh = new Set(model.newPods.map(key));
  const byPod = sessionsByPod(state.readings, expected, memory, serverNames(servers, keys), fresh);
  const problems = [
    ...new Set(
      state.readings
        .filter((r) => expected.includes(r.pod) && !r.transient)
        .flatMap((r) =>
          r.problem ? [r.problem] : r.workers.flatMap((w) => (w.problem ? [`${r.pod}: ${w.problem}`] : [])),
        ),
    ),
  ];
  const unread = expected.every((pod) => state.readings.some((r) => r.pod === pod && r.problem && !r.transient));
  const set = (p: PodView): PodView => ({ ...p, sessions: byPod.get(key(p)) });
  const present = new Set(pods.map(key));
  const gone = Object.fromEntries([...byPod].filter(([k, v]) => !present.has(k) && v.servers > 0));
  return {
    ...model,
    newPods: model.newPods.map(set),
    oldPods: model.oldPods.map(set),
    sessions: { problems, ...(unread ? { unread } : {}), ...(Object.keys(gone).length ? { gone } : {}) },
  };
}

/**
 * The HAProxy pods (`namespace/name`, as a reading names its pod) whose sessions count, each once: two installations
 * of one namespace whose template configs select the same pods both list each of them (the same pod object, one UID),
 * and a pod listed twice would have its sessions counted twice.
 */
export function haproxyPodsToRead(installations: Pick<Installation, 'namespace' | 'haproxyPods'>[]): string[] {
  const seen = new Set<string>();
  for (const i of installations) for (const h of i.haproxyPods) if (h.discovered) seen.add(`${i.namespace}/${h.name}`);
  return [...seen];
}

/** Why sessions are not known, in the order to say it: nothing readable first, then each HAProxy pod's problem. */
export function sessionNotes(m: Pick<RolloutModel, 'sessions'> | undefined): string[] {
  const s = m?.sessions;
  return s ? [...(s.unavailable ? [s.unavailable] : []), ...s.problems] : [];
}

/** What a follower remembers of one pod's sessions. */
export interface SessionHistory {
  last?: number | undefined;
  lastAt?: number | undefined;
  peak: number;
  /** the rows of the last read that saw sessions open: where a later read looks for how they ended */
  openRows?: PodSessions['rows'] | undefined;
  /** HAProxy's fault counters before the pod's deletion was asked (or when first seen) */
  baseline?: PodSessions['rows'] | undefined;
  /** since the deletion: responses of this pod that failed, and attempts HAProxy retried on another server */
  failed: number;
  retried: number;
  /** an old pod: first read with no session left after its deletion was asked (or, asItEnded, when it ended) */
  drainedAt?: number | undefined;
  /** its last sessions finished as it ended: between the last read that saw them and its end */
  asItEnded?: boolean | undefined;
  /** when the pod ended (exited, or gone) */
  endedAt?: number | undefined;
  /** the sessions open at the last read before HAProxy counted them failed or retried: cut, not drained */
  openAtEnd?: number | undefined;
  /** how long before they were cut the last read was */
  readBeforeEndMs?: number | undefined;
  /** it ended with sessions open at the last read, and the workers that held them were gone before they told how */
  unsettled?: boolean | undefined;
  /** when drained, cut or unsettled was decided */
  settledAt?: number | undefined;
}

/** After a pod ended with sessions open, how long a follower waits for a read that tells how they ended. */
export const SETTLE_MS = 5000;

/** What the counters of `now` grew by over `base`, row by row (a row `base` lacks counts from 0). */
function grown(base: PodSessions['rows'], now: PodSessions['rows']): { failed: number; retried: number } {
  let failed = 0;
  let retried = 0;
  for (const [k, v] of Object.entries(now)) {
    failed += Math.max(0, v.failed - (base[k]?.failed ?? 0));
    retried += Math.max(0, v.retried - (base[k]?.retried ?? 0));
  }
  return { failed, retried };
}

/**
 * How the sessions of `open` (the rows that held them) ended, as `now` tells: `cut` when a row that held sessions
 * counts more failed or retried, `done` when every such row is there with none left, `unknown` when a row is gone
 * (its worker left with it) and none was cut.
 */
function ending(open: PodSessions['rows'], now: PodSessions['rows']): 'cut' | 'done' | 'unknown' {
  let missing = false;
  for (const [k, was] of Object.entries(open)) {
    if (was.scur === 0) continue;
    const row = now[k];
    if (!row) missing = true;
    else if (row.failed > was.failed || row.retried > was.retried) return 'cut';
    else if (row.scur > 0) return 'unknown';
  }
  return missing ? 'unknown' : 'done';
}

/** The pod's sessions are told: drained, cut, or given up on. */
export const sessionsSettled = (h: SessionHistory) =>
  h.drainedAt !== undefined || h.openAtEnd !== undefined || h.unsettled === true;

/** An old pod has ended and how its sessions ended is not told yet (a follower waits for it, at most SETTLE_MS). */
export const awaitingSessions = (pods: { role: string; sessions?: SessionHistory | undefined }[]) =>
  pods.some((h) => h.role === 'old' && h.sessions?.endedAt !== undefined && !sessionsSettled(h.sessions));

/**
 * One step of a pod's session history, after a read (`p.sessions`; a pod gone since keeps its servers' addresses,
 * so HAProxy may still list it). `ended`: the pod exited or is gone as of now.
 * - While the pod runs after its deletion: a read of none left is drained, unless the rows that held the last
 *   sessions seen count them failed or retried (cut).
 * - Once it ended with sessions open at its last read: the first read of those rows tells (cut, or finished as it
 *   ended); if their worker is gone before one does, after SETTLE_MS it is not knowable (unsettled). Never 0 for
 *   unknown.
 */
export function sessionStep(
  was: SessionHistory | undefined,
  p: { sessions?: PodSessions | undefined; terminating?: PodView['terminating'] } | undefined,
  now: number,
  ended: boolean,
): SessionHistory | undefined {
  const s = p?.sessions;
  if (!was && !s) return undefined;
  const h: SessionHistory = { ...(was ?? { peak: 0, failed: 0, retried: 0 }) };
  const deleting = ended || p?.terminating !== undefined;
  if (s) {
    // the counters before the deletion, kept current until then (a follower that starts late takes its first read)
    if (!deleting || !h.baseline) h.baseline = deleting ? s.rows : { ...h.baseline, ...s.rows };
    if (deleting) {
      const g = grown(h.baseline, s.rows);
      // a leaving worker that exits takes its counters with it: what was counted stays counted
      h.failed = Math.max(h.failed, g.failed);
      h.retried = Math.max(h.retried, g.retried);
    }
  }
  if (sessionsSettled(h)) return h;
  if (ended) h.endedAt ??= now;
  const told = s && h.openRows ? ending(h.openRows, s.rows) : undefined;
  if (h.endedAt === undefined) {
    if (s?.sessions === undefined) return h;
    if (deleting && told === 'cut') {
      h.openAtEnd = h.last;
      h.readBeforeEndMs = h.lastAt === undefined ? undefined : now - h.lastAt;
    } else if (deleting && s.sessions === 0) h.drainedAt = now;
    h.last = s.sessions;
    h.lastAt = now;
    h.peak = Math.max(h.peak, s.sessions);
    h.openRows = s.sessions > 0 ? s.rows : undefined;
  } else if (h.last === undefined) h.unsettled = true;
  else if (h.last === 0 || told === 'done') {
    h.drainedAt = h.endedAt;
    h.asItEnded = true;
  } else if (told === 'cut') {
    h.openAtEnd = h.last;
    h.readBeforeEndMs = h.lastAt === undefined ? undefined : h.endedAt - h.lastAt;
  } else if (now - h.endedAt >= SETTLE_MS) h.unsettled = true;
  if (sessionsSettled(h)) h.settledAt = now;
  return h;
}

/** The sessions of a pod in a few characters: `3`, `≥2` (some HAProxy pod unreadable), `?`. */
export function sessionsText(s: PodSessions | undefined): string {
  if (!s) return '?';
  return s.sessions !== undefined ? String(s.sessions) : `≥${s.atLeast ?? 0}`;
}

/**
 * The installations that route the rollout (docs/sessions.md): one that admits a route of its Services, or whose
 * config has a server for one of its pods. Another HAProxyTemplateConfig's HAProxy pods carry none of its traffic:
 * they are not exec'd into, and their servers at the pods' addresses are not counted.
 */
export function routingInstallations(
  model: Pick<RolloutModel, 'installations' | 'routing' | 'newPods' | 'oldPods'>,
): Installation[] {
  const ids = new Set<string>([
    ...model.routing.services.flatMap((s) => s.routes.flatMap((r) => r.admittedBy)),
    ...(model.routing.rendered ?? []).map((r) => r.installation),
    ...[...model.newPods, ...model.oldPods].flatMap((p) => p.haproxy.map((h) => h.installation)),
  ]);
  return model.installations.filter((i) => ids.has(`${i.namespace}/${i.templateConfig}`));
}
