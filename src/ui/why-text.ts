import type { WhyStalledResult } from '../services/why-stalled.ts';
import { findingLines } from './findings-text.ts';
import type { Painter } from './style.ts';

/** The why-stalled report: one block per Deployment, most likely cause first. */
export function whyText(results: WhyStalledResult[], paint: Painter): string {
  return results
    .map(({ model, diagnosis }) => {
      const verdict = diagnosis.stalled ? paint('red', 'stalled') : paint(model.phase === 'paused' ? 'yellow' : 'green', `not stalled (${model.phase === 'complete' ? 'complete' : model.phase === 'paused' ? 'paused' : 'progressing'})`);
      return [`deployment.apps/${model.name} -n ${model.namespace}: ${verdict}`, ...diagnosis.findings.flatMap((f) => findingLines(f, paint))].join('\n');
    })
    .join('\n\n') + '\n';
}
