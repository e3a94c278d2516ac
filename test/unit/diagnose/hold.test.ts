// Fail fast's clock (src/diagnose/hold.ts): a cause ends a wait only once it held, unbroken, for its catalogue hold,
// past the pod's own probe allowance and after its restarts; another cause, pod or form starts the clock again.
import { describe, expect, it } from 'vitest';
import { finding } from '../../../src/diagnose/make.ts';
import { holdOf, isDefinite, waitHoldOf } from '../../../src/diagnose/hold.ts';
import { CATALOGUE } from '../../../src/diagnose/catalogue.ts';
import type { CatalogueEntry } from '../../../src/types/finding.ts';

const T = 1_000_000;
const noRoute = finding('HS113', {}, [], { variant: 'none', pod: 'web-1' });
const crash = (restarts: number) => ({
  ...finding('HS202', {}, [], { variant: 'exits', pod: 'web-1' }),
  restarts,
});

describe('holdOf', () => {
  it('holds a cause for its catalogue time, then it is definite; the clock survives updates of the same cause', () => {
    const first = holdOf(noRoute, undefined, T);
    expect(first).toMatchObject({ since: T, dueAt: T + 20_000 });
    expect(isDefinite(first, T + 19_999)).toBe(false);
    const later = holdOf(noRoute, first, T + 20_000);
    expect(later?.since).toBe(T);
    expect(isDefinite(later, T + 20_000)).toBe(true);
  });

  it('starts again for another pod, another form, or after the cause cleared', () => {
    const first = holdOf(noRoute, undefined, T);
    expect(holdOf({ ...noRoute, pod: 'web-2' }, first, T + 15_000)?.since).toBe(T + 15_000);
    expect(holdOf({ ...noRoute, variant: 'nearMiss' }, first, T + 15_000)?.since).toBe(T + 15_000);
    const cleared = holdOf(undefined, first, T + 10_000);
    expect(cleared).toBeUndefined();
    expect(holdOf(noRoute, cleared, T + 25_000)?.since).toBe(T + 25_000);
  });

  it('never ends on a finding the catalogue does not mark (warnings, a paused rollout, the deadline note)', () => {
    for (const id of ['HS110', 'HS206', 'HS207', 'HS208', 'HS213', 'HS901'] as const)
      expect(holdOf(finding(id, {}, []), undefined, T)).toBeUndefined();
  });

  it('a crash loop is definite only after its restarts, patience multiplying them and the hold', () => {
    expect(holdOf(crash(2), undefined, T)?.dueAt).toBeUndefined();
    expect(holdOf(crash(3), undefined, T)?.dueAt).toBe(T + 5_000);
    expect(holdOf(crash(5), undefined, T, 2)?.dueAt).toBeUndefined();
    expect(holdOf(crash(6), undefined, T, 2)?.dueAt).toBe(T + 10_000);
  });

  it("a failing readiness probe waits out the probe's own allowance first", () => {
    const probe = { ...finding('HS201', {}, [], { pod: 'web-1' }), withinMs: 25_000 };
    expect(holdOf(probe, undefined, T)?.dueAt).toBe(T + 25_000);
    expect(holdOf({ ...probe, withinMs: 0 }, undefined, T)?.dueAt).toBe(T + 10_000);
  });

  it('a form the catalogue leaves out of a per-form hold ends nothing; the others keep their own', () => {
    expect(waitHoldOf(finding('HS102', {}, [], { variant: 'unlisted' }))?.holdSeconds).toBe(30);
    expect(waitHoldOf(finding('HS102', {}, [], { variant: 'portless' }))?.holdSeconds).toBe(15);
    expect(waitHoldOf(finding('HS212', {}, [], { variant: 'other' }))?.holdSeconds).toBe(60);
  });

  it('every hold in the catalogue ends a wait within a minute of its first sighting, and only errors end one', () => {
    for (const [id, entry] of Object.entries(CATALOGUE) as [string, CatalogueEntry][]) {
      if (!entry.endsWait) continue;
      expect(entry.severity, id).toBe('error');
      const holds = typeof entry.endsWait.holdSeconds === 'number' ? [entry.endsWait] : Object.values(entry.endsWait);
      for (const h of holds as { holdSeconds: number }[]) expect(h.holdSeconds, id).toBeLessThanOrEqual(60);
    }
  });
});
