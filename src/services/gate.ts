import fastJsonPatch, { type Operation } from 'fast-json-patch';
import { loadHaptic } from '../kube/haptic-snapshot.ts';
import type { KubeClient } from '../kube/client.ts';
import { R, resourcePath, workloadResource } from '../kube/resources.ts';
import { fetchQuery } from '../kube/snapshot.ts';
import type { Pod, RolloutTarget, Service } from '../types/kube.ts';
import { unionSelector } from '../kube/selector-query.ts';
import { trimPod } from '../kube/trim.ts';
import { preflight } from '../diagnose/preflight.ts';
import type { Finding } from '../types/finding.ts';
import { buildHaptic } from '../model/haptic/haptic.ts';
import { planGate, type DryRun, type GateAction, type GateRecord, type GateResult } from '../model/gate-plan.ts';
import { resolveTargets, type TargetSelection } from './targets.ts';
import { isApiError, mayHaveTakenEffect } from '../kube/errors.ts';
import { oneLine } from '../lib/errors.ts';
import { kindOf, observedGenerationOf } from '../model/rollout/kinds/index.ts';

export interface GateOptions extends TargetSelection {
  action: GateAction;
  conditionType: string;
  dryRun: DryRun;
  force: boolean;
}

/** enable-gate / disable-gate: resolve every target first, then plan, check and patch each on its own. */
export async function applyGate(client: KubeClient, options: GateOptions): Promise<GateRecord[]> {
  const targets = await resolveTargets(client, options);
  const changing = targets.filter((d) => planGate(d, 'enable', options.conditionType).changed);
  const needsPreflight = options.action === 'enable' && changing.length > 0;
  const [services, haptic, pods] = needsPreflight
    ? await Promise.all([
        fetchQuery<Service>(client, { resource: R.services, namespace: options.namespace }),
        loadHaptic(client),
        // the workloads' pods, for the live config's servers: without them (not allowed), the routes alone decide
        fetchQuery<Pod>(client, {
          resource: R.pods,
          namespace: options.namespace,
          labelSelector: unionSelector(changing.map((d) => d.spec.selector)),
          trim: trimPod,
        }).catch((err: unknown) => {
          if (isApiError(err, 'Forbidden')) return undefined;
          throw err;
        }),
      ])
    : [[], undefined, undefined];
  const hapticModel = haptic && buildHaptic(haptic, Date.now());
  const records: GateRecord[] = [];
  for (const workload of targets) {
    const findings =
      haptic && hapticModel
        ? preflight({
            workload,
            services,
            haptic: hapticModel,
            routes: haptic,
            pods,
            conditionType: options.conditionType,
          })
        : [];
    records.push(await gateWhereTemplateIs(client, workload, findings, options));
  }
  return records;
}

/**
 * The gate goes where the pod template is: a workload's own, or the Deployment an Argo Rollout's spec.workloadRef
 * names (Argo rolls when that template changes, rollout/templateref.go). The record names the workload, and where the
 * template is.
 */
async function gateWhereTemplateIs(
  client: KubeClient,
  workload: RolloutTarget,
  findings: Finding[],
  options: GateOptions,
): Promise<GateRecord> {
  const ref = kindOf(workload.kind).templateRef?.(workload);
  if (!ref) return gateOne(client, workload, findings, options);
  const holder = await readBack(client, ref.kind, workload.metadata.namespace, ref.name);
  if (!holder)
    return {
      ...planRecord(workload, findings, options),
      result: 'failed',
      error: `spec.workloadRef names deployment/${ref.name}, which is gone`,
    };
  const record = await gateOne(client, holder, findings, options);
  return {
    ...record,
    workloadKind: workload.kind,
    name: workload.metadata.name,
    templateFrom: `${kindOf(ref.kind).word}/${ref.name}`,
    // the Deployment's revision is not the Rollout's, which Argo sets when it sees the change
    revision: record.result === 'unchanged' ? kindOf(workload.kind).revision(workload) : undefined,
  };
}

