// DR401–DR404: PodDisruptionBudgets, matched to the pod template with full label-selector semantics (matchLabels
// and matchExpressions; policy/v1: an empty selector selects every pod of the namespace, a missing one none).
// The disruption controller's arithmetic: minAvailable and maxUnavailable percentages round up against the pods
// it expects (here the replica count: spec.replicas, 1 when unset, or the autoscaler's minimum).
import type { PodDisruptionBudget } from '../../types/kube.ts';
import { helmReleaseOf, helmRevision, type HelmRevision } from '../../model/doctor/helm-release.ts';
import { formatSelector, selectorMatches } from '../../model/selectors.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';
import { inNamespace, type WorkloadFacts, type DoctorEnv } from './context.ts';
import { locate, refOf, type Located } from './located.ts';

/** The PodDisruptionBudgets of the namespace whose selector selects the pod template's labels. */
export function budgetsFor(d: WorkloadFacts, env: DoctorEnv): PodDisruptionBudget[] {
  return inNamespace(env.inputs.pdbs, d.namespace).filter(
    (p) => p.spec?.selector != null && selectorMatches(p.spec.selector, d.labels),
  );
}

function scaled(value: number | string, pods: number): number | undefined {
  if (typeof value === 'number') return value;
  const percent = /^(\d+)%$/.exec(value);
  if (percent) return Math.ceil((Number(percent[1]) * pods) / 100);
  return /^\d+$/.test(value) ? Number(value) : undefined;
}

/** Why a budget allows no eviction with this many pods, or undefined when it allows one. */
export function blocksEveryEviction(pdb: PodDisruptionBudget, pods: number): string | undefined {
  const spec = pdb.spec ?? {};
  if (pods === 0) return undefined;
  if (spec.maxUnavailable !== undefined) {
    const max = scaled(spec.maxUnavailable, pods);
    return max === 0 ? `maxUnavailable: ${spec.maxUnavailable}` : undefined;
  }
  if (spec.minAvailable !== undefined) {
    const min = scaled(spec.minAvailable, pods);
    return min !== undefined && min >= pods
      ? `minAvailable: ${spec.minAvailable} with ${pods} ${pods === 1 ? 'replica' : 'replicas'}`
      : undefined;
  }
  return undefined;
}

const describe = (p: PodDisruptionBudget) => {
  const s = p.spec ?? {};
  const rule =
    s.maxUnavailable !== undefined
      ? `maxUnavailable ${s.maxUnavailable}`
      : s.minAvailable !== undefined
        ? `minAvailable ${s.minAvailable}`
        : 'no minAvailable or maxUnavailable';
  return `poddisruptionbudget/${p.metadata.name}: selector ${formatSelector(p.spec?.selector ?? undefined)}, ${rule}`;
};

function liveStatus(p: PodDisruptionBudget): string[] {
  const s = p.status;
  if (!s) return [];
  return [
    `poddisruptionbudget/${p.metadata.name} status: disruptionsAllowed ${s.disruptionsAllowed ?? '?'}, currentHealthy ${s.currentHealthy ?? '?'}, desiredHealthy ${s.desiredHealthy ?? '?'}, expectedPods ${s.expectedPods ?? '?'}`,
  ];
}

/** DR404: budgets an earlier revision of the Deployment's Helm release had for these pods, gone from the latest. */
function helmHistory(d: WorkloadFacts, env: DoctorEnv): Located[] {
  const release = helmReleaseOf(d.workload.metadata.annotations);
  if (!release || !env.inputs.helm) return [];
  const namespace = release.namespace ?? d.namespace;
  const input = env.inputs.helm.find((h) => h.release === release.name && h.namespace === namespace);
  if (!input) return [];
  if (input.secrets.error) {
    env.notes.push(
      `DR404 not run for deployment ${d.namespace}/${d.name}: cannot list the Secrets of Helm release ${namespace}/${release.name} (${input.secrets.error.message})`,
    );
    return [];
  }
  const revisions: HelmRevision[] = [];
  for (const secret of input.secrets.items) {
    const r = helmRevision(secret);
    if ('error' in r)
      env.notes.push(`Helm release ${namespace}/${release.name}: secret ${r.secret}: ${r.error}; skipped`);
    else revisions.push(r);
  }
  revisions.sort((a, b) => a.version - b.version);
  const deployed = revisions.filter((r) => r.status === 'deployed').at(-1) ?? revisions.at(-1);
  if (!deployed) return [];
  const mine = (r: HelmRevision) =>
    r.pdbs.filter((p) => p.selector && selectorMatches(p.selector, d.labels)).map((p) => p.name);
  const now = new Set(deployed.pdbs.map((p) => p.name));
  const gone = new Map<string, HelmRevision>();
  for (const r of revisions.filter((x) => x.version < deployed.version))
    for (const name of mine(r)) if (!now.has(name)) gone.set(name, r);
  const findings = [...gone.entries()].map(([pdb, had]) =>
    finding(
      'DR404',
      {
        release: `${namespace}/${release.name}`,
        had: had.version,
        pdb,
        latest: deployed.version,
        name: d.name,
        workload: d.label,
      },
      [
        `secret ${had.secret} (revision ${had.version}, ${had.status}): PodDisruptionBudget ${pdb}`,
        `secret ${deployed.secret} (revision ${deployed.version}, ${deployed.status}): no PodDisruptionBudget ${pdb}`,
      ],
    ),
  );
  return locate(d.ref, findings);
}

export function disruptionRules(d: WorkloadFacts, env: DoctorEnv): Located[] {
  // a drain leaves a DaemonSet's pods where they are (kubectl drain --ignore-daemonsets): no budget decides for them
  if (!d.replicas) return [];
  if (env.inputs.unread?.pdbs) return helmHistory(d, env);
  const budgets = budgetsFor(d, env);
  const n = d.replicas.count;
  const found: Located[] = [];
  if (budgets.length === 0 && n > 1) {
    const selector = formatSelector(d.workload.spec.selector);
    found.push(
      ...locate(d.ref, [
        finding('DR401', { name: d.name, workload: d.label, replicas: n, namespace: d.namespace, selector }, [
          `replicas: ${d.replicas.from}`,
          `pod template labels: ${formatSelector(d.labels)}`,
          `PodDisruptionBudgets in namespace ${d.namespace}: ${
            env.inputs.pdbs
              .filter((p) => (p.metadata.namespace ?? '') === d.namespace)
              .map((p) => p.metadata.name)
              .join(', ') || 'none'
          }`,
        ]),
      ]),
    );
  }
  if (budgets.length > 1) {
    const f: Finding = finding(
      'DR402',
      { count: budgets.length, name: d.name, workload: d.label, pdbs: budgets.map((b) => b.metadata.name).join(', ') },
      budgets.map(describe),
    );
    found.push(...locate(d.ref, [f]));
  }
  for (const pdb of budgets) {
    const why = blocksEveryEviction(pdb, n);
    if (why)
      found.push(
        ...locate(refOf('PodDisruptionBudget', pdb, d.namespace), [
          finding('DR403', { pdb: pdb.metadata.name, name: d.name, workload: d.label, why }, [
            describe(pdb),
            `replicas: ${d.replicas.from}`,
            ...liveStatus(pdb),
          ]),
        ]),
      );
  }
  found.push(...helmHistory(d, env));
  return found;
}
