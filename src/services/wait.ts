import { transitionText } from '../model/rollout/transitions.ts';
import type { KubeClient } from '../kube/client.ts';
import type {
  RolloutReport,
  WaitEntry,
  WaitFailure,
  WaitOutcome,
  WaitResult,
  WaitedWorkload,
} from '../model/rollout/report.ts';
export type { WaitOutcome, WaitResult } from '../model/rollout/report.ts';
import type { RolloutTarget } from '../types/kube.ts';
import type { Finding } from '../types/finding.ts';
import { type Held, holdOf, isDefinite } from '../diagnose/hold.ts';
import { setLongTimeout } from '../lib/timers.ts';
import { Informer } from '../kube/informer.ts';
import { keepHeapSmall } from '../lib/heap.ts';
import { targetRef } from './targets.ts';
import type { SessionsSource } from './sessions.ts';
import { RolloutStream, sharedStores, type FollowOptions, type RolloutFollower } from './live-rollout.ts';

export interface WaitOptions {
  conditionType: string;
  drained: boolean;
  /** 0: no limit */
  timeoutMs: number;
  onEntry: (entry: WaitEntry) => void;
  /** HAProxy's sessions, read for every follower by one sampler */
  sessions?: SessionsSource | undefined;
  /** -l, when it chose the workloads: their informers ask for it */
  selector?: string | undefined;
  /** how to follow one workload (the API server's informers, unless a test passes another) */
  follow?: ((target: RolloutTarget, options: FollowOptions) => RolloutFollower) | undefined;
  /** end on a cause that does not clear by itself (the catalogue's endsWait); false: the deadline only (--no-fail-fast) */
  failFast?: boolean | undefined;
  /** multiplies every hold and restart count of failFast (--patience); 1 by default */
  patience?: number | undefined;
  now?: (() => number) | undefined;
}

/**
 * status --wait: follows each workload, reports transitions, the top stall finding when it appears or changes, and
 * reads being retried; settles 'complete' when every rollout is complete (and drained, when asked), 'failed' when
 * one exceeded its progress deadline, is a StatefulSet that rolls only on delete (OnDelete: kubectl rollout status
 * refuses to wait on it too, as nothing but a person will move it), or (failFast) its first finding is a cause that
 * held past its catalogue hold (diagnose/hold.ts); 'timeout' after timeoutMs; rejects with the error when a read the
 * rollout cannot be judged without is refused (see FollowOptions.onFatal).
 */
export async function waitForRollouts(
  client: KubeClient,
  targets: RolloutTarget[],
  options: WaitOptions,
): Promise<WaitResult> {
  keepHeapSmall();
  const now = options.now ?? Date.now;
  const started = now();
  const failFast = options.failFast ?? true;
  // one informer per list for all the workloads (the same label-selected, paged lists as a one-shot status)
  const open = sharedStores((query, onChange) => new Informer(client, query, { onChange }));
  const scope = { targets, selector: options.selector };
  const follow = options.follow ?? ((d, o) => new RolloutStream(open, d, o, scope));
  const reports = new Map<string, RolloutReport>();
  const done = new Set<string>();
  const several = targets.length > 1;
  const seen = new Map<string, WaitedWorkload>();
  const holdTimers = new Set<ReturnType<typeof setTimeout>>();
  let failure: WaitFailure | undefined;
  let settle!: (outcome: WaitOutcome) => void;
  let fail!: (error: unknown) => void;
  const settled = new Promise<WaitOutcome>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const key = (d: RolloutTarget) => `${d.metadata.namespace}/${d.kind}/${d.metadata.name}`;
  for (const d of targets)
    seen.set(key(d), {
      workloadKind: d.kind,
      name: d.metadata.name,
      namespace: d.metadata.namespace ?? '',
      complete: false,
    });
  const failWith = (k: string, f: Omit<WaitFailure, 'workload' | 'others' | 'waitedMs'>) => {
    if (failure) return;
    failure = {
      workload: seen.get(k)!,
      ...f,
      waitedMs: now() - started,
      others: [...seen.entries()].filter(([other]) => other !== k).map(([, w]) => w),
    };
    settle('failed');
  };
  const followers = targets.map((d) => {
    const k = key(d);
    const workload = several ? targetRef(d) : undefined;
    let lastFinding = '';
    let lastProblem = '';
    let held: Held | undefined;
    let holdTimer: ReturnType<typeof setTimeout> | undefined;
    const judge = (finding: Finding | undefined) => {
      if (holdTimer) {
        clearTimeout(holdTimer);
        holdTimers.delete(holdTimer);
        holdTimer = undefined;
      }
      const at = now();
      held = failFast ? holdOf(finding, held, at, options.patience) : undefined;
      if (!held?.dueAt || !finding) return;
      const ends = held;
      if (isDefinite(ends, at)) {
        failWith(k, { reason: 'cause', finding, heldMs: at - ends.since });
        return;
      }
      // nothing may change on the cluster while the cause holds: the clock alone decides then
      holdTimer = setTimeout(() => {
        if (held === ends) failWith(k, { reason: 'cause', finding, heldMs: now() - ends.since });
      }, ends.dueAt! - at);
      holdTimers.add(holdTimer);
    };
    const follower = follow(d, {
      conditionType: options.conditionType,
      drained: options.drained,
      sessions: options.sessions,
      onFatal: (error) => fail(error),
      onUpdate: ({ model, finding, problem, done: complete, transitions, report }) => {
        const at = now();
        for (const t of transitions)
          options.onEntry({ at: t.at ?? at, workload, kind: 'transition', text: transitionText(t) });
        // the same cause with the same arguments is reported once, however often the model changes around it
        const headline = finding ? JSON.stringify([finding.id, finding.variant, finding.args]) : '';
        if (finding && headline !== lastFinding) options.onEntry({ at, workload, kind: 'stalled', finding });
        lastFinding = headline;
        if (problem && problem !== lastProblem) options.onEntry({ at, workload, kind: 'retrying', text: problem });
        lastProblem = problem ?? '';
        seen.set(k, { ...seen.get(k)!, phase: model.phase, message: model.message, complete });
        if (complete) done.add(k);
        else done.delete(k);
        if (report) reports.set(k, report);
        // an Argo Rollout's Degraded is its controller's verdict (an abort, its deadline, an invalid spec)
        if (model.phase === 'failed') failWith(k, { reason: model.argo ? 'degraded' : 'deadline', finding });
        else if (model.strategy.type === 'OnDelete') failWith(k, { reason: 'onDelete', finding });
        else if (done.size === targets.length) settle('complete');
        else judge(complete ? undefined : finding);
      },
    });
    follower.start();
    return follower;
  });
  const timer = options.timeoutMs > 0 ? setLongTimeout(() => settle('timeout'), options.timeoutMs) : undefined;
  let outcome: WaitOutcome;
  try {
    outcome = await settled;
  } finally {
    timer?.clear();
    for (const t of holdTimers) clearTimeout(t);
    for (const f of followers) f.stop();
  }
  if (outcome === 'timeout') options.onEntry({ at: now(), kind: 'timeout', afterMs: options.timeoutMs });
  return {
    outcome,
    reports: outcome === 'complete' ? [...reports.values()] : [],
    failure: outcome === 'failed' ? failure : undefined,
    waitedMs: now() - started,
  };
}
