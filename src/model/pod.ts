import type { ContainerStatus, EndpointSlice, KubeEvent, Pod, Service } from '../types/kube.ts';
import { findCondition } from './conditions.ts';
import { ageMs } from './time.ts';
import { podEndpoints, type EndpointView } from './endpoints.ts';
import type { Installation } from './haptic.ts';

export type GateState = 'not-gated' | 'missing' | 'False' | 'True' | 'Unknown';

export interface ConditionView {
  status: string;
  since?: string | undefined;
  /** how long the condition has had this status (now − lastTransitionTime) */
  forMs?: number | undefined;
  reason?: string | undefined;
  message?: string | undefined;
}

/** One of the pod's readiness gates and its condition: `missing` when nothing wrote it yet. */
export interface ReadinessGateView {
  type: string;
  status: string;
}

export interface HAProxyRouting {
  installation: string;
  /** the live config has a server for the pod */
  inConfig: boolean;
  disabled?: boolean | undefined;
  /** HAProxy pods that run the current config, out of all live HAProxy pods of the installation */
  runningOn: number;
  of: number;
}

export interface ContainerProblem {
  container: string;
  reason: string;
  message?: string | undefined;
  restarts: number;
  lastExit?: { exitCode: number; reason?: string | undefined } | undefined;
}

export interface PodView {
  name: string;
  uid?: string | undefined;
  phase: string;
  node?: string | undefined;
  ip?: string | undefined;
  createdAt?: string | undefined;
  containersReady: ConditionView;
  gate: ConditionView & { state: GateState; type: string };
  /** every readiness gate of the pod, HAPTIC's included, with its condition's status */
  readinessGates: ReadinessGateView[];
  ready: ConditionView;
  /** ContainersReady → gate True, when both happened */
  gateLatencyMs?: number | undefined;
  services: string[];
  endpoints: EndpointView[];
  haproxy: HAProxyRouting[];
  containerProblems: ContainerProblem[];
  terminating?: {
    since?: string | undefined;
    deadline?: string | undefined;
    graceRemainingMs?: number | undefined;
    pastDeadline: boolean;
    finalizers: string[];
  } | undefined;
  events: { type: string; reason: string; message: string; count: number; last?: string | undefined }[];
}

function view(c: { status: string; lastTransitionTime?: string; reason?: string; message?: string } | undefined, now: number): ConditionView {
  return c ? { status: c.status, since: c.lastTransitionTime, forMs: ageMs(c.lastTransitionTime, now), reason: c.reason, message: c.message } : { status: 'Unknown' };
}

function problems(statuses: ContainerStatus[] | undefined): ContainerProblem[] {
  return (statuses ?? [])
    .filter((s) => s.state?.waiting?.reason || (!s.ready && s.state?.running))
    .map((s) => ({
      container: s.name,
      reason: s.state?.waiting?.reason ?? 'NotReady',
      message: s.state?.waiting?.message,
      restarts: s.restartCount,
      lastExit: s.lastState?.terminated && { exitCode: s.lastState.terminated.exitCode, reason: s.lastState.terminated.reason },
    }));
}

/**
 * Which HAProxy pods run a config that routes to the pod. A HAProxy pod has converged on the change that added the
 * pod's server when it runs the live checksum, or a generation at least as new as the first one that carried the
 * server (known in watch mode), or — once HAPTIC set the gate — any config it was deployed (HAPTIC sets the gate
 * only after every HAProxy pod ran such a config). Comparing with the latest checksum alone never settles under churn.
 */
function routing(pod: Pod, installations: Installation[], gateTrue: boolean, firstRouted: ReadonlyMap<string, number> | undefined): HAProxyRouting[] {
  const ip = pod.status?.podIP;
  return installations.flatMap((inst) => {
    const servers = (inst.config?.servers ?? []).filter((s) => s.pod === pod.metadata.name && (!ip || s.address.startsWith(`${ip}:`)));
    if (!servers.length) return [];
    const live = inst.haproxyPods.filter((p) => p.phase === 'Running');
    const since = firstRouted?.get(`${inst.namespace}/${inst.templateConfig}/${pod.metadata.uid}`);
    const converged = (p: (typeof live)[number]) => p.current || (!!p.entry && (gateTrue || (since !== undefined && (p.entry.observedGeneration ?? 0) >= since)));
    return [{
      installation: `${inst.namespace}/${inst.templateConfig}`,
      inConfig: true,
      disabled: servers.every((s) => s.disabled),
      runningOn: live.filter(converged).length,
      of: live.length,
    }];
  });
}

