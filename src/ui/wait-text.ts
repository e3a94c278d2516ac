import { describeFinding } from '../diagnose/catalogue.ts';
import type { WaitEntry, WaitFailure, WaitResult, WaitedWorkload } from '../model/rollout/report.ts';
import { findingLines, findingView } from './findings.ts';
import { workloadRef } from './status-rows.ts';
import type { Painter } from './style.ts';

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

/** Why a wait failed, in words: the last line of its text, the title of a CI annotation. */
export function failureVerdict(f: WaitFailure): string {
  const seconds = Math.round(f.waitedMs / 1000);
  const held = f.heldMs !== undefined ? `, held ${Math.round(f.heldMs / 1000)}s` : '';
  const why =
    f.reason === 'cause'
      ? `${f.finding?.id ?? 'a stall'}${held}; it does not clear by itself (--no-fail-fast waits for the progress deadline)`
      : f.reason === 'deadline'
        ? 'progress deadline exceeded'
        : f.reason === 'degraded'
          ? `Argo says ${f.workload.message ?? 'Degraded'}`
          : 'it updates on delete (OnDelete): nothing but deleting its pods moves it';
  return `${workloadRef(f.workload)} -n ${f.workload.namespace}: rollout failed after ${seconds}s of waiting: ${why}`;
}

/** A workload followed beside the one that failed, in one line. */
function otherLine(w: WaitedWorkload): string {
  const state = w.complete ? 'complete' : `still rolling${w.message ? `: ${w.message}` : ''}`;
  return `${workloadRef(w)} -n ${w.namespace}: ${state}`;
}

/** The end of a failed --wait: each other workload, then the cause as why-stalled prints it, then the verdict. */
export function failureText(f: WaitFailure, paint: Painter): string {
  return `${[
    ...f.others.map(otherLine),
    `${workloadRef(f.workload)} -n ${f.workload.namespace}: ${paint('red', 'stalled')}`,
    ...(f.finding ? findingLines(f.finding, paint) : []),
    paint('red', `✗ ${failureVerdict(f)}`),
  ].join('\n')}\n`;
}

/** -o json|yaml of a wait that did not complete: the outcome, the workload, the finding that ended it. */
export function waitResultOutput(result: WaitResult) {
  const f = result.failure;
  return {
    apiVersion: 'kubectl-haptic/v1',
    kind: 'WaitResult',
    outcome: result.outcome,
    waitedSeconds: Math.round(result.waitedMs / 1000),
    ...(f
      ? {
          workload: { kind: f.workload.workloadKind, name: f.workload.name, namespace: f.workload.namespace },
          reason: f.reason,
          message: failureVerdict(f),
          ...(f.finding ? { finding: describeFinding(f.finding) } : {}),
          ...(f.heldMs !== undefined ? { heldSeconds: Math.round(f.heldMs / 1000) } : {}),
          others: f.others.map((w) => ({
            kind: w.workloadKind,
            name: w.name,
            namespace: w.namespace,
            complete: w.complete,
            ...(w.message ? { message: w.message } : {}),
          })),
        }
      : {}),
  };
}
