// What the doctor's rules read: the facts of each pod template to check (a workload's — Deployment, StatefulSet,
// DaemonSet or Argo Rollout —, or the pods of HAPTIC's HAProxy fleet), with the Services, PodDisruptionBudgets, autoscaler and HAProxy configuration around it, built
// once from DoctorInputs. Rules never look at raw inputs for what is decided here.
import type { DoctorInputs } from '../../types/doctor.ts';
import type {
  HorizontalPodAutoscaler,
  PodSpec,
  RolloutTarget,
  Service,
  Workload,
  WorkloadKind,
} from '../../types/kube.ts';
import { podLabelsOf } from '../../model/rollout/kinds/index.ts';
import { GATE_CONDITION } from '../../haptic/names.ts';
import { parseHAProxyConfig } from '../../model/doctor/haproxy-cfg.ts';
import { haproxyFacts, type HAProxyFacts } from '../../model/doctor/haproxy-servers.ts';
import { haproxyConfigSource } from '../../model/doctor/haproxy-source.ts';
import { containerViews, gracePeriod, type ContainerView } from '../../model/doctor/pod-template.ts';
import { mapSelects } from '../../model/selectors.ts';
import { refOf, type ObjectRef } from './located.ts';

export interface HAProxyConfigView {
  /** how findings name it: `configmap/redis-haproxy (haproxy.cfg)` */
  label: string;
  ref: ObjectRef;
  /** the one ConfigMap key the text is, when it is one (line numbers in the facts are that key's) */
  key?: string | undefined;
  facts: HAProxyFacts;
  /** how the doctor found it, for evidence */
  how: string;
}

export interface TemplateFacts {
  ref: ObjectRef;
  namespace: string;
  spec: PodSpec;
  labels: Record<string, string>;
  containers: ContainerView[];
  grace: number;
  /** haproxy.cfg of the template's HAProxy container, when it could be read */
  config?: HAProxyConfigView | undefined;
  /** HAPTIC renders this fleet's configuration and disables terminating servers itself */
  haptic: boolean;
}

export interface WorkloadFacts extends TemplateFacts {
  workload: Workload;
  kind: WorkloadKind;
  name: string;
  /** how findings name it: `deployment web`, `statefulset redis` */
  label: string;
  services: Service[];
  selecting: Service[];
  hpa?: HorizontalPodAutoscaler | undefined;
  /** the replica count the checks assume: spec.replicas, 1 when unset, or the HPA's minimum; none for a DaemonSet */
  replicas: { count: number; from: string } | undefined;
  gated: boolean;
}

export interface DoctorEnv {
  inputs: DoctorInputs;
  now: number;
  /** namespaces of the objects read: tells a short DNS name `web.shop` from a domain */
  namespaces: Set<string>;
  /** what a rule could not judge, in words */
  notes: string[];
}

const ns = (o: { metadata: { namespace?: string } }) => o.metadata.namespace ?? '';

/**
 * The objects of a list by namespace, built once per list: the checks look up the Services, budgets and autoscalers
 * around each workload, and a manifest set of thousands of workloads must not scan every list for each (linear, not
 * quadratic, in the size of the input).
 */
const namespaced = new WeakMap<object, Map<string, unknown[]>>();
export function inNamespace<T extends { metadata: { namespace?: string } }>(list: T[], namespace: string): T[] {
  let index = namespaced.get(list) as Map<string, T[]> | undefined;
  if (!index) {
    index = new Map();
    for (const o of list) {
      const at = index.get(ns(o));
      if (at) at.push(o);
      else index.set(ns(o), [o]);
    }
    namespaced.set(list, index as Map<string, unknown[]>);
  }
  return index.get(namespace) ?? [];
}

/** Services of one namespace by one pair of their selector, and their place in the list (see inNamespace). */
const bySelectorPair = new WeakMap<Service[], { buckets: Map<string, Service[]>; place: Map<Service, number> }>();
const pair = (k: string, v: string) => `${k}\u0000${v}`;

