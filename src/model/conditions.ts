import type { Condition } from '../types/kube.ts';

export function findCondition(conditions: Condition[] | undefined | null, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}
