import type { KubeClient } from '../kube/client.ts';
import { UserError } from '../lib/errors.ts';
import type { RolloutUpdate, WaitEntry } from '../model/rollout/report.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import type { RolloutTarget } from '../types/kube.ts';
import { rolloutModels, rolloutSnapshots } from './rollout-snapshots.ts';
import { resolveTargets, type TargetSelection, targetRef } from './targets.ts';
import type { WaitResult } from './wait.ts';

export interface StatusOptions extends TargetSelection {
  conditionType: string;
  /** read each HAProxy pod's sessions once (pods/exec) */
  sessions?: boolean | undefined;
}

/** One snapshot, one model per workload. */
export async function loadStatus(
  client: KubeClient,
  options: StatusOptions,
  now = Date.now(),
): Promise<RolloutModel[]> {
  const snapshots = await rolloutSnapshots(client, options);
  const models = rolloutModels(snapshots, now, options.conditionType);
  if (!options.sessions) return models;
  const { modelsWithSessions } = await import('./sessions.ts');
  return modelsWithSessions(client, snapshots, models);
}

export interface FollowStatusOptions {
  conditionType: string;
  drained: boolean;
  /** read HAProxy's sessions to the pods through pods/exec */
  sessions?: boolean | undefined;
  /** applied to every update before a view sees it (the CLI's redaction) */
  map?: (update: RolloutUpdate) => RolloutUpdate;
}

/** The updates of one followed rollout, for a view to subscribe to while it is shown. */
export interface RolloutFeed {
  subscribe(onUpdate: (update: RolloutUpdate) => void): () => void;
  /** settles when a read the model cannot do without is refused for good (`failure()` then says why) */
  ended: Promise<void>;
  failure(): unknown;
}

/**
 * status --watch: the one workload the selection names, followed with informers. What following needs loads only
 * here: a one-shot status reads once and prints.
 */
/** Why --watch does not start on several matches, naming them (the first few) as kubectl names resources. */
export function watchOneOf(targets: RolloutTarget[]): string {
  if (!targets.length) return '--watch follows one workload; none matches';
  const SHOWN = 5;
  const namespaced = new Set(targets.map((t) => t.metadata.namespace)).size > 1;
  const names = targets.slice(0, SHOWN).map((t) => `${targetRef(t)}${namespaced ? ` -n ${t.metadata.namespace}` : ''}`);
  const more = targets.length > SHOWN ? ` and ${targets.length - SHOWN} more` : '';
  return `--watch follows one workload; ${targets.length} match (${names.join(', ')}${more}): name one`;
}

export async function followStatus(
  client: KubeClient,
  selection: TargetSelection,
  options: FollowStatusOptions,
): Promise<RolloutFeed> {
  const targets = await resolveTargets(client, selection);
  if (targets.length !== 1) throw new UserError(watchOneOf(targets));
  const [{ followRollout }, { SessionSampler }] = await Promise.all([
    import('./live-rollout.ts'),
    import('./sessions.ts'),
  ]);
  const sessions = options.sessions ? new SessionSampler(client) : undefined;
  const map = options.map ?? ((update: RolloutUpdate) => update);
  let failure: unknown;
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    ended,
    failure: () => failure,
    subscribe(onUpdate) {
      const follower = followRollout(client, targets[0]!, {
        conditionType: options.conditionType,
        drained: options.drained,
        sessions,
        onUpdate: (update) => onUpdate(map(update)),
        onFatal: (error) => {
          failure = error;
          end();
        },
      });
      follower.start();
      return () => follower.stop();
    },
  };
}

export interface WaitStatusOptions {
  conditionType: string;
  drained: boolean;
  timeoutMs: number;
  onEntry: (entry: WaitEntry) => void;
  /** read HAProxy's sessions to the pods through pods/exec */
  sessions?: boolean | undefined;
  /** end on a cause that does not clear by itself (true unless --no-fail-fast), with every hold × patience */
  failFast?: boolean | undefined;
  patience?: number | undefined;
}

/** status --wait (and enable-gate --wait): follows every workload the selection names until each completes. */
export async function waitStatus(
  client: KubeClient,
  selection: TargetSelection,
  options: WaitStatusOptions,
): Promise<WaitResult> {
  const [targets, { waitForRollouts }, { SessionSampler }] = await Promise.all([
    resolveTargets(client, selection),
    import('./wait.ts'),
    import('./sessions.ts'),
  ]);
  return waitForRollouts(client, targets, {
    ...options,
    selector: selection.selector,
    sessions: options.sessions ? new SessionSampler(client) : undefined,
  });
}
