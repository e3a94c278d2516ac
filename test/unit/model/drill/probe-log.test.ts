import { describe, expect, it } from 'vitest';
import {
  alignFailures,
  buildDrillReport,
  classifyProbe,
  parseProbeLog,
  type ProbeRequest,
  rolloutEvents,
} from '../../../../src/model/drill/probe-log.ts';
import type { RolloutHistory } from '../../../../src/model/rollout/history.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const ts = (ms: number) =>
  new Date(T0 + ms)
    .toISOString()
    .replace('Z', '000000Z')
    .replace(/\.(\d{3})000000Z$/, '.$1000000Z');

describe('classifyProbe: curl exit code and HTTP status', () => {
  it.each([
    [0, 200, 'ok'],
    [0, 302, 'ok'],
    [0, 404, 'other'],
    [0, 503, 'http5xx'],
    [0, 502, 'http5xx'],
    [7, 0, 'refused'],
    [52, 0, 'reset'],
    [56, 0, 'reset'],
    [55, 0, 'reset'],
    [28, 0, 'timeout'],
    [6, 0, 'other'],
    [35, 0, 'other'],
  ] as const)('exit %i, status %i → %s', (exit, status, outcome) => {
    expect(classifyProbe(exit, status)).toBe(outcome);
  });
});

describe('parseProbeLog', () => {
  it("reads each line with its kubelet timestamp; the start is the end minus curl's time_total", () => {
    const log = [
      `${ts(1500)} 1 0 200 0.002000`,
      `${ts(1700)} 2 7 000 0.000312`,
      `${ts(4000)} 3 28 000 2.001000`,
      'curl: (6) Could not resolve host',
      '',
    ].join('\n');
    const { requests, unreadable } = parseProbeLog(log);
    expect(unreadable).toBe(1);
    expect(requests.map((r) => [r.seq, r.outcome, r.endedAt - T0, r.startedAt - T0])).toEqual([
      [1, 'ok', 1500, 1498],
      [2, 'refused', 1700, 1700],
      [3, 'timeout', 4000, 1999],
    ]);
  });

  it('orders requests by their number whatever the order of lines', () => {
    const log = `${ts(20)} 2 0 200 0.001\n${ts(10)} 1 0 200 0.001\n`;
    expect(parseProbeLog(log).requests.map((r) => r.seq)).toEqual([1, 2]);
  });
});

const history: RolloutHistory = {
  startedAt: T0,
  pods: {
    'web-old-aaaaa': {
      name: 'web-old-aaaaa',
      role: 'old',
      createdAt: T0 - 100_000,
      deletedAt: T0 + 5000,
      goneAt: T0 + 5200,
    },
    'web-new-bbbbb': { name: 'web-new-bbbbb', role: 'new', createdAt: T0 + 1000, readyAt: T0 + 5000 },
    'web-before-ccccc': { name: 'web-before-ccccc', role: 'new', createdAt: T0 - 50_000, readyAt: null },
  },
  configs: [],
  progressed: true,
};

describe('rolloutEvents', () => {
  it('lists the restart, new pods created and Ready, old pods draining and gone, in time order; unknown times are left out', () => {
    expect(rolloutEvents(history, T0 + 200).map((e) => [e.at - T0, e.kind, e.pod ?? ''])).toEqual([
      [-50_000, 'created', 'web-before-ccccc'],
      [200, 'restart', ''],
      [1000, 'created', 'web-new-bbbbb'],
      [5000, 'ready', 'web-new-bbbbb'],
      [5000, 'draining', 'web-old-aaaaa'],
      [5200, 'gone', 'web-old-aaaaa'],
    ]);
  });
});

describe('alignFailures', () => {
  const req = (seq: number, startedAt: number, outcome: ProbeRequest['outcome']): ProbeRequest => ({
    seq,
    startedAt: T0 + startedAt,
    endedAt: T0 + startedAt + 1,
    outcome,
    exitCode: 0,
    httpCode: 200,
  });
  const events = rolloutEvents(history, T0 + 200);

  it('sets each failure against the latest change at or before its start, grouped by change and class', () => {
    const groups = alignFailures(
      [
        req(1, 100, 'ok'),
        req(2, 5000, 'http5xx'),
        req(3, 5100, 'http5xx'),
        req(4, 5150, 'refused'),
        req(5, 5300, 'http5xx'),
        req(6, 6000, 'ok'),
      ],
      events,
    );
    expect(groups.map((g) => [g.class, g.count, g.firstAt - T0, g.lastAt - T0, g.after?.kind, g.after?.pod])).toEqual([
      ['http5xx', 2, 5000, 5100, 'draining', 'web-old-aaaaa'],
      ['refused', 1, 5150, 5150, 'draining', 'web-old-aaaaa'],
      ['http5xx', 1, 5300, 5300, 'gone', 'web-old-aaaaa'],
    ]);
  });

  it('has no change for failures before any', () => {
    expect(alignFailures([req(1, -60_000, 'timeout')], events)[0]!.after).toBeUndefined();
  });

  it('sets a request in flight as the rollout began against the change before it failed', () => {
    const slow = { ...req(1, -60_000, 'reset'), endedAt: T0 + 5100 };
    expect(alignFailures([slow], events)[0]!.after).toMatchObject({ kind: 'draining', pod: 'web-old-aaaaa' });
  });
});

