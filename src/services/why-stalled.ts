import type { KubeClient } from '../kube/client.ts';
import { diagnose, type WhyStalledResult } from '../diagnose/index.ts';
import { diagnoseContext } from '../diagnose/context.ts';
import { rolloutModels, rolloutSnapshots } from './rollout-snapshots.ts';
import type { TargetSelection } from './targets.ts';

export interface WhyStalledOptions extends TargetSelection {
  conditionType: string;
}

/** Same snapshot and model as status (one parallel round), then the ordered rule catalogue. */
export async function whyStalled(
  client: KubeClient,
  options: WhyStalledOptions,
  now = Date.now(),
): Promise<WhyStalledResult[]> {
  const snapshots = await rolloutSnapshots(client, options);
  const models = rolloutModels(snapshots, now, options.conditionType);
  return snapshots.map((snapshot, i) => ({
    model: models[i]!,
    diagnosis: diagnose(diagnoseContext(snapshot, models[i]!, now)),
  }));
}
