// The status the kubelet writes for a pod whose containers the lab really runs: each container's state from its
// process (running since it started, terminated with the exit code it ended with, waiting in back-off before a
// restart), its readiness from its probe, and the pod's phase as the kubelet's getPhase decides it (Running while
// a container runs; once every container ended for good, Succeeded when all exited 0, else Failed). A container of
// an image the lab does not run has no process: it runs and is ready from its start until the pod stops, as
// outside the lab. Pure.
import { type Obj, rfc3339 } from '../common.ts';
import { containerID, imageID } from '../images.ts';
import { idle, type KubeletContext, type KubeletView, podFields } from '../kubelet-status.ts';

export type Terminated = { exitCode: number; startedAt: number; finishedAt: number };

export type ContainerRun = {
  name: string;
  /** restarts so far (the kubelet's restartCount) */
  restarts: number;
  state: 'running' | 'exited' | 'backoff';
  startedAt: number;
  ready: boolean;
  /** the attempt that ended (state exited), or the one before a restart */
  ended?: Terminated;
  /** state backoff: the kubelet's CrashLoopBackOff message */
  backoffMessage?: string;
};

type Container = { name: string; image: string };

const reasonOf = (code: number) => (code === 0 ? 'Completed' : 'Error');

function terminated(t: Terminated, id: string) {
  return {
    exitCode: t.exitCode,
    reason: reasonOf(t.exitCode),
    startedAt: rfc3339(t.startedAt),
    finishedAt: rfc3339(t.finishedAt),
    containerID: id,
  };
}

/** One run per container of the pod (a container not started yet is still being created). */
export function runtimeView(pod: Obj, ctx: KubeletContext, runs: Map<string, ContainerRun>): KubeletView {
  const uid = pod.metadata.uid ?? '';
  const containers: Container[] = pod.spec.containers;
  const statuses = containers.map((c) => {
    const run = runs.get(c.name);
    const base = { ...idle(c), imageID: imageID(c.image) };
    if (!run) return { ...idle(c), state: { waiting: { reason: 'ContainerCreating' } } };
    const id = containerID(uid, c.name, run.restarts);
    const previous = run.state === 'exited' ? undefined : run.ended;
    const lastState = previous
      ? { terminated: terminated(previous, containerID(uid, c.name, Math.max(0, run.restarts - 1))) }
      : {};
    if (run.state === 'exited' && run.ended)
      return {
        ...base,
        restartCount: run.restarts,
        lastState,
        state: { terminated: terminated(run.ended, id) },
        ready: false,
        started: false,
        containerID: id,
      };
    if (run.state === 'backoff') {
      return {
        ...base,
        restartCount: run.restarts,
        lastState,
        state: { waiting: { reason: 'CrashLoopBackOff', message: run.backoffMessage ?? '' } },
        ready: false,
        started: false,
        containerID: id,
      };
    }
    return {
      ...base,
      restartCount: run.restarts,
      lastState,
      state: { running: { startedAt: rfc3339(run.startedAt) } },
      ready: run.ready,
      started: true,
      containerID: id,
    };
  });
  const ran = [...runs.values()];
  const allEnded = containers.every((c) => runs.get(c.name)?.state === 'exited');
  const phase = allEnded ? (ran.every((r) => r.ended?.exitCode === 0) ? 'Succeeded' : 'Failed') : 'Running';
  return { fields: podFields(ctx, phase, !allEnded, statuses), sandboxReady: !allEnded, events: [] };
}

/** The kubelet's restart back-off: 10 s doubling to 5 minutes (pkg/kubelet/kuberuntime, backOffPeriod/MaxContainerBackOff). */
export function backoffMs(restarts: number): number {
  return Math.min(10_000 * 2 ** Math.max(0, restarts - 1), 300_000);
}

/** Whether the kubelet restarts a container that exited with `code` under the pod's restartPolicy. */
export function restarts(policy: string | undefined, code: number): boolean {
  if (policy === 'Never') return false;
  if (policy === 'OnFailure') return code !== 0;
  return true;
}
