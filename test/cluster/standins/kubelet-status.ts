// What the kubelet would report for a pod at a given moment: a pure function of the pod, when the node first saw
// it, and the clock. Failure traces come from pod annotations (see README "Stand-ins"); time is compressed into
// fixed 10 s periods so traces repeat (restart counts, event counts) within a test's lifetime.
import { type Condition, findCondition, type Obj, rfc3339, STANDIN_ANNOTATION } from './common.ts';
import { containerID, imageID, pullError } from './images.ts';
import { type ConditionValue, containersReadyCondition, readyCondition } from './readiness.ts';

export const TRACE_PERIOD_MS = 10_000;
export const DEFAULT_START_DELAY_MS = 300;
const CRASH_RUN_MS = 1_000;
const PULL_ERROR_MS = 2_000;
/** When, in each period, the liveness probe has failed failureThreshold times and the kubelet kills the container. */
export const LIVENESS_KILL_MS = 6_000;
/** A container killed at the end of its grace period (it did not exit on SIGTERM): 128 + SIGKILL. */
const KILLED_EXIT_CODE = 137;

export type Trace = 'healthy' | 'unready' | 'readiness-probe' | 'liveness-probe' | 'crash-loop' | 'image-pull';
export type KubeletEvent = {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
  count: number;
  fieldPath: string;
};
export type KubeletView = {
  fields: Record<string, unknown>;
  sandboxReady: boolean;
  events: KubeletEvent[];
  wakeAt?: number;
};
export type KubeletContext = { now: number; seenAt: number; hostIP: string; podIP: string | undefined };

type Container = {
  name: string;
  image: string;
  livenessProbe?: { failureThreshold?: number };
  readinessProbe?: { initialDelaySeconds?: number; periodSeconds?: number };
  lifecycle?: { preStop?: { sleep?: { seconds?: number } } };
};

/**
 * How long a restarted container stays unready: the kubelet's readiness worker sets a new container ID's result to
 * its initial value, Failure (pkg/kubelet/prober/worker.go, doProbe: `w.resultsManager.Set(w.containerID,
 * w.initialValue, w.pod)`), and probes again after initialDelaySeconds, on its periodSeconds ticker. A container
 * without a readiness probe is ready as soon as it runs.
 */
function unreadyAfterRestartMs(c: Container): number {
  const r = c.readinessProbe;
  return r ? Math.max(r.initialDelaySeconds ?? 0, r.periodSeconds ?? 10) * 1000 : 0;
}

export function podTrace(pod: Obj): { trace: Trace; startDelayMs: number } {
  const annotations = pod.metadata.annotations ?? {};
  const delay = Number(annotations[`${STANDIN_ANNOTATION}/start-delay-ms`] ?? NaN);
  const startDelayMs = Number.isFinite(delay) && delay >= 0 ? delay : DEFAULT_START_DELAY_MS;
  const fail = annotations[`${STANDIN_ANNOTATION}/fail`];
  if (fail === 'readiness-probe' || fail === 'liveness-probe' || fail === 'crash-loop' || fail === 'image-pull')
    return { trace: fail, startDelayMs };
  if (annotations[`${STANDIN_ANNOTATION}/containers-ready`] === 'false') return { trace: 'unready', startDelayMs };
  return { trace: 'healthy', startDelayMs };
}

