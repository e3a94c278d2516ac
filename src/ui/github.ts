// GitHub Actions: a failed or timed-out wait as an `::error` workflow command (an annotation on the run), and the
// rollout report or the failure as Markdown for the job's step summary ($GITHUB_STEP_SUMMARY). Pure: the command
// decides whether it runs under GitHub (GITHUB_ACTIONS=true) and writes the file.
import type { RolloutReport, WaitResult } from '../model/rollout/report.ts';
import { describeFinding } from '../diagnose/catalogue.ts';
import { painter } from './style.ts';
import { failureVerdict } from './wait-text.ts';
import { reportText } from './report-text.ts';

/** The escaping of GitHub's toolkit (command.ts): data loses %, CR and LF; a property also : and ,. */
const escapeData = (s: string) => s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
const escapeProperty = (s: string) => escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');

/** The `::error` line of a wait that did not complete, or nothing. */
export function workflowError(result: WaitResult, timeoutMs: number): string | undefined {
  if (result.outcome === 'complete') return undefined;
  const f = result.failure;
  if (!f)
    return `::error title=${escapeProperty('kubectl haptic: rollout timed out')}::${escapeData(`timed out after ${Math.round(timeoutMs / 1000)}s`)}\n`;
  const text = f.finding ? describeFinding(f.finding) : undefined;
  const message = [
    failureVerdict(f),
    ...(text ? [`[${text.id}] ${text.title}`, ...text.evidence.map((e) => `  ${e}`)] : []),
    ...(text?.fix ? [`fix: ${text.fix}`] : []),
  ].join('\n');
  return `::error title=${escapeProperty(`kubectl haptic: ${f.workload.name} ${text ? `${text.id} ` : ''}rollout failed`)}::${escapeData(message)}\n`;
}

const fence = (text: string) => `\`\`\`text\n${text.replace(/```/g, "'''").trimEnd()}\n\`\`\`\n`;

/** The step summary: one section per report of a complete wait, or the failure. */
export function stepSummary(result: WaitResult, reports: RolloutReport[], timeoutMs: number): string {
  if (result.outcome === 'timeout') return `### ⏱ kubectl haptic: timed out after ${Math.round(timeoutMs / 1000)}s\n\n`;
  const f = result.failure;
  if (f) {
    const text = f.finding ? describeFinding(f.finding) : undefined;
    return [
      `### ✗ ${failureVerdict(f)}\n`,
      ...(text
        ? [
            `**[${text.id}](${text.docs})** ${text.title}\n`,
            fence(text.evidence.join('\n')),
            ...(text.fix ? [`Fix: \`${text.fix.replace(/`/g, "'")}\`\n`] : []),
          ]
        : []),
      '',
    ].join('\n');
  }
  return reports
    .map((r) => `### ✓ kubectl haptic: rollout complete\n\n${fence(reportText(r, painter(false)))}`)
    .join('\n');
}
