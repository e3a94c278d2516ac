import type { KubeClient } from '../kube/client.ts';
import type { RolloutUpdate, WaitEntry } from '../model/rollout/report.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import type { Finding } from '../types/finding.ts';
import { rolloutModels, rolloutSnapshots } from './rollout-snapshots.ts';
import type { OverviewFeed } from './live-overview.ts';
import { resolveTargets, type TargetSelection, withReferencedTemplate } from './targets.ts';
import type { WaitResult } from './wait.ts';

export interface StatusOptions extends TargetSelection {
  conditionType: string;
  /** read each HAProxy pod's sessions once (pods/exec) */
  sessions?: boolean | undefined;
}

/** What one-shot status answers: the models and, for a row each when several match, why-stalled's first finding. */
export interface StatusAnswer {
  models: RolloutModel[];
  /** per model, the first finding of a stalled rollout; only when `overview` was asked and several matched */
  tops?: (Finding | undefined)[] | undefined;
}

/** One snapshot, one model per workload; with `overview`, why-stalled's first finding of each when several match. */
export async function loadStatus(
  client: KubeClient,
  options: StatusOptions & { overview?: boolean | undefined },
  now = Date.now(),
): Promise<StatusAnswer> {
  const snapshots = await rolloutSnapshots(client, options);
  let models = rolloutModels(snapshots, now, options.conditionType);
  if (options.sessions) {
    const { modelsWithSessions } = await import('./sessions.ts');
    models = await modelsWithSessions(client, snapshots, models);
  }
  if (!options.overview || models.length < 2) return { models };
  // the rules load only for an overview: a one-workload answer prints no finding
  const [{ topFinding }, { diagnoseContext }] = await Promise.all([
    import('../diagnose/index.ts'),
    import('../diagnose/context.ts'),
  ]);
  return { models, tops: models.map((m, i) => topFinding(diagnoseContext(snapshots[i]!, m, now))) };
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

/** What status --watch follows: one workload (its live view), or several (the overview, a row each). */
export type StatusFeed = ({ kind: 'one' } & RolloutFeed) | ({ kind: 'many'; scope: string } & OverviewFeed);

/** The overview's first line says what it follows: `-l app=web in namespace shop`, `every namespace`. */
export function overviewScope(selection: TargetSelection): string {
  const where = selection.namespace === undefined ? 'every namespace' : `namespace ${selection.namespace}`;
  return selection.selector ? `-l ${selection.selector} in ${where}` : where;
}

/**
 * status --watch: one workload named (or the only one a selection matches) is followed with informers for its live
 * view; a selection of several (-l, -A, no name) is the overview, which follows every one and those that come to
 * match after it opened, on one set of informers. What following needs loads only here: a one-shot status reads
 * once and prints.
 */
export async function followStatus(
  client: KubeClient,
  selection: TargetSelection,
  options: FollowStatusOptions,
): Promise<StatusFeed> {
  const listed = !selection.names.length;
  const [targets, { SessionSampler }] = await Promise.all([
    resolveTargets(client, { ...selection, allowNone: listed }),
    import('./sessions.ts'),
  ]);
  const sessions = options.sessions ? new SessionSampler(client) : undefined;
  if (listed && targets.length !== 1) {
    const { followOverview } = await import('./live-overview.ts');
    const feed = followOverview(client, targets, {
      conditionType: options.conditionType,
      drained: options.drained,
      namespace: selection.namespace,
      selector: selection.selector,
      sessions,
      map: options.map,
      resolve: (t) => withReferencedTemplate(client, t),
    });
    return {
      kind: 'many',
      scope: overviewScope(selection),
      subscribe: (onEvent) => feed.subscribe(onEvent),
      open: (key) => feed.open(key),
      ended: feed.ended,
      failure: () => feed.failure(),
    };
  }
  const { followRollout } = await import('./live-rollout.ts');
  const map = options.map ?? ((update: RolloutUpdate) => update);
  let failure: unknown;
  let end!: () => void;
  const ended = new Promise<void>((resolve) => (end = resolve));
  return {
    kind: 'one',
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
