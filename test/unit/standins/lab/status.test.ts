import { describe, expect, it } from 'vitest';
import type { Obj } from '../../../cluster/standins/common.ts';
import { backoffMs, type ContainerRun, restarts, runtimeView } from '../../../cluster/standins/lab/status.ts';

const T0 = Date.parse('2026-03-01T10:00:00Z');
const pod: Obj = {
  metadata: { name: 'web-1', namespace: 'shop', uid: 'u1' },
  spec: {
    containers: [
      { name: 'app', image: 'lab.kubectl-haptic.dev/http-server:1' },
      { name: 'agent', image: 'x/agent:1' },
    ],
  },
};
const ctx = { now: T0 + 5000, seenAt: T0, hostIP: '172.18.0.2', podIP: '10.244.1.5' };
const runs = (app: Partial<ContainerRun>) =>
  new Map<string, ContainerRun>([
    ['app', { name: 'app', restarts: 0, state: 'running', startedAt: T0 + 1000, ready: false, ...app }],
    ['agent', { name: 'agent', restarts: 0, state: 'running', startedAt: T0 + 1000, ready: true }],
  ]);

describe('runtimeView', () => {
  it('reports running containers with the readiness their probes decided', () => {
    const view = runtimeView(pod, ctx, runs({ ready: false }));
    expect(view.fields.phase).toBe('Running');
    expect(view.fields.podIP).toBe('10.244.1.5');
    const [app, agent] = view.fields.containerStatuses as { ready: boolean; state: object }[];
    expect(app).toMatchObject({
      ready: false,
      started: true,
      state: { running: { startedAt: '2026-03-01T10:00:01Z' } },
    });
    expect(agent).toMatchObject({ ready: true });
  });

  it('reports the exit code of a container that ended, and the previous attempt of one in back-off', () => {
    const ended = runtimeView(
      pod,
      ctx,
      runs({
        state: 'backoff',
        restarts: 1,
        ended: { exitCode: 1, startedAt: T0 + 1000, finishedAt: T0 + 2000 },
        backoffMessage: 'back-off 10s restarting failed container=app pod=web-1_shop(u1)',
      }),
    );
    const [app] = ended.fields.containerStatuses as Record<string, any>[];
    expect(app!.state).toEqual({
      waiting: {
        reason: 'CrashLoopBackOff',
        message: 'back-off 10s restarting failed container=app pod=web-1_shop(u1)',
      },
    });
    expect(app!.lastState.terminated).toMatchObject({
      exitCode: 1,
      reason: 'Error',
      finishedAt: '2026-03-01T10:00:02Z',
    });
    expect(app!.restartCount).toBe(1);
  });

  it('is Succeeded once every container exited 0, Failed when one did not, Running while one runs', () => {
    const exited = (code: number): ContainerRun => ({
      name: '',
      restarts: 0,
      state: 'exited',
      startedAt: T0,
      ready: false,
      ended: { exitCode: code, startedAt: T0, finishedAt: T0 + 3000 },
    });
    const all = (a: number, b: number) =>
      new Map([
        ['app', { ...exited(a), name: 'app' }],
        ['agent', { ...exited(b), name: 'agent' }],
      ]);
    expect(runtimeView(pod, ctx, all(0, 0)).fields.phase).toBe('Succeeded');
    expect(runtimeView(pod, ctx, all(137, 0)).fields.phase).toBe('Failed');
    expect(
      (runtimeView(pod, ctx, all(137, 0)).fields.containerStatuses as Record<string, any>[])[0]!.state.terminated,
    ).toMatchObject({ exitCode: 137, reason: 'Error' });
    expect(runtimeView(pod, ctx, runs({})).fields.phase).toBe('Running');
  });
});

describe('restarts and back-off', () => {
  it('follows restartPolicy', () => {
    expect([
      restarts('Always', 0),
      restarts(undefined, 0),
      restarts('OnFailure', 0),
      restarts('OnFailure', 2),
      restarts('Never', 1),
    ]).toEqual([true, true, false, true, false]);
  });
  it('doubles from 10 s to 5 minutes', () => {
    expect([1, 2, 3, 6, 7, 20].map(backoffMs)).toEqual([10_000, 20_000, 40_000, 300_000, 300_000, 300_000]);
  });
});
