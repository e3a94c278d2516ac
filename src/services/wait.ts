import type { KubeClient } from '../kube/client.ts';
import type { RolloutReport, WaitEntry } from '../model/rollout/report.ts';
import type { RolloutTarget } from '../types/kube.ts';
import { setLongTimeout } from '../lib/timers.ts';
import { Informer } from '../kube/informer.ts';
import { keepHeapSmall } from '../lib/heap.ts';
import { targetRef } from './targets.ts';
import type { SessionsSource } from './sessions.ts';
import { RolloutStream, sharedStores, type FollowOptions, type RolloutFollower } from './live-rollout.ts';

export type WaitOutcome = 'complete' | 'failed' | 'timeout';

export interface WaitResult {
  outcome: WaitOutcome;
  /** one per workload that completed: how long each step took */
  reports: RolloutReport[];
}

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
}

/**
 * status --wait: follows each workload, reports transitions, the top stall finding when it appears or changes, and
 * reads being retried; settles 'complete' when every rollout is complete (and drained, when asked), 'failed' when
 * one exceeded its progress deadline or is a StatefulSet that rolls only on delete (OnDelete: kubectl rollout status
 * refuses to wait on it too, as nothing but a person will move it), 'timeout' after timeoutMs; rejects with the
 * error when a read the rollout cannot be judged without is refused (see FollowOptions.onFatal).
 */
export async function waitForRollouts(
  client: KubeClient,
  targets: RolloutTarget[],
  options: WaitOptions,
): Promise<WaitResult> {
  keepHeapSmall();
  // one informer per list for all the workloads (the same label-selected, paged lists as a one-shot status)
  const open = sharedStores((query, onChange) => new Informer(client, query, { onChange }));
  const scope = { targets, selector: options.selector };
  const follow = options.follow ?? ((d, o) => new RolloutStream(open, d, o, scope));
  const reports = new Map<string, RolloutReport>();
  const done = new Set<string>();
  const several = targets.length > 1;
  let settle!: (outcome: WaitOutcome) => void;
  let fail!: (error: unknown) => void;
  const settled = new Promise<WaitOutcome>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const followers = targets.map((d) => {
    const key = `${d.metadata.namespace}/${d.kind}/${d.metadata.name}`;
    const workload = several ? targetRef(d) : undefined;
    let lastFinding = '';
    let lastProblem = '';
    const follower = follow(d, {
      conditionType: options.conditionType,
      drained: options.drained,
      sessions: options.sessions,
      onFatal: (error) => fail(error),
      onUpdate: ({ model, finding, problem, done: complete, transitions, report }) => {
        const at = Date.now();
        for (const text of transitions) options.onEntry({ at, workload, kind: 'transition', text });
        // the same cause with the same arguments is reported once, however often the model changes around it
        const headline = finding ? JSON.stringify([finding.id, finding.variant, finding.args]) : '';
        if (finding && headline !== lastFinding) options.onEntry({ at, workload, kind: 'stalled', finding });
        lastFinding = headline;
        if (problem && problem !== lastProblem) options.onEntry({ at, workload, kind: 'retrying', text: problem });
        lastProblem = problem ?? '';
        if (complete) done.add(key);
        else done.delete(key);
        if (report) reports.set(key, report);
        if (model.phase === 'failed' || model.strategy.type === 'OnDelete') settle('failed');
        else if (done.size === targets.length) settle('complete');
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
    for (const f of followers) f.stop();
  }
  if (outcome === 'timeout') options.onEntry({ at: Date.now(), kind: 'timeout', afterMs: options.timeoutMs });
  return { outcome, reports: outcome === 'complete' ? [...reports.values()] : [] };
}
