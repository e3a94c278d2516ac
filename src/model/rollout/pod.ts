import type { PodSessions } from '../haptic/sessions.ts';
import type { ContainerStatus, EndpointSlice, KubeEvent, Pod, Service } from '../../types/kube.ts';
import { findCondition } from '../conditions.ts';
import { ageMs } from '../time.ts';
import { podEndpoints, type EndpointView } from './endpoints.ts';
import { serversRunOn, type ConfigMemory, type Installation } from '../haptic/haptic.ts';
import type { RenderedServer } from '../haptic/haptic-config.ts';
import { routeInstallations, unroutedReason, type Routing } from '../haptic/routes.ts';

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
  /** live HAProxy pods whose settled running config treats the pod as the live config does: routes it when the live
   * config has its server enabled, no longer routes it when the live config has it disabled */
  runningOn: number;
  /** live HAProxy pods whose running config could not be read, so nobody can tell (never counted as routing) */
  unknown: number;
  /** all live HAProxy pods of the installation */
  of: number;
  /** per live HAProxy pod: the config it runs, where its content was read, and whether it routes the pod */
  pods: {
    name: string;
    checksum?: string | undefined;
    source: string;
    settled: boolean;
    routes?: boolean | undefined;
    pending?: string | undefined;
  }[];
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
  /** a StatefulSet's pod: the revision it was made from (its controller-revision-hash label) */
  revision?: string | undefined;
  /** a Deployment's pod: the ReplicaSet that owns it (its controller ownerReference) */
  replicaSet?: string | undefined;
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
  /** why HAProxy routing cannot be told (HAPTIC's configs unreadable) */
  haproxyUnreadable?: string | undefined;
  /** why no HAPTIC route reaches the Services selecting the pod, when that is certain */
  notRouted?: string | undefined;
  containerProblems: ContainerProblem[];
  /** when the last container finished, once every container has (the pod's processes exited) */
  containersFinishedAt?: string | undefined;
  terminating?:
    | {
        since?: string | undefined;
        deadline?: string | undefined;
        graceRemainingMs?: number | undefined;
        /** still here OVERDUE_MS after the deadline: longer than a kubelet takes to kill the pod and have it deleted */
        pastDeadline: boolean;
        finalizers: string[];
      }
    | undefined;
  events: { type: string; reason: string; message: string; count: number; last?: string | undefined }[];
  /** the sessions HAProxy holds to this pod, when status reads them (--sessions) */
  sessions?: PodSessions | undefined;
}

function view(
  c: { status: string; lastTransitionTime?: string; reason?: string; message?: string } | undefined,
  now: number,
): ConditionView {
  return c
    ? {
        status: c.status,
        since: c.lastTransitionTime,
        forMs: ageMs(c.lastTransitionTime, now),
        reason: c.reason,
        message: c.message,
      }
    : { status: 'Unknown' };
}

function problems(statuses: ContainerStatus[] | undefined): ContainerProblem[] {
  return (statuses ?? [])
    .filter((s) => s.state?.waiting?.reason || (!s.ready && s.state?.running))
    .map((s) => ({
      container: s.name,
      reason: s.state?.waiting?.reason ?? 'NotReady',
      message: s.state?.waiting?.message,
      restarts: s.restartCount,
      lastExit: s.lastState?.terminated && {
        exitCode: s.lastState.terminated.exitCode,
        reason: s.lastState.terminated.reason,
      },
    }));
}

function finishedAt(statuses: ContainerStatus[] | undefined): string | undefined {
  if (!statuses?.length || !statuses.every((s) => s.state?.terminated)) return undefined;
  return (
    statuses
      .map((s) => s.state?.terminated?.finishedAt ?? '')
      .sort()
      .at(-1) || undefined
  );
}

/** A config's servers by the pod they stand for, indexed once per server list: every pod of a rollout looks itself up. */
const serverIndex = new WeakMap<RenderedServer[], Map<string, RenderedServer[]>>();

function serversOfPod(servers: RenderedServer[], pod: string): RenderedServer[] {
  let index = serverIndex.get(servers);
  if (!index) {
    index = new Map();
    for (const s of servers) {
      const list = index.get(s.pod);
      if (list) list.push(s);
      else index.set(s.pod, [s]);
    }
    serverIndex.set(servers, index);
  }
  return index.get(pod) ?? [];
}

/**
 * Which HAProxy pods run a config that routes to the pod: per HAProxy pod, the config its deploy entry names (the
 * live one, a retained checkpoint, or one seen earlier in watch mode) must have the pod's server enabled, and the
 * deploy must have settled. A pod running a config whose content cannot be read is counted apart, never as
 * routing. Once HAPTIC set the gate, it has seen every HAProxy pod run such a config: all with an entry count.
 */
