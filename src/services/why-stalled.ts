import type { KubeClient } from '../kube/client.ts';
import { diagnose, type WhyStalledResult } from '../diagnose/index.ts';
import { diagnoseContext } from '../diagnose/context.ts';
import { rolloutModels, rolloutSnapshots } from './rollout-snapshots.ts';
import type { TargetSelection } from './targets.ts';

export interface WhyStalledOptions extends TargetSelection {
  conditionType: string;
  /** read HAProxy's sessions once (pods/exec), for the rules they decide */
  sessions?: boolean | undefined;
}

/** Same snapshot and model as status (one parallel round), then the ordered rule catalogue. */
export async function whyStalled(
  client: KubeClient,
  options: WhyStalledOptions,
  now = Date.now(),
): Promise<WhyStalledResult[]> {
  const snapshots = await rolloutSnapshots(client, options);
  let models = rolloutModels(snapshots, now, options.conditionType);
  if (options.sessions) {
    const { modelsWithSessions } = await import('./sessions.ts');
    models = await modelsWithSessions(client, snapshots, models);
  }
  return snapshots.map((snapshot, i) => ({
    model: models[i]!,
    diagnosis: diagnose(diagnoseContext(snapshot, models[i]!, now)),
  }));
}
