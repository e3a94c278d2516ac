import type { Finding } from '../types/finding.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import type { PodView } from '../model/rollout/pod.ts';
import { sessionNotes, sessionsText } from '../model/rollout/sessions.ts';
import { findingLines } from './findings.ts';
import {
  countsLine,
  headline,
  installationLine,
  NEW_POD_HEADER,
  newPodRow,
  newSetText,
  noNewPodsText,
  OLD_POD_HEADER,
  oldPodRow,
  oldSetText,
  summaryLine,
  type Cell,
  type Tone,
} from './status-rows.ts';
import type { Color, Painter } from './style.ts';
import { table } from './table.ts';

const toneColor: Record<Tone, Color | undefined> = {
  good: 'green',
  wait: 'yellow',
  bad: 'red',
  muted: 'gray',
  plain: undefined,
};

function paintCell(c: Cell, paint: Painter): string {
  const color = toneColor[c.tone];
  return color ? paint(color, c.text) : c.text;
}

/** -o json|yaml of status: the model of the one workload named, else a RolloutList. */
export function rolloutOutput(models: RolloutModel[], named: boolean): unknown {
  return models.length === 1 && named
    ? models[0]
    : { apiVersion: 'kubectl-haptic/v1', kind: 'RolloutList', items: models };
}

/** The one-shot status view of one rollout, readable like kubectl output. */
export function statusText(m: RolloutModel, now: number, paint: Painter, topFinding?: Finding): string {
  const lines = [paint('bold', summaryLine(m)), paintCell(headline(m), paint), `  ${countsLine(m)}`];
  // with sessions read (--sessions): what HAProxy holds to each pod, a column before AGE (none when no HAProxy pod
  // answered: the note below says why)
  const withSessions = (header: string[], row: (p: PodView, now: number) => Cell[]) =>
    m.sessions && !m.sessions.unread
      ? {
          header: [...header.slice(0, -1), 'SESSIONS', header.at(-1)!],
          row: (p: PodView) => {
            const cells = row(p, now);
            const n = p.sessions?.sessions;
            const cell: Cell = { text: sessionsText(p.sessions), tone: n === undefined ? 'muted' : 'plain' };
            return [...cells.slice(0, -1), cell, cells.at(-1)!];
          },
        }
      : { header, row: (p: PodView) => row(p, now) };
  const fresh = withSessions(NEW_POD_HEADER, newPodRow);
  const old = withSessions(OLD_POD_HEADER, oldPodRow);
  const newSet = newSetText(m);
  if (newSet) {
    lines.push('', `NEW PODS  ${newSet}`);
    lines.push(
      ...(m.newPods.length
        ? table([fresh.header, ...m.newPods.map((p) => fresh.row(p).map((c) => paintCell(c, paint)))])
        : [`  ${noNewPodsText(m)}`]),
    );
  }
  const oldWithPods = m.oldReplicaSets.filter((rs) => m.oldPods.length || rs.replicas > 0);
  if (m.oldPods.length || oldWithPods.length) {
    lines.push('', `OLD PODS  ${oldSetText(m)}`);
    lines.push(
      ...(m.oldPods.length
        ? table([old.header, ...m.oldPods.map((p) => old.row(p).map((c) => paintCell(c, paint)))])
        : ['  all gone']),
    );
  }
  lines.push('');
  if (m.installations.length) lines.push(...m.installations.map((i) => paintCell(installationLine(i), paint)));
  else lines.push(paint('red', `HAPTIC: ${m.hapticUnreadable ?? 'no installation found'}`));
  for (const note of sessionNotes(m)) lines.push(paint('yellow', `sessions: ${note}`));
  if (topFinding) lines.push('', ...findingLines(topFinding, paint, ''));
  return `${lines.join('\n')}\n`;
}
