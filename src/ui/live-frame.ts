import type { Finding } from '../types/finding.ts';
import { podKey, type RolloutHistory } from '../model/rollout/history.ts';
import type { PodView } from '../model/rollout/pod.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import { formatAge } from '../model/time.ts';
import { sessionNotes, sessionsText } from '../model/rollout/sessions.ts';
import { findingView } from './findings.ts';
import { duration, shortPod } from './report-text.ts';
import {
  bar,
  drainProgress,
  newPodStages,
  oldPodStages,
  rolloutProgress,
  type Stage,
  type StageState,
} from './stages.ts';
import {
  type Cell,
  headline,
  installationLine,
  newSetText,
  noNewPodsText,
  revisionText,
  strategyText,
  type Tone,
  workloadRef,
} from './status-rows.ts';
import type { Color } from './style.ts';
import { compareText } from '../lib/order.ts';

// The live view of status --watch as lines of coloured segments, laid out for a terminal of a given size: pure, so
// every frame a person can see is pinned by a test, and Ink only draws what this returns.

export interface Segment {
  text: string;
  color?: Color | undefined;
  dim?: boolean | undefined;
  bold?: boolean | undefined;
  inverse?: boolean | undefined;
}
export type Line = Segment[];

export type Mode = 'table' | 'detail' | 'help';

export interface LiveState {
  model: RolloutModel;
  history?: RolloutHistory | undefined;
  finding?: Finding | undefined;
  findings?: Finding[] | undefined;
  problem?: string | undefined;
  /** the last transitions, newest last, with their time */
  log: { at: number; text: string }[];
  now: number;
  width: number;
  height: number;
  mode: Mode;
  /** the selected pod's name */
  selected?: string | undefined;
  done?: boolean | undefined;
}

const toneColor: Record<Tone, Color | undefined> = {
  good: 'green',
  wait: 'yellow',
  bad: 'red',
  muted: 'gray',
  plain: undefined,
};
const stageLook: Record<StageState, { icon: string; color: Color }> = {
  done: { icon: '✓', color: 'green' },
  now: { icon: '…', color: 'yellow' },
  todo: { icon: '○', color: 'gray' },
  bad: { icon: '✗', color: 'red' },
};
const LOG_LINES = 5;
const seg = (text: string, o: Omit<Segment, 'text'> = {}): Segment => ({ text, ...o });
const width = (line: Line) => line.reduce((n, s) => n + [...s.text].length, 0);

/** Cuts a line to `max` visible characters (a cut ends with …), so a frame never wraps. */
export function clip(line: Line, max: number): Line {
  if (width(line) <= max) return line;
  const out: Line = [];
  let left = max - 1;
  for (const s of line) {
    const chars = [...s.text];
    if (chars.length <= left) {
      out.push(s);
      left -= chars.length;
      continue;
    }
    if (left > 0) out.push({ ...s, text: chars.slice(0, left).join('') });
    break;
  }
  out.push(seg('…', { dim: true }));
  return out;
}

/** The pods in the order the keys move through them: new pods, then old pods. */
export function selectablePods(m: RolloutModel): string[] {
  return [...m.newPods.map((p) => p.name), ...m.oldPods.map((p) => p.name)];
}

function stageSegments(stages: Stage[], compact: boolean): Line {
  const out: Line = [];
  for (const [i, s] of stages.entries()) {
    const look = stageLook[s.state];
    if (i) out.push(seg('  '));
    out.push(
      seg(look.icon, { color: look.color }),
      seg(compact ? s.short : ` ${s.label}`, { color: s.state === 'todo' ? 'gray' : undefined }),
    );
    if (s.tookMs !== undefined && s.state === 'done') out.push(seg(` +${duration(s.tookMs)}`, { dim: true }));
  }
  return out;
}

/** A line's width in columns (its segments' text; the frame's glyphs are one column each). */
const lineWidth = (l: Line) => l.reduce((n, x) => n + [...x.text].length, 0);
/** Whether a line is drawn whole: the frame clips every line one column short of the terminal's width. */
const fits = (l: Line, s: LiveState) => lineWidth(l) <= Math.max(20, s.width - 1);

