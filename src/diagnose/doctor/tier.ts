// The HAProxy tier in front of a Deployment, live: HAPTIC's HAProxy pods (their pod spec, one per pod template)
// and the configuration they run (the live HAProxyCfg's content, zstd included). A plain HAProxy Deployment in
// front of it is found through the Services its haproxy.cfg names.
import type { HAProxyTemplateConfig } from '../../types/haptic.ts';
import type { Deployment, Pod } from '../../types/kube.ts';
import { liveHAProxyCfgName } from '../../haptic/names.ts';
import { configText } from '../../model/haptic/haptic-config.ts';
import { parseHAProxyConfig } from '../../model/doctor/haproxy-cfg.ts';
import { haproxyFacts } from '../../model/doctor/haproxy-servers.ts';
import { containerViews, gracePeriod, runsHAProxy } from '../../model/doctor/pod-template.ts';
import { selectorMatches } from '../../model/selectors.ts';
import {
  workloadFacts,
  type WorkloadFacts,
  type DoctorEnv,
  type HAProxyConfigView,
  type TemplateFacts,
} from './context.ts';
import { backendsOf } from './health-checks.ts';
import type { ObjectRef } from './located.ts';

const HASH = 'pod-template-hash';

/** The Deployment a pod's ReplicaSet belongs to (its name without the template hash), else the pod itself. */
function ownerRef(pod: Pod): ObjectRef {
  const namespace = pod.metadata.namespace ?? '';
  const hash = pod.metadata.labels?.[HASH];
  const rs = pod.metadata.ownerReferences?.find((o) => o.kind === 'ReplicaSet')?.name;
  if (rs && hash && rs.endsWith(`-${hash}`))
    return { kind: 'Deployment', namespace, name: rs.slice(0, -hash.length - 1) };
  return { kind: 'Pod', namespace, name: pod.metadata.name };
}

function liveConfig(htc: HAProxyTemplateConfig, env: DoctorEnv): HAProxyConfigView | undefined {
  const namespace = htc.metadata.namespace ?? '';
  const name = liveHAProxyCfgName(htc.metadata.name);
  const cfg = env.inputs.haptic?.haproxyCfgs.items.find(
    (c) => c.metadata.namespace === namespace && c.metadata.name === name,
  );
  if (!cfg) {
    env.notes.push(
      `HAPTIC ${namespace}/${htc.metadata.name}: no HAProxyCfg ${name} to read; DR205 and DR301–DR303 not run on its configuration`,
    );
    return undefined;
  }
  try {
    return {
      label: `haproxycfg/${name}`,
      ref: { kind: 'HAProxyCfg', namespace, name },
      facts: haproxyFacts(parseHAProxyConfig(configText(cfg))),
      how: `spec.content of ${namespace}/${name}${cfg.spec?.compressed ? ' (zstd)' : ''}`,
    };
  } catch (err) {
    env.notes.push(
      `HAPTIC ${namespace}/${htc.metadata.name}: the content of HAProxyCfg ${name} cannot be read (${err instanceof Error ? err.message.split('\n')[0] : 'unknown error'}); DR205 and DR301–DR303 not run`,
    );
    return undefined;
  }
}

/** One TemplateFacts per pod template of the installation's HAProxy pods. */
export function tierTemplates(htc: HAProxyTemplateConfig, env: DoctorEnv): TemplateFacts[] {
  const namespace = htc.metadata.namespace ?? '';
  const pods = (env.inputs.haptic?.pods.items ?? []).filter(
    (p) =>
      p.metadata.namespace === namespace &&
      !p.metadata.deletionTimestamp &&
      selectorMatches(htc.spec?.podSelector, p.metadata.labels),
  );
  const config = liveConfig(htc, env);
  const byTemplate = new Map<string, Pod>();
  for (const p of pods)
    if (!byTemplate.has(p.metadata.labels?.[HASH] ?? p.metadata.name))
      byTemplate.set(p.metadata.labels?.[HASH] ?? p.metadata.name, p);
  return [...byTemplate.values()].map((pod) => {
    const labels = Object.fromEntries(Object.entries(pod.metadata.labels ?? {}).filter(([k]) => k !== HASH));
    return {
      ref: ownerRef(pod),
      namespace,
      spec: pod.spec,
      labels,
      containers: containerViews(pod.spec, labels, []),
      grace: gracePeriod(pod.spec),
      config,
      haptic: true,
    };
  });
}

/** HAPTIC installations in front of a Deployment: every one for a gated Deployment, else those routing its pods. */
export function tiersInFront(
  d: WorkloadFacts,
  env: DoctorEnv,
  installations: { htc: HAProxyTemplateConfig; pods: Set<string> }[],
): HAProxyTemplateConfig[] {
  if (d.gated) return installations.map((i) => i.htc);
  const mine = env.inputs.pods
    .filter((p) => p.metadata.namespace === d.namespace && selectorMatches(d.workload.spec.selector, p.metadata.labels))
    .map((p) => p.metadata.name);
  return installations.filter((i) => mine.some((p) => i.pods.has(p))).map((i) => i.htc);
}

/** Plain HAProxy Deployments (not themselves checked) whose haproxy.cfg routes to one of the targets. */
export function plainHAProxyInFront(
  targets: WorkloadFacts[],
  env: DoctorEnv,
): { facts: WorkloadFacts; fronts: string[] }[] {
  const checked = new Set(targets.map((t) => `${t.namespace}/${t.name}`));
  const candidates = env.inputs.deployments.filter(
    (d: Deployment) => !checked.has(`${d.metadata.namespace ?? ''}/${d.metadata.name}`),
  );
  const found: { facts: WorkloadFacts; fronts: string[] }[] = [];
  for (const d of candidates) {
    if (!(d.spec.template.spec.containers ?? []).some(runsHAProxy)) continue;
    const workload = { ...d, kind: 'Deployment' as const };
    const facts = workloadFacts(workload, { ...env, notes: [] });
    const hosts = (facts.config?.facts.servers ?? []).flatMap((s) => (s.host ? [s.host] : []));
    const fronts = targets.filter((t) =>
      hosts.some((h) =>
        backendsOf(h, facts.namespace, env).some(
          (b) => b.ref.kind === 'Deployment' && b.ref.name === t.name && b.ref.namespace === t.namespace,
        ),
      ),
    );
    if (fronts.length) found.push({ facts: workloadFacts(workload, env), fronts: fronts.map((t) => t.name) });
  }
  return found;
}
