import type { Finding } from '../diagnose/finding.ts';
import { severityIcon, type Painter } from './style.ts';

/** One finding: icon, [ID] and title, then its evidence and fix, indented. */
export function findingLines(f: Finding, paint: Painter, indent = '  '): string[] {
  const { icon, color } = severityIcon[f.severity];
  return [
    `${indent}${paint(color, icon)} [${f.id}] ${f.title}`,
    ...f.evidence.map((e) => `${indent}    ${paint('gray', e)}`),
    ...(f.fix ? [`${indent}    fix: ${f.fix}`] : []),
  ];
}