/** Go's time.Duration formatting for whole seconds: 10s, 1m20s, 5m0s. */
export function goDuration(seconds: number): string {
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${seconds % 60}s`;
}

export function kubeletView(pod: Obj, ctx: KubeletContext): KubeletView {
  const { trace, startDelayMs } = podTrace(pod);
  const containers: Container[] = pod.spec.containers;
  const uid = pod.metadata.uid ?? '';
  const startAt = ctx.seenAt + startDelayMs;
  const base = (phase: string, sandboxReady: boolean, statuses: object[]) => ({
    fields: podFields(ctx, phase, sandboxReady, statuses),
    sandboxReady,
    events: [] as KubeletEvent[],
  });
  if (ctx.now < startAt) {
    const statuses = containers.map((c) => ({ ...idle(c), state: { waiting: { reason: 'ContainerCreating' } } }));
    return { ...base('Pending', false, statuses), wakeAt: startAt };
  }
  const elapsed = ctx.now - startAt;
  const period = Math.floor(elapsed / TRACE_PERIOD_MS);
  const inPeriod = elapsed % TRACE_PERIOD_MS;
  const nextPeriod = startAt + (period + 1) * TRACE_PERIOD_MS;
  const fieldPath = (c: Container) => `spec.containers{${c.name}}`;
  const running = (c: Container, ready: boolean, since = startAt, restarts = 0) => ({
    ...idle(c),
    state: { running: { startedAt: rfc3339(since) } },
    ready,
    started: true,
    restartCount: restarts,
    imageID: imageID(c.image),
    containerID: containerID(uid, c.name, restarts),
  });
  switch (trace) {
    case 'healthy':
    case 'unready':
      return base(
        'Running',
        true,
        containers.map((c) => running(c, trace === 'healthy')),
      );
    case 'readiness-probe': {
      const view = base(
        'Running',
        true,
        containers.map((c) => running(c, false)),
      );
      view.events = containers.map((c) => ({
        type: 'Warning',
        reason: 'Unhealthy',
        count: period + 1,
        fieldPath: fieldPath(c),
        message: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
      }));
      return { ...view, wakeAt: nextPeriod };
    }
    case 'liveness-probe': {
      // The kubelet's prober records a Warning Unhealthy "Liveness probe failed: <output>" for every failed probe
      // (pkg/kubelet/prober/prober.go); after failureThreshold of them, computePodActions kills the container with
      // the message "Container <c> failed liveness probe, will be restarted", recorded as a Normal Killing event
      // by killContainer, and starts it again in the same sync (kuberuntime_manager.go). The container did not exit
      // on SIGTERM, so it ends with 137. Here each period's attempt is killed LIVENESS_KILL_MS after it started and
      // the next attempt starts at once; no restart back-off is modelled. A restarted attempt is unready until its
      // readiness probe passes again (unreadyAfterRestartMs); the first attempt is ready at once, as everywhere here.
      const killedThisPeriod = inPeriod >= LIVENESS_KILL_MS;
      const kills = period + (killedThisPeriod ? 1 : 0);
      const killAt = (n: number) => startAt + (n - 1) * TRACE_PERIOD_MS + LIVENESS_KILL_MS;
      const since = kills > 0 ? killAt(kills) : startAt;
      const readyAt = (c: Container) => (kills > 0 ? since + unreadyAfterRestartMs(c) : since);
      const statuses = containers.map((c) => ({
        ...running(c, ctx.now >= readyAt(c), since, kills),
        lastState:
          kills > 0
            ? {
                terminated: {
                  exitCode: KILLED_EXIT_CODE,
                  reason: 'Error',
                  startedAt: rfc3339(kills > 1 ? killAt(kills - 1) : startAt),
                  finishedAt: rfc3339(killAt(kills)),
                  containerID: containerID(uid, c.name, kills - 1),
                },
              }
            : {},
      }));
      const view = base('Running', true, statuses);
      view.events =
        kills === 0
          ? []
          : containers.flatMap((c) => [
              {
                type: 'Warning' as const,
                reason: 'Unhealthy',
                count: kills * (c.livenessProbe?.failureThreshold ?? 3),
                fieldPath: fieldPath(c),
                message: 'Liveness probe failed: HTTP probe failed with statuscode: 503',
              },
              {
                type: 'Normal' as const,
                reason: 'Killing',
                count: kills,
                fieldPath: fieldPath(c),
                message: `Container ${c.name} failed liveness probe, will be restarted`,
              },
            ]);
      const nextKill = killedThisPeriod
        ? startAt + (period + 1) * TRACE_PERIOD_MS + LIVENESS_KILL_MS
        : startAt + period * TRACE_PERIOD_MS + LIVENESS_KILL_MS;
      const readiness = containers.map(readyAt).filter((t) => t > ctx.now && t < nextKill);
      return { ...view, wakeAt: Math.min(nextKill, ...readiness) };
    }
    case 'crash-loop': {
      // Period p: attempt runs CRASH_RUN_MS, exits 1, then waits in back-off. The first crash is restarted at once
      // (as the kubelet does), so the first back-off already shows restartCount 1.
      const crashed = inPeriod >= CRASH_RUN_MS;
      const restarts = crashed ? period + 1 : period === 0 ? 0 : period + 1;
      const attemptStart = startAt + period * TRACE_PERIOD_MS;
      const lastCrash = crashed ? attemptStart : attemptStart - TRACE_PERIOD_MS;
      const terminated = (c: Container) => ({
        terminated: {
          exitCode: 1,
          reason: 'Error',
          startedAt: rfc3339(lastCrash),
          finishedAt: rfc3339(lastCrash + CRASH_RUN_MS),
          containerID: containerID(uid, c.name, Math.max(0, restarts - 1)),
        },
      });
      const backoff = goDuration(Math.min(10 * 2 ** period, 300));
      const statuses = containers.map((c) => {
        const status = {
          ...running(c, false, attemptStart, restarts),
          lastState: period > 0 || crashed ? terminated(c) : {},
        };
        if (!crashed) return status;
        const message = `back-off ${backoff} restarting failed container=${c.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${uid})`;
        return { ...status, state: { waiting: { reason: 'CrashLoopBackOff', message } }, started: false };
      });
      const view = base('Running', true, statuses);
      view.events = containers.flatMap((c) =>
        period > 0 || crashed
          ? [
              {
                type: 'Warning' as const,
                reason: 'BackOff',
                count: crashed ? period + 1 : period,
                fieldPath: fieldPath(c),
                message: `Back-off restarting failed container ${c.name} in pod ${pod.metadata.name}_${pod.metadata.namespace}(${uid})`,
              },
            ]
          : [],
      );
      return { ...view, wakeAt: crashed ? nextPeriod : attemptStart + CRASH_RUN_MS };
    }
    case 'image-pull': {
      const backingOff = inPeriod >= PULL_ERROR_MS;
      const statuses = containers.map((c) => {
        const reason = backingOff ? 'ImagePullBackOff' : 'ErrImagePull';
        const message = backingOff
          ? `Back-off pulling image "${c.image}": ErrImagePull: ${pullError(c.image)}`
          : pullError(c.image);
        return { ...idle(c), state: { waiting: { reason, message } } };
      });
      const view = base('Pending', true, statuses);
      view.events = containers.flatMap((c) => [
        {
          type: 'Warning' as const,
          reason: 'Failed',
          count: period + 1,
          fieldPath: fieldPath(c),
          message: `Failed to pull image "${c.image}": ${pullError(c.image)}`,
        },
        ...(backingOff || period > 0
          ? [
              {
                type: 'Warning' as const,
                reason: 'BackOff',
                count: backingOff ? period + 1 : period,
                fieldPath: fieldPath(c),
                message: `Back-off pulling image "${c.image}"`,
              },
            ]
          : []),
      ]);
      return { ...view, wakeAt: backingOff ? nextPeriod : startAt + period * TRACE_PERIOD_MS + PULL_ERROR_MS };
    }
  }
}

/**
 * When a deleted pod's containers have all exited by themselves, for a pod whose app exits on SIGTERM (the
 * `exit-on-sigterm-ms` annotation: that long after the signal); undefined for one that ignores it, killed at the end
 * of its grace. The kubelet stops every container at once (killContainersWithSyncResult, one goroutine each), each
 * after its preStop hook: the sleep action is the kubelet's own (pkg/kubelet/lifecycle/handlers.go,
 * runSleepHandler); an exec or httpGet hook needs a runtime this node has not, so it counts as instant. The grace
 * period runs from the deletion request: deletionTimestamp minus deletionGracePeriodSeconds.
 */
export function exitedByItselfAt(pod: Obj): number | undefined {
  const after = Number(pod.metadata.annotations?.[`${STANDIN_ANNOTATION}/exit-on-sigterm-ms`] ?? NaN);
  const { deletionTimestamp, deletionGracePeriodSeconds } = pod.metadata;
  if (!Number.isFinite(after) || after < 0 || !deletionTimestamp) return undefined;
  const requested = Date.parse(deletionTimestamp) - Number(deletionGracePeriodSeconds ?? 0) * 1000;
  const hook = (c: Container) => (c.lifecycle?.preStop?.sleep?.seconds ?? 0) * 1000;
  return requested + Math.max(0, ...(pod.spec.containers as Container[]).map(hook)) + after;
}

/** The status once the grace period is over: containers exited after SIGTERM, the pod is terminal. */
export function terminatedView(pod: Obj, ctx: KubeletContext): KubeletView {
  const uid = pod.metadata.uid ?? '';
  const statuses = (pod.spec.containers as Container[]).map((c) => {
    const current = pod.status?.containerStatuses?.find((s: { name: string }) => s.name === c.name);
    const restarts = current?.restartCount ?? 0;
    const startedAt = current?.state?.running?.startedAt ?? rfc3339(ctx.now);
    return {
      ...idle(c),
      ...(current?.imageID ? { imageID: current.imageID } : {}),
      restartCount: restarts,
      state: {
        terminated: {
          exitCode: 0,
          reason: 'Completed',
          startedAt,
          finishedAt: rfc3339(ctx.now),
          containerID: containerID(uid, c.name, restarts),
        },
      },
    };
  });
  return { fields: podFields(ctx, 'Succeeded', false, statuses), sandboxReady: false, events: [] };
}

/** The pod status after the kubelet's write: our fields and conditions replaced, others' conditions kept. */
export function nextPodStatus(pod: Obj, view: KubeletView, now: number): Record<string, any> {
  const current = pod.status ?? {};
  const statuses = view.fields.containerStatuses as { name: string; ready: boolean }[];
  const names = (pod.spec.containers as Container[]).map((c) => c.name);
  const containersReady = containersReadyCondition(names, statuses, view.fields.phase as string);
  const ours: [string, ConditionValue][] = [
    ['PodReadyToStartContainers', { status: view.sandboxReady ? 'True' : 'False' }],
    ['Initialized', { status: 'True' }],
    ['Ready', readyCondition(containersReady, pod.spec.readinessGates, current.conditions)],
    ['ContainersReady', containersReady],
  ];
  const existing: Condition[] = current.conditions ?? [];
  const conditions = ours.map(([type, value]) => {
    const old = findCondition(existing, type);
    return {
      type,
      status: value.status,
      lastProbeTime: null,
      lastTransitionTime: old?.status === value.status ? old.lastTransitionTime : rfc3339(now),
      ...(value.reason ? { reason: value.reason } : {}),
      ...(value.message ? { message: value.message } : {}),
    };
  });
  const others = existing.filter((c) => !ours.some(([type]) => type === c.type));
  return { ...current, ...view.fields, conditions: [...conditions, ...others] };
}

export function idle(c: Container) {
  return {
    name: c.name,
    state: {},
    lastState: {},
    ready: false,
    restartCount: 0,
    image: c.image,
    imageID: '',
    started: false,
  };
}

export function podFields(ctx: KubeletContext, phase: string, sandboxReady: boolean, containerStatuses: object[]) {
  return {
    phase,
    hostIP: ctx.hostIP,
    hostIPs: [{ ip: ctx.hostIP }],
    startTime: rfc3339(ctx.seenAt),
    ...(sandboxReady && ctx.podIP ? { podIP: ctx.podIP, podIPs: [{ ip: ctx.podIP }] } : {}),
    containerStatuses,
  };
}
