import { UserError, ExitCode, oneLine } from '../lib/errors.ts';
import type { KubeClient } from '../kube/client.ts';
import { isApiError, mayHaveTakenEffect } from '../kube/errors.ts';
import { R, resourcePath, workloadResource } from '../kube/resources.ts';
import { fetchQuery } from '../kube/snapshot.ts';
import { COMPONENT_LOADBALANCER, HAPTIC_PODS_SELECTOR, LABEL_COMPONENT } from '../haptic/names.ts';
import { missingPermissions } from './permissions.ts';
import { buildDrillReport, type DrillOutcome, type DrillReport, type DrillTarget } from '../model/drill/probe-log.ts';
import {
  DRILL_RUN_LABEL,
  drillPermissions,
  type Permission,
  permissionText,
  probePod,
  type ProbePodManifest,
  PROBE_CONTAINER,
  restartOf,
  servicePort,
  servicesOf,
} from '../model/drill/plan.ts';
import type { RolloutHistory } from '../model/rollout/history.ts';
import type { RolloutReport } from '../model/rollout/report.ts';
import { mapSelects } from '../model/selectors.ts';
import type { Pod, RolloutTarget, Service, TargetName } from '../types/kube.ts';
import { followRollout } from './live-rollout.ts';
import { type Held, holdOf, isDefinite } from '../diagnose/hold.ts';
import { describeFinding } from '../diagnose/catalogue.ts';
import type { Finding } from '../types/finding.ts';
import type { RolloutUpdate } from '../model/rollout/report.ts';
import { resolveTargets, targetRef } from './targets.ts';
import { setTimeout as delay } from 'node:timers/promises';

// kubectl haptic drill: a probe pod sends requests to the workload's Service (or through HAPTIC's HAProxy) while
// its rollout runs; its log says how each request ended. The plan is made and the permissions checked before
// anything is created; the probe pod is deleted whatever happens after it was created.

export interface DrillRequest {
  namespace: string;
  /** the Deployment or StatefulSet whose rollout is drilled */
  target: TargetName;
  image: string;
  /** the Service to target (default: the one selecting the workload's pods) */
  service?: string | undefined;
  /** go through HAPTIC's HAProxy with this Host header */
  host?: string | undefined;
  /** NAMESPACE/NAME of the Service in front of HAPTIC's HAProxy (default: the only one) */
  haproxyService?: string | undefined;
  port?: number | undefined;
  path: string;
  intervalMs: number;
  probeTimeoutMs: number;
  restart: boolean;
  /** 0: no limit */
  timeoutMs: number;
  conditionType: string;
}

export interface DrillPlan {
  workload: RolloutTarget;
  target: DrillTarget;
  pod: ProbePodManifest;
  restart?: ReturnType<typeof restartOf> | undefined;
  permissions: Permission[];
}

/** Resolves the workload and the target, and writes down the pod and patch; reads only. */
export async function planDrill(client: KubeClient, req: DrillRequest, now = Date.now()): Promise<DrillPlan> {
  if (!req.path.startsWith('/')) throw new UserError(`--path must start with "/": ${req.path}`);
  const [workload] = await resolveTargets(client, { namespace: req.namespace, names: [req.target] });
  const target = req.host ? await haproxyTarget(client, req) : await serviceTarget(client, workload!, req);
  const deadlineMs = req.timeoutMs > 0 ? req.timeoutMs : 3_600_000;
  return {
    workload: workload!,
    target,
    pod: probePod(workload!, target, {
      image: req.image,
      intervalMs: req.intervalMs,
      timeoutMs: req.probeTimeoutMs,
      deadlineMs,
    }),
    restart: req.restart ? restartOf(workload!.kind, now) : undefined,
    permissions: drillPermissions(req.restart, workload!.kind),
  };
}