function podLine(
  p: PodView,
  role: 'new' | 'old',
  s: LiveState,
  nameWidth: number,
  compact: boolean,
  named: (name: string) => string,
): Line {
  const h = s.history?.pods[podKey(p)];
  const selected = s.selected === p.name;
  const name = named(p.name).padEnd(nameWidth);
  const line: Line = [
    seg(selected ? '❯ ' : '  ', { color: 'blue' }),
    seg(name, { inverse: selected, bold: selected }),
    seg('  '),
  ];
  if (role === 'old') {
    const drain = drainProgress(p, s.now);
    if (drain) {
      const color: Color = p.terminating?.pastDeadline ? 'red' : 'yellow';
      line.push(
        seg(bar(drain.totalMs ? drain.elapsedMs / drain.totalMs : 1, compact ? 6 : 10), { color }),
        seg(` ${formatAge(drain.elapsedMs)}/${formatAge(drain.totalMs)}`.padEnd(9), { dim: true }),
        seg(' '),
      );
    }
    if (!s.model.sessions?.unread) line.push(...sessionSegments(p, h?.sessions?.peak, compact));
    line.push(...stageSegments(oldPodStages(p, h), compact));
  } else {
    if (!s.model.sessions?.unread) line.push(...sessionSegments(p, undefined, compact));
    line.push(...stageSegments(newPodStages(p, h), compact));
  }
  line.push(seg(`  ${p.createdAt ? formatAge(s.now - Date.parse(p.createdAt)) : ''}`, { dim: true }));
  return line;
}

/**
 * A pod's sessions in HAProxy, when read: an old pod's as a bar from the most it held down to none (drained), a new
 * pod's as the count it has taken. Unknown is `?` or `≥n`, never 0.
 */
function sessionSegments(p: PodView, peak: number | undefined, compact: boolean): Line {
  if (!p.sessions) return [];
  const text = `⇄ ${sessionsText(p.sessions)}`.padEnd(6);
  if (peak === undefined) return [seg(text, { color: 'blue' }), seg(' ')];
  const n = p.sessions.sessions;
  const color: Color = n === undefined ? 'gray' : n === 0 ? 'green' : 'yellow';
  return [
    seg(bar(n === undefined ? 0 : peak ? n / peak : 0, compact ? 4 : 6), { color }),
    seg(` ${text}`, { color }),
    seg(' '),
  ];
}

/** Rows that fit: pods that still matter (terminating, not Ready) kept over Ready ones, the rest counted. */
function fitRows(
  pods: PodView[],
  rows: number,
  selected: string | undefined,
): { shown: PodView[]; hidden: number; hiddenReady: number; hiddenDraining: number } {
  if (pods.length <= rows) return { shown: pods, hidden: 0, hiddenReady: 0, hiddenDraining: 0 };
  const urgency = (p: PodView) => (p.name === selected ? -1 : p.terminating ? 0 : p.ready.status === 'True' ? 2 : 1);
  const kept = new Set(
    [...pods].sort((a, b) => urgency(a) - urgency(b) || compareText(a.name, b.name)).slice(0, Math.max(1, rows - 1)),
  );
  const hidden = pods.filter((p) => !kept.has(p));
  return {
    shown: pods.filter((p) => kept.has(p)),
    hidden: hidden.length,
    hiddenReady: hidden.filter((p) => p.ready.status === 'True' && !p.terminating).length,
    hiddenDraining: hidden.filter((p) => p.terminating).length,
  };
}

/** What the old pods do: an old pod drains once its deletion is asked; until then it serves. */
function oldPodsDoing(pods: PodView[]): string {
  const draining = pods.filter((p) => p.terminating).length;
  const serving = pods.length - draining;
  return [draining ? `${draining} draining` : '', serving ? `${serving} serving` : ''].filter(Boolean).join(', ');
}

/** The rollout in one short line: the table view has no room for status's long summary. */
function liveSummary(m: RolloutModel): string {
  return `${workloadRef(m)} -n ${m.namespace} · ${revisionText(m)} · ${strategyText(m, true)} · ${m.gated ? 'gated' : 'not gated'}`;
}

