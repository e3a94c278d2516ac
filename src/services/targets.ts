import type { KubeClient } from '../kube/client.ts';
import { isApiError } from '../kube/errors.ts';
import { oneLine, shownInput, UserError } from '../lib/errors.ts';
import { objectNameProblem, parseWorkloadName, R, workloadResource } from '../kube/resources.ts';
import { fetchAll, fetchQuery } from '../kube/snapshot.ts';
import type { Deployment, KubeObject, RolloutTarget, TargetName, WorkloadKind } from '../types/kube.ts';
import { compareText } from '../lib/order.ts';
import { kindOf, ROLLOUT_KINDS } from '../model/rollout/kinds/index.ts';

export interface TargetSelection {
  /** undefined: every namespace (-A) */
  namespace: string | undefined;
  names: TargetName[];
  selector?: string | undefined;
  all?: boolean | undefined;
  /** read-only commands, like kubectl get: no match is an empty answer, not an error */
  allowNone?: boolean | undefined;
  /**
   * Where a read-only command says that StatefulSets could not be read (forbidden) while Deployments could: it goes
   * on with the Deployments. Without it (nor ResolveOptions.notes), that refusal is the command's error.
   */
  onNote?: ((note: string) => void) | undefined;
}

/** `NAME, deployment/NAME, statefulset/NAME or daemonset/NAME`: the forms of a target, for messages. */
const FORMS = () => either(['NAME', ...ROLLOUT_KINDS.map((k) => `${kindOf(k).word}/NAME`)]);

/**
 * Checks the shape of NAME / KIND/NAME arguments before any request: the kinds followed, as kubectl spells them
 * (deployment/NAME, deploy/NAME, sts/NAME, ds/NAME…); a bare NAME is whichever kind has it.
 */
