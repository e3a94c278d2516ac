import { describeFinding } from '../../diagnose/catalogue.ts';
import { compareText } from '../../lib/order.ts';
import { kindOf } from '../../model/rollout/kinds/index.ts';
import type { RolloutUpdate } from '../../model/rollout/report.ts';
import type { RolloutTarget } from '../../types/kube.ts';
import { clip, fitFrame, type Line, liveFrame, type LiveState, type Segment } from '../live-frame.ts';
import {
  attentionRank,
  OVERVIEW_HEADER,
  type OverviewRow,
  overviewCells,
  overviewInstallations,
  toneColor,
} from '../overview-text.ts';
import { type Cell, installationLine, workloadRef } from '../status-rows.ts';
import { COLUMN_GAP, columnWidths } from '../table.ts';

// The overview of status --watch over several workloads as lines of coloured segments, for a terminal of a given
// size: a row per workload with the one-shot overview's cells (overview-text.ts), the ones that need a person first,
// one selected; and a row opened as the single workload's live view (live-frame.ts) under a line that says how to
// get back. Pure, so every frame is pinned by a test; Ink only draws what this returns.

/** A row of the overview as the view holds it: the workload, its latest update, the last transitions. */
export interface OverviewEntry {
  key: string;
  kind: RolloutTarget['kind'];
  name: string;
  namespace: string;
  update?: RolloutUpdate | undefined;
  /** no longer matched (deleted, or its labels changed): kept, dimmed, not followed */
  gone?: boolean | undefined;
  /** the last transitions, newest last, for the single view when the row is opened */
  log: { at: number; text: string }[];
}

export type OverviewMode = 'overview' | 'help';

export interface OverviewState {
  rows: OverviewEntry[];
  /** what the overview follows: `-l app=web in namespace shop` */
  scope: string;
  /** -A: the NAMESPACE column whatever the rows */
  allNamespaces: boolean;
  /** the selected row's key */
  selected?: string | undefined;
  mode: OverviewMode;
  now: number;
  width: number;
  height: number;
  /** the view ends once every row is done (--exit-when-done) */
  exitWhenDone?: boolean | undefined;
  /** the last frame: no keys to offer */
  ended?: boolean | undefined;
}

const seg = (text: string, o: Omit<Segment, 'text'> = {}): Segment => ({ text, ...o });

const rowOf = (e: OverviewEntry): OverviewRow | undefined =>
  e.update && { model: e.update.model, top: e.update.finding && describeFinding(e.update.finding) };

/** Failed, stalled, rolling, complete (byAttention's ranks), then rows not read yet, then rows gone; by name within. */
function rank(e: OverviewEntry): number {
  if (e.gone) return 6;
  const r = rowOf(e);
  return r ? attentionRank(r) : 5;
}

/** The rows in the order the overview shows them, and the keys move through them. */
export function overviewOrder(rows: OverviewEntry[]): OverviewEntry[] {
  const ref = (e: OverviewEntry) => workloadRef({ workloadKind: e.kind, name: e.name });
  return [...rows].sort(
    (a, b) => rank(a) - rank(b) || compareText(a.namespace, b.namespace) || compareText(ref(a), ref(b)),
  );
}

/** Every row followed is done (complete, and drained when asked), and there is at least one. */
export function overviewDone(rows: OverviewEntry[]): boolean {
  const followed = rows.filter((r) => !r.gone);
  return followed.length > 0 && followed.every((r) => r.update?.done);
}

/** The row after (or before) the selected one in the order shown, wrapping around; the first when none is. */
export function moveSelection(rows: OverviewEntry[], selected: string | undefined, by: 1 | -1): string | undefined {
  const keys = overviewOrder(rows).map((r) => r.key);
  if (!keys.length) return undefined;
  const at = selected === undefined ? -1 : keys.indexOf(selected);
  if (at < 0) return by > 0 ? keys[0] : keys[keys.length - 1];
  return keys[(at + by + keys.length) % keys.length];
}

