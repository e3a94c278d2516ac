// Which findings of a doctor report decide its exit code: apart from the rules, so that the CLI's exit codes load
// without every doctor rule (status and why-stalled import them too).
import type { DoctorReport } from './index.ts';
import type { DoctorFinding } from './suppress.ts';

/** Findings that count for the exit code: not suppressed, and errors (with --strict, warnings too). */
export function countingFindings(report: DoctorReport, strict: boolean): DoctorFinding[] {
  return report.subjects
    .flatMap((s) => s.findings)
    .filter(
      (f) =>
        !f.suppressed && (f.severity === 'error' || f.severity === 'blocker' || (strict && f.severity === 'warning')),
    );
}
