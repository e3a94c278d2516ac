import { describe, expect, it } from 'vitest';
import { drillExitCode } from '../../../src/cli/outcomes.ts';
import { buildDrillReport } from '../../../src/model/drill/probe-log.ts';
import type { RolloutHistory } from '../../../src/model/rollout/history.ts';
import { drillText } from '../../../src/ui/drill-text.ts';
import { painter } from '../../../src/ui/style.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const ts = (ms: number) => new Date(T0 + ms).toISOString();
const history: RolloutHistory = {
  startedAt: T0,
  pods: {
    'web-6b5b79dc5f-abcde': { name: 'web-6b5b79dc5f-abcde', role: 'old', deletedAt: T0 + 4000, goneAt: T0 + 4300 },
    'web-7f5f5b8fd6-dl48n': { name: 'web-7f5f5b8fd6-dl48n', role: 'new', createdAt: T0 + 500, readyAt: T0 + 4000 },
  },
  configs: [],
  progressed: true,
};
const base = {
  workloadKind: 'Deployment' as const,
  name: 'web',
  namespace: 'shop',
  target: { via: 'service' as const, service: 'shop/web', url: 'http://10.96.0.12:80/' },
  probe: { pod: 'haptic-drill-web-x7k2p', image: 'curlimages/curl:8.11.1', intervalMs: 100, timeoutMs: 2000 },
  restartedAt: T0,
  history,
};
const lines = (...l: string[]) => `${l.join('\n')}\n`;

describe('drillText', () => {
  it('shows the probe, the rollout, failures by class and each group against the change before it', () => {
    const log = lines(
      `${ts(3000)} 1 0 200 0.002`,
      `${ts(4200)} 2 0 503 0.010`,
      `${ts(4300)} 3 0 503 0.010`,
      `${ts(4400)} 4 7 000 0.000`,
      `${ts(5000)} 5 0 200 0.002`,
    );
    const report = buildDrillReport({ ...base, outcome: 'complete', doneAt: T0 + 6300, log });
    expect(drillText(report, painter(false))).toBe(
      [
        'drill deployment.apps/web -n shop: 5 requests, 3 failed',
        '  probe     pod/haptic-drill-web-x7k2p (curlimages/curl:8.11.1): GET http://10.96.0.12:80/ every 100ms, 2.0s timeout, service shop/web',
        '  rollout   complete, old pods gone 6.3s after the restart (restarted at 10:00:00 UTC)',
        '  failures  connection refused 1 · connection reset 0 · timeout 0 · HTTP 5xx 2 · other 0',
        '',
        '  FAILED   CLASS                WHEN (from the restart)   CLOSEST ROLLOUT CHANGE BEFORE THEM',
        '  2        HTTP 5xx             +4.2s … +4.3s             pod/web-6b5b79dc5f-abcde (old) started draining 0.2s before',
        '  1        connection refused   +4.4s                     pod/web-6b5b79dc5f-abcde (old) gone 0.1s before',
        '✗ 3 of 5 requests failed during the rollout',
        '',
      ].join('\n'),
    );
    expect(drillExitCode(report)).toBe(1);
  });

  it('says so when nothing failed, and the exit code is 0; a rollout not done in time is exit 2', () => {
    const ok = buildDrillReport({
      ...base,
      outcome: 'complete',
      target: {
        via: 'haproxy',
        service: 'haptic/haptic-haproxy',
        url: 'http://10.96.0.20:80/',
        host: 'shop.example.com',
      },
      log: lines(`${ts(3000)} 1 0 200 0.002`),
    });
    const text = drillText(ok, painter(false));
    expect(text).toContain("through HAPTIC's HAProxy (service haptic/haptic-haproxy) with Host shop.example.com");
    expect(text.trimEnd().split('\n').at(-1)).toBe('✓ no request failed (1 request)');
    expect(drillExitCode(ok)).toBe(0);
    const late = buildDrillReport({ ...base, outcome: 'timeout', log: '' });
    expect(drillText(late, painter(false))).toContain('  rollout   not done when --timeout ran out');
    expect(drillExitCode(late)).toBe(2);
    expect(drillExitCode(buildDrillReport({ ...base, outcome: 'failed', log: '' }))).toBe(1);
  });
});
