// The end of every --wait (status, enable-gate, disable-gate): the reports of a complete rollout, or why it failed
// (the cause as why-stalled prints it, then the verdict), as text or -o json|yaml; under GitHub Actions also an
// ::error annotation and the job's step summary.
import { appendFileSync } from 'node:fs';
import type { WaitResult } from '../model/rollout/report.ts';
import { stepSummary, workflowError } from '../ui/github.ts';
import { formatStructured } from '../ui/output.ts';
import { reportText } from '../ui/report-text.ts';
import type { Painter } from '../ui/style.ts';
import { failureText, waitResultOutput } from '../ui/wait-text.ts';
import { terminalWidth, wrapText } from '../ui/wrap.ts';

export interface WaitEnd {
  output?: 'json' | 'yaml' | undefined;
  paint: Painter;
  timeoutMs: number;
  env?: NodeJS.ProcessEnv;
}

/** Prints a wait's result (already made safe) on stdout; returns nothing, the exit code is the caller's. */
export function printWaitEnd(result: WaitResult, o: WaitEnd): void {
  const { reports } = result;
  if (o.output) {
    // a rollout complete before it was followed has no report: its WaitResult still gives `| jq` an answer
    const body =
      result.outcome !== 'complete' || !reports.length
        ? waitResultOutput(result)
        : reports.length === 1
          ? reports[0]
          : { apiVersion: 'kubectl-haptic/v1', kind: 'RolloutReportList', items: reports };
    process.stdout.write(formatStructured(body, o.output));
  } else {
    for (const report of reports) process.stdout.write(`\n${wrapText(reportText(report, o.paint), terminalWidth())}`);
    if (result.failure) process.stdout.write(`\n${failureText(result.failure, o.paint)}`);
  }
  const env = o.env ?? process.env;
  if (env.GITHUB_ACTIONS !== 'true') return;
  const error = workflowError(result, o.timeoutMs);
  // workflow commands are read from stdout
  if (error) process.stdout.write(error);
  const summary = env.GITHUB_STEP_SUMMARY;
  if (summary) {
    try {
      appendFileSync(summary, stepSummary(result, reports, o.timeoutMs));
    } catch (err) {
      process.stderr.write(`Warning: cannot write the step summary ${summary}: ${(err as Error).message}\n`);
    }
  }
}
