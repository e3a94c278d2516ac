import { describe, expect, it } from 'vitest';
import {
  deployMode,
  deployOutcome,
  type DeployEntry,
  finishReload,
  gateCondition,
  needsGateWrite,
  podsRoutedEverywhere,
  type Render,
  settled,
} from '../../cluster/standins/haptic-converge.ts';

const cfg = (servers: string) => `backend ing_shop_web_web_80\n    balance roundrobin\n${servers}`;
const render = (checksum: string, content: string, generation: number): Render => ({
  checksum,
  content,
  generation,
  planID: `plan-${generation}`,
});
const r1 = render(
  '1111111111111111',
  cfg('    server web-a 10.0.0.1:80 check\n    server web-b 10.0.0.2:80 check disabled\n'),
  1,
);
const r2 = render(
  '2222222222222222',
  cfg('    server web-a 10.0.0.1:80 check\n    server web-b 10.0.0.2:80 check\n'),
  2,
);
const renders = new Map([
  [r1.checksum, r1],
  [r2.checksum, r2],
]);
const pod = { name: 'haproxy-1', uid: 'u-1', runtimeID: 'rt-1' };
const entry = (podName: string, checksum: string): DeployEntry => ({
  podName,
  podUID: 'u',
  podRuntimeID: 'r',
  checksum,
  appliedPlanID: 'p',
  runningPlanID: 'p',
  mode: 'runtime',
  consecutiveErrors: 0,
});
const NOW = '2026-11-29T12:00:00Z';

describe('deployMode', () => {
  it.each([
    [undefined, r1.content, 'reload'],
    [r1.content, r2.content, 'runtime'],
    [r1.content, `${r1.content}backend other\n`, 'reload'],
  ])('%#', (previous, next, mode) => {
    expect(deployMode(previous, next).mode).toBe(mode);
  });
});

describe('deployOutcome, agent generation', () => {
  it('records the render on success and clears the error; no observedGeneration (no released CRD has one)', () => {
    const failed = { ...entry('haproxy-1', r1.checksum), lastError: 'boom', consecutiveErrors: 2 };
    expect(deployOutcome(failed, pod, r2, r1.content, undefined, 'agent', NOW)).toEqual({
      podName: 'haproxy-1',
      podUID: 'u-1',
      podRuntimeID: 'rt-1',
      checksum: r2.checksum,
      appliedPlanID: 'plan-2',
      runningPlanID: 'plan-2',
      mode: 'runtime',
      reasons: ['server changes applied through the runtime API'],
      consecutiveErrors: 0,
    });
  });

  it('a reload leaves the running plan behind the applied one until the agent reports it done', () => {
    const reloading = deployOutcome(
      entry('haproxy-1', r1.checksum),
      pod,
      r2,
      `${r1.content}backend gone\n`,
      undefined,
      'gate',
      NOW,
    );
    expect(reloading).toMatchObject({ mode: 'reload', appliedPlanID: 'plan-2', runningPlanID: 'p' });
    expect(settled(reloading)).toBe(false);
    expect(settled(finishReload(reloading))).toBe(true);
  });

  it('keeps the last good checksum on failure and counts errors', () => {
    const next = deployOutcome(
      entry('haproxy-1', r1.checksum),
      pod,
      r2,
      r1.content,
      'agent not reachable',
      'agent',
      NOW,
    );
    expect(next).toMatchObject({ checksum: r1.checksum, lastError: 'agent not reachable', consecutiveErrors: 1 });
  });
});

