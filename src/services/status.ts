import type { KubeClient } from '../kube/client.ts';
import { loadRollouts } from '../kube/rollout-snapshot.ts';
import { buildRollout, type RolloutModel } from '../model/rollout.ts';
import { resolveDeployments, type TargetSelection } from './targets.ts';

export interface StatusOptions extends TargetSelection {
  conditionType: string;
}

/** One snapshot, one model per Deployment. */
export async function loadStatus(client: KubeClient, options: StatusOptions, now = Date.now()): Promise<RolloutModel[]> {
  const deployments = await resolveDeployments(client, options);
  const snapshots = await loadRollouts(client, { namespace: options.namespace, deployments });
  return snapshots.map((s) => buildRollout(s, now, { gateType: options.conditionType }));
}