/** A row's cells: the one-shot overview's, or its name and why there is nothing yet to show. */
function cells(e: OverviewEntry, now: number, namespaced: boolean): Cell[] {
  const r = rowOf(e);
  const base = r
    ? overviewCells(r, now, namespaced)
    : [
        ...(namespaced ? [{ text: e.namespace, tone: 'plain' as const }] : []),
        { text: `${kindOf(e.kind).noun}/${e.name}`, tone: 'plain' as const },
        { text: '… reading', tone: 'muted' as const },
        { text: '', tone: 'plain' as const },
        { text: '', tone: 'plain' as const },
        { text: '', tone: 'plain' as const },
        { text: '', tone: 'plain' as const },
      ];
  if (!e.gone) return base;
  // what it showed last, but for its state: it is no longer followed
  const state = namespaced ? 2 : 1;
  return base.map((c, i) =>
    i === state ? { text: '– gone', tone: 'muted' } : i > state ? { ...c, tone: 'muted' } : c,
  );
}

function counts(rows: OverviewEntry[]): string {
  const n = (f: (e: OverviewEntry) => boolean) => rows.filter(f).length;
  const r = rank;
  const parts = [
    [n((e) => r(e) === 0), 'failed'],
    [n((e) => r(e) === 1), 'stalled'],
    [n((e) => r(e) === 2 || r(e) === 5), 'rolling'],
    [n((e) => r(e) === 3 || r(e) === 4), 'complete'],
    [n((e) => r(e) === 6), 'gone'],
  ] as const;
  return parts
    .filter(([k]) => k > 0)
    .map(([k, w]) => `${k} ${w}`)
    .join(', ');
}

function footer(s: OverviewState, done: boolean): Line {
  if (s.ended) return [];
  if (s.mode === 'help') return [seg('esc back · q quit', { dim: true })];
  const keys = '↑↓ select · enter open · ? help · q quit';
  const why = done
    ? '  (every rollout is complete)'
    : s.exitWhenDone
      ? '  (ends once every rollout is complete)'
      : '  (the rollouts go on when you quit)';
  return [seg(`${keys}${why}`, { dim: true })];
}

function headerLine(s: OverviewState): Line {
  const n = s.rows.filter((r) => !r.gone).length;
  const what = `${n} workload${n === 1 ? '' : 's'}`;
  const tally = counts(s.rows);
  return [seg(`${what} · ${s.scope}`, { bold: true }), ...(tally ? [seg(` · ${tally}`)] : [])];
}

