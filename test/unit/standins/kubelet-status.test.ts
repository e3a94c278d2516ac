import { describe, expect, it } from 'vitest';
import type { Obj } from '../../cluster/standins/common.ts';
import {
  exitedByItselfAt,
  goDuration,
  kubeletView,
  nextPodStatus,
  podTrace,
  terminatedView,
} from '../../cluster/standins/kubelet-status.ts';

const GATE = 'haproxy-haptic.org/load-balancer-ready';
const T0 = Date.parse('2026-01-01T00:00:00Z');

function pod(annotations: Record<string, string> = {}, status: object = {}): Obj {
  return {
    metadata: { name: 'web-1', namespace: 'ns', uid: 'u1', annotations },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }], readinessGates: [{ conditionType: GATE }] },
    status: {
      conditions: [
        { type: 'PodScheduled', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', lastProbeTime: null },
      ],
      ...status,
    },
  };
}
const ctx = (now: number) => ({ now, seenAt: T0, hostIP: '172.18.0.2', podIP: '10.244.1.7' });
const cond = (status: Record<string, any>, type: string) =>
  status.conditions.find((c: { type: string }) => c.type === type);

describe('podTrace', () => {
  it.each([
    [{}, 'healthy', 300],
    [{ 'standin.kubectl-haptic.dev/containers-ready': 'false' }, 'unready', 300],
    [
      { 'standin.kubectl-haptic.dev/fail': 'crash-loop', 'standin.kubectl-haptic.dev/start-delay-ms': '50' },
      'crash-loop',
      50,
    ],
    [{ 'standin.kubectl-haptic.dev/fail': 'liveness-probe' }, 'liveness-probe', 300],
    [{ 'standin.kubectl-haptic.dev/fail': 'bogus' }, 'healthy', 300],
  ])('%o', (annotations, trace, startDelayMs) => {
    expect(podTrace(pod(annotations))).toEqual({ trace, startDelayMs });
  });
});

