import type { GateRecord } from '../model/gate-plan.ts';
import type { PodTemplate } from '../types/kube.ts';
import { lineDiff } from './diff.ts';
import { findingLines, findingsOutput } from './findings.ts';
import { toYaml } from './output.ts';
import type { Painter } from './style.ts';
import { workloadRef } from './status-rows.ts';
import { workloadArgs } from '../diagnose/make.ts';

const verb = { enable: 'added', disable: 'removed' } as const;

/** The -o json|yaml record of enable-gate / disable-gate: everything but the templates and the error object. */
export function gateOutput(records: GateRecord[]) {
  const items = records.map(({ templateBefore: _b, templateAfter: _a, cause: _c, findings, ...rest }) => ({
    ...rest,
    findings: findingsOutput(findings),
  }));
  return { apiVersion: 'kubectl-haptic/v1', kind: 'GateResultList', items };
}

/**
 * A pod template to show: every container's env var by name, without its `value` (it may be a password); a
 * `valueFrom` reference names where the value lives, not the value, and stays.
 */
export function envByName(template: PodTemplate): PodTemplate {
  const spec = template.spec as PodTemplate['spec'] & Record<string, unknown>;
  const lists = ['containers', 'initContainers', 'ephemeralContainers'] as const;
  const out: Record<string, unknown> = { ...spec };
  for (const key of lists) {
    const containers = spec[key] as { env?: { name: string; value?: string }[] }[] | undefined;
    if (!Array.isArray(containers)) continue;
    out[key] = containers.map((c) =>
      Array.isArray(c.env) ? { ...c, env: c.env.map(({ value: _value, ...rest }) => rest) } : c,
    );
  }
  return { ...template, spec: out as unknown as PodTemplate['spec'] };
}

/** kubectl-like result lines for enable-gate / disable-gate, one block per workload. */
export function gateText(records: GateRecord[], paint: Painter): string {
  return `${records.map((r) => recordLines(r, paint).join('\n')).join('\n\n')}\n`;
}

function recordLines(r: GateRecord, paint: Painter): string[] {
  const head = workloadRef(r);
  const { target } = workloadArgs({ ...r, namespace: '' });
  const lines: string[] = [];
  const dry =
    r.dryRun === 'none'
      ? ''
      : ` (dry run: ${r.dryRun}${r.dryRun === 'server' ? ', accepted by the API server' : ''}; nothing written)`;
  switch (r.result) {
    case 'unchanged':
      lines.push(
        `${head} unchanged (gate ${r.conditionType} ${r.action === 'enable' ? 'already present' : 'not present'})`,
      );
      break;
    case 'refused': {
      const blockers = r.findings.filter((f) => f.severity === 'blocker').length;
      lines.push(
        `${head} ${paint('red', 'refused')}: ${blockers} preflight check${blockers === 1 ? '' : 's'} failed; nothing written (--force ${r.action === 'enable' ? 'adds' : 'removes'} the gate anyway)`,
      );
      break;
    }
    case 'failed':
      lines.push(`${head} ${paint('red', 'failed')}: ${r.error ?? 'unknown error'}`);
      break;
    default:
      lines.push(`${head} gate ${paint('green', verb[r.action])}${dry}`);
  }
  if (r.templateFrom && r.result !== 'unchanged')
    lines.push(`  its pod template is ${r.templateFrom}'s (spec.workloadRef): the patch goes there`);
  for (const w of r.warnings ?? []) lines.push(`  ${paint('yellow', '!')} warning: ${w}`);
  for (const f of r.findings) lines.push(...findingLines(f, paint));
  if (r.dryRun === 'client' && r.result !== 'unchanged') {
    lines.push(`  patch (application/json-patch+json): ${JSON.stringify(r.patch)}`);
    if (r.templateBefore && r.templateAfter) {
      lines.push('  pod template:');
      lines.push(
        ...lineDiff(toYaml(envByName(r.templateBefore)), toYaml(envByName(r.templateAfter))).map(
          (l) => `    ${l.startsWith('+') ? paint('green', l) : l.startsWith('-') ? paint('red', l) : l}`,
        ),
      );
    }
  }
  if (r.dryRun === 'none' && (r.result === 'added' || r.result === 'removed')) {
    lines.push(
      `  the pod template changed, so a rollout started${r.revision ? ` (revision ${r.revision})` : ''}; follow it with: kubectl haptic status ${target} -n ${r.namespace} --watch`,
    );
  }
  return lines;
}