function tableLines(s: OverviewState): Line[] {
  const ordered = overviewOrder(s.rows);
  const namespaced = s.allNamespaces || new Set(s.rows.map((r) => r.namespace)).size > 1;
  const header = [...(namespaced ? ['NAMESPACE'] : []), ...OVERVIEW_HEADER];
  const rows = ordered.map((e) => ({ e, cells: cells(e, s.now, namespaced) }));
  // the widths of every row, shown or not: the columns do not move as the rows scroll
  const widths = columnWidths([header, ...rows.map((r) => r.cells.map((c) => c.text))]);
  const pad = (text: string, i: number, last: number) =>
    i === last ? text : text + ' '.repeat((widths[i] ?? 0) - [...text].length + COLUMN_GAP);
  const columns: Line = [seg('  '), ...header.map((h, i) => seg(pad(h, i, header.length - 1), { bold: true }))];
  const rowLine = (e: OverviewEntry, cs: Cell[]): Line => {
    const selected = e.key === s.selected;
    // a rollout done, or a row gone: dimmed, still there until the view ends
    const dim = e.gone || e.update?.done;
    return [
      seg(selected ? '❯ ' : '  ', { color: 'blue' }),
      ...cs.map((c, i) => {
        const text = pad(c.text, i, cs.length - 1);
        if (i === (namespaced ? 1 : 0)) return seg(text, { inverse: selected, bold: selected, dim: dim && !selected });
        return seg(text, { color: toneColor[c.tone], dim });
      }),
    ];
  };
  const seenInstallations = overviewInstallations(
    ordered.flatMap((e) => (e.update ? [{ model: e.update.model }] : [])),
  );
  const haptic: Line[] = seenInstallations.length
    ? seenInstallations.map((i) => {
        const c = installationLine(i, { brief: s.width < 120 });
        return [seg(c.text, { color: toneColor[c.tone] })];
      })
    : [];
  const done = overviewDone(s.rows);
  const foot = footer(s, done);
  const fixed = 2 + 1 + (haptic.length ? haptic.length + 1 : 0) + (foot.length ? 2 : 0);
  const room = Math.max(1, s.height - fixed);
  let shown = rows;
  let above = 0;
  let below = 0;
  if (rows.length > room) {
    // a window that holds the selected row, with a line for what it leaves out
    const size = Math.max(1, room - 1);
    const at = Math.max(
      0,
      rows.findIndex((r) => r.e.key === s.selected),
    );
    const start = Math.min(Math.max(0, at - Math.floor(size / 2)), rows.length - size);
    shown = rows.slice(start, start + size);
    above = start;
    below = rows.length - start - size;
  }
  const lines: Line[] = [headerLine(s), [], columns];
  if (!rows.length)
    lines.push([seg(`  no workload matches yet (${s.scope}); one that comes to match gets a row`, { dim: true })]);
  lines.push(...shown.map((r) => rowLine(r.e, r.cells)));
  if (above || below)
    lines.push([
      seg(`  … ${[above ? `${above} above` : '', below ? `${below} below` : ''].filter(Boolean).join(', ')}`, {
        dim: true,
      }),
    ]);
  if (haptic.length) lines.push([], ...haptic);
  if (foot.length) lines.push([], foot);
  return lines;
}

function helpLines(s: OverviewState): Line[] {
  return [
    headerLine(s),
    [],
    [seg('keys', { bold: true })],
    [seg('  ↑ ↓    select a workload')],
    [seg("  enter  open it: the workload's live view (its pods, their stages, its finding)")],
    [seg('  esc    back to the overview (from a pod of an open workload: back to the workload)')],
    [seg('  ?      this help')],
    [seg('  q      quit (Ctrl-C too): the rollouts go on')],
    [],
    [seg('columns', { bold: true })],
    [seg('  GATE      new pods through the gate, of the desired (3/5 gated)')],
    [seg('  OLD PODS  old pods left, how many draining; their HAProxy sessions while the row is open (--sessions)')],
    [seg("  ROLLING   since the rollout's first new pod; FINDING why-stalled's first finding, while stalled")],
    [seg('  failed, stalled, rolling, then complete rows (dimmed); a workload that comes to match gets a row')],
    [],
    footer(s, false),
  ];
}

/** The overview's frame: at most `height` lines, none wider than `width`. */
export function overviewFrame(s: OverviewState): Line[] {
  return fitFrame(s.mode === 'help' ? helpLines(s) : tableLines(s), s);
}

/**
 * An open row: the single workload's live view of its update, under a line that says where it is and how to get
 * back; before its first update, that it is being read.
 */
export function openFrame(
  e: OverviewEntry,
  s: Omit<LiveState, 'model' | 'history' | 'finding' | 'findings' | 'problem' | 'log' | 'done'> & { of: number },
): Line[] {
  const ref = `${kindOf(e.kind).noun}/${e.name} -n ${e.namespace}`;
  const back = [seg(`◂ esc: the overview (${s.of} workload${s.of === 1 ? '' : 's'})`, { dim: true })];
  const width = Math.max(20, s.width - 1);
  if (!e.update) return [back, [], [seg(`${ref}: reading…`, { dim: true })]].map((l) => clip(l, width));
  const u = e.update;
  return [
    clip(back, width),
    ...liveFrame({
      ...s,
      height: Math.max(4, s.height - 1),
      model: u.model,
      history: u.history,
      finding: u.finding,
      findings: u.findings,
      problem: u.problem,
      log: e.log,
      done: u.done,
    }),
  ];
}
