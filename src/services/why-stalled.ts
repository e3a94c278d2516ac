import type { KubeClient } from '../kube/client.ts';
import { loadRollouts } from '../kube/rollout-snapshot.ts';
import { diagnose, type Diagnosis } from '../diagnose/index.ts';
import { diagnoseContext } from '../diagnose/context.ts';
import { buildRollout, type RolloutModel } from '../model/rollout.ts';
import { resolveDeployments, type TargetSelection } from './targets.ts';

export interface WhyStalledOptions extends TargetSelection {
  conditionType: string;
}

export interface WhyStalledResult {
  model: RolloutModel;
  diagnosis: Diagnosis;
}

/** Same snapshot and model as status (one parallel round), then the ordered rule catalogue. */
export async function whyStalled(client: KubeClient, options: WhyStalledOptions, now = Date.now()): Promise<WhyStalledResult[]> {
  const deployments = await resolveDeployments(client, options);
  const snapshots = await loadRollouts(client, { namespace: options.namespace, deployments });
  return snapshots.map((snapshot) => {
    const model = buildRollout(snapshot, now, { gateType: options.conditionType });
    return { model, diagnosis: diagnose(diagnoseContext(snapshot, model, now)) };
  });
}