/**
 * What the command would do to one workload, decided without a request: unchanged, refused by a blocker, or the
 * patch and the pod template before and after (with --dry-run=client, that is the whole answer).
 */
export function planRecord(
  deployment: RolloutTarget,
  findings: Finding[],
  options: Pick<GateOptions, 'namespace' | 'action' | 'conditionType' | 'dryRun' | 'force'>,
): GateRecord {
  const plan = planGate(deployment, options.action, options.conditionType);
  const record: GateRecord = {
    workloadKind: deployment.kind,
    name: deployment.metadata.name,
    namespace: deployment.metadata.namespace ?? options.namespace ?? '',
    action: options.action,
    result: 'unchanged',
    dryRun: options.dryRun,
    conditionType: options.conditionType,
    revision: kindOf(deployment.kind).revision(deployment),
    gatesBefore: plan.gatesBefore,
    gatesAfter: plan.gatesAfter,
    patch: plan.patch,
    findings: plan.changed ? findings : [],
  };
  if (!plan.changed) return record;
  record.templateBefore = deployment.spec.template;
  record.templateAfter = {
    ...deployment.spec.template,
    spec: {
      ...deployment.spec.template.spec,
      readinessGates: plan.gatesAfter.map((conditionType) => ({ conditionType })),
    },
  };
  if (!plan.gatesAfter.length) delete record.templateAfter.spec.readinessGates;
  const blockers = findings.filter((f) => f.severity === 'blocker');
  if (blockers.length && !options.force) return { ...record, result: 'refused' };
  return options.dryRun === 'client' ? { ...record, result: resultOf(options.action) } : record;
}

const resultOf = (action: GateAction): GateResult => (action === 'enable' ? 'added' : 'removed');

/** A workload read back, tagged with the kind it was read as. */
async function readBack(client: KubeClient, kind: RolloutTarget['kind'], namespace: string | undefined, name: string) {
  const [found] = await fetchQuery(client, { resource: workloadResource(kind), namespace, name });
  return found && ({ ...found, kind } as RolloutTarget);
}

async function gateOne(
  client: KubeClient,
  deployment: RolloutTarget,
  findings: Finding[],
  options: GateOptions,
): Promise<GateRecord> {
  const record = planRecord(deployment, findings, options);
  if (record.result !== 'unchanged' || record.patch.length === 0) return record;
  let patched: Awaited<ReturnType<typeof patchWithRetry>>;
  try {
    patched = await patchWithRetry(client, deployment, options);
  } catch (err) {
    if (!mayHaveTakenEffect(err)) return { ...record, result: 'failed', error: oneLine(err), cause: err };
    // the API server may have applied the PATCH before the answer went wrong: read back what it holds
    const { name } = deployment.metadata;
    const check = `check with kubectl get ${deployment.kind.toLowerCase()} ${name} -n ${record.namespace} -o yaml`;
    let fresh: RolloutTarget | undefined;
    try {
      fresh = await readBack(client, deployment.kind, record.namespace, name);
    } catch {
      fresh = undefined;
    }
    if (!fresh || planGate(fresh, options.action, options.conditionType).changed) {
      // a timed-out PATCH may still be applied after the read: only an answered one is known not to be
      const known = fresh && !isApiError(err, 'Timeout');
      return {
        ...record,
        result: 'failed',
        error: `${oneLine(err)}; ${known ? `read back, the ${deployment.kind} does not have the change` : `the patch may or may not have been applied: ${check}`}`,
        cause: err,
      };
    }
    record.result = resultOf(options.action);
    record.warnings = [
      `the API server answered the PATCH with: ${oneLine(err)}; read back, the ${deployment.kind} has the change`,
    ];
    return record;
  }
  record.patch = patched.patch;
  if (patched.appliedBefore) {
    // the PATCH was retried (429/5xx with Retry-After, or a guard that failed): the first attempt had been applied
    record.result = resultOf(options.action);
    record.warnings = [
      `the API server answered the PATCH with: ${oneLine(patched.appliedBefore)}; read back, the ${deployment.kind} has the change (this command's first attempt, or someone else's edit)`,
    ];
    return record;
  }
  if (!patched.changed) return record;
  // written: whatever happens next, the record says so
  record.result = resultOf(options.action);
  if (options.dryRun !== 'none') return record;
  try {
    record.revision = await observedRevision(client, patched.deployment);
  } catch (err) {
    record.revision = undefined;
    record.warnings = [
      `the gate was written, but reading the ${deployment.kind} back for its new revision failed: ${oneLine(err)}`,
    ];
  }
  return record;
}

