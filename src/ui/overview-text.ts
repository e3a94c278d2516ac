import type { FindingText, Severity } from '../types/finding.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import { formatAge } from '../model/time.ts';
import { compareText } from '../lib/order.ts';
import { installationLine, workloadRef, type Cell, type Tone } from './status-rows.ts';
import type { Color, Painter } from './style.ts';
import { table } from './table.ts';

// Many rollouts at a glance, as `kubectl get` lists many objects: one row per workload, the ones that need a person
// first. status prints it for a selection that matches several workloads (-l, -A, no name); one workload keeps its
// full report, and -o json|yaml the full models.

/** A workload's rollout and the first finding of why-stalled when it is stalled. */
export interface OverviewRow {
  model: RolloutModel;
  top?: FindingText | undefined;
}

/** Failed first, then stalled (a finding holds), rolling, complete; by namespace and name within each. */
export function attentionRank(r: OverviewRow): number {
  if (r.model.phase === 'failed') return 0;
  if (r.top) return 1;
  return r.model.phase === 'complete' ? (r.model.drained ? 4 : 3) : 2;
}

export function byAttention(rows: OverviewRow[]): OverviewRow[] {
  return [...rows].sort(
    (a, b) =>
      attentionRank(a) - attentionRank(b) ||
      compareText(a.model.namespace, b.model.namespace) ||
      compareText(workloadRef(a.model), workloadRef(b.model)),
  );
}

/** The rollout's state in a word and its icon, as the single view's headline has them. */
export function stateCell(m: RolloutModel): Cell {
  switch (m.phase) {
    case 'failed':
      return { text: '✗ failed', tone: 'bad' };
    case 'paused':
      return { text: '‖ paused', tone: 'wait' };
    case 'complete':
      return m.drained ? { text: '✓ complete', tone: 'good' } : { text: '↓ draining', tone: 'wait' };
    default:
      return { text: '… rolling', tone: 'wait' };
  }
}

/** The new pods through the gate, of the desired: `3/5 gated`; `not gated` when the template lacks the gate. */
export function gatedCell(m: RolloutModel): Cell {
  if (!m.gated) return { text: 'not gated', tone: 'muted' };
  const through = m.newPods.filter((p) => p.gate.state === 'True').length;
  const desired = m.counts.desired;
  return { text: `${through}/${desired} gated`, tone: through >= desired ? 'good' : 'wait' };
}

/** The old pods left: how many, how many terminating, and the sessions HAProxy holds to them when read. */
export function oldCell(m: RolloutModel): Cell {
  const left = m.oldPods.length;
  if (!left) return { text: '-', tone: 'muted' };
  const draining = m.oldPods.filter((p) => p.terminating).length;
  const counted = m.oldPods.map((p) => p.sessions?.sessions);
  const sessions =
    m.sessions && !m.sessions.unread && counted.every((n) => n !== undefined)
      ? `, ${counted.reduce((a, n) => a + n!, 0)} sessions`
      : '';
  const words = draining ? `${draining}/${left} draining` : `${left} old`;
  return { text: `${words}${sessions}`, tone: 'plain' };
}

/** How long the rollout has been going: since its first new pod was created; `-` once complete. */
export function rollingCell(m: RolloutModel, now: number): Cell {
  if (m.phase === 'complete') return { text: '-', tone: 'muted' };
  const created = m.newPods.map((p) => (p.createdAt ? Date.parse(p.createdAt) : Number.NaN)).filter(Number.isFinite);
  return created.length ? { text: formatAge(now - Math.min(...created)), tone: 'plain' } : { text: '-', tone: 'muted' };
}

/** The most characters of a finding's title a row shows; why-stalled shows it whole. */
export const TITLE_SHOWN = 72;

/** A title cut at a word boundary to at most `max` characters, with an ellipsis when cut. */
export function shortTitle(title: string, max = TITLE_SHOWN): string {
  if (title.length <= max) return title;
  // the cut ends a word when the next character does not go on with it
  const end = /[\s,;:]/.test(title[max - 1] ?? '') ? max - 1 : title.lastIndexOf(' ', max - 1);
  return `${title.slice(0, end > max / 2 ? end : max - 1).replace(/[,:;]$/, '')}…`;
}

const severityTone: Record<Severity, Tone> = {
  blocker: 'bad',
  error: 'bad',
  warning: 'wait',
  info: 'plain',
  ok: 'good',
};

export function findingCell(r: OverviewRow): Cell {
  return r.top
    ? { text: `${r.top.id} ${shortTitle(r.top.title)}`, tone: severityTone[r.top.severity] }
    : { text: '', tone: 'plain' };
}

export const OVERVIEW_HEADER = ['NAME', 'STATE', 'GATE', 'OLD PODS', 'ROLLING', 'FINDING'];

/** One row's cells, NAMESPACE first when the rows span namespaces. */
export function overviewCells(r: OverviewRow, now: number, namespaced: boolean): Cell[] {
  const m = r.model;
  return [
    ...(namespaced ? [{ text: m.namespace, tone: 'plain' as Tone }] : []),
    { text: workloadRef(m), tone: 'plain' },
    stateCell(m),
    gatedCell(m),
    oldCell(m),
    rollingCell(m, now),
    findingCell(r),
  ];
}

/** The colour of each tone (the live overview of status --watch paints its cells with it too). */
export const toneColor: Record<Tone, Color | undefined> = {
  good: 'green',
  wait: 'yellow',
  bad: 'red',
  muted: 'gray',
  plain: undefined,
};

/** HAPTIC's installations of these rows, each once (the rows share them), in the order the rows have them. */
export function overviewInstallations(rows: Pick<OverviewRow, 'model'>[]): RolloutModel['installations'] {
  const seen = new Set<string>();
  return rows
    .flatMap((r) => r.model.installations)
    .filter((i) => !seen.has(`${i.namespace}/${i.templateConfig}`) && seen.add(`${i.namespace}/${i.templateConfig}`));
}

/**
 * The one-shot overview: a row per workload, the ones that need attention first, then HAPTIC's installations once
 * (the rows share them). `allNamespaces` (-A) shows the NAMESPACE column as kubectl does, as do rows of several.
 */
export function overviewText(rows: OverviewRow[], now: number, paint: Painter, allNamespaces = false): string {
  const namespaced = allNamespaces || new Set(rows.map((r) => r.model.namespace)).size > 1;
  const header = [...(namespaced ? ['NAMESPACE'] : []), ...OVERVIEW_HEADER];
  const paintCell = (c: Cell) => {
    const color = toneColor[c.tone];
    return color && c.text ? paint(color, c.text) : c.text;
  };
  const lines = table([header, ...byAttention(rows).map((r) => overviewCells(r, now, namespaced).map(paintCell))]);
  const seen = new Set<string>();
  const installations = rows
    .flatMap((r) => r.model.installations)
    .filter((i) => !seen.has(`${i.namespace}/${i.templateConfig}`) && seen.add(`${i.namespace}/${i.templateConfig}`));
  lines.push('');
  if (installations.length) lines.push(...installations.map((i) => paintCell(installationLine(i))));
  else lines.push(paint('red', `HAPTIC: ${rows[0]?.model.hapticUnreadable ?? 'no installation found'}`));
  return `${lines.join('\n')}\n`;
}