function headerLines(s: LiveState): Line[] {
  const m = s.model;
  const head = headline(m);
  const prog = rolloutProgress(m, s.history);
  const compact = s.width < 100;
  const w = compact ? 10 : 20;
  return [
    [seg(liveSummary(m), { bold: true })],
    [seg(head.text, { color: toneColor[head.tone] })],
    [
      seg('new Ready '),
      seg(bar(prog.desired ? prog.ready / prog.desired : 1, w), {
        color: prog.ready >= prog.desired ? 'green' : 'yellow',
      }),
      seg(` ${prog.ready}/${prog.desired}`),
      seg('   old gone '),
      seg(bar(prog.old ? prog.gone / prog.old : 1, w), { color: prog.gone >= prog.old ? 'green' : 'yellow' }),
      seg(` ${prog.gone}/${prog.old}`),
    ],
  ];
}

function footer(s: LiveState): Line {
  if (s.done) return [];
  const keys = s.mode === 'table' ? '↑↓ select · enter detail · ? help · q quit' : 'esc back · q quit';
  return [seg(`${keys}  (the rollout goes on when you quit)`, { dim: true })];
}

function tableLines(s: LiveState): Line[] {
  const m = s.model;
  const compact = s.width < 110;
  const view = s.finding && findingView(s.finding);
  const findingLines: Line[] = view
    ? [
        [seg(`${view.icon} ${view.headline}`, { color: view.color })],
        ...view.evidence.slice(0, 3).map((e) => [seg(`    ${e}`, { dim: true })]),
        ...(view.fix ? [[seg(`    fix: ${view.fix}`)]] : []),
      ]
    : [];
  const haptic: Line[] = m.installations.length
    ? m.installations.map((i) => {
        // without the lease's renewal age when the whole line does not fit: what the HAProxy pods run matters more
        const line = (c: Cell): Line => [seg(c.text, { color: toneColor[c.tone] })];
        const full = line(installationLine(i));
        return fits(full, s) ? full : line(installationLine(i, { brief: true }));
      })
    : [[seg(`HAPTIC: ${m.hapticUnreadable ?? 'no installation found'}`, { color: 'red' })]];
  // a log line names its pod in full (to paste into kubectl logs) unless that makes it wider than the terminal
  const log = s.log.slice(-LOG_LINES).map((l) => {
    const line = (text: string) => [seg(new Date(l.at).toISOString().slice(11, 19), { dim: true }), seg(` ${text}`)];
    const full = line(l.text);
    return fits(full, s) ? full : line(l.text.replace(/pod\/(\S+)/, (_, n: string) => `pod/${shortPod(n)}`));
  });
  const problem: Line[] = s.problem ? [[seg(`retrying: ${s.problem}`, { color: 'yellow' })]] : [];
  const notes = sessionNotes(m);
  if (notes.length)
    problem.push([
      // nothing of sessions readable: the column is gone, and this line says how to hide it (first: a long reason is
      // cut at the terminal's width) and why, once
      seg(
        `sessions${m.sessions?.unavailable || m.sessions?.unread ? ' (--no-sessions hides this line)' : ''}: ${notes[0]}${notes.length > 1 ? ` (+${notes.length - 1} more)` : ''}`,
        {
          dim: true,
        },
      ),
    ]);
  // every line but the pod rows; what is left of the height is for pods
  const fixed =
    3 +
    2 +
    (m.oldPods.length ? 2 : 0) +
    1 +
    haptic.length +
    (findingLines.length ? findingLines.length + 1 : 0) +
    problem.length +
    (log.length ? log.length + 1 : 0) +
    1;
  const podRows = Math.max(2, s.height - fixed);
  const newRows = m.oldPods.length ? Math.max(1, Math.ceil(podRows * 0.6)) : podRows;
  const fresh = fitRows(m.newPods, newRows, s.selected);
  const old = fitRows(
    m.oldPods,
    Math.max(1, podRows - Math.min(newRows, fresh.shown.length + (fresh.hidden ? 1 : 0))),
    s.selected,
  );
  const more = (f: ReturnType<typeof fitRows>) => {
    if (!f.hidden) return [];
    const parts = [
      f.hiddenReady ? `${f.hiddenReady} Ready` : '',
      f.hiddenDraining ? `${f.hiddenDraining} draining` : '',
    ]
      .filter(Boolean)
      .join(', ');
    return [[seg(`  … and ${f.hidden} more${parts ? ` (${parts})` : ''}`, { dim: true })]];
  };
  // pods by their full names whenever every row still fits the width: the names users paste into kubectl
  const podLines = (named: (name: string) => string) => {
    const nameWidth = Math.max(4, ...[...m.newPods, ...m.oldPods].map((p) => named(p.name).length));
    return {
      fresh: fresh.shown.map((p) => podLine(p, 'new', s, nameWidth, compact, named)),
      old: old.shown.map((p) => podLine(p, 'old', s, nameWidth, compact, named)),
    };
  };
  const full = podLines((n) => n);
  const rows = [...full.fresh, ...full.old].every((l) => fits(l, s)) ? full : podLines(shortPod);
  const lines: Line[] = [...headerLines(s), []];
  lines.push([seg('NEW PODS', { bold: true }), seg(`  ${newSetText(m) ?? 'none yet'}`, { dim: true })]);
  lines.push(...(m.newPods.length ? rows.fresh : [[seg(`  ${noNewPodsText(m)}`, { dim: true })]]), ...more(fresh));
  if (m.oldPods.length) {
    lines.push([], [seg('OLD PODS', { bold: true }), seg(`  ${oldPodsDoing(m.oldPods)}`, { dim: true })]);
    lines.push(...rows.old, ...more(old));
  }
  lines.push([], ...haptic);
  if (findingLines.length) lines.push([], ...findingLines);
  lines.push(...problem);
  if (log.length) lines.push([], ...log);
  lines.push(footer(s));
  return lines;
}