describe('kubeletView + nextPodStatus', () => {
  it('is Pending with ContainerCreating before the start delay, without a pod IP', () => {
    const view = kubeletView(pod(), ctx(T0 + 100));
    const status = nextPodStatus(pod(), view, T0 + 100);
    expect(status.phase).toBe('Pending');
    expect(status.podIP).toBeUndefined();
    expect(status.containerStatuses[0].state).toEqual({ waiting: { reason: 'ContainerCreating' } });
    expect(cond(status, 'PodReadyToStartContainers').status).toBe('False');
    expect(view.wakeAt).toBe(T0 + 300);
  });

  it('is Running with ContainersReady and waits for the gate, keeping PodScheduled', () => {
    const status = nextPodStatus(pod(), kubeletView(pod(), ctx(T0 + 400)), T0 + 400);
    expect(status).toMatchObject({
      phase: 'Running',
      podIP: '10.244.1.7',
      hostIP: '172.18.0.2',
      startTime: '2026-01-01T00:00:00Z',
    });
    expect(status.containerStatuses[0]).toMatchObject({
      ready: true,
      started: true,
      restartCount: 0,
      state: { running: { startedAt: '2026-01-01T00:00:00Z' } },
    });
    expect(cond(status, 'ContainersReady').status).toBe('True');
    expect(cond(status, 'Ready')).toMatchObject({ status: 'False', reason: 'ReadinessGatesNotReady' });
    expect(status.conditions.map((c: { type: string }) => c.type)).toEqual([
      'PodReadyToStartContainers',
      'Initialized',
      'Ready',
      'ContainersReady',
      'PodScheduled',
    ]);
  });

  it('turns Ready once the gate condition is True, keeping lastTransitionTime of unchanged conditions', () => {
    const first = nextPodStatus(pod(), kubeletView(pod(), ctx(T0 + 400)), T0 + 400);
    first.conditions.push({ type: GATE, status: 'True', lastTransitionTime: '2026-01-01T00:00:05Z' });
    const gated = pod({}, first);
    const later = T0 + 7000;
    const status = nextPodStatus(gated, kubeletView(gated, ctx(later)), later);
    expect(cond(status, 'Ready')).toEqual({
      type: 'Ready',
      status: 'True',
      lastProbeTime: null,
      lastTransitionTime: '2026-01-01T00:00:07Z',
    });
    expect(cond(status, 'ContainersReady').lastTransitionTime).toBe('2026-01-01T00:00:00Z');
    expect(cond(status, GATE).status).toBe('True');
  });

  it('holds containers unready without events', () => {
    const view = kubeletView(pod({ 'standin.kubectl-haptic.dev/containers-ready': 'false' }), ctx(T0 + 400));
    expect(view.events).toEqual([]);
    expect(view.fields.containerStatuses).toMatchObject([{ ready: false, started: true }]);
  });

  it('fails the readiness probe with a repeating Unhealthy event', () => {
    const view = kubeletView(pod({ 'standin.kubectl-haptic.dev/fail': 'readiness-probe' }), ctx(T0 + 300 + 25_000));
    expect(view.events).toEqual([
      {
        type: 'Warning',
        reason: 'Unhealthy',
        count: 3,
        fieldPath: 'spec.containers{app}',
        message: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
      },
    ]);
  });

  it('crash-loops with CrashLoopBackOff, lastState.terminated and a growing restart count', () => {
    const p = pod({
      'standin.kubectl-haptic.dev/fail': 'crash-loop',
      'standin.kubectl-haptic.dev/start-delay-ms': '0',
    });
    const first = kubeletView(p, ctx(T0 + 2000));
    expect(first.fields.containerStatuses).toMatchObject([
      {
        restartCount: 1,
        ready: false,
        started: false,
        state: {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: 'back-off 10s restarting failed container=app pod=web-1_ns(u1)',
          },
        },
        lastState: {
          terminated: {
            exitCode: 1,
            reason: 'Error',
            startedAt: '2026-01-01T00:00:00Z',
            finishedAt: '2026-01-01T00:00:01Z',
          },
        },
      },
    ]);
    expect(first.events).toMatchObject([
      { reason: 'BackOff', count: 1, message: 'Back-off restarting failed container app in pod web-1_ns(u1)' },
    ]);
    const third = kubeletView(p, ctx(T0 + 22_000));
    expect(third.fields.containerStatuses).toMatchObject([
      { restartCount: 3, state: { waiting: { message: expect.stringMatching(/^back-off 40s /) } } },
    ]);
  });

  it('fails the liveness probe: Unhealthy per failed probe, Killing, a restart with exit 137, running again at once', () => {
    const p = pod({
      'standin.kubectl-haptic.dev/fail': 'liveness-probe',
      'standin.kubectl-haptic.dev/start-delay-ms': '0',
    });
    p.spec.containers[0].livenessProbe = { failureThreshold: 2 };
    const before = kubeletView(p, ctx(T0 + 5000));
    expect(before.events).toEqual([]);
    expect(before.fields.containerStatuses).toMatchObject([
      { restartCount: 0, ready: true, state: { running: { startedAt: '2026-01-01T00:00:00Z' } }, lastState: {} },
    ]);
    expect(before.wakeAt).toBe(T0 + 6000);
    const second = kubeletView(p, ctx(T0 + 17_000));
    expect(second.fields.containerStatuses).toMatchObject([
      {
        restartCount: 2,
        ready: true,
        started: true,
        state: { running: { startedAt: '2026-01-01T00:00:16Z' } },
        lastState: {
          terminated: {
            exitCode: 137,
            reason: 'Error',
            startedAt: '2026-01-01T00:00:06Z',
            finishedAt: '2026-01-01T00:00:16Z',
          },
        },
      },
    ]);
    expect(second.events).toEqual([
      {
        type: 'Warning',
        reason: 'Unhealthy',
        count: 4,
        fieldPath: 'spec.containers{app}',
        message: 'Liveness probe failed: HTTP probe failed with statuscode: 503',
      },
      {
        type: 'Normal',
        reason: 'Killing',
        count: 2,
        fieldPath: 'spec.containers{app}',
        message: 'Container app failed liveness probe, will be restarted',
      },
    ]);
    expect(second.wakeAt).toBe(T0 + 26_000);
  });

  it('a container restarted by its liveness probe is unready until its readiness probe passes again', () => {
    const p = pod({
      'standin.kubectl-haptic.dev/fail': 'liveness-probe',
      'standin.kubectl-haptic.dev/start-delay-ms': '0',
    });
    p.spec.containers[0].readinessProbe = { periodSeconds: 3 };
    expect(kubeletView(p, ctx(T0 + 5000)).fields.containerStatuses).toMatchObject([{ ready: true }]);
    const killed = kubeletView(p, ctx(T0 + 7000));
    expect(killed.fields.containerStatuses).toMatchObject([{ restartCount: 1, ready: false }]);
    expect(killed.wakeAt).toBe(T0 + 9000);
    expect(kubeletView(p, ctx(T0 + 9000)).fields.containerStatuses).toMatchObject([{ restartCount: 1, ready: true }]);
    // the default period (10 s) outlasts the 10 s between kills: never ready again
    p.spec.containers[0].readinessProbe = {};
    expect(kubeletView(p, ctx(T0 + 15_900)).fields.containerStatuses).toMatchObject([{ ready: false }]);
  });

  it('fails to pull the image: ErrImagePull, then ImagePullBackOff, Pending', () => {
    const p = pod({
      'standin.kubectl-haptic.dev/fail': 'image-pull',
      'standin.kubectl-haptic.dev/start-delay-ms': '0',
    });
    const pulling = kubeletView(p, ctx(T0 + 500));
    expect(pulling.fields.phase).toBe('Pending');
    expect(pulling.fields.containerStatuses).toMatchObject([{ state: { waiting: { reason: 'ErrImagePull' } } }]);
    expect(pulling.events).toMatchObject([
      { reason: 'Failed', message: expect.stringMatching(/^Failed to pull image "nginx:1.27": rpc error: /) },
    ]);
    const backingOff = kubeletView(p, ctx(T0 + 3000));
    expect(backingOff.fields.containerStatuses).toMatchObject([{ state: { waiting: { reason: 'ImagePullBackOff' } } }]);
    expect(backingOff.events.map((e) => [e.reason, e.message])).toContainEqual([
      'BackOff',
      'Back-off pulling image "nginx:1.27"',
    ]);
  });

  it('ends terminal after the grace period (containers exited, PodCompleted)', () => {
    const running = pod({}, nextPodStatus(pod(), kubeletView(pod(), ctx(T0 + 400)), T0 + 400));
    const status = nextPodStatus(running, terminatedView(running, ctx(T0 + 60_000)), T0 + 60_000);
    expect(status.phase).toBe('Succeeded');
    expect(status.podIP).toBe('10.244.1.7');
    expect(status.containerStatuses[0].state.terminated).toMatchObject({
      exitCode: 0,
      reason: 'Completed',
      startedAt: '2026-01-01T00:00:00Z',
    });
    expect(cond(status, 'Ready')).toMatchObject({ status: 'False', reason: 'PodCompleted' });
  });
});

