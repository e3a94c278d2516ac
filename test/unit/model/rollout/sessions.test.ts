import { describe, expect, it } from 'vitest';
import type { PodSessions } from '../../../../src/model/haptic/sessions.ts';
import {
  type SessionHistory,
  SETTLE_MS,
  sessionStep,
  sessionsSettled,
} from '../../../../src/model/rollout/sessions.ts';
import { sessionsLine } from '../../../../src/ui/report-text.ts';
import type { RolloutHistory } from '../../../../src/model/rollout/history.ts';
import { buildRollout } from '../../../../src/model/rollout/rollout.ts';
import { transitions as changes, transitionText } from '../../../../src/model/rollout/transitions.ts';
import { hapticInputs, NOW, pod, snapshot } from '../../fixtures/rollout.ts';

/** the transitions' words, as --wait prints them */
const transitions = (...a: Parameters<typeof changes>) => changes(...a).map(transitionText);

// One HAProxy pod, its current worker 2 and, after a reload, worker 1 leaving.
const read = (rows: Record<string, [scur: number, failed?: number, retried?: number]>): PodSessions => {
  const r = Object.fromEntries(
    Object.entries(rows).map(([k, [scur, failed = 0, retried = 0]]) => [k, { scur, failed, retried }]),
  );
  const sessions = Object.values(r).reduce((n, x) => n + x.scur, 0);
  return { sessions, queued: 0, on: [], servers: Object.keys(r).length, rows: r };
};
const unknown: PodSessions = { atLeast: 1, on: [], servers: 1, rows: {} };
const terminating = {
  since: '2026-12-04T08:00:00Z',
  deadline: '2026-12-04T08:00:30Z',
  pastDeadline: false,
  finalizers: [],
};

/** Steps a history through reads: [time, sessions or undefined (no read), deleting?, ended?]. */
function walk(steps: [number, PodSessions | undefined, boolean, boolean][]): SessionHistory | undefined {
  let h: SessionHistory | undefined;
  for (const [now, s, deleting, ended] of steps)
    h = sessionStep(h, { sessions: s, terminating: deleting ? terminating : undefined }, now, ended);
  return h;
}

describe("an old pod's sessions over its drain", () => {
  it('drained: a read of none left while the pod still runs after its deletion', () => {
    const h = walk([
      [1000, read({ 'a/2/be/web': [3] }), false, false],
      [2000, read({ 'a/2/be/web': [3] }), true, false],
      [3000, read({ 'a/1/be/web': [2] }), true, false],
      [4000, read({ 'a/1/be/web': [0] }), true, false],
      [9000, undefined, true, true],
    ])!;
    expect(h).toMatchObject({ peak: 3, drainedAt: 4000, settledAt: 4000, failed: 0, retried: 0 });
    expect(h.asItEnded).toBeUndefined();
    expect(h.openAtEnd).toBeUndefined();
  });

  it('killed: the rows that held the last sessions count them failed or retried when none is left', () => {
    const h = walk([
      [1000, read({ 'a/1/be/web': [3] }), true, false],
      [2000, read({ 'a/1/be/web': [0, 0, 3] }), true, false],
    ])!;
    expect(h).toMatchObject({ openAtEnd: 3, readBeforeEndMs: 1000, retried: 3, settledAt: 2000 });
    expect(h.drainedAt).toBeUndefined();
  });

  it('killed with what the last read saw: a request that ended before the kill is among them, not among the cut', () => {
    // a CI lab run: 5 long requests and 1 short one on the old pod's server at the last read (scur is every stream
    // connected to it); the short one was answered, then the kill cut the 5, and HAProxy retried them on the new pod
    const h = walk([
      [1000, read({ 'a/2/be/web': [6] }), true, false],
      [2995, read({ 'a/2/be/web': [0, 0, 5] }), true, false],
    ])!;
    expect(h).toMatchObject({ peak: 6, openAtEnd: 6, readBeforeEndMs: 1995, failed: 0, retried: 5 });
  });

  it('ended with sessions open: the first read after it tells (same rows: finished, or cut)', () => {
    const finished = walk([
      [1000, read({ 'a/1/be/web': [2] }), true, false],
      [1400, undefined, true, true],
      [2000, read({ 'a/1/be/web': [0] }), true, true],
    ])!;
    expect(finished).toMatchObject({ drainedAt: 1400, asItEnded: true, settledAt: 2000 });
    const cut = walk([
      [1000, read({ 'a/1/be/web': [2] }), true, false],
      [1400, undefined, true, true],
      [2000, read({ 'a/1/be/web': [0, 2, 0] }), true, true],
    ])!;
    expect(cut).toMatchObject({ openAtEnd: 2, readBeforeEndMs: 400, failed: 2 });
  });

  it('never guesses: rows gone with their worker, or only the current worker seen, wait, then say it is not known', () => {
    const steps: [number, PodSessions | undefined, boolean, boolean][] = [
      [1000, read({ 'a/1/be/web': [2] }), true, false],
      [1400, undefined, true, true],
      // the leaving worker that held them has exited; the current one lists the pod's server with none
      [2000, read({ 'a/2/be/web': [0] }), true, true],
    ];
    const waiting = walk(steps)!;
    expect(sessionsSettled(waiting)).toBe(false);
    const given = walk([...steps, [1400 + SETTLE_MS, read({ 'a/2/be/web': [0] }), true, true]])!;
    expect(given).toMatchObject({ unsettled: true, last: 2 });
    expect(given.drainedAt).toBeUndefined();
    expect(given.openAtEnd).toBeUndefined();
  });

  it('an unknown read (some HAProxy pod unreadable) is not a read of none', () => {
    const h = walk([
      [1000, read({ 'a/1/be/web': [2] }), true, false],
      [2000, unknown, true, false],
    ])!;
    expect(h).toMatchObject({ last: 2, lastAt: 1000 });
    expect(sessionsSettled(h)).toBe(false);
    const never = walk([
      [1000, unknown, true, false],
      [2000, undefined, true, true],
    ])!;
    expect(never).toMatchObject({ unsettled: true });
    expect(never.last).toBeUndefined();
  });

  it('counts what was cut since the deletion even after the worker holding the counters exits', () => {
    const h = walk([
      [1000, read({ 'a/1/be/web': [2, 4, 1] }), false, false],
      [2000, read({ 'a/1/be/web': [1, 5, 3] }), true, false],
      [3000, read({ 'a/2/be/web': [0, 0, 0] }), true, false],
    ])!;
    expect(h).toMatchObject({ failed: 1, retried: 2 });
  });
});

