// `kubectl haptic doctor`: the drain-safety checks of every Deployment to check and of the HAProxy tier in front of
// it, each finding located on the object it is about, suppressions applied, and what could not be checked said.
import type { DoctorInputs, SourceRef, UnreadList } from '../../types/doctor.ts';
import type { HAProxyTemplateConfig } from '../../types/haptic.ts';
import type { KubeObject } from '../../types/kube.ts';
import { buildHaptic } from '../../model/haptic/haptic.ts';
import { workloadFacts, type WorkloadFacts, type DoctorEnv, type TemplateFacts } from './context.ts';
import { dnsRules } from './dns.ts';
import { disruptionRules } from './disruption.ts';
import { endpointRules } from './endpoints.ts';
import { healthCheckRules } from './health-checks.ts';
import { refKey, refName, refOf, type Located, type ObjectRef } from './located.ts';
import { restartRules } from './probe-restarts.ts';
import { probeRules } from './probes.ts';
import { rolloutRules } from './rollout.ts';
import { shutdownRules } from './shutdown.ts';
import { applySuppression, type DoctorFinding } from './suppress.ts';
import { plainHAProxyInFront, tierTemplates, tiersInFront } from './tier.ts';
import { compareText } from '../../lib/order.ts';
import type { CatalogueEntry } from '../../types/finding.ts';
import { DOCTOR_CATALOGUE } from './catalogue.ts';

export { IGNORE_ANNOTATION, type DoctorFinding } from './suppress.ts';

export interface DoctorSubject {
  ref: ObjectRef;
  /** what the subject is to the Deployments asked about, when it is not one of them */
  role?: string | undefined;
  source?: SourceRef | undefined;
  findings: DoctorFinding[];
}

export interface DoctorReport {
  mode: 'static' | 'live';
  subjects: DoctorSubject[];
  /** checks not run, and why (static mode: they need a cluster) */
  notRun: { id: string; reason: string }[];
  notes: string[];
  /** documents of the input that could not be read: the check is incomplete */
  unreadable: string[];
}

/** Why a check cannot run on these inputs (what its catalogue entry `needs` and they lack), or undefined. */
function missing(id: string, mode: 'static' | 'live', helmHistory: boolean): string | undefined {
  const needs = (DOCTOR_CATALOGUE as Record<string, CatalogueEntry>)[id]?.needs;
  if (!needs) return undefined;
  if (mode === 'static') return needs === 'cluster' ? 'needs a cluster' : 'needs a cluster and --helm-history';
  return needs === 'helm-history' && !helmHistory ? 'needs --helm-history' : undefined;
}

/** The checks these inputs cannot run. The report says so once instead of guessing (docs/checks.md). */
export function checksNotRun(mode: 'static' | 'live', helmHistory: boolean): DoctorReport['notRun'] {
  return Object.keys(DOCTOR_CATALOGUE).flatMap((id) => {
    const reason = missing(id, mode, helmHistory);
    return reason ? [{ id, reason }] : [];
  });
}

const RANK = { blocker: 0, error: 1, warning: 2, info: 3, ok: 4 } as const;
const ordered = (fs: DoctorFinding[]) =>
  [...fs].sort((a, b) => RANK[a.severity] - RANK[b.severity] || compareText(a.id, b.id));

type Rule<T> = (facts: T, env: DoctorEnv) => Located[];

/**
 * Runs rules, turning a rule's failure on a malformed object into a note instead of a crash; a finding of a check
 * these inputs cannot run (its catalogue entry `needs` what they lack) is not one.
 */
function run<T extends { ref: ObjectRef }>(facts: T, env: DoctorEnv, rules: Rule<T>[]): Located[] {
  return rules.flatMap((rule) => {
    try {
      return rule(facts, env).filter((f) => !missing(f.id, env.inputs.mode, !!env.inputs.helm));
    } catch (err) {
      env.notes.push(
        `${refName(facts.ref)} -n ${facts.ref.namespace}: a check failed on this object (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); its other checks ran`,
      );
      return [];
    }
  });
}

const TEMPLATE_RULES: Rule<TemplateFacts>[] = [shutdownRules, dnsRules];
const WORKLOAD_RULES: Rule<WorkloadFacts>[] = [
  probeRules,
  restartRules,
  shutdownRules,
  healthCheckRules,
  dnsRules,
  disruptionRules,
  endpointRules,
  rolloutRules,
];