async function serviceTarget(client: KubeClient, deployment: RolloutTarget, req: DrillRequest): Promise<DrillTarget> {
  const services = await fetchQuery<Service>(client, { resource: R.services, namespace: req.namespace });
  const selecting = servicesOf(deployment, services);
  const service = req.service
    ? services.find((s) => s.metadata.name === req.service)
    : selecting.length === 1
      ? selecting[0]
      : undefined;
  if (req.service && !service)
    throw new UserError(`service "${req.service}" not found in namespace "${req.namespace}"`);
  if (!service) {
    const names = selecting.map((s) => s.metadata.name).join(', ');
    throw new UserError(
      selecting.length === 0
        ? `no Service in namespace "${req.namespace}" selects the pods of ${targetRef(deployment)}: name one with --service, or go through HAPTIC's HAProxy with --host`
        : `several Services select the pods of ${targetRef(deployment)} (${names}): name one with --service`,
    );
  }
  return serviceURL(service, req, 'service');
}

function serviceURL(service: Service, req: DrillRequest, via: DrillTarget['via']): DrillTarget {
  const ip = service.spec.clusterIP;
  const name = `${service.metadata.namespace}/${service.metadata.name}`;
  if (!ip || ip === 'None')
    throw new UserError(
      `service ${name} is headless (no ClusterIP) and cannot be sent requests as one: ${via === 'service' ? "go through HAPTIC's HAProxy with --host" : 'name another with --haproxy-service'}`,
    );
  const port = servicePort(service, req.port, (n) => via === 'haproxy' && n === 'dataplane');
  if (port === undefined) {
    const ports = (service.spec.ports ?? []).map((p) => `${p.name ?? '-'}:${p.port}`).join(', ');
    throw new UserError(
      req.port === undefined
        ? `service ${name} has several ports (${ports}): choose one with --port`
        : `service ${name} has no TCP port ${req.port} (${ports})`,
    );
  }
  const host = ip.includes(':') ? `[${ip}]` : ip;
  return { via, service: name, url: `http://${host}:${port}${req.path}`, ...(req.host ? { host: req.host } : {}) };
}

/**
 * The Service in front of HAPTIC's HAProxy pods: one that selects them (HAPTIC labels every pod of an installation
 * with app.kubernetes.io/name=haptic; its HAProxy pods are component loadbalancer), other than the agent's
 * dataplane Service.
 */
async function haproxyTarget(client: KubeClient, req: DrillRequest): Promise<DrillTarget> {
  let namespace: string | undefined;
  let name: string | undefined;
  if (req.haproxyService) {
    [namespace, name] = req.haproxyService.includes('/')
      ? req.haproxyService.split('/', 2)
      : [req.namespace, req.haproxyService];
  }
  const pods = await fetchQuery<Pod>(client, {
    resource: R.pods,
    namespace,
    labelSelector: `${HAPTIC_PODS_SELECTOR},${LABEL_COMPONENT}=${COMPONENT_LOADBALANCER}`,
  });
  const namespaces = [...new Set(pods.map((p) => p.metadata.namespace ?? ''))];
  const services = (
    await Promise.all(namespaces.map((ns) => fetchQuery<Service>(client, { resource: R.services, namespace: ns })))
  ).flat();
  const fronting = services.filter(
    (s) =>
      s.metadata.labels?.[LABEL_COMPONENT] !== 'dataplane-api' &&
      pods.some(
        (p) =>
          p.metadata.namespace === s.metadata.namespace &&
          Object.keys(s.spec?.selector ?? {}).length > 0 &&
          mapSelects(s.spec?.selector, p.metadata.labels),
      ),
  );
  const chosen = name
    ? fronting.find((s) => s.metadata.name === name && s.metadata.namespace === namespace)
    : fronting.length === 1
      ? fronting[0]
      : undefined;
  if (!chosen) {
    const found = fronting.map((s) => `${s.metadata.namespace}/${s.metadata.name}`).join(', ');
    if (name)
      throw new UserError(
        `service ${namespace}/${name} does not select HAPTIC's HAProxy pods${found ? ` (these do: ${found})` : ''}`,
      );
    throw new UserError(
      fronting.length === 0
        ? "no Service selects HAPTIC's HAProxy pods (app.kubernetes.io/name=haptic, component loadbalancer): name one with --haproxy-service NAMESPACE/NAME"
        : `several Services select HAPTIC's HAProxy pods (${found}): choose one with --haproxy-service NAMESPACE/NAME`,
    );
  }
  return serviceURL(chosen, req, 'haproxy');
}

