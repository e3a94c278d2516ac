import type { Condition } from '../kube/types.ts';

export function findCondition(conditions: Condition[] | undefined | null, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: Condition[] | undefined | null, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}

/** Milliseconds since an RFC 3339 time, or undefined when the time is absent. */
export function ageMs(time: string | null | undefined, now: number): number | undefined {
  if (!time) return undefined;
  const t = Date.parse(time);
  return Number.isNaN(t) ? undefined : now - t;
}
