import { describeFinding } from '../../diagnose/catalogue.ts';
import type { DoctorFinding, DoctorReport, DoctorSubject } from '../../diagnose/doctor/index.ts';
import { refName, type ObjectRef } from '../../diagnose/doctor/located.ts';
import { sourceText } from '../../model/doctor/source.ts';
import type { SourceRef } from '../../types/doctor.ts';
import { findingLines } from '../findings.ts';
import type { Color, Painter } from '../style.ts';

const where = (source: SourceRef | undefined) => (source ? ` (${sourceText(source)})` : '');
const same = (a: ObjectRef, b: ObjectRef) => a.kind === b.kind && a.namespace === b.namespace && a.name === b.name;
const counted = (n: number, word: string) => `${n} ${word}${n === 1 || word === 'info' ? '' : 's'}`;

/** Counts by severity, suppressed ones apart. */
export function doctorCounts(report: DoctorReport) {
  const all = report.subjects.flatMap((s) => s.findings);
  const live = all.filter((f) => !f.suppressed);
  const n = (severity: string) => live.filter((f) => f.severity === severity).length;
  return {
    objects: report.subjects.length,
    error: n('error'),
    warning: n('warning'),
    info: n('info'),
    suppressed: all.length - live.length,
  };
}

function verdict(findings: DoctorFinding[], paint: Painter): string {
  const live = findings.filter((f) => !f.suppressed);
  const suppressed = findings.length - live.length;
  const parts = (['error', 'warning', 'info'] as const)
    .map((s) => counted(live.filter((f) => f.severity === s).length, s))
    .filter((p) => !p.startsWith('0 '));
  const tail = suppressed ? `, ${suppressed} suppressed` : '';
  if (!parts.length) return `${paint('green', 'no findings')}${tail}`;
  const color: Color = live.some((f) => f.severity === 'error')
    ? 'red'
    : live.some((f) => f.severity === 'warning')
      ? 'yellow'
      : 'blue';
  return `${paint(color, parts.join(', '))}${tail}`;
}

function subjectLines(s: DoctorSubject, paint: Painter): string[] {
  const lines = [
    `${refName(s.ref)} -n ${s.ref.namespace}${s.role ? ` (${s.role})` : ''}${where(s.source)}: ${verdict(s.findings, paint)}`,
  ];
  for (const f of s.findings) {
    if (f.suppressed) {
      const t = describeFinding(f);
      lines.push(paint('gray', `  - [${t.id}] ${t.title} (suppressed: ${f.suppressed})`));
      continue;
    }
    const [headline, ...rest] = findingLines(f, paint);
    lines.push(headline as string);
    // a finding about another object than the one checked (its PodDisruptionBudget, its haproxy.cfg) says which
    if (!same(f.object, s.ref)) lines.push(`      on ${refName(f.object)}${where(f.source)}`);
    lines.push(...rest);
  }
  return lines;
}

/** The doctor's report: one block per checked object, most severe first; then what was not run, notes, a count. */
export function doctorText(report: DoctorReport, paint: Painter): string {
  const blocks = report.subjects.map((s) => subjectLines(s, paint).join('\n'));
  const tail: string[] = [];
  const byReason = new Map<string, string[]>();
  for (const n of report.notRun) byReason.set(n.reason, [...(byReason.get(n.reason) ?? []), n.id]);
  if (byReason.size)
    tail.push(`not run: ${[...byReason.entries()].map(([reason, ids]) => `${ids.join(', ')} (${reason})`).join('; ')}`);
  if (report.notes.length) tail.push('notes:', ...report.notes.map((n) => `  - ${n}`));
  if (report.unreadable.length)
    tail.push(paint('red', 'could not read (not checked, exit 3):'), ...report.unreadable.map((n) => `  - ${n}`));
  const c = doctorCounts(report);
  tail.push(
    `${counted(c.objects, 'object')} checked: ${counted(c.error, 'error')}, ${counted(c.warning, 'warning')}, ${counted(c.info, 'info')}${c.suppressed ? `, ${c.suppressed} suppressed` : ''}`,
  );
  return `${[...blocks, tail.join('\n')].join('\n\n')}\n`;
}