describe('exitedByItselfAt', () => {
  const deleted = (annotations: Record<string, string>, containers: object[]): Obj => ({
    metadata: {
      name: 'web-1',
      annotations,
      deletionTimestamp: '2026-01-01T00:00:10Z',
      deletionGracePeriodSeconds: 10,
    },
    spec: { containers },
  });
  it('an app that exits on SIGTERM: after the longest preStop sleep, counted from the deletion request', () => {
    const pod = deleted({ 'standin.kubectl-haptic.dev/exit-on-sigterm-ms': '300' }, [
      { name: 'app', lifecycle: { preStop: { sleep: { seconds: 3 } } } },
      { name: 'sidecar', lifecycle: { preStop: { sleep: { seconds: 1 } } } },
    ]);
    expect(exitedByItselfAt(pod)).toBe(T0 + 3300);
  });
  it('no preStop: at once after the signal; an app that ignores SIGTERM, or a pod not deleted: never by itself', () => {
    expect(exitedByItselfAt(deleted({ 'standin.kubectl-haptic.dev/exit-on-sigterm-ms': '0' }, [{ name: 'a' }]))).toBe(
      T0,
    );
    expect(exitedByItselfAt(deleted({}, [{ name: 'a' }]))).toBeUndefined();
    expect(
      exitedByItselfAt({
        metadata: { name: 'p', annotations: { 'standin.kubectl-haptic.dev/exit-on-sigterm-ms': '0' } },
        spec: { containers: [{ name: 'a' }] },
      }),
    ).toBeUndefined();
  });
});

it('formats back-off durations like Go', () => {
  expect([10, 20, 40, 80, 160, 300].map(goDuration)).toEqual(['10s', '20s', '40s', '1m20s', '2m40s', '5m0s']);
});