/** Refuses, before anything is created, when the user lacks a permission drill needs (exit 4, as a forbidden request). */
export async function checkPermissions(client: KubeClient, plan: DrillPlan): Promise<void> {
  const namespace = plan.workload.metadata.namespace!;
  const missing = await missingPermissions(client, namespace, plan.permissions);
  if (!missing.length) return;
  const list = missing.map((p) => `${permissionText(p)} (${p.for})`).join(', ');
  throw new UserError(`forbidden: drill needs in namespace "${namespace}": ${list}; nothing was created`, {
    exitCode: ExitCode.cluster,
  });
}

export interface DrillHooks {
  /** what drill is doing, as it does it (stderr) */
  onStep(line: string): void;
  /** each rollout update, for the transition lines status --wait prints */
  onUpdate(update: RolloutUpdate): void;
  /** Ctrl-C: stop waiting, delete the pod, end */
  signal: AbortSignal;
  now?: () => number;
}

export class Interrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'Interrupted';
  }
}

/** Resolves after `ms`; rejects with Interrupted when `signal` aborts. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => {
    throw new Interrupted();
  });
}

const POD_START_MS = 180_000;

/** Waits until the probe runs; a pod that cannot start (image, admission, scheduling) ends the drill with why. */
async function waitRunning(client: KubeClient, namespace: string, name: string, signal: AbortSignal): Promise<void> {
  const path = resourcePath(R.pods, { namespace, name });
  const deadline = Date.now() + POD_START_MS;
  let why = 'not scheduled yet';
  for (;;) {
    const pod = await client.request<Pod>(
      'GET',
      path,
      { verb: 'get', resource: 'pods', namespace, name },
      { expect: 'object' },
    );
    const phase = pod.status?.phase;
    if (phase === 'Running') return;
    if (phase === 'Succeeded' || phase === 'Failed')
      throw new UserError(`the probe pod ${name} ended (${phase}) before the rollout was followed`, {
        exitCode: ExitCode.failed,
      });
    const waiting = pod.status?.containerStatuses?.[0]?.state?.waiting;
    if (waiting?.reason) why = `${waiting.reason}${waiting.message ? `: ${waiting.message}` : ''}`;
    if (waiting?.reason && /ImagePull|ErrImage|InvalidImageName|CreateContainerConfigError/.test(waiting.reason))
      throw new UserError(`the probe pod ${name} cannot start: ${why}`, { exitCode: ExitCode.failed });
    if (Date.now() > deadline)
      throw new UserError(`the probe pod ${name} did not start within ${POD_START_MS / 1000}s (${why})`, {
        exitCode: ExitCode.timeout,
      });
    await sleep(500, signal);
  }
}

type Followed = {
  outcome: DrillOutcome;
  history?: RolloutHistory | undefined;
  report?: RolloutReport | undefined;
  progressingAt?: number | undefined;
  doneAt?: number | undefined;
  cause?: Finding | undefined;
};

/**
 * Follows the rollout (as status --wait --drained) until it is complete and drained after having progressed —
 * after the restart, when drill restarted it: a model of an older generation is not the rollout it started.
 */