describe('the report line of a drain', () => {
  const base = { peak: 3, failed: 0, retried: 0 };
  it('says when the pod drained and how much grace was left, or that it was killed with sessions open', () => {
    expect(sessionsLine({ ...base, drainedAfterMs: 4200, graceLeftMs: 25_800 })).toEqual({
      text: 'drained of connections at +4.2s (25.8s of grace left), from 3 sessions',
      tone: 'good',
    });
    expect(sessionsLine({ ...base, killedWith: 3, readBeforeEndMs: 600, retried: 3 })).toEqual({
      text: 'killed with 3 sessions open (HAProxy: 3 retried on another pod); last read 0.6s before',
      tone: 'bad',
    });
    expect(sessionsLine({ ...base, unsettled: 2 })?.text).toBe(
      'ended with 2 sessions open at its last read; HAProxy no longer listed it to tell how they ended',
    );
    expect(sessionsLine({ ...base, drainedAfterMs: 3000, asItEnded: true, graceLeftMs: 27_000 })?.text).toBe(
      'drained of connections as it ended, at +3.0s (27.0s of grace left), from 3 sessions',
    );
    expect(sessionsLine(base)).toBeUndefined();
  });
});

describe('what --wait says of sessions', () => {
  const model = () =>
    buildRollout(
      snapshot({
        haptic: hapticInputs(),
        pods: [
          pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: 20 }),
          pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' }),
        ],
      }),
      NOW,
    );
  const hist = (sessions: SessionHistory): RolloutHistory => ({
    startedAt: NOW - 10_000,
    pods: {
      'uid-web-old-1': { name: 'web-old-1', role: 'old', deletedAt: NOW - 8000, deadlineAt: NOW + 20_000, sessions },
    },
    configs: [],
  });
  const base = { peak: 3, failed: 0, retried: 0 };

  it('how each old pod ended, the moment it is known, once', () => {
    const m = model();
    const at = (sessions: SessionHistory, now = NOW) => transitions(m, m, { history: hist(sessions), now });
    expect(at({ ...base, drainedAt: NOW, settledAt: NOW })).toEqual([
      'pod/web-old-1 (old) drained of connections, 20s of grace left',
    ]);
    expect(at({ ...base, drainedAt: NOW, settledAt: NOW - 1000 })).toEqual([]);
    expect(at({ ...base, drainedAt: NOW - 500, asItEnded: true, settledAt: NOW })).toEqual([
      'pod/web-old-1 (old) drained of connections as it ended',
    ]);
    expect(at({ ...base, openAtEnd: 3, settledAt: NOW })).toEqual(['pod/web-old-1 (old) killed with 3 sessions open']);
    expect(at({ ...base, last: 2, unsettled: true, settledAt: NOW })).toEqual([
      'pod/web-old-1 (old) ended with 2 sessions open at its last read; how they ended is not known',
    ]);
  });

  it('says why sessions cannot be read once, not on every change', () => {
    const m = model();
    const denied = { ...m, sessions: { unavailable: 'no permission to exec', problems: [] } };
    expect(transitions(m, denied)).toEqual(['sessions: no permission to exec']);
    expect(transitions(denied, { ...denied })).toEqual([]);
  });
});