export function targetNames(args: string[]): TargetName[] {
  return args.map((arg) => {
    const { kind, name, prefix } = parseWorkloadName(arg);
    if (!name) throw new UserError(`invalid target "${shownInput(arg)}": use ${FORMS()}`);
    if (prefix !== undefined && !ROLLOUT_KINDS.includes(kind as RolloutTarget['kind']))
      throw new UserError(
        `${shownInput(prefix)} "${shownInput(name)}": only ${both(ROLLOUT_KINDS.map(plural))} are supported`,
      );
    const problem = objectNameProblem(name);
    if (problem) throw new UserError(`invalid ${kind ? `${kind} ` : ''}name "${shownInput(name)}": ${problem}`);
    return { kind: kind as TargetName['kind'], name };
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

const tagged =
  (kind: RolloutTarget['kind']) =>
  (o: KubeObject): RolloutTarget =>
    ({ ...o, kind }) as RolloutTarget;

/** `Deployments or StatefulSets`, `deployments.apps or statefulsets.apps`: kinds in a message, the last after "or". */
const either = (words: string[], last = 'or') =>
  words.length < 2 ? (words[0] ?? '') : `${words.slice(0, -1).join(', ')} ${last} ${words[words.length - 1]}`;
const both = (words: string[]) => either(words, 'and');
const plural = (kind: RolloutTarget['kind']) => `${kind}s`;
const PRIMARY = ROLLOUT_KINDS.find((k) => kindOf(k).bareName)!;

export interface ResolveOptions {
  /** applied to each object as it arrives (read-only commands drop what they never read) */
  trim?: ((o: KubeObject) => KubeObject) | undefined;
  /**
   * Where to say that StatefulSets could not be read (forbidden) while Deployments could: the command goes on with
   * the Deployments. Without it, that refusal is the command's error.
   */
  notes?: string[] | undefined;
}

/**
 * Resolves the workloads of every kind followed (Deployments, StatefulSets, DaemonSets) a command acts on, all before any
 * write: named ones must all exist (a bare NAME that two kinds have is ambiguous, as kubectl would need the kind
 * too), a selector or --all must match at least one. An unknown namespace is named as such. Sorted by namespace,
 * name, then kind.
 */
export async function resolveTargets(
  client: KubeClient,
  sel: TargetSelection,
  options: ResolveOptions = {},
): Promise<RolloutTarget[]> {
  if (sel.names.length && (sel.selector || sel.all)) throw new UserError('name workloads or use -l/--all, not both');
  if (!sel.names.length && !sel.selector && !sel.all)
    throw new UserError(`no workloads given: name them (${FORMS()}), or use -l SELECTOR or --all`);
  const { namespace } = sel;
  const { trim } = options;
  const notes = options.notes ?? (sel.onNote ? [] : undefined);
  if (namespace === undefined && sel.names.length)
    throw new UserError('a workload cannot be named across all namespaces (-A); use -n NAMESPACE, or -l with -A');
  const where = namespace === undefined ? 'any namespace' : `namespace "${namespace}"`;
  // a bare NAME may still be a Deployment when another kind may not be read: the refusal is kept, and is the error
  // only if no Deployment has the name; over -l or the namespace it is a note when the caller takes notes
  let refused: unknown;
  /** the kinds that could not be read, and why: noted once every read is done, with the kinds that were */
  const unread = new Map<RolloutTarget['kind'], unknown>();
  /** optional kinds not served or not readable: none of theirs, and not among the kinds said to be checked */
  const unlisted = new Set<RolloutTarget['kind']>();
  const read = async (
    kind: RolloutTarget['kind'],
    query: { name?: string; labelSelector?: string | undefined },
    bare: boolean,
  ): Promise<RolloutTarget[]> => {
    try {
      return (await fetchQuery(client, { resource: workloadResource(kind), namespace, trim, ...query })).map(
        tagged(kind),
      );
    } catch (err) {
      // a custom resource the cluster does not serve (404), or that the user may not read, has no workloads to
      // speak of unless its kind was named
      if (bare && kindOf(kind).optional && (isApiError(err, 'NotFound') || isApiError(err, 'Forbidden'))) {
        unlisted.add(kind);
        return [];
      }
      if (kind === PRIMARY || !isApiError(err, 'Forbidden') || !bare || (!query.name && !notes)) throw err;
      refused = err;
      // a name that turns out another kind needs no warning about this one (a report still says what it could not
      // look at); a list left them out
      if (!query.name || options.notes) unread.set(kind, err);
      return [];
    }
  };
  const noteUnread = () => {
    const checked = ROLLOUT_KINDS.filter((k) => !unread.has(k) && !unlisted.has(k)).map(plural);
    // in the registry's order, not the order the refusals came back in
    for (const kind of ROLLOUT_KINDS.filter((k) => unread.has(k))) {
      const err = unread.get(kind);
      const note = `cannot read ${workloadResource(kind).plural}${namespace === undefined ? '' : ` in namespace ${namespace}`}: ${oneLine(err)}; only ${either(checked)} are checked`;
      if (notes && !notes.includes(note)) notes.push(note);
    }
  };
  let found: RolloutTarget[];
  if (sel.names.length) {
    const each = await Promise.all(
      sel.names.map(async ({ kind, name }) => {
        const items = (
          await Promise.all(
            ROLLOUT_KINDS.map((k) => (kind === undefined || kind === k ? read(k, { name }, kind === undefined) : [])),
          )
        ).flatMap((list) => list.slice(0, 1));
        if (items.length > 1)
          throw new UserError(
            `"${name}" is both ${items.map((i) => `a ${i.kind}`).join(' and ')} in namespace "${namespace}": name one, ${either(items.map((i) => `${kindOf(i.kind).word}/${name}`))}`,
          );
        return { kind, name, item: items[0] };
      }),
    );
    const missing = each.filter((f) => !f.item);
    if (missing.length && refused) throw refused;
    if (missing.length) {
      await assertNamespaceExists(client, namespace!);
      const kinds = new Set(missing.map((m) => m.kind));
      const what =
        kinds.size === 1 && !kinds.has(undefined)
          ? workloadResource([...kinds][0]!).display
          : either(ROLLOUT_KINDS.map((k) => workloadResource(k).display));
      throw new UserError(
        `${what} ${missing.map((m) => `"${m.name}"`).join(', ')} not found in namespace "${namespace}"`,
      );
    }
    found = each.map((f) => f.item!);
  } else {
    found = (await Promise.all(ROLLOUT_KINDS.map((k) => read(k, { labelSelector: sel.selector }, true)))).flat();
    if (namespace !== undefined && found.length === 0) await assertNamespaceExists(client, namespace);
    if (found.length === 0 && sel.allowNone) return [];
    const kinds = either(ROLLOUT_KINDS.map(plural));
    if (found.length === 0)
      throw new UserError(
        sel.selector ? `no ${kinds} in ${where} match -l ${sel.selector}` : `no ${kinds} in ${where}`,
      );
  }
  noteUnread();
  // a workload named is refused; one a list found is noted and left out
  const unfollowable = found.map((t) => kindOf(t.kind).unfollowable?.(t));
  if (sel.names.length && unfollowable.some(Boolean)) throw new UserError(unfollowable.find(Boolean)!);
  for (const why of unfollowable) if (why && notes && !notes.includes(why)) notes.push(why);
  found = await Promise.all(found.filter((_, i) => !unfollowable[i]).map((t) => withReferencedTemplate(client, t)));
  if (!options.notes) for (const note of notes ?? []) sel.onNote?.(note);
  const key = (t: RolloutTarget) => `${t.metadata.namespace}/${t.metadata.name}/${t.kind}`;
  return found.sort((a, b) => compareText(key(a), key(b)));
}

/**
 * A workload whose pod template another object holds (an Argo Rollout's spec.workloadRef), with that template in its
 * place, as its controller reads it: the model, the preflight and the views then see the pods' template.
 */
export async function withReferencedTemplate(client: KubeClient, t: RolloutTarget): Promise<RolloutTarget> {
  const ref = kindOf(t.kind).templateRef?.(t);
  if (!ref) return t;
  const namespace = t.metadata.namespace;
  const [holder] = await fetchQuery<Deployment>(client, { resource: R.deployments, namespace, name: ref.name });
  if (!holder)
    throw new UserError(
      `${targetRef(t)}: spec.workloadRef names deployment/${ref.name}, which is not in namespace "${namespace}"`,
    );
  return { ...t, spec: { ...t.spec, template: holder.spec.template } } as RolloutTarget;
}

/** How messages name a target: deployment/web, statefulset/db. */
export function targetRef(t: { kind: RolloutTarget['kind']; metadata: { name: string } }): string {
  return `${kindOf(t.kind).word}/${t.metadata.name}`;
}

async function assertNamespaceExists(client: KubeClient, namespace: string): Promise<void> {
  const { ns } = await fetchAll(client, { ns: { resource: R.namespaces, name: namespace, optional: true } });
  if (!ns.error && ns.items.length === 0) throw new UserError(`namespace "${namespace}" not found`);
  if (ns.error && !isApiError(ns.error, 'Forbidden')) throw ns.error;
}

/** kubectl's words for an empty answer, on stderr so that stdout stays parseable. */
export function noneFound(sel: TargetSelection, what = either(ROLLOUT_KINDS.map(plural))): string {
  const where = sel.namespace === undefined ? 'any namespace' : `namespace "${sel.namespace}"`;
  return `No ${what} found in ${where}${sel.selector ? ` matching -l ${sel.selector}` : ''}.`;
}