async function follow(
  client: KubeClient,
  plan: DrillPlan,
  req: DrillRequest,
  hooks: DrillHooks,
  started: () => number | undefined,
): Promise<Followed> {
  let settle!: (f: Followed) => void;
  let fail!: (e: unknown) => void;
  const ended = new Promise<Followed>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  let last: RolloutUpdate | undefined;
  let progressingAt: number | undefined;
  let held: Held | undefined;
  let holdTimer: ReturnType<typeof setTimeout> | undefined;
  const follower = followRollout(client, plan.workload, {
    conditionType: req.conditionType,
    drained: true,
    onFatal: fail,
    onUpdate: (update) => {
      last = update;
      hooks.onUpdate(update);
      const generation = started();
      const current = req.restart ? generation !== undefined && update.model.observedGeneration >= generation : true;
      const now = (hooks.now ?? Date.now)();
      if (!update.done && current) progressingAt ??= now;
      // the same fail fast as status --wait: a cause that does not clear by itself ends the drill too
      held = current && !update.done ? holdOf(update.finding, held, now) : undefined;
      clearTimeout(holdTimer);
      const failed = () => settle({ outcome: 'failed', history: update.history, progressingAt, cause: update.finding });
      if (update.model.phase === 'failed' && current) failed();
      else if (isDefinite(held, now)) failed();
      else if (held?.dueAt !== undefined) {
        // nothing may change on the cluster while the cause holds: the clock alone decides then, as in --wait
        const ends = held;
        holdTimer = setTimeout(() => held === ends && failed(), held.dueAt - now);
      } else if (update.done && update.history.progressed && current)
        settle({ outcome: 'complete', history: update.history, report: update.report, progressingAt, doneAt: now });
    },
  });
  follower.start();
  const onAbort = () => fail(new Interrupted());
  hooks.signal.addEventListener('abort', onAbort, { once: true });
  const timer =
    req.timeoutMs > 0
      ? setTimeout(() => settle({ outcome: 'timeout', history: last?.history }), req.timeoutMs)
      : undefined;
  try {
    return await ended;
  } finally {
    clearTimeout(timer);
    clearTimeout(holdTimer);
    hooks.signal.removeEventListener('abort', onAbort);
    follower.stop();
  }
}