function routing(
  pod: Pod,
  installations: Installation[],
  gateTrue: boolean,
  memory: ConfigMemory | undefined,
): HAProxyRouting[] {
  const ip = pod.status?.podIP;
  const mine = (servers: RenderedServer[]) =>
    serversOfPod(servers, pod.metadata.name).filter((s) => !ip || s.address.startsWith(`${ip}:`));
  const routes = (servers: RenderedServer[]) => mine(servers).some((s) => !s.disabled);
  return installations.flatMap((inst) => {
    const servers = mine(inst.config?.servers ?? []);
    if (!servers.length) return [];
    const live = inst.haproxyPods.filter((p) => p.discovered);
    // counted: HAProxy pods whose settled config treats the pod as the live config does (routes it, or, for a
    // server the live config disables, no longer routes it)
    const disabled = servers.every((s) => s.disabled);
    let runningOn = 0;
    let unknown = 0;
    const pods: HAProxyRouting['pods'] = [];
    for (const h of live) {
      const run = h.entry ? serversRunOn(inst, h, memory) : undefined;
      const pod = {
        name: h.name,
        checksum: h.runs.checksum,
        source: h.runs.source,
        settled: h.runs.settled,
        routes: run && routes(run),
        pending: h.runs.pending,
      };
      pods.push(pod);
      if (!h.entry) continue;
      if (gateTrue && !disabled) {
        runningOn++;
        continue;
      }
      if (run === undefined) unknown++;
      else if (h.runs.settled && routes(run) !== disabled) runningOn++;
    }
    return [
      {
        installation: `${inst.namespace}/${inst.templateConfig}`,
        inConfig: true,
        disabled,
        runningOn,
        unknown,
        of: live.length,
        pods,
      },
    ];
  });
}

export interface PodContext {
  gateType: string;
  gated: boolean;
  services: Service[];
  slices: EndpointSlice[];
  events: KubeEvent[];
  installations: Installation[];
  now: number;
  /** configs seen earlier in watch mode, to read what an older config routes */
  memory?: ConfigMemory | undefined;
  /** why HAProxy's configs could not be read (then routing is unknown, not "not in config") */
  configsUnreadable?: string | undefined;
  /** the routes of the Services selecting the pod template (model/haptic/routes.ts) */
  routing?: Routing | undefined;
}

/**
 * How long after its deletionTimestamp a terminating pod may still exist before it counts as stuck. The deadline is
 * the API server's request time plus the grace period, truncated to the second (metav1.Time); the kubelet starts
 * the grace period only when it sees the deletion, sends SIGKILL at its end, notices the exit at its next PLEG
 * relist (1 s), and its status manager deletes the pod once its volumes are gone, retrying on its 10 s sync
 * (pkg/kubelet/status/status_manager.go, syncPeriod). Seconds past the deadline are a healthy drain, not a stall.
 */
export const OVERDUE_MS = 15_000;

/** Everything a person checks by hand about one pod of a gated rollout, from objects already fetched. */
export function buildPodView(pod: Pod, ctx: PodContext): PodView {
  const conditions = pod.status?.conditions;
  const containersReady = view(findCondition(conditions, 'ContainersReady'), ctx.now);
  const gateCondition = findCondition(conditions, ctx.gateType);
  const gate = {
    ...view(gateCondition, ctx.now),
    type: ctx.gateType,
    state: (!ctx.gated ? 'not-gated' : gateCondition ? gateCondition.status : 'missing') as GateState,
  };
  if (!gateCondition) gate.status = ctx.gated ? 'missing' : 'n/a';
  const ready = view(findCondition(conditions, 'Ready'), ctx.now);
  const readinessGates = (pod.spec.readinessGates ?? []).map((g) => ({
    type: g.conditionType,
    status: findCondition(conditions, g.conditionType)?.status ?? 'missing',
  }));
  const cr = containersReady.status === 'True' && containersReady.since ? Date.parse(containersReady.since) : undefined;
  const gt = gate.state === 'True' && gate.since ? Date.parse(gate.since) : undefined;
  const { services, endpoints } = podEndpoints(pod, ctx.services, ctx.slices);
  const deletion = pod.metadata.deletionTimestamp;
  const grace = pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30;
  const deadlineMs = deletion ? Date.parse(deletion) : undefined;
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    revision: pod.metadata.labels?.['controller-revision-hash'],
    replicaSet: pod.metadata.ownerReferences?.find((o) => o.controller && o.kind === 'ReplicaSet')?.name,
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
    haproxy: routing(pod, ctx.installations, gate.state === 'True', ctx.memory),
    haproxyUnreadable: ctx.configsUnreadable,
    notRouted:
      ctx.routing && unroutedReason(ctx.routing, services, routeInstallations(ctx.installations), pod.metadata.name),
    containerProblems: problems(pod.status?.containerStatuses),
    containersFinishedAt: finishedAt(pod.status?.containerStatuses),
    terminating:
      deadlineMs === undefined
        ? undefined
        : {
            // deletionTimestamp is the deadline: request time + grace period
            since: new Date(deadlineMs - grace * 1000).toISOString(),
            deadline: deletion,
            graceRemainingMs: Math.max(0, deadlineMs - ctx.now),
            pastDeadline: ctx.now > deadlineMs + OVERDUE_MS,
            finalizers: pod.metadata.finalizers ?? [],
          },
    events: ctx.events
      .filter(
        (e) =>
          e.involvedObject.kind === 'Pod' &&
          (e.involvedObject.uid
            ? e.involvedObject.uid === pod.metadata.uid
            : e.involvedObject.name === pod.metadata.name),
      )
      .map((e) => ({
        type: e.type ?? 'Normal',
        reason: e.reason ?? '',
        message: e.message ?? '',
        count: e.series?.count ?? e.count ?? 1,
        last: e.lastTimestamp ?? e.series?.lastObservedTime ?? e.eventTime ?? undefined,
      }))
      .sort((a, b) => (ageMs(a.last, ctx.now) ?? 0) - (ageMs(b.last, ctx.now) ?? 0)),
  };
}
