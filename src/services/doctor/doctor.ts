import type { KubeClient } from '../../kube/client.ts';
import { loadDoctor } from '../../kube/doctor-snapshot.ts';
import { shownInput, UserError } from '../../lib/errors.ts';
import { runDoctor, type DoctorReport } from '../../diagnose/doctor/index.ts';
import { helmReleaseOf } from '../../model/doctor/helm-release.ts';
import { manifestInputs } from '../../model/doctor/manifest-inputs.ts';
import { selectorMatches } from '../../model/selectors.ts';
import { masterSocketOf } from '../../model/haptic/sessions.ts';
import type { HapticInputs } from '../../types/snapshot.ts';
import type { LabelSelector, RolloutTarget, Workload, WorkloadKind } from '../../types/kube.ts';
import { ROLLOUT_KINDS } from '../../model/rollout/kinds/index.ts';
import { readManifestFiles } from './manifest-files.ts';
import { resolveTargets, type TargetSelection } from '../targets.ts';

export interface LiveDoctorOptions extends Omit<TargetSelection, 'names'> {
  /** the workloads named: NAME (of any kind followed) or KIND/NAME */
  names: { kind?: WorkloadKind | undefined; name: string }[];
  /** read the workloads' Helm release Secrets for DR404 */
  helmHistory: boolean;
  /** read each HAPTIC HAProxy pod's sessions once through pods/exec, for DR207 */
  sessions?: boolean | undefined;
}

/**
 * The workloads live mode checks: Deployments, StatefulSets and DaemonSets, as every command resolves them
 * (resolveTargets: a bare NAME is whichever kind has it, ambiguous when two do; -l and the whole namespace take every
 * kind). A user who may read Deployments but not another kind gets the Deployments checked, and is told.
 */
async function resolveWorkloads(
  client: KubeClient,
  options: LiveDoctorOptions,
): Promise<{ targets: Workload[]; notes: string[] }> {
  const names = options.names.map(({ kind, name }) => {
    // a kind read in manifests that no live command follows yet (the registry says which are)
    if (kind !== undefined && !ROLLOUT_KINDS.includes(kind as RolloutTarget['kind']))
      throw new UserError(
        `live mode checks ${ROLLOUT_KINDS.map((k) => `${k}s`)
          .join(', ')
          .replace(/, ([^,]*)$/, ' and $1')}; check ${kind}s in manifests with -f`,
      );
    return { kind: kind as RolloutTarget['kind'] | undefined, name };
  });
  const notes: string[] = [];
  const targets = await resolveTargets(client, { ...options, names, allowNone: !names.length }, { notes });
  return { targets: targets as unknown as Workload[], notes };
}

/** Live mode: the Deployments, StatefulSets and DaemonSets (named, -l, or all), what is around them in one parallel round, the checks. */
export async function doctorLive(
  client: KubeClient,
  options: LiveDoctorOptions,
  now = Date.now(),
): Promise<DoctorReport> {
  const { targets, notes } = await resolveWorkloads(client, options);
  const releases = options.helmHistory ? helmReleases(targets) : undefined;
  const inputs = await loadDoctor(client, { targets, helmReleases: releases });
  if (options.sessions) {
    inputs.sessions = await readHapticSessions(client, inputs.haptic);
    const s = inputs.sessions;
    const problems = s.unavailable ? [s.unavailable] : s.readings.flatMap((r) => (r.problem ? [r.problem] : []));
    notes.push(...problems.map((p) => `sessions: ${p}; DR207 not run on what could not be read`));
  }
  return runDoctor({ ...inputs, notes: [...inputs.notes, ...notes] }, now);
}

/** One read of every running HAProxy pod of every HAPTIC installation (the pods its template config selects). */
async function readHapticSessions(client: KubeClient, haptic: HapticInputs | undefined) {
  const { readSessionsOnce } = await import('../sessions.ts');
  const targets = (haptic?.templateConfigs.items ?? []).flatMap((htc) =>
    (haptic?.pods.items ?? [])
      .filter(
        (p) =>
          p.metadata.namespace === htc.metadata.namespace &&
          !p.metadata.deletionTimestamp &&
          p.status?.phase === 'Running' &&
          selectorMatches(htc.spec?.podSelector, p.metadata.labels),
      )
      .map((p) => ({ namespace: p.metadata.namespace ?? '', pod: p.metadata.name, socket: masterSocketOf(p) })),
  );
  return readSessionsOnce(client, targets);
}

function helmReleases(targets: Workload[]): { release: string; namespace: string }[] {
  const seen = new Map<string, { release: string; namespace: string }>();
  for (const d of targets) {
    const r = helmReleaseOf(d.metadata.annotations);
    if (r)
      seen.set(`${r.namespace ?? d.metadata.namespace}/${r.name}`, {
        release: r.name,
        namespace: r.namespace ?? d.metadata.namespace ?? '',
      });
  }
  return [...seen.values()];
}

export interface StaticDoctorOptions {
  paths: string[];
  /** the namespace of objects that name none */
  namespace: string;
  /** only this workload (of this kind, when given), or those matching -l */
  name?: { kind?: WorkloadKind | undefined; name: string } | undefined;
  selector?: string | undefined;
  stdin?: (() => Promise<string>) | undefined;
  /** folders: their sub-folders too (-R) */
  recursive?: boolean | undefined;
}

/** `key=value,key!=value,key` as a LabelSelector (the -l forms that make sense on manifests). */
export function parseLabelSelector(text: string): LabelSelector {
  const matchLabels: Record<string, string> = {};
  const matchExpressions: NonNullable<LabelSelector['matchExpressions']> = [];
  for (const part of text
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean)) {
    const m = /^([^!=\s]+)\s*(==|=|!=)\s*(\S*)$/.exec(part);
    if (m) {
      if (m[2] === '!=') matchExpressions.push({ key: m[1] as string, operator: 'NotIn', values: [m[3] as string] });
      else matchLabels[m[1] as string] = m[3] as string;
    } else if (/^![^!=\s]+$/.test(part)) matchExpressions.push({ key: part.slice(1), operator: 'DoesNotExist' });
    else if (/^[^!=\s()]+$/.test(part)) matchExpressions.push({ key: part, operator: 'Exists' });
    else throw new UserError(`-l ${text}: with -f, use key=value, key!=value, key or !key`);
  }
  return { matchLabels, matchExpressions };
}

/** Static mode: manifests only, no cluster; every Deployment in them is checked (or the one named, or -l's). */
export async function doctorStatic(options: StaticDoctorOptions, now = Date.now()): Promise<DoctorReport> {
  const files = await readManifestFiles(options.paths, { stdin: options.stdin, recursive: options.recursive });
  if (!files.some((f) => f.objects.length || f.unreadable.length))
    throw new UserError(
      `no Kubernetes objects in ${options.paths.map((p) => (p === '-' ? 'STDIN' : shownInput(p))).join(', ')}`,
    );
  const inputs = manifestInputs(files, options.namespace);
  let targets = inputs.targets;
  if (options.name) {
    const { kind, name } = options.name;
    targets = targets.filter((d) => d.metadata.name === name && (!kind || d.kind === kind));
    if (!targets.length)
      throw new UserError(`${kind?.toLowerCase() ?? 'workload'} "${name}" is not in the manifests given with -f`);
  }
  if (options.selector) {
    const selector = parseLabelSelector(options.selector);
    targets = targets.filter((d) => selectorMatches(selector, d.metadata.labels));
  }
  return runDoctor({ ...inputs, targets }, now);
}
