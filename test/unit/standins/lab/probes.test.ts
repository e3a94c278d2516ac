import { describe, expect, it } from 'vitest';
import { INITIAL, probeSpec, probeStep, resolvePort } from '../../../cluster/standins/lab/probes.ts';

describe('probeSpec', () => {
  it('takes the kubelet defaults: period 10 s, timeout 1 s, success 1, failure 3, no initial delay', () => {
    expect(probeSpec({ httpGet: { path: '/healthz', port: 'http' } })).toEqual({
      handler: { kind: 'http', path: '/healthz', port: 'http', headers: {} },
      initialDelayMs: 0,
      periodMs: 10_000,
      timeoutMs: 1000,
      successThreshold: 1,
      failureThreshold: 3,
    });
  });

  it('reads tcpSocket and exec handlers, and none without a handler', () => {
    expect(probeSpec({ tcpSocket: { port: 6379 }, periodSeconds: 2 })?.handler).toEqual({ kind: 'tcp', port: 6379 });
    expect(probeSpec({ exec: { command: ['cat', '/tmp/ok'] } })?.handler).toEqual({
      kind: 'exec',
      command: ['cat', '/tmp/ok'],
    });
    expect(probeSpec({ periodSeconds: 1 })).toBeUndefined();
    expect(probeSpec(undefined)).toBeUndefined();
  });
});

describe('probeStep', () => {
  const thresholds = { successThreshold: 2, failureThreshold: 3 };
  const run = (outcomes: boolean[]) => outcomes.reduce((state, ok) => probeStep(state, ok, thresholds), INITIAL);

  it.each([
    ['starts not ready', [], false],
    ['one success is not enough with successThreshold 2', [true], false],
    ['two successes in a row make it ready', [true, true], true],
    ['a failure breaks the run', [true, false, true], false],
    ['ready stays through fewer failures than the threshold', [true, true, false, false], true],
    ['failureThreshold failures in a row make it unready', [true, true, false, false, false], false],
    ['and successThreshold successes bring it back', [true, true, false, false, false, true, true], true],
  ])('%s', (_, outcomes, ready) => {
    expect(run(outcomes as boolean[]).ready).toBe(ready);
  });
});

describe('resolvePort', () => {
  it('resolves named ports against the container, numbers as they are', () => {
    const ports = [{ name: 'http', containerPort: 8080 }];
    expect([
      resolvePort('http', ports),
      resolvePort(9000, ports),
      resolvePort('9001', ports),
      resolvePort('metrics', ports),
    ]).toEqual([8080, 9000, 9001, undefined]);
  });
});