describe('deployOutcome, dataplane generation', () => {
  it('writes sync telemetry and the required deployedAt, none of the agent fields', () => {
    const first = deployOutcome(undefined, pod, r1, undefined, undefined, 'dataplane', NOW);
    expect(first).toEqual({
      podName: 'haproxy-1',
      checksum: r1.checksum,
      deployedAt: NOW,
      syncDuration: '0.120s',
      versionConflictRetries: 0,
      fallbackUsed: false,
      lastReloadAt: NOW,
      lastReloadID: 'reload-11111111',
      lastOperationSummary: { totalAPIOperations: 1, serversModified: 2 },
      consecutiveErrors: 0,
    });
    const failed = deployOutcome(first, pod, r2, r1.content, 'dataplane API: 503', 'dataplane', '2026-11-29T12:00:05Z');
    expect(failed).toMatchObject({
      checksum: r2.checksum,
      deployedAt: NOW,
      lastError: 'dataplane API: 503',
      lastErrorAt: '2026-11-29T12:00:05Z',
      consecutiveErrors: 1,
    });
    expect(failed).not.toHaveProperty('podUID');
  });
});

describe('podsRoutedEverywhere', () => {
  const deployed = (a: string, b: string) =>
    new Map([
      ['h1', entry('h1', a)],
      ['h2', entry('h2', b)],
    ]);
  it.each([
    [
      'every HAProxy pod runs a config routing web-b',
      deployed(r2.checksum, r2.checksum),
      ['h1', 'h2'],
      ['shop/web-a@10.0.0.1', 'shop/web-b@10.0.0.2'],
    ],
    [
      'one still runs the config with web-b disabled',
      deployed(r2.checksum, r1.checksum),
      ['h1', 'h2'],
      ['shop/web-a@10.0.0.1'],
    ],
    ['one runs an unknown checksum', deployed(r2.checksum, '9999999999999999'), ['h1', 'h2'], []],
    ['a live HAProxy pod without an entry', deployed(r2.checksum, r2.checksum), ['h1', 'h2', 'h3'], []],
    ['no live HAProxy pod', deployed(r2.checksum, r2.checksum), [], []],
  ])('%s', (_, entries, live, expected) => {
    expect(podsRoutedEverywhere(['shop/web-a@10.0.0.1', 'shop/web-b@10.0.0.2'], live, entries, renders)).toEqual(
      expected,
    );
  });

  it("a pod made again under the same name on a new address (a StatefulSet's) is not routed by its predecessor's server", () => {
    const entries = deployed(r2.checksum, r2.checksum);
    expect(podsRoutedEverywhere(['shop/web-b@10.0.0.9'], ['h1', 'h2'], entries, renders)).toEqual([]);
  });

  it('a HAProxy pod still reloading does not run the new config yet', () => {
    const entries = deployed(r2.checksum, r2.checksum);
    entries.set('h2', { ...entries.get('h2')!, appliedPlanID: 'plan-2', runningPlanID: 'plan-1', mode: 'reload' });
    expect(podsRoutedEverywhere(['shop/web-b@10.0.0.2'], ['h1', 'h2'], entries, renders)).toEqual([]);
  });
});

describe('the gate condition', () => {
  const ours = gateCondition('haptic/haptic-config', undefined, '2026-01-01T00:00:00Z');
  it('is True and keeps an earlier True transition time', () => {
    expect(ours).toMatchObject({
      type: 'haproxy-haptic.org/load-balancer-ready',
      status: 'True',
      lastTransitionTime: '2026-01-01T00:00:00Z',
    });
    const existing = { ...ours, lastTransitionTime: '2025-12-31T00:00:00Z' };
    expect(gateCondition('haptic/haptic-config', existing, '2026-01-01T00:00:00Z').lastTransitionTime).toBe(
      '2025-12-31T00:00:00Z',
    );
  });

  it.each([
    ['missing', undefined, 0, true],
    ['False', { ...ours, status: 'False' }, 0, true],
    ['ours already', ours, 60_000, false],
    ['another installation, just written', { ...ours, message: 'other' }, 1000, false],
    ['another installation, long enough', { ...ours, message: 'other' }, 3000, true],
  ])('needs a write when %s', (_, existing, foreignFor, expected) => {
    expect(needsGateWrite(existing, ours, foreignFor, 3000)).toBe(expected);
  });
});