/** The file and line of a finding: its object's, or the line inside a ConfigMap key's text it is about. */
function placedAt(f: Located, source: SourceRef | undefined): SourceRef | undefined {
  if (!source) return undefined;
  const start = f.at ? source.dataLines?.[f.at.key] : undefined;
  return {
    file: source.file,
    line: start !== undefined && f.at ? start + f.at.line - 1 : source.line,
    ...(source.item === undefined ? {} : { item: source.item }),
  };
}

function subject(ref: ObjectRef, owner: KubeObject, findings: Located[], env: DoctorEnv, role?: string): DoctorSubject {
  const placed = findings.map((f) => ({ ...f, source: placedAt(f, env.inputs.sources[refKey(f.object)]) }));
  const template = (owner as { spec?: { template?: { metadata?: { annotations?: Record<string, string> } } } }).spec
    ?.template?.metadata?.annotations;
  return {
    ref,
    role,
    source: env.inputs.sources[refKey(ref)],
    findings: ordered(applySuppression(ref, owner.metadata.annotations, placed, env.notes, template)),
  };
}

function hapticTiers(targets: WorkloadFacts[], env: DoctorEnv): DoctorSubject[] {
  const haptic = env.inputs.haptic;
  if (env.inputs.mode !== 'live' || !haptic) return [];
  const model = buildHaptic(haptic, env.now);
  const installations = haptic.templateConfigs.items.map((htc: HAProxyTemplateConfig) => {
    const inst = model.installations.find(
      (i) => i.namespace === htc.metadata.namespace && i.templateConfig === htc.metadata.name,
    );
    return { htc, pods: new Set((inst?.config?.servers ?? []).map((s) => s.pod)) };
  });
  const fronting = new Map<HAProxyTemplateConfig, string[]>();
  for (const t of targets)
    for (const htc of tiersInFront(t, env, installations)) fronting.set(htc, [...(fronting.get(htc) ?? []), t.name]);
  return [...fronting.entries()].map(([htc, names]) => {
    const ref = refOf('HAProxyTemplateConfig', htc);
    const findings = tierTemplates(htc, env).flatMap((t) => run(t, env, TEMPLATE_RULES));
    return subject(ref, htc, findings, env, `HAPTIC's HAProxy tier in front of ${names.join(', ')}`);
  });
}

/** What is not checked when an optional list could not be read. */
const UNREAD_EFFECT: Record<UnreadList, string> = {
  pdbs: 'DR401–DR403 not run',
  hpas: 'DR605 not run, and replica counts come from spec.replicas',
  events: 'DR102 not run',
  configMaps: 'the haproxy.cfg checks of plain HAProxy Deployments (DR205, DR206, DR301–DR303) not run',
  statefulSets: 'DR206 does not see StatefulSets behind HAProxy',
};

export function runDoctor(inputs: DoctorInputs, now: number): DoctorReport {
  const all = [...inputs.deployments, ...inputs.statefulSets, ...inputs.services, ...inputs.targets];
  const unread = Object.entries(inputs.unread ?? {}).map(
    ([list, why]) => `${why}: ${UNREAD_EFFECT[list as UnreadList]}`,
  );
  const env: DoctorEnv = {
    inputs,
    now,
    namespaces: new Set(all.map((o) => o.metadata.namespace ?? '').filter(Boolean)),
    notes: [...inputs.notes, ...unread],
  };
  const targets = inputs.targets.map((d) => workloadFacts(d, env));
  const subjects = targets.map((t) => subject(t.ref, t.workload, run(t, env, WORKLOAD_RULES), env));
  for (const { facts, fronts } of plainHAProxyInFront(targets, env)) {
    subjects.push(
      subject(
        facts.ref,
        facts.workload,
        run(facts, env, [shutdownRules, healthCheckRules, dnsRules]),
        env,
        `HAProxy in front of ${fronts.join(', ')}`,
      ),
    );
  }
  subjects.push(...hapticTiers(targets, env));
  return {
    mode: inputs.mode,
    subjects,
    notRun: checksNotRun(inputs.mode, !!inputs.helm),
    notes: [...new Set(env.notes)],
    unreadable: inputs.unreadable ?? [],
  };
}
