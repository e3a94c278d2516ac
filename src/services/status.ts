import type { KubeClient } from '../kube/client.ts';
import type { RolloutModel } from '../model/rollout.ts';
import { rolloutModels, rolloutSnapshots } from './rollout-snapshots.ts';
import { type TargetSelection } from './targets.ts';

export interface StatusOptions extends TargetSelection {
  conditionType: string;
}

/** One snapshot, one model per Deployment. */
export async function loadStatus(client: KubeClient, options: StatusOptions, now = Date.now()): Promise<RolloutModel[]> {
  return rolloutModels(await rolloutSnapshots(client, options), now, options.conditionType);
}
