import type { WaitEntry } from '../model/rollout/report.ts';
import { findingView } from './findings.ts';

/** status --wait's log: one line per entry, UTC time first (a CI log's own clock may differ), indented details. */
export function waitLines(entry: WaitEntry): string[] {
  const stamp = new Date(entry.at).toISOString().slice(11, 19);
  const prefix = `${stamp} ${entry.workload ? `${entry.workload}: ` : ''}`;
  switch (entry.kind) {
    case 'transition':
      return [`${prefix}${entry.text}`];
    case 'retrying':
      return [`${prefix}retrying: ${entry.text}`];
    case 'timeout':
      return [`${prefix}timed out after ${Math.round(entry.afterMs / 1000)}s`];
    case 'stalled': {
      const v = findingView(entry.finding);
      return [
        `${prefix}stalled: ${v.headline}`,
        ...v.evidence.map((e) => `    ${e}`),
        ...(v.fix ? [`    fix: ${v.fix}`] : []),
      ];
    }
  }
}
