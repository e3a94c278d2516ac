import type { KubeClient } from '../kube/client.ts';
import { ExitCode, oneLine } from '../kube/errors.ts';
import { LiveRollout } from '../kube/live-rollout.ts';
import type { Deployment } from '../kube/types.ts';
import type { RolloutModel, RolloutSnapshot } from '../model/rollout.ts';
import type { Finding } from '../diagnose/finding.ts';
import { transitions } from '../model/transitions.ts';

export interface WaitOptions {
  conditionType: string;
  drained: boolean;
  /** 0: no limit */
  timeoutMs: number;
  /** one line per transition */
  log: (line: string) => void;
  /** the top stall finding, logged when it appears or changes */
  diagnose?: ((model: RolloutModel, snapshot: RolloutSnapshot) => Finding | undefined) | undefined;
}

export function isDone(model: RolloutModel, drained: boolean): boolean {
  return model.phase === 'complete' && (!drained || model.drained);
}

/**
 * status --wait: follows each Deployment with informers, logs transitions, and settles with 0 when every rollout is
 * complete (and drained, with --drained), 1 when one failed (progress deadline exceeded), 2 on timeout.
 */
export async function waitForRollouts(client: KubeClient, deployments: Deployment[], options: WaitOptions): Promise<ExitCode> {
  const latest = new Map<string, RolloutModel>();
  const several = deployments.length > 1;
  const stamp = () => new Date().toISOString().slice(11, 19);
  let settle!: (code: ExitCode) => void;
  const settled = new Promise<ExitCode>((resolve) => (settle = resolve));
  const lives = deployments.map((d) => {
    const key = `${d.metadata.namespace}/${d.metadata.name}`;
    let lastProblem = '';
    let lastFinding = '';
    const live: LiveRollout = new LiveRollout(client, d, {
      conditionType: options.conditionType,
      onModel: (model, snapshot) => {
        const prefix = several ? `deployment/${model.name}: ` : '';
        for (const line of transitions(latest.get(key), model)) options.log(`${stamp()} ${prefix}${line}`);
        const finding = options.diagnose?.(model, snapshot);
        const headline = finding ? `[${finding.id}] ${finding.title}` : '';
        if (headline && headline !== lastFinding) {
          options.log(`${stamp()} ${prefix}stalled: ${headline}`);
          for (const e of finding?.evidence ?? []) options.log(`    ${e}`);
          if (finding?.fix) options.log(`    fix: ${finding.fix}`);
        }
        lastFinding = headline;
        latest.set(key, model);
        const problem = live.problem();
        const text = problem ? oneLine(problem) : '';
        if (text && text !== lastProblem) options.log(`${stamp()} ${prefix}retrying: ${text}`);
        lastProblem = text;
        if (model.phase === 'failed') settle(ExitCode.failed);
        else if ([...latest.values()].length === deployments.length && [...latest.values()].every((m) => isDone(m, options.drained))) settle(ExitCode.ok);
      },
    });
    live.start();
    return live;
  });
  const timer = options.timeoutMs > 0 ? setTimeout(() => settle(ExitCode.timeout), options.timeoutMs) : undefined;
  const code = await settled;
  clearTimeout(timer);
  for (const live of lives) live.stop();
  if (code === ExitCode.timeout) options.log(`${stamp()} timed out after ${Math.round(options.timeoutMs / 1000)}s`);
  return code;
}
