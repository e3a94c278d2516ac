import { render, useApp } from 'ink';
import { useEffect, useState } from 'react';
import type { KubeClient } from '../../kube/client.ts';
import { ExitCode, oneLine } from '../../kube/errors.ts';
import { LiveRollout } from '../../kube/live-rollout.ts';
import type { Deployment } from '../../kube/types.ts';
import type { Finding } from '../../diagnose/finding.ts';
import type { RolloutModel, RolloutSnapshot } from '../../model/rollout.ts';
import { StatusView } from './StatusView.tsx';

export interface WatchOptions {
  conditionType: string;
  drained: boolean;
  /** the top stall finding for a rollout that stopped making progress */
  diagnose?: ((model: RolloutModel, snapshot: RolloutSnapshot) => Finding | undefined) | undefined;
}

function App({ client, deployment, options, onDone }: { client: KubeClient; deployment: Deployment; options: WatchOptions; onDone: (code: ExitCode) => void }) {
  const { exit } = useApp();
  const [state, setState] = useState<{ model?: RolloutModel; finding?: Finding | undefined; problem?: string }>({});
  useEffect(() => {
    const live: LiveRollout = new LiveRollout(client, deployment, {
      conditionType: options.conditionType,
      onModel: (model, snapshot) => {
        const problem = live.problem();
        setState({ model, finding: options.diagnose?.(model, snapshot), ...(problem ? { problem: oneLine(problem) } : {}) });
        if (model.phase === 'complete' && (!options.drained || model.drained)) {
          onDone(ExitCode.ok);
          setTimeout(() => exit(), 50);
        }
      },
    });
    live.start();
    return () => live.stop();
  }, []);
  if (!state.model) return null;
  // header, counts, section titles, HAPTIC lines, a finding: about 16 rows besides the pod tables
  const podRows = Math.max(4, (process.stdout.rows || 40) - 16 - (state.finding ? 3 + state.finding.evidence.length : 0));
  return <StatusView model={state.model} now={Date.now()} finding={state.finding} problem={state.problem} podRows={podRows} />;
}

/** status --watch: a live Ink view until the rollout completes (0) or Ctrl-C (130); the terminal is restored either way. */
export async function watchRollout(client: KubeClient, deployment: Deployment, options: WatchOptions): Promise<number> {
  let code: number = 130;
  const instance = render(<App client={client} deployment={deployment} options={options} onDone={(c) => (code = c)} />, { exitOnCtrlC: false, patchConsole: false, interactive: true });
  // --watch has checked stdout is a terminal: draw in place even where CI=true is set (Ink would otherwise print
  // only the last frame). Ink reads no keys here, so Ctrl-C arrives as SIGINT: unmount (the terminal is restored) and exit 130 ourselves,
  // so a shell's `status --watch; next-command` goes on.
  const interrupt = () => instance.unmount();
  process.once('SIGINT', interrupt);
  await instance.waitUntilExit();
  process.off('SIGINT', interrupt);
  return code;
}
