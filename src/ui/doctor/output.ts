import { describeFinding } from '../../diagnose/catalogue.ts';
import type { DoctorReport } from '../../diagnose/doctor/index.ts';
import { doctorCounts } from './text.ts';

/**
 * -o json|yaml of the doctor (apiVersion kubectl-haptic/v1, kind DoctorReport): one item per checked object with
 * its findings (id, severity, title, evidence, fix, docs, the object it is about, its source file and line in
 * static mode, and `suppressed` with the reason when an annotation suppresses it), then the checks not run and
 * the notes.
 */
export function doctorOutput(report: DoctorReport) {
  const items = report.subjects.map((s) => ({
    object: s.ref,
    ...(s.role ? { role: s.role } : {}),
    ...(s.source ? { source: s.source } : {}),
    findings: s.findings.map((f) => ({
      ...describeFinding(f),
      object: f.object,
      ...(f.source ? { source: f.source } : {}),
      ...(f.suppressed ? { suppressed: { reason: f.suppressed } } : {}),
    })),
  }));
  return {
    apiVersion: 'kubectl-haptic/v1',
    kind: 'DoctorReport',
    mode: report.mode,
    summary: doctorCounts(report),
    items,
    notRun: report.notRun,
    notes: report.notes,
    ...(report.unreadable.length ? { unreadable: report.unreadable } : {}),
  };
}
