import { useApp, useInput } from 'ink';
import { useEffect, useRef, useState } from 'react';
import type { RolloutReport, RolloutUpdate } from '../../model/rollout/report.ts';
import { transitionText } from '../../model/rollout/transitions.ts';
import type { RolloutTarget } from '../../types/kube.ts';
import { type Mode, selectablePods } from '../live-frame.ts';
import { Frame } from './LiveView.tsx';
import { runInk } from './watch.tsx';
import {
  moveSelection,
  type OverviewEntry,
  type OverviewMode,
  overviewDone,
  overviewFrame,
  overviewOrder,
  openFrame,
} from './overview-frame.ts';
import { useTerminalSize } from './use-terminal-size.ts';

/** A workload the overview follows, as its feed names it. */
export interface OverviewRowRef {
  key: string;
  kind: RolloutTarget['kind'];
  name: string;
  namespace: string;
}

export type OverviewFeedEvent =
  | { type: 'row'; row: OverviewRowRef; gone: boolean }
  | { type: 'update'; key: string; update: RolloutUpdate };

/** What the overview subscribes to while it is shown (the feed of status --watch over several workloads). */
export interface OverviewSource {
  subscribe(onEvent: (event: OverviewFeedEvent) => void): () => void;
  /** the row a person opened (undefined: none) */
  open(key: string | undefined): void;
}

export interface OverviewResult {
  result: 'done' | 'interrupted';
  /** once done: the report of each workload that rolled while followed, in the order of the rows */
  reports: RolloutReport[];
}

export interface OverviewOptions {
  /** what the overview follows, for its first line: `-l app=web in namespace shop` */
  scope: string;
  allNamespaces: boolean;
  /** end once every followed rollout is done (--exit-when-done) */
  exitWhenDone: boolean;
}

const LOG_KEPT = 20;
/** the most often a burst of row updates redraws */
const BATCH_MS = 50;

/** One event of the feed on the rows the view holds. */
export function applyEvent(rows: Map<string, OverviewEntry>, event: OverviewFeedEvent, now = Date.now()): void {
  if (event.type === 'row') {
    const had = rows.get(event.row.key);
    rows.set(event.row.key, { log: [], ...had, ...event.row, gone: event.gone });
    return;
  }
  const had = rows.get(event.key);
  if (!had) return;
  const { transitions } = event.update;
  const log = transitions.length
    ? [...had.log, ...transitions.map((t) => ({ at: t.at ?? now, text: transitionText(t) }))].slice(-LOG_KEPT)
    : had.log;
  rows.set(event.key, { ...had, update: event.update, log });
}

const reportsOf = (rows: OverviewEntry[]) =>
  overviewOrder(rows).flatMap((r) => (r.update?.done && r.update.report ? [r.update.report] : []));

/** The overview as Ink draws it (watchOverview renders it; tests with Ink's testing library). */
export function OverviewApp({
  source,
  options,
  onEnd,
}: {
  source: OverviewSource;
  options: OverviewOptions;
  onEnd: (result: OverviewResult) => void;
}) {
  const { exit } = useApp();
  const rows = useRef(new Map<string, OverviewEntry>());
  const [, setVersion] = useState(0);
  const [selected, setSelected] = useState<string | undefined>(undefined);
  const [mode, setMode] = useState<OverviewMode>('overview');
  const [opened, setOpened] = useState<string | undefined>(undefined);
  const [podMode, setPodMode] = useState<Mode>('table');
  const [pod, setPod] = useState<string | undefined>(undefined);
  const [ended, setEnded] = useState(false);
  const size = useTerminalSize();
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    // a burst of updates (many rows recompute after one event) draws once; the clock moves the ROLLING column
    const redraw = () => {
      timer ??= setTimeout(() => {
        timer = undefined;
        setVersion((v) => v + 1);
      }, BATCH_MS);
    };
    const stop = source.subscribe((event) => {
      applyEvent(rows.current, event);
      redraw();
    });
    const clock = setInterval(redraw, 1000);
    return () => {
      clearTimeout(timer);
      clearInterval(clock);
      stop();
    };
  }, [source]);
  const list = [...rows.current.values()];
  const done = overviewDone(list);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when every rollout is done; later updates must not end it again
  useEffect(() => {
    if (!options.exitWhenDone || !done || ended) return;
    onEnd({ result: 'done', reports: reportsOf([...rows.current.values()]) });
    // the last frame is the overview, whatever was open
    setEnded(true);
    const timer = setTimeout(() => exit(), 50);
    return () => clearTimeout(timer);
  }, [done]);
  const close = () => {
    setOpened(undefined);
    source.open(undefined);
  };
  useInput((input, key) => {
    if (ended) return;
    if (input === 'q' || (key.ctrl && input === 'c')) {
      const now = [...rows.current.values()];
      if (overviewDone(now)) onEnd({ result: 'done', reports: reportsOf(now) });
      return exit();
    }
    if (opened !== undefined) {
      if (input === '?') return setPodMode((m) => (m === 'help' ? 'table' : 'help'));
      if (key.escape) return podMode === 'table' ? close() : setPodMode('table');
      const update = rows.current.get(opened)?.update;
      if (!update) return;
      const pods = selectablePods(update.model);
      if ((key.upArrow || key.downArrow) && pods.length) {
        const at = pod ? pods.indexOf(pod) : -1;
        const next = key.upArrow ? (at <= 0 ? pods.length - 1 : at - 1) : (at + 1) % pods.length;
        setPod(pods[next]);
        return;
      }
      if (key.return && pod) setPodMode((m) => (m === 'detail' ? 'table' : 'detail'));
      return;
    }
    if (input === '?') return setMode((m) => (m === 'help' ? 'overview' : 'help'));
    if (key.escape) return setMode('overview');
    if (key.upArrow || key.downArrow) return setSelected(moveSelection(list, selected, key.upArrow ? -1 : 1));
    if (key.return && selected !== undefined && rows.current.has(selected)) {
      setMode('overview');
      setOpened(selected);
      setPod(undefined);
      setPodMode('table');
      source.open(selected);
    }
  });
  const now = Date.now();
  const entry = opened === undefined || ended ? undefined : rows.current.get(opened);
  const lines = entry
    ? openFrame(entry, {
        now,
        width: size.width,
        height: size.height,
        mode: podMode,
        selected: pod,
        of: list.filter((r) => !r.gone).length,
      })
    : overviewFrame({
        rows: list,
        scope: options.scope,
        allNamespaces: options.allNamespaces,
        selected,
        mode: ended ? 'overview' : mode,
        now,
        width: size.width,
        height: size.height,
        exitWhenDone: options.exitWhenDone,
        ended,
      });
  return <Frame lines={lines} />;
}

/**
 * status --watch over several workloads: the live overview until q or Ctrl-C, every rollout done with
 * `exitWhenDone`, or `ended` resolves (the feed failed for good); the terminal is restored either way.
 */
export async function watchOverview(
  source: OverviewSource,
  options: OverviewOptions,
  ended?: Promise<void>,
): Promise<OverviewResult> {
  let result: OverviewResult = { result: 'interrupted', reports: [] };
  // as the single view (watch.tsx): in place, the terminal restored on SIGINT
  await runInk(<OverviewApp source={source} options={options} onEnd={(r) => (result = r)} />, ended);
  return result;
}
