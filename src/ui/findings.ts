import { describeFinding } from '../diagnose/catalogue.ts';
import type { Finding, FindingText } from '../types/finding.ts';
import { severityIcon, type Color, type Painter } from './style.ts';

/** A finding as every view shows it: icon and colour of its severity, `[ID] title`, evidence lines, the fix. */
export interface FindingView {
  icon: string;
  color: Color;
  headline: string;
  evidence: string[];
  fix?: string | undefined;
}

export function findingView(f: Finding): FindingView {
  const text = describeFinding(f);
  const { icon, color } = severityIcon[f.severity];
  return { icon, color, headline: `[${text.id}] ${text.title}`, evidence: text.evidence, fix: text.fix };
}

/** One finding as text: icon, [ID] and title, then its evidence and fix, indented. */
export function findingLines(f: Finding, paint: Painter, indent = '  '): string[] {
  const v = findingView(f);
  return [
    `${indent}${paint(v.color, v.icon)} ${v.headline}`,
    ...v.evidence.map((e) => `${indent}    ${paint('gray', e)}`),
    ...(v.fix ? [`${indent}    fix: ${v.fix}`] : []),
  ];
}

/** Findings in -o json|yaml: id, severity, title, evidence, fix, pod, docs. */
export function findingsOutput(findings: Finding[]): FindingText[] {
  return findings.map(describeFinding);
}
