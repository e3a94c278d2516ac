import { transitionText } from '../../model/rollout/transitions.ts';
import { render, useApp, useInput } from 'ink';
import { type ReactElement, useEffect, useState } from 'react';
import type { RolloutReport } from '../../model/rollout/report.ts';
import { selectablePods, type Mode } from '../live-frame.ts';
import { LiveView } from './LiveView.tsx';
import { useRollout, type RolloutSubscription } from './use-rollout.ts';
import { useTerminalSize } from './use-terminal-size.ts';

export interface WatchResult {
  result: 'done' | 'interrupted';
  report?: RolloutReport | undefined;
}

const LOG_KEPT = 20;

function App({
  subscribe,
  onDone,
}: {
  subscribe: RolloutSubscription;
  onDone: (report: RolloutReport | undefined) => void;
}) {
  const { exit } = useApp();
  const [log, setLog] = useState<{ at: number; text: string }[]>([]);
  const update = useRollout(subscribe, (u) => {
    if (u.transitions.length)
      setLog((l) =>
        [...l, ...u.transitions.map((t) => ({ at: t.at ?? Date.now(), text: transitionText(t) }))].slice(-LOG_KEPT),
      );
  });
  const [mode, setMode] = useState<Mode>('table');
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const size = useTerminalSize();
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the rollout is done; later updates must not end it again
  useEffect(() => {
    if (!update?.done) return;
    onDone(update.report);
    const timer = setTimeout(() => exit(), 50);
    return () => clearTimeout(timer);
  }, [update?.done]);
  useInput((input, key) => {
    if (input === 'q' || (key.ctrl && input === 'c')) return exit();
    if (input === '?') return setMode((m) => (m === 'help' ? 'table' : 'help'));
    if (key.escape) return setMode('table');
    if (!update) return;
    const pods = selectablePods(update.model);
    if (key.upArrow || key.downArrow) {
      const at = selected ? pods.indexOf(selected) : -1;
      const next = key.upArrow ? (at <= 0 ? pods.length - 1 : at - 1) : (at + 1) % pods.length;
      setSelected(pods[next]);
      return;
    }
    if (key.return && selected) setMode((m) => (m === 'detail' ? 'table' : 'detail'));
  });
  if (!update) return null;
  return (
    <LiveView
      model={update.model}
      history={update.history}
      finding={update.finding}
      findings={update.findings}
      problem={update.problem}
      log={log}
      now={Date.now()}
      width={size.width}
      height={size.height}
      // the last frame stays on screen: the rollout's tables, not the help or a pod's detail left open
      mode={update.done ? 'table' : mode}
      selected={selected}
      done={update.done}
    />
  );
}

/**
 * status --watch: a live Ink view until the rollout is done, q or Ctrl-C, or `ended` resolves (the caller's stream
 * failed for good); the terminal is restored either way.
 */
export async function watchRollout(subscribe: RolloutSubscription, ended?: Promise<void>): Promise<WatchResult> {
  let result: WatchResult = { result: 'interrupted' };
  await runInk(<App subscribe={subscribe} onDone={(report) => (result = { result: 'done', report })} />, ended);
  return result;
}

/**
 * Draws an Ink app until it exits, `ended` settles or SIGINT arrives. --watch has checked stdout is a terminal: draw
 * in place even where CI=true is set (Ink would otherwise print only the last frame). Keys arrive through Ink's
 * raw-mode input; without a terminal on stdin, Ctrl-C still arrives as SIGINT: unmount (the terminal is restored) and
 * return, so `status --watch; next-command` goes on.
 */
export async function runInk(app: ReactElement, ended?: Promise<void>): Promise<void> {
  const instance = render(app, { exitOnCtrlC: false, patchConsole: false, interactive: true });
  const interrupt = () => instance.unmount();
  process.once('SIGINT', interrupt);
  void ended?.then(() => instance.unmount());
  await instance.waitUntilExit();
  process.off('SIGINT', interrupt);
}
