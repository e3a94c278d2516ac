import type { Deployment } from '../../types/kube.ts';

export interface ResolvedStrategy {
  /** OnDelete: a StatefulSet's, which replaces a pod only when it is deleted; Canary, BlueGreen: an Argo Rollout's */
  type: 'RollingUpdate' | 'Recreate' | 'OnDelete' | 'Canary' | 'BlueGreen';
  maxSurge: number;
  maxUnavailable: number;
}

function resolve(value: number | string | undefined, fallback: string, replicas: number, roundUp: boolean): number {
  const v = value ?? fallback;
  if (typeof v === 'number') return v;
  const percent = /^(\d+)%$/.exec(v);
  if (!percent) return Number.parseInt(v, 10) || 0;
  const exact = (Number(percent[1]) * replicas) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** The Deployment controller's arithmetic: maxSurge rounds up, maxUnavailable down; both 0 means maxUnavailable 1. */
export function resolveStrategy(deployment: Deployment): ResolvedStrategy {
  const replicas = deployment.spec.replicas ?? 1;
  if (deployment.spec.strategy?.type === 'Recreate') return { type: 'Recreate', maxSurge: 0, maxUnavailable: replicas };
  const rolling = deployment.spec.strategy?.rollingUpdate ?? {};
  const maxSurge = resolve(rolling.maxSurge, '25%', replicas, true);
  let maxUnavailable = resolve(rolling.maxUnavailable, '25%', replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { type: 'RollingUpdate', maxSurge, maxUnavailable };
}
