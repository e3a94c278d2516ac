import { render, useApp } from 'ink';
import { useEffect } from 'react';
import { StatusView } from './StatusView.tsx';
import { useRollout, type RolloutSubscription } from './use-rollout.ts';

export type WatchResult = 'done' | 'interrupted';

function App({ subscribe, onDone }: { subscribe: RolloutSubscription; onDone: () => void }) {
  const { exit } = useApp();
  const update = useRollout(subscribe);
  useEffect(() => {
    if (!update?.done) return;
    onDone();
    const timer = setTimeout(() => exit(), 50);
    return () => clearTimeout(timer);
  }, [update?.done]);
  if (!update) return null;
  // header, counts, section titles, HAPTIC lines, a finding: about 16 rows besides the pod tables
  const podRows = Math.max(4, (process.stdout.rows || 40) - 16 - (update.finding ? 3 + update.finding.evidence.length : 0));
  return <StatusView model={update.model} now={Date.now()} finding={update.finding} problem={update.problem} podRows={podRows} />;
}

/**
 * status --watch: a live Ink view until the rollout is done, Ctrl-C, or `ended` resolves (the caller's stream
 * failed for good); the terminal is restored either way.
 */
export async function watchRollout(subscribe: RolloutSubscription, ended?: Promise<void>): Promise<WatchResult> {
  let result: WatchResult = 'interrupted';
  const instance = render(<App subscribe={subscribe} onDone={() => (result = 'done')} />, { exitOnCtrlC: false, patchConsole: false, interactive: true });
  // --watch has checked stdout is a terminal: draw in place even where CI=true is set (Ink would otherwise print
  // only the last frame). Ink reads no keys here, so Ctrl-C arrives as SIGINT: unmount (the terminal is restored)
  // and return, so a shell's `status --watch; next-command` goes on.
  const interrupt = () => instance.unmount();
  process.once('SIGINT', interrupt);
  void ended?.then(() => instance.unmount());
  await instance.waitUntilExit();
  process.off('SIGINT', interrupt);
  return result;
}
