// Results of services, mapped to the documented exit codes: the one place that decides them.
import { countingFindings, type DoctorReport } from '../diagnose/doctor/index.ts';
import type { GateRecord } from '../services/gate.ts';
import type { WaitOutcome } from '../services/wait.ts';
import { ExitCode, exitCodeOf } from './errors.ts';

export function waitExitCode(outcome: WaitOutcome): ExitCode {
  return outcome === 'complete' ? ExitCode.ok : outcome === 'failed' ? ExitCode.failed : ExitCode.timeout;
}

/** 4 when a write was refused by the cluster itself (forbidden, unreachable…), 1 when any target failed or was refused. */
export function gateExitCode(records: GateRecord[]): ExitCode {
  if (records.some((r) => r.cause !== undefined && exitCodeOf(r.cause) === ExitCode.cluster)) return ExitCode.cluster;
  return records.some((r) => r.result === 'failed' || r.result === 'refused') ? ExitCode.failed : ExitCode.ok;
}

/** doctor: 1 when an error counts (with --strict, a warning too); suppressed findings never count. */
export function doctorExitCode(report: DoctorReport, strict: boolean): ExitCode {
  return countingFindings(report, strict).length ? ExitCode.failed : ExitCode.ok;
}
