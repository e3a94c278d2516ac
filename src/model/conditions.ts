import type { Condition } from '../types/kube.ts';

export function findCondition(conditions: Condition[] | undefined | null, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function isTrue(conditions: Condition[] | undefined | null, type: string): boolean {
  return findCondition(conditions, type)?.status === 'True';
}
