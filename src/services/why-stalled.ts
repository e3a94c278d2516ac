import type { KubeClient } from '../kube/client.ts';
import { diagnose, type Diagnosis } from '../diagnose/index.ts';
import { diagnoseContext } from '../diagnose/context.ts';
import { buildRollout, type RolloutModel } from '../model/rollout.ts';
import { rolloutSnapshots } from './rollout-snapshots.ts';
import { type TargetSelection } from './targets.ts';

export interface WhyStalledOptions extends TargetSelection {
  conditionType: string;
}

export interface WhyStalledResult {
  model: RolloutModel;
  diagnosis: Diagnosis;
}

/** Same snapshot and model as status (one parallel round), then the ordered rule catalogue. */
export async function whyStalled(client: KubeClient, options: WhyStalledOptions, now = Date.now()): Promise<WhyStalledResult[]> {
  const snapshots = await rolloutSnapshots(client, options);
  return snapshots.map((snapshot) => {
    const model = buildRollout(snapshot, now, { gateType: options.conditionType });
    return { model, diagnosis: diagnose(diagnoseContext(snapshot, model, now)) };
  });
}
