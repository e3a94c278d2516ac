import { CATALOGUE, severityOf, type FindingId } from './catalogue.ts';
import type { CatalogueEntry, Finding, FindingArgs } from '../types/finding.ts';
import { kindOf } from '../model/rollout/kinds/index.ts';
import type { RolloutTarget } from '../types/kube.ts';

/**
 * Builds a finding whose severity comes from the catalogue (by id, or by id and form where the catalogue says so),
 * so a rule cannot disagree with the registry.
 */
export function finding(
  id: FindingId,
  args: FindingArgs,
  evidence: string[],
  options: { variant?: string | undefined; pod?: string | undefined } = {},
): Finding {
  return {
    id,
    severity: severityOf(CATALOGUE[id] as CatalogueEntry, options.variant),
    args,
    ...(options.variant === undefined ? {} : { variant: options.variant }),
    evidence,
    ...(options.pod === undefined ? {} : { pod: options.pod }),
  };
}

/**
 * How findings name the workload of a rollout: `target`, the argument a kubectl haptic command takes (NAME for a
 * Deployment, as before StatefulSets were followed too; statefulset/NAME), and `workload`, in words (deployment web).
 */
export function workloadArgs(m: { workloadKind: RolloutTarget['kind']; name: string; namespace: string }): {
  name: string;
  namespace: string;
  target: string;
  workload: string;
  resource: string;
} {
  const { word: kind, bareName } = kindOf(m.workloadKind);
  return {
    name: m.name,
    namespace: m.namespace,
    target: bareName ? m.name : `${kind}/${m.name}`,
    workload: `${kind} ${m.name}`,
    resource: `${kind}/${m.name}`,
  };
}