function detailLines(s: LiveState): Line[] {
  const m = s.model;
  const role = m.oldPods.some((p) => p.name === s.selected) ? 'old' : 'new';
  const p = [...m.newPods, ...m.oldPods].find((x) => x.name === s.selected);
  if (!p) return [[seg(`pod ${s.selected} is gone`, { dim: true })], footer(s)];
  const time = (iso: string | undefined) =>
    iso ? `${iso.slice(11, 19)} (${formatAge(s.now - Date.parse(iso))} ago)` : '';
  const lines: Line[] = [
    [
      seg(`pod ${p.name}`, { bold: true }),
      seg(
        ` (${role}) · ${p.phase} · node ${p.node ?? '-'} · ${p.ip ?? 'no IP'}${p.createdAt ? ` · age ${formatAge(s.now - Date.parse(p.createdAt))}` : ''}`,
      ),
    ],
    [],
    [seg('conditions', { bold: true })],
    [seg(`  ContainersReady  ${p.containersReady.status}  ${time(p.containersReady.since)}`)],
    ...p.readinessGates.map((g) => {
      const c = g.type === p.gate.type ? p.gate : undefined;
      return [
        seg(`  ${g.type}  ${g.status}  ${time(c?.since)}${c?.message ? `  ${c.message}` : ''}`, {
          color: g.status === 'True' ? 'green' : 'yellow',
        }),
      ];
    }),
    [
      seg(
        `  Ready  ${p.ready.status}  ${time(p.ready.since)}${p.ready.status !== 'True' && p.ready.message ? `  ${p.ready.message}` : ''}`,
      ),
    ],
  ];
  if (p.terminating)
    lines.push([
      seg(
        `  terminating since ${time(p.terminating.since)}, deadline ${p.terminating.deadline?.slice(11, 19)}${p.terminating.finalizers.length ? `, finalizers ${p.terminating.finalizers.join(', ')}` : ''}`,
        { color: 'yellow' },
      ),
    ]);
  if (p.sessions) {
    lines.push([], [seg('HAProxy sessions', { bold: true }), seg(`  ${sessionsText(p.sessions)} now`, { dim: true })]);
    for (const o of p.sessions.on)
      lines.push([
        seg(
          `  ${o.haproxyPod}: ${o.problem ? `unknown (${o.problem})` : `${o.sessions} session${o.sessions === 1 ? '' : 's'}${o.onLeaving ? `, ${o.onLeaving} on leaving workers` : ''}${o.queued ? `, ${o.queued} queued` : ''}`}`,
          { dim: o.problem !== undefined },
        ),
      ]);
  }
  lines.push([], [seg('EndpointSlices', { bold: true })]);
  if (!p.services.length) lines.push([seg('  no Service selects this pod', { color: 'red' })]);
  for (const svc of p.services) {
    const eps = p.endpoints.filter((e) => e.service === svc);
    if (!eps.length) lines.push([seg(`  ${svc}: not listed`, { color: 'yellow' })]);
    for (const e of eps)
      lines.push([
        seg(`  ${svc} / ${e.slice}: ready ${e.ready} · serving ${e.serving} · terminating ${e.terminating}`),
      ]);
  }
  lines.push([], [seg('HAProxy', { bold: true })]);
  if (p.haproxyUnreadable) lines.push([seg(`  cannot tell: ${p.haproxyUnreadable}`, { color: 'yellow' })]);
  else if (!p.haproxy.length) lines.push([seg('  no server for this pod in any live config', { dim: true })]);
  for (const r of p.haproxy) {
    lines.push([
      seg(
        `  ${r.installation}: server ${r.disabled ? 'disabled' : 'enabled'} in the live config; ${r.runningOn}/${r.of} HAProxy pods agree${r.unknown ? `, ${r.unknown} cannot be told` : ''}`,
      ),
    ]);
    for (const h of r.pods) {
      const verdict =
        h.routes === undefined
          ? h.checksum
            ? 'cannot tell (config unreadable)'
            : 'never deployed to'
          : h.routes
            ? 'routes it'
            : 'does not route it';
      lines.push([
        seg(
          `    ${h.name}: runs ${h.checksum?.slice(0, 12) ?? 'nothing'} (${h.source})${h.settled ? '' : `, ${h.pending ?? 'not settled'}`} → ${verdict}`,
          { dim: h.routes === undefined },
        ),
      ]);
    }
  }
  const mine = (s.findings ?? []).filter(
    (f) =>
      f.pod === p.name ||
      f.evidence.some((e) => e.includes(p.name)) ||
      Object.values(f.args).some((v) => String(v).includes(p.name)),
  );
  lines.push([], [seg('findings', { bold: true })]);
  if (!mine.length) lines.push([seg('  none about this pod', { dim: true })]);
  for (const f of mine) {
    const v = findingView(f);
    lines.push(
      [seg(`  ${v.icon} ${v.headline}`, { color: v.color })],
      ...v.evidence.map((e) => [seg(`      ${e}`, { dim: true })]),
      ...(v.fix ? [[seg(`      fix: ${v.fix}`)]] : []),
    );
  }
  lines.push([], footer(s));
  return lines;
}