describe('buildDrillReport', () => {
  const target = { via: 'service' as const, service: 'shop/web', url: 'http://10.96.0.12:80/' };
  const probe = { pod: 'haptic-drill-web-x7k2p', image: 'curlimages/curl:8.11.1', intervalMs: 100, timeoutMs: 2000 };

  it('counts requests and failures by class, and says the verdict', () => {
    const log = [
      `${ts(4000)} 1 0 200 0.001`,
      `${ts(5100)} 2 0 503 0.004`,
      `${ts(5150)} 3 7 000 0.000`,
      `${ts(6000)} 4 0 200 0.001`,
    ].join('\n');
    const report = buildDrillReport({
      workloadKind: 'Deployment' as const,
      name: 'web',
      namespace: 'shop',
      target,
      probe,
      outcome: 'complete',
      restartedAt: T0 + 200,
      history,
      log,
    });
    expect(report).toMatchObject({
      kind: 'DrillReport',
      requests: 4,
      failed: 2,
      verdict: 'failures',
      failures: { refused: 1, reset: 0, timeout: 0, http5xx: 1, other: 0 },
      rollout: { outcome: 'complete', restartedAt: '2026-03-01T10:00:00.200Z' },
      startedAt: '2026-03-01T10:00:03.999Z',
      finishedAt: '2026-03-01T10:00:06.000Z',
    });
    expect(report.groups).toEqual([
      {
        class: 'http5xx',
        count: 1,
        from: '2026-03-01T10:00:05.096Z',
        to: '2026-03-01T10:00:05.096Z',
        after: { change: 'draining', pod: 'web-old-aaaaa', role: 'old', at: '2026-03-01T10:00:05.000Z', beforeMs: 96 },
      },
      {
        class: 'refused',
        count: 1,
        from: '2026-03-01T10:00:05.150Z',
        to: '2026-03-01T10:00:05.150Z',
        after: { change: 'draining', pod: 'web-old-aaaaa', role: 'old', at: '2026-03-01T10:00:05.000Z', beforeMs: 150 },
      },
    ]);
  });

  it('times the rollout from the restart, else from when it was first seen progressing, to complete and drained', () => {
    const done = {
      workloadKind: 'Deployment' as const,
      name: 'web',
      namespace: 'shop',
      target,
      probe,
      outcome: 'complete' as const,
      log: '',
      doneAt: T0 + 6200,
    };
    expect(buildDrillReport({ ...done, restartedAt: T0 + 200, progressingAt: T0 + 300 }).rollout.durationMs).toBe(6000);
    expect(buildDrillReport({ ...done, progressingAt: T0 + 1200 }).rollout.durationMs).toBe(5000);
    expect(buildDrillReport({ ...done, doneAt: undefined }).rollout.durationMs).toBeUndefined();
  });

  it('reports a probe log of 200,000 requests (no spread of the whole list onto the call stack)', () => {
    const log = Array.from({ length: 200_000 }, (_, i) => `${ts(1000 + i)} ${i + 1} 0 200 0.001`).join('\n');
    const report = buildDrillReport({
      workloadKind: 'Deployment' as const,
      name: 'web',
      namespace: 'shop',
      target,
      probe,
      outcome: 'complete',
      log,
    });
    expect(report).toMatchObject({ requests: 200_000, failed: 0, startedAt: '2026-03-01T10:00:00.999Z' });
  });

  it('says no-failures when every request succeeded, and counts nothing from an empty log', () => {
    expect(
      buildDrillReport({
        workloadKind: 'Deployment' as const,
        name: 'web',
        namespace: 'shop',
        target,
        probe,
        outcome: 'complete',
        log: `${ts(1)} 1 0 200 0.001\n`,
      }),
    ).toMatchObject({ requests: 1, failed: 0, verdict: 'no-failures', groups: [] });
    expect(
      buildDrillReport({
        workloadKind: 'Deployment' as const,
        name: 'web',
        namespace: 'shop',
        target,
        probe,
        outcome: 'timeout',
        log: '',
      }),
    ).toMatchObject({ requests: 0, failed: 0, startedAt: undefined });
  });
});
