import type { KubeClient } from '../kube/client.ts';
import { loadRollouts, prefetchRollouts } from '../kube/rollout-snapshot.ts';
import { trimObject } from '../kube/trim.ts';
import { buildHaptic } from '../model/haptic/haptic.ts';
import { buildRollout, withOwnServers, type RolloutModel } from '../model/rollout/rollout.ts';
import { splitRollouts } from '../model/rollout/inputs.ts';
import type { RolloutSnapshot } from '../types/snapshot.ts';
import { resolveTargets, type TargetSelection } from './targets.ts';

/**
 * The Deployments and StatefulSets a selection names and, for all of them at once, the objects their rollouts are
 * made of, split into one snapshot each: one round of a constant number of lists (rolloutQueries), whatever their
 * number; for named workloads, those lists that do not need their selectors go out with the workloads' own GETs.
 */
export async function rolloutSnapshots(client: KubeClient, selection: TargetSelection): Promise<RolloutSnapshot[]> {
  // named workloads must all exist: what does not need their selectors is sent beside their GETs
  const early =
    selection.names.length && selection.namespace !== undefined
      ? prefetchRollouts(client, selection.namespace, selection.names)
      : undefined;
  const targets = await resolveTargets(client, selection, { trim: trimObject });
  if (!targets.length) return [];
  return splitRollouts(targets, await loadRollouts(client, targets, early));
}

/**
 * One model per snapshot, for a one-shot answer; HAPTIC's part, built from objects they all share, is built once for
 * all of them, and each model keeps the servers of its own pods only (withOwnServers).
 */
export function rolloutModels(snapshots: RolloutSnapshot[], now: number, gateType: string): RolloutModel[] {
  const haptic = snapshots[0] && buildHaptic(snapshots[0].haptic, now);
  return snapshots.map((s) =>
    withOwnServers(buildRollout(s, now, { gateType, haptic: s.haptic === snapshots[0]?.haptic ? haptic : undefined })),
  );
}