function helpLines(s: LiveState): Line[] {
  return [
    ...headerLines(s),
    [],
    [seg('keys', { bold: true })],
    [seg('  ↑ ↓    select a pod (new pods, then old pods)')],
    [seg('  enter  the selected pod: conditions, EndpointSlices, HAProxy, findings')],
    [seg('  esc    back to the rollout')],
    [seg('  ?      this help')],
    [seg('  q      quit (Ctrl-C too): the rollout goes on')],
    [],
    [seg('stages', { bold: true })],
    [seg('  new pods  containers ready (ctr) → routed on every HAProxy pod (rt)')],
    [seg('            → gate True → Ready (rdy); +5s: how long a step took after the one before')],
    [seg('  old pods  grace period bar → out of the ready set (out) → serving (srv)')],
    [seg('            → server disabled on every HAProxy pod (off) → exited → gone')],
    [seg('  sessions  ⇄ n what HAProxy holds to the pod (every HAProxy pod, current and leaving workers;')],
    [seg("            --sessions); an old pod's bar falls from the most it held to none; ≥n: some unread")],
    [seg('  ✓ done   … in progress   ○ not yet   ✗ stuck', { dim: true })],
    [],
    footer(s),
  ];
}

/** The frame for this state: at most `height` lines, none wider than `width`. */
export function liveFrame(s: LiveState): Line[] {
  return fitFrame(s.mode === 'detail' ? detailLines(s) : s.mode === 'help' ? helpLines(s) : tableLines(s), s);
}

/** Lines fitted to the terminal: at most `height` (the last says how many more), none wider than `width`. */
export function fitFrame(lines: Line[], size: { width: number; height: number }): Line[] {
  const fitted =
    lines.length > size.height
      ? [
          ...lines.slice(0, size.height - 1),
          [seg(`… ${lines.length - size.height + 1} more lines (a taller terminal shows them)`, { dim: true })],
        ]
      : lines;
  return fitted.map((l) => clip(l, Math.max(20, size.width - 1)));
}
