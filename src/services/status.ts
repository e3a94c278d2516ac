import type { KubeClient } from '../kube/client.ts';
import { buildRollout, type RolloutModel } from '../model/rollout.ts';
import { rolloutSnapshots } from './rollout-snapshots.ts';
import { type TargetSelection } from './targets.ts';

export interface StatusOptions extends TargetSelection {
  conditionType: string;
}

/** One snapshot, one model per Deployment. */
export async function loadStatus(client: KubeClient, options: StatusOptions, now = Date.now()): Promise<RolloutModel[]> {
  const snapshots = await rolloutSnapshots(client, options);
  return snapshots.map((s) => buildRollout(s, now, { gateType: options.conditionType }));
}
