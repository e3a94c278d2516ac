import type { WhyStalledResult } from '../diagnose/index.ts';
import { findingLines, findingsOutput } from './findings.ts';
import type { Painter } from './style.ts';
import { workloadRef } from './status-rows.ts';

/** -o json|yaml of why-stalled: one item per workload with its verdict and findings. */
export function diagnosisOutput(results: WhyStalledResult[]) {
  const items = results.map(({ model, diagnosis }) => ({
    workloadKind: model.workloadKind,
    name: model.name,
    namespace: model.namespace,
    phase: model.phase,
    message: model.message,
    stalled: diagnosis.stalled,
    findings: findingsOutput(diagnosis.findings),
  }));
  return { apiVersion: 'kubectl-haptic/v1', kind: 'DiagnosisList', items };
}

/** The why-stalled report: one block per workload, most likely cause first. */
export function whyText(results: WhyStalledResult[], paint: Painter): string {
  return `${results
    .map(({ model, diagnosis }) => {
      const verdict = diagnosis.stalled
        ? paint('red', 'stalled')
        : paint(
            model.phase === 'paused' ? 'yellow' : 'green',
            `not stalled (${model.phase === 'complete' ? 'complete' : model.strategy.type === 'OnDelete' ? 'OnDelete' : model.phase === 'paused' ? 'paused' : 'progressing'})`,
          );
      return [
        `${workloadRef(model)} -n ${model.namespace}: ${verdict}`,
        ...diagnosis.findings.flatMap((f) => findingLines(f, paint)),
      ].join('\n');
    })
    .join('\n\n')}\n`;
}
