import { describe, expect, it } from 'vitest';
import { deployMode, deployOutcome, type DeployEntry, gateCondition, needsGateWrite, podsRoutedEverywhere, type Render } from '../../cluster/standins/haptic-converge.ts';

const cfg = (servers: string) => `backend shop_web_http\n    balance roundrobin\n${servers}`;
const render = (checksum: string, content: string, generation: number): Render => ({ checksum, content, generation, planID: `plan-${generation}` });
const r1 = render('sha256:1', cfg('    server web-a 10.0.0.1:80 check\n    server web-b 10.0.0.2:80 check disabled\n'), 1);
const r2 = render('sha256:2', cfg('    server web-a 10.0.0.1:80 check\n    server web-b 10.0.0.2:80 check\n'), 2);
const renders = new Map([[r1.checksum, r1], [r2.checksum, r2]]);
const pod = { name: 'haproxy-1', uid: 'u-1', runtimeID: 'rt-1' };
const entry = (podName: string, checksum: string): DeployEntry => ({ podName, podUID: 'u', podRuntimeID: 'r', checksum, consecutiveErrors: 0, observedGeneration: 0 });

describe('deployMode', () => {
  it.each([
    [undefined, r1.content, 'reload'],
    [r1.content, r2.content, 'runtime'],
    [r1.content, r1.content + 'backend other\n', 'reload'],
  ])('%#', (previous, next, mode) => {
    expect(deployMode(previous, next).mode).toBe(mode);
  });
});

describe('deployOutcome', () => {
  it('records the render on success and clears the error', () => {
    const failed = { ...entry('haproxy-1', r1.checksum), lastError: 'boom', consecutiveErrors: 2 };
    expect(deployOutcome(failed, pod, r2, r1.content, undefined)).toEqual({
      podName: 'haproxy-1', podUID: 'u-1', podRuntimeID: 'rt-1', checksum: 'sha256:2', appliedPlanID: 'plan-2', runningPlanID: 'plan-2',
      mode: 'runtime', reasons: ['server changes applied through the runtime API'], consecutiveErrors: 0, observedGeneration: 2,
    });
  });

  it('keeps the last good checksum on failure and counts errors', () => {
    const next = deployOutcome(entry('haproxy-1', r1.checksum), pod, r2, r1.content, 'agent not reachable');
    expect(next).toMatchObject({ checksum: 'sha256:1', lastError: 'agent not reachable', consecutiveErrors: 1 });
  });
});

describe('podsRoutedEverywhere', () => {
  const deployed = (a: string, b: string) => new Map([['h1', entry('h1', a)], ['h2', entry('h2', b)]]);
  it.each([
    ['every HAProxy pod runs a config routing web-b', deployed('sha256:2', 'sha256:2'), ['h1', 'h2'], ['shop/web-a', 'shop/web-b']],
    ['one still runs the config with web-b disabled', deployed('sha256:2', 'sha256:1'), ['h1', 'h2'], ['shop/web-a']],
    ['one runs an unknown checksum', deployed('sha256:2', 'sha256:9'), ['h1', 'h2'], []],
    ['a live HAProxy pod without an entry', deployed('sha256:2', 'sha256:2'), ['h1', 'h2', 'h3'], []],
    ['no live HAProxy pod', deployed('sha256:2', 'sha256:2'), [], []],
  ])('%s', (_, entries, live, expected) => {
    expect(podsRoutedEverywhere(['shop/web-a', 'shop/web-b'], live, entries, renders)).toEqual(expected);
  });
});

describe('the gate condition', () => {
  const ours = gateCondition('haptic/haptic-config', undefined, '2026-01-01T00:00:00Z');
  it('is True and keeps an earlier True transition time', () => {
    expect(ours).toMatchObject({ type: 'haproxy-haptic.org/load-balancer-ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z' });
    const existing = { ...ours, lastTransitionTime: '2025-12-31T00:00:00Z' };
    expect(gateCondition('haptic/haptic-config', existing, '2026-01-01T00:00:00Z').lastTransitionTime).toBe('2025-12-31T00:00:00Z');
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