/** The Services of a namespace's list whose selector selects these labels, in the list's order. */
export function selectingServices(services: Service[], labels: Record<string, string>): Service[] {
  let index = bySelectorPair.get(services);
  if (!index) {
    index = { buckets: new Map(), place: new Map() };
    for (const [i, s] of services.entries()) {
      index.place.set(s, i);
      const selector = s.spec?.selector;
      const first = selector ? Object.keys(selector).sort()[0] : undefined;
      // a Service without a selector selects nothing: it is in no bucket
      if (first === undefined || !selector) continue;
      const key = pair(first, selector[first] as string);
      const at = index.buckets.get(key);
      if (at) at.push(s);
      else index.buckets.set(key, [s]);
    }
    bySelectorPair.set(services, index);
  }
  const { buckets, place } = index;
  const found = new Set<Service>();
  for (const [k, v] of Object.entries(labels))
    for (const s of buckets.get(pair(k, v)) ?? []) if (mapSelects(s.spec.selector, labels)) found.add(s);
  return [...found].sort((a, b) => (place.get(a) ?? 0) - (place.get(b) ?? 0));
}

/** The HorizontalPodAutoscaler whose scaleTargetRef is this workload. */
export function autoscalerOf(d: Workload, hpas: HorizontalPodAutoscaler[]): HorizontalPodAutoscaler | undefined {
  return inNamespace(hpas, ns(d)).find(
    (h) => h.spec?.scaleTargetRef?.kind === d.kind && h.spec.scaleTargetRef.name === d.metadata.name,
  );
}

function replicasOf(d: Workload, hpa: HorizontalPodAutoscaler | undefined): WorkloadFacts['replicas'] {
  if (d.kind === 'DaemonSet') return undefined;
  if (hpa) {
    const min = typeof hpa.spec?.minReplicas === 'number' ? hpa.spec.minReplicas : 1;
    return {
      count: min,
      from: `horizontalpodautoscaler ${hpa.metadata.name} minReplicas ${min}${hpa.spec?.minReplicas === undefined ? ' (default)' : ''}`,
    };
  }
  const r = d.spec.replicas;
  return typeof r === 'number'
    ? { count: r, from: `spec.replicas ${r}` }
    : { count: 1, from: 'spec.replicas not set (1)' };
}

/** haproxy.cfg of a plain HAProxy template, from a mounted ConfigMap; why not, as a note. */
function configOf(
  spec: PodSpec,
  containers: ContainerView[],
  namespace: string,
  inputs: DoctorInputs,
  owner: string,
  notes: string[],
): HAProxyConfigView | undefined {
  // an ingress controller writes its own configuration: there is no mounted haproxy.cfg to read
  const haproxy = containers.find((c) => c.haproxy && !c.controller);
  if (!haproxy) return undefined;
  const source = haproxyConfigSource(
    haproxy.container,
    spec,
    inputs.configMaps.filter((c) => ns(c) === namespace),
  );
  if (!source.found) {
    notes.push(
      `${owner}: HAProxy container ${haproxy.container.name}: ${source.why}; DR205, DR206 and DR301–DR303 not run`,
    );
    return undefined;
  }
  return {
    label: `configmap/${source.configMap} (${source.key})`,
    ref: { kind: 'ConfigMap', namespace, name: source.configMap },
    key: source.key.includes(', ') ? undefined : source.key,
    facts: haproxyFacts(parseHAProxyConfig(source.text)),
    how: source.how,
  };
}

export function workloadFacts(d: Workload, env: DoctorEnv): WorkloadFacts {
  const { inputs } = env;
  const namespace = ns(d);
  const spec = d.spec.template.spec;
  // with the labels its controller adds that Services select (an Argo Rollout's pod-template hash, live)
  const labels = podLabelsOf(d as RolloutTarget) ?? {};
  const services = inNamespace(inputs.services, namespace);
  const selecting = selectingServices(services, labels);
  const containers = containerViews(spec, labels, selecting);
  const hpa = autoscalerOf(d, inputs.hpas);
  const ref = refOf(d.kind, d);
  return {
    ref,
    namespace,
    spec,
    labels,
    containers,
    grace: gracePeriod(spec),
    config: configOf(
      spec,
      containers,
      namespace,
      inputs,
      `${d.kind.toLowerCase()} ${namespace}/${d.metadata.name}`,
      env.notes,
    ),
    haptic: false,
    workload: d,
    kind: d.kind,
    label: `${d.kind.toLowerCase()} ${d.metadata.name}`,
    name: d.metadata.name,
    services,
    selecting,
    hpa,
    replicas: replicasOf(d, hpa),
    gated: (spec.readinessGates ?? []).some((g) => g?.conditionType === GATE_CONDITION),
  };
}
