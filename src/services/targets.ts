import type { KubeClient } from '../kube/client.ts';
import { isApiError } from '../kube/errors.ts';
import { shownInput, UserError } from '../lib/errors.ts';
import { objectNameProblem, parseTargetName, parseWorkloadName, R } from '../kube/resources.ts';
import { fetchAll, fetchQuery } from '../kube/snapshot.ts';
import type { Deployment, KubeObject, WorkloadKind } from '../types/kube.ts';
import { compareText } from '../lib/order.ts';

export interface TargetSelection {
  /** undefined: every namespace (-A) */
  namespace: string | undefined;
  names: string[];
  selector?: string | undefined;
  all?: boolean | undefined;
  /** read-only commands, like kubectl get: no match is an empty answer, not an error */
  allowNone?: boolean | undefined;
}

/** Checks the shape of NAME / kind/NAME arguments before any request: only Deployments are supported. */
export function deploymentNames(args: string[]): string[] {
  return args.map((arg) => {
    const { kind, name } = parseTargetName(arg);
    if (!name) throw new UserError(`invalid target "${shownInput(arg)}": use NAME or deployment/NAME`);
    if (kind !== 'deployment')
      throw new UserError(
        `${shownInput(kind)} "${shownInput(name)}": only Deployments are supported yet (StatefulSets, DaemonSets and Pods are not)`,
      );
    const problem = objectNameProblem(name);
    if (problem) throw new UserError(`invalid Deployment name "${shownInput(name)}": ${problem}`);
    return name;
  });
}

/** A workload in manifests: NAME (of any workload kind) or KIND/NAME (deployment, sts, ds, rollout, …). */
export function workloadName(arg: string): { kind?: WorkloadKind | undefined; name: string } {
  const { kind, name, prefix } = parseWorkloadName(arg);
  if (prefix !== undefined && !kind)
    throw new UserError(
      `"${shownInput(prefix)}" is not a workload kind: use NAME, deployment/NAME, statefulset/NAME, daemonset/NAME or rollout/NAME`,
    );
  const problem = objectNameProblem(name);
  if (problem) throw new UserError(`invalid name "${shownInput(name)}": ${problem}`);
  return { kind, name };
}

/**
 * Resolves the Deployments a command acts on, all before any write: named ones must all exist, a selector or
 * --all must match at least one. An unknown namespace is named as such. `trim` is applied to each as it arrives
 * (read-only commands drop what they never read; the doctor and the gate commands keep whole objects).
 */
export async function resolveDeployments(
  client: KubeClient,
  sel: TargetSelection,
  trim?: (d: KubeObject) => KubeObject,
): Promise<Deployment[]> {
  if (sel.names.length && (sel.selector || sel.all)) throw new UserError('name Deployments or use -l/--all, not both');
  if (!sel.names.length && !sel.selector && !sel.all)
    throw new UserError('no Deployments given: name them (NAME or deployment/NAME), or use -l SELECTOR or --all');
  const { namespace } = sel;
  if (namespace === undefined && sel.names.length)
    throw new UserError('a Deployment cannot be named across all namespaces (-A); use -n NAMESPACE, or -l with -A');
  const found = sel.names.length
    ? await Promise.all(
        sel.names.map((name) =>
          fetchQuery<Deployment>(client, { resource: R.deployments, namespace, name, trim }).then((items) => ({
            name,
            item: items[0],
          })),
        ),
      )
    : (
        await fetchQuery<Deployment>(client, { resource: R.deployments, namespace, labelSelector: sel.selector, trim })
      ).map((item) => ({ name: item.metadata.name, item }));
  const missing = found.filter((f) => !f.item).map((f) => f.name);
  if (namespace !== undefined && (missing.length || found.length === 0)) await assertNamespaceExists(client, namespace);
  if (missing.length)
    throw new UserError(
      `deployments.apps ${missing.map((m) => `"${m}"`).join(', ')} not found in namespace "${namespace}"`,
    );
  const where = namespace === undefined ? 'any namespace' : `namespace "${namespace}"`;
  if (found.length === 0 && sel.allowNone) return [];
  if (found.length === 0)
    throw new UserError(
      sel.selector ? `no Deployments in ${where} match -l ${sel.selector}` : `no Deployments in ${where}`,
    );
  return found
    .map((f) => f.item as Deployment)
    .sort((a, b) =>
      compareText(`${a.metadata.namespace}/${a.metadata.name}`, `${b.metadata.namespace}/${b.metadata.name}`),
    );
}

async function assertNamespaceExists(client: KubeClient, namespace: string): Promise<void> {
  const { ns } = await fetchAll(client, { ns: { resource: R.namespaces, name: namespace, optional: true } });
  if (!ns.error && ns.items.length === 0) throw new UserError(`namespace "${namespace}" not found`);
  if (ns.error && !isApiError(ns.error, 'Forbidden')) throw ns.error;
}

/** kubectl's words for an empty answer, on stderr so that stdout stays parseable. */
export function noneFound(sel: TargetSelection, what = 'Deployments'): string {
  const where = sel.namespace === undefined ? 'any namespace' : `namespace "${sel.namespace}"`;
  return `No ${what} found in ${where}${sel.selector ? ` matching -l ${sel.selector}` : ''}.`;
}
