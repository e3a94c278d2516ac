import fastJsonPatch, { type Operation } from 'fast-json-patch';
import type { Finding } from '../types/finding.ts';
import type { ObjectMeta, PodTemplate, RolloutTarget } from '../types/kube.ts';

export type GateAction = 'enable' | 'disable';

export interface GatePlan {
  changed: boolean;
  gatesBefore: string[];
  gatesAfter: string[];
  /** JSON patch (RFC 6902) with `test` operations first: a concurrent spec change makes the server refuse it */
  patch: Operation[];
}

/**
 * Adds or removes one readiness gate, keeping every other gate and field. The patch is the diff of plain JSON
 * computed by fast-json-patch, guarded by tests of metadata.generation (bumped by any spec change) and of the
 * current readinessGates value, so a concurrent edit fails instead of being overwritten.
 */
export function planGate(
  workload: { metadata: ObjectMeta; spec: { template: PodTemplate } },
  action: GateAction,
  conditionType: string,
): GatePlan {
  const before = structuredClone(workload);
  const after = structuredClone(workload);
  const gates = before.spec.template.spec.readinessGates;
  const gatesBefore = (gates ?? []).map((g) => g.conditionType);
  const has = gatesBefore.includes(conditionType);
  if (action === 'enable' && !has) {
    after.spec.template.spec.readinessGates = [...(gates ?? []), { conditionType }];
  } else if (action === 'disable' && has) {
    const kept = (gates ?? []).filter((g) => g.conditionType !== conditionType);
    if (kept.length) after.spec.template.spec.readinessGates = kept;
    else delete after.spec.template.spec.readinessGates;
  }
  const diff = fastJsonPatch.compare(before, after);
  const gatesAfter = (after.spec.template.spec.readinessGates ?? []).map((g) => g.conditionType);
  if (diff.length === 0) return { changed: false, gatesBefore, gatesAfter, patch: [] };
  const guards: Operation[] = [{ op: 'test', path: '/metadata/generation', value: workload.metadata.generation }];
  if (gates) guards.push({ op: 'test', path: '/spec/template/spec/readinessGates', value: gates });
  return { changed: true, gatesBefore, gatesAfter, patch: [...guards, ...diff] };
}

export type DryRun = 'none' | 'client' | 'server';
export type GateResult = 'added' | 'removed' | 'unchanged' | 'refused' | 'failed';

export interface GateRecord {
  workloadKind: RolloutTarget['kind'];
  name: string;
  namespace: string;
  action: GateAction;
  result: GateResult;
  dryRun: DryRun;
  conditionType: string;
  /** after the write: a Deployment's revision number, a StatefulSet's update revision (new when a rollout started) */
  revision?: string | undefined;
  gatesBefore: string[];
  gatesAfter: string[];
  /** where the pod template is when not in the workload (an Argo Rollout's spec.workloadRef): deployment/web */
  templateFrom?: string | undefined;
  patch: Operation[];
  findings: Finding[];
  templateBefore?: PodTemplate | undefined;
  templateAfter?: PodTemplate | undefined;
  error?: string | undefined;
  /** what went wrong after a write that succeeded (the write stands; the exit code does not change) */
  warnings?: string[] | undefined;
  /** what failed, for the exit code: the error itself (not printed in -o, see GateRecordOutput) */
  cause?: unknown;
}
