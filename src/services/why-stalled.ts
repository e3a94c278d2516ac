import type { KubeClient } from '../kube/client.ts';
import { diagnose, type WhyStalledResult } from '../diagnose/index.ts';
import { diagnoseContext } from '../diagnose/context.ts';
import { rolloutModels, rolloutSnapshots } from './rollout-snapshots.ts';
import type { TargetSelection } from './targets.ts';
import { withSessions } from '../model/rollout/sessions.ts';

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
  if (options.sessions && models.length) {
    const { readSessionsOnce, sessionTargets } = await import('./sessions.ts');
    const all = new Map(
      models
        .flatMap((m, i) => sessionTargets(m.installations, snapshots[i]!.haptic.pods.items))
        .map((t) => [`${t.namespace}/${t.pod}`, t]),
    );
    const state = await readSessionsOnce(client, [...all.values()]);
    models = models.map((m) => withSessions(m, state, new Map()));
  }
  return snapshots.map((snapshot, i) => ({
    model: models[i]!,
    diagnosis: diagnose(diagnoseContext(snapshot, models[i]!, now)),
  }));
}