/**
 * Sends the guarded patch. The API server answers a failed `test` operation with a bare 422 ("the server rejected
 * our request…"), so after a 409 or 422 the workload is re-read: if the tested fields changed, it was a concurrent
 * edit and the patch is re-planned and sent once more; otherwise the 422 was a real validation error and is reported.
 */
async function patchWithRetry(
  client: KubeClient,
  deployment: RolloutTarget,
  options: GateOptions,
): Promise<{ deployment: RolloutTarget; patch: Operation[]; changed: boolean; appliedBefore?: unknown }> {
  let current = deployment;
  let failed: unknown;
  for (let attempt = 0; ; attempt++) {
    const plan = planGate(current, options.action, options.conditionType);
    // nothing left to do after a failed attempt: the change is there (that attempt's, or a concurrent edit's)
    if (!plan.changed)
      return { deployment: current, patch: [], changed: false, ...(failed ? { appliedBefore: failed } : {}) };
    const { name, namespace } = current.metadata;
    const resource = workloadResource(deployment.kind);
    const target = { verb: 'patch', resource: resource.display, namespace, name };
    try {
      const answer = await client.request<RolloutTarget>('PATCH', resourcePath(resource, { namespace, name }), target, {
        body: plan.patch,
        contentType: 'application/json-patch+json',
        expect: 'object',
        query: { dryRun: options.dryRun === 'server' ? 'All' : undefined, fieldManager: 'kubectl-haptic' },
      });
      return { deployment: { ...answer, kind: deployment.kind } as RolloutTarget, patch: plan.patch, changed: true };
    } catch (err) {
      if (!isApiError(err, 'Conflict') && !isApiError(err, 'Invalid')) throw err;
      const fresh = await readBack(client, deployment.kind, namespace, name);
      if (!fresh) throw new Error(`${resource.display} "${name}" was deleted while this command ran`);
      if (!guardsFail(plan.patch, fresh)) throw err;
      failed = err;
      if (attempt >= 1)
        throw new Error(
          `conflict: ${resource.display} "${name}" changed again while retrying; nothing was written, run the command again`,
          { cause: err },
        );
      current = fresh;
    }
  }
}

/** Whether the patch's `test` operations fail against this object (what a concurrent edit does). */
function guardsFail(patch: Operation[], object: RolloutTarget): boolean {
  try {
    fastJsonPatch.applyPatch(
      structuredClone(object),
      patch.filter((op) => op.op === 'test'),
      true,
    );
    return false;
  } catch {
    return true;
  }
}

/** The controller stamps the new revision once it observes the new generation; wait a little for it. */
async function observedRevision(
  client: KubeClient,
  written: RolloutTarget,
  timeoutMs = 5000,
): Promise<string | undefined> {
  const { name, namespace, generation = 0 } = written.metadata;
  const deadline = Date.now() + timeoutMs;
  let latest = written;
  while (observedGenerationOf(latest) < generation && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 200));
    latest = (await readBack(client, written.kind, namespace, name)) ?? latest;
  }
  return kindOf(latest.kind).revision(latest);
}
