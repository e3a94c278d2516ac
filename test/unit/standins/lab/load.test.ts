import { describe, expect, it } from 'vitest';
import { classifyError, classifyStatus, count } from '../../../cluster/lab/load.ts';

describe("the load's classes", () => {
  it.each([
    ['ECONNREFUSED', 'connect ECONNREFUSED', 'refused'],
    ['EHOSTUNREACH', 'connect EHOSTUNREACH', 'refused'],
    ['ECONNRESET', 'read ECONNRESET', 'reset'],
    [undefined, 'socket hang up', 'reset'],
    ['LAB_TIMEOUT', 'timeout', 'timeout'],
    ['EPROTO', 'bad', 'other'],
  ])('%s (%s) → %s', (code, message, outcome) => {
    expect(classifyError(code, message)).toBe(outcome);
  });

  it('counts 5xx apart from other answers that are not successes', () => {
    expect([200, 302, 404, 502, 503].map(classifyStatus)).toEqual(['ok', 'ok', 'other', 'http5xx', 'http5xx']);
  });

  it('counts requests and failures by class', () => {
    const results = (['ok', 'ok', 'refused', 'http5xx'] as const).map((outcome, i) => ({
      seq: i + 1,
      startedAt: 0,
      endedAt: 1,
      outcome,
    }));
    expect(count(results)).toEqual({
      requests: 4,
      failed: 2,
      ok: 2,
      refused: 1,
      reset: 0,
      timeout: 0,
      http5xx: 1,
      other: 0,
    });
  });
});
