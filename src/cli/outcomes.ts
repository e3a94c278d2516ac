// Results of services, mapped to the documented exit codes: the one place that decides them.
import { countingFindings } from '../diagnose/doctor/counting.ts';
import type { DoctorReport } from '../diagnose/doctor/index.ts';
import type { DrillReport } from '../model/drill/probe-log.ts';
import type { GateRecord } from '../model/gate-plan.ts';
import type { WaitOutcome } from '../services/wait.ts';
import { exitCodeOf } from './errors.ts';
import { ExitCode } from '../lib/errors.ts';

export function waitExitCode(outcome: WaitOutcome): ExitCode {
  return outcome === 'complete' ? ExitCode.ok : outcome === 'failed' ? ExitCode.failed : ExitCode.timeout;
}

/**
 * 4 when a write was refused by the cluster itself (forbidden, unreachable…), 2 when one timed out, 1 when any
 * target failed or was refused. A write that succeeded counts as such even if reading it back failed (a warning).
 */
export function gateExitCode(records: GateRecord[]): ExitCode {
  const codes = records.filter((r) => r.cause !== undefined).map((r) => exitCodeOf(r.cause));
  if (codes.includes(ExitCode.cluster)) return ExitCode.cluster;
  if (codes.includes(ExitCode.timeout)) return ExitCode.timeout;
  return records.some((r) => r.result === 'failed' || r.result === 'refused') ? ExitCode.failed : ExitCode.ok;
}

/** doctor: 1 when an error counts (with --strict, a warning too); suppressed findings never count. */
export function doctorExitCode(report: DoctorReport, strict: boolean): ExitCode {
  // input that could not be read is never a pass: what it held was not checked
  if (report.unreadable.length) return ExitCode.usage;
  return countingFindings(report, strict).length ? ExitCode.failed : ExitCode.ok;
}

/** drill: 0 when no request failed and the rollout completed; 1 when one failed or the rollout failed; 2 on --timeout. */
export function drillExitCode(report: DrillReport): ExitCode {
  if (report.rollout.outcome === 'timeout') return ExitCode.timeout;
  return report.failed > 0 || report.rollout.outcome === 'failed' ? ExitCode.failed : ExitCode.ok;
}