/** Creates the probe pod, restarts (or waits for) the rollout, follows it, reads the probe's log, deletes the pod. */
export async function runDrill(
  client: KubeClient,
  plan: DrillPlan,
  req: DrillRequest,
  hooks: DrillHooks,
): Promise<DrillReport> {
  const namespace = plan.workload.metadata.namespace!;
  const workload = targetRef(plan.workload);
  const pods = resourcePath(R.pods, { namespace });
  const target = plan.target;
  hooks.onStep(
    `creating a probe pod in namespace ${namespace} (image ${req.image}): GET ${target.url}${target.host ? ` with Host ${target.host}` : ''} every ${req.intervalMs}ms; it is deleted at the end, also on Ctrl-C`,
  );
  const run = process.getBuiltinModule('node:crypto').randomUUID().slice(0, 8);
  const body = {
    ...plan.pod,
    metadata: { ...plan.pod.metadata, labels: { ...plan.pod.metadata.labels, [DRILL_RUN_LABEL]: run } },
  };
  let created: Pod;
  try {
    created = await client.request<Pod>(
      'POST',
      pods,
      { verb: 'create', resource: 'pods', namespace },
      { body, expect: 'object' },
    );
  } catch (err) {
    // the API server may have created the pod before its answer went wrong (5xx, not JSON, too late): find it by
    // this run's label and delete it, so that it does not probe until its deadline
    if (mayHaveTakenEffect(err)) await deleteProbesOfRun(client, namespace, run, hooks);
    throw err;
  }
  const name = created.metadata.name;
  hooks.onStep(`created pod/${name}`);
  const readLog = () =>
    client.request<unknown>(
      'GET',
      `${resourcePath(R.pods, { namespace, name })}/log`,
      { verb: 'get', resource: 'pods/log', namespace, name },
      { query: { container: PROBE_CONTAINER, timestamps: true } },
    );
  try {
    await waitRunning(client, namespace, name, hooks.signal);
    // the results come back through the probe's log: an API server that cannot reach the node's kubelet (a private
    // kubelet, a broken konnectivity agent, a name that does not resolve) fails only here, which the permission
    // check cannot see; find it out before anything is changed
    try {
      await readLog();
    } catch (error) {
      throw new UserError(
        `drill reads its results from the probe pod's log, and the API server could not serve it (${oneLine(error)}); nothing was restarted`,
        { exitCode: ExitCode.cluster, cause: error },
      );
    }
    let generation: number | undefined;
    let restartedAt: number | undefined;
    const followed = follow(client, plan, req, hooks, () => generation);
    // followed rejects on Ctrl-C or a refused read: do not leave it unhandled while the restart is sent
    followed.catch(() => {});
    // a moment of requests before the change, as a baseline
    await sleep(Math.max(1000, 3 * req.intervalMs), hooks.signal);
    if (plan.restart) {
      const resource = workloadResource(plan.workload.kind);
      const { name: workloadName } = plan.workload.metadata;
      hooks.onStep(`restarting ${workload} (as ${plan.restart.as})`);
      restartedAt = (hooks.now ?? Date.now)();
      // the kind's own restart (an Argo Rollout's spec.restartAt), else kubectl rollout restart's
      const { body, contentType } = restartOf(plan.workload.kind, restartedAt);
      const patched = await client.request<RolloutTarget>(
        'PATCH',
        resourcePath(resource, { namespace, name: workloadName }),
        { verb: 'patch', resource: resource.display, namespace, name: workloadName },
        { body, contentType, expect: 'object' },
      );
      generation = patched.metadata.generation ?? 0;
    } else {
      hooks.onStep(`waiting for a rollout of ${workload} to start (--no-restart)`);
    }
    const result = await followed;
    // the requests still in flight when the rollout ended, and the lines that tell them
    await sleep(req.intervalMs + req.probeTimeoutMs + 1000, hooks.signal);
    const log = await readLog();
    return buildDrillReport({
      workloadKind: plan.workload.kind,
      name: plan.workload.metadata.name,
      namespace,
      target,
      probe: { pod: name, image: req.image, intervalMs: req.intervalMs, timeoutMs: req.probeTimeoutMs },
      outcome: result.outcome,
      restartedAt,
      progressingAt: result.progressingAt,
      doneAt: result.doneAt,
      history: result.history,
      report: result.report,
      cause: result.cause && describeFinding(result.cause),
      log: typeof log === 'string' ? log : '',
    });
  } finally {
    await deleteProbe(client, namespace, name, hooks);
  }
}

/** Deletes the probe pods of one run, found by its label; says how to do it by hand when that fails. */
async function deleteProbesOfRun(client: KubeClient, namespace: string, run: string, hooks: DrillHooks): Promise<void> {
  const selector = `${DRILL_RUN_LABEL}=${run}`;
  try {
    const found = await fetchQuery<Pod>(client, { resource: R.pods, namespace, labelSelector: selector });
    for (const pod of found) await deleteProbe(client, namespace, pod.metadata.name, hooks);
  } catch (error) {
    hooks.onStep(
      `the probe pod may have been created; could not look for it (${error instanceof Error ? error.message : String(error)}): delete it with: kubectl delete pod -n ${namespace} -l ${selector}`,
    );
  }
}

async function deleteProbe(client: KubeClient, namespace: string, name: string, hooks: DrillHooks): Promise<void> {
  try {
    await client.request('DELETE', resourcePath(R.pods, { namespace, name }), {
      verb: 'delete',
      resource: 'pods',
      namespace,
      name,
    });
    hooks.onStep(`deleted pod/${name}`);
  } catch (error) {
    if (isApiError(error, 'NotFound')) return;
    hooks.onStep(
      `could not delete pod/${name}: ${error instanceof Error ? error.message : String(error)}; delete it with: kubectl delete pod ${name} -n ${namespace}`,
    );
  }
}