/**
 * Per installation and pod, the first config generation seen with the pod's server enabled: the memory given, plus
 * what these installations show now. Returns the same map when nothing is new, else a new one (the input is kept).
 */
export function rememberFirstRouted(memory: ReadonlyMap<string, number>, pods: Pod[], installations: Installation[]): ReadonlyMap<string, number> {
  let next: Map<string, number> | undefined;
  for (const inst of installations) {
    const generation = inst.config?.generation;
    if (generation === undefined) continue;
    for (const pod of pods) {
      const key = `${inst.namespace}/${inst.templateConfig}/${pod.metadata.uid}`;
      if ((next ?? memory).has(key)) continue;
      if ((inst.config?.servers ?? []).some((s) => s.pod === pod.metadata.name && !s.disabled)) (next ??= new Map(memory)).set(key, generation);
    }
  }
  return next ?? memory;
}

export interface PodContext {
  gateType: string;
  gated: boolean;
  services: Service[];
  slices: EndpointSlice[];
  events: KubeEvent[];
  installations: Installation[];
  now: number;
  /** from rememberFirstRouted, in watch mode */
  firstRouted?: ReadonlyMap<string, number> | undefined;
}

/** Everything a person checks by hand about one pod of a gated rollout, from objects already fetched. */
export function buildPodView(pod: Pod, ctx: PodContext): PodView {
  const conditions = pod.status?.conditions;
  const containersReady = view(findCondition(conditions, 'ContainersReady'), ctx.now);
  const gateCondition = findCondition(conditions, ctx.gateType);
  const gate = { ...view(gateCondition, ctx.now), type: ctx.gateType, state: (!ctx.gated ? 'not-gated' : gateCondition ? gateCondition.status : 'missing') as GateState };
  if (!gateCondition) gate.status = ctx.gated ? 'missing' : 'n/a';
  const ready = view(findCondition(conditions, 'Ready'), ctx.now);
  const readinessGates = (pod.spec.readinessGates ?? []).map((g) => ({ type: g.conditionType, status: findCondition(conditions, g.conditionType)?.status ?? 'missing' }));
  const cr = containersReady.status === 'True' && containersReady.since ? Date.parse(containersReady.since) : undefined;
  const gt = gate.state === 'True' && gate.since ? Date.parse(gate.since) : undefined;
  const { services, endpoints } = podEndpoints(pod, ctx.services, ctx.slices);
  const deletion = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
  const deadlineMs = deletion ? Date.parse(deletion) : undefined;
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    phase: pod.status?.phase ?? 'Pending',
    node: pod.spec.nodeName,
    ip: pod.status?.podIP,
    createdAt: pod.metadata.creationTimestamp,
    containersReady,
    gate,
    readinessGates,
    ready,
    gateLatencyMs: cr !== undefined && gt !== undefined ? Math.max(0, gt - cr) : undefined,
    services,
    endpoints,
    haproxy: routing(pod, ctx.installations, gate.state === 'True', ctx.firstRouted),
    containerProblems: problems(pod.status?.containerStatuses),
    terminating: deadlineMs === undefined ? undefined : {
      // deletionTimestamp is the deadline: request time + grace period
      since: new Date(deadlineMs - grace * 1000).toISOString(),
      deadline: deletion,
      graceRemainingMs: Math.max(0, deadlineMs - ctx.now),
      pastDeadline: ctx.now > deadlineMs,
      finalizers: pod.metadata.finalizers ?? [],
    },
    events: ctx.events
      .filter((e) => e.involvedObject.kind === 'Pod' && (e.involvedObject.uid ? e.involvedObject.uid === pod.metadata.uid : e.involvedObject.name === pod.metadata.name))
      .map((e) => ({ type: e.type ?? 'Normal', reason: e.reason ?? '', message: e.message ?? '', count: e.series?.count ?? e.count ?? 1, last: e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? undefined }))
      .sort((a, b) => (ageMs(a.last, ctx.now) ?? 0) - (ageMs(b.last, ctx.now) ?? 0)),
  };
}
