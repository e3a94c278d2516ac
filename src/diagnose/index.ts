import { CATALOGUE } from './catalogue.ts';
import type { DiagnoseContext } from './context.ts';
import type { Finding } from '../types/finding.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import { progressNote } from './progress.ts';
import { argoDegradedRule, argoPauseRule, argoServiceRule } from './rules/argo.ts';
import { containerRules } from './rules/containers.ts';
import { hapticRules } from './rules/haptic.ts';
import { readinessRules } from './rules/readiness.ts';
import { deadlineRule, drainRules, replicaSetRules } from './rules/rollout.ts';
import { routingRules, twoInstallationsRule } from './rules/routing.ts';
import { statefulSetHolds, statefulSetRules } from './rules/statefulset.ts';

/**
 * The ordered catalogue: the order decides which cause is reported first. A StatefulSet's own stalls come first (a
 * claim that is not bound, the pod its ordered controller waits on: each names the pod and the StatefulSet's way
 * out, which the generic cause after it does not), then pods that cannot exist or run (the gate is innocent then),
 * then pods held by something other than HAPTIC (another gate, containers that stay unready), then why HAPTIC never sees the pod, then HAPTIC itself, then drains, then what a StatefulSet holds
 * back on purpose (a partition, OnDelete) and an Argo Rollout's pauses; the progress deadline (Argo's Degraded) last, since it only reports that one of the above
 * lasted too long.
 */
const RULES = [
  statefulSetRules,
  replicaSetRules,
  containerRules,
  readinessRules,
  argoServiceRule,
  routingRules,
  hapticRules,
  twoInstallationsRule,
  drainRules,
  statefulSetHolds,
  argoPauseRule,
];

export interface Diagnosis {
  stalled: boolean;
  findings: Finding[];
}

/** The same per-pod finding on many pods (300 crash-looping replicas) is reported once, naming the other pods. */
export function groupByPod(findings: Finding[]): Finding[] {
  const grouped: Finding[] = [];
  const others = new Map<Finding, string[]>();
  for (const f of findings) {
    const first = f.pod ? grouped.find((g) => g.id === f.id && g.pod) : undefined;
    if (first) others.get(first)!.push(f.pod!);
    else {
      grouped.push(f);
      others.set(f, []);
    }
  }
  return grouped.map((f) => {
    const more = others.get(f) ?? [];
    if (!more.length) return f;
    const named = more.slice(0, 5).join(', ') + (more.length > 5 ? ` (+${more.length - 5} more)` : '');
    return {
      ...f,
      evidence: [...f.evidence, `the same on ${more.length} more pod${more.length === 1 ? '' : 's'}: ${named}`],
    };
  });
}

export function diagnose(ctx: DiagnoseContext): Diagnosis {
  const causes = groupByPod(RULES.flatMap((rule) => rule(ctx)));
  const findings = [...causes, ...deadlineRule(ctx, causes.length), ...argoDegradedRule(ctx)];
  const stalled = findings.some((f) => f.severity === 'error' || f.severity === 'blocker');
  return { stalled, findings: stalled ? findings : [...findings, progressNote(ctx)] };
}

/** The first finding of a stalled rollout, for status --watch and --wait. */
export function topFinding(ctx: DiagnoseContext) {
  const d = diagnose(ctx);
  return d.stalled ? d.findings[0] : undefined;
}

export { CATALOGUE };

/** A rollout and what why-stalled found in it. */
export interface WhyStalledResult {
  model: RolloutModel;
  diagnosis: Diagnosis;
}
