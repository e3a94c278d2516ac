// The node stand-in: acts as the kubelet of the fake nodes for every pod bound to them — writes the status the
// kubelet would write (kubelet-status.ts), records its events, and finishes graceful deletion at the deadline.
// It never writes readiness gate conditions; it recomputes Ready whenever the pod changes. In the lab, a runtime
// (lab/runtime.ts) runs the pods whose images it knows for real; this file still writes what it decides.
import { isApiError } from '../../../src/kube/errors.ts';
import type { Kube } from '../kube.ts';
import { informerLog, jsonEqual, log, type Obj } from './common.ts';
import { EventRecorder } from './events.ts';
import { FAKE_NODES, type FakeNode, startFakeNodes } from './fake-nodes.ts';
import {
  exitedByItselfAt,
  kubeletView,
  nextPodStatus,
  podTrace,
  terminatedView,
  type KubeletView,
} from './kubelet-status.ts';
import type { PodRuntime } from './lab/runtime.ts';
import { Reconciler } from './reconciler.ts';

type PodState = { uid: string; seenAt: number; podIP?: string; deleteSent?: boolean };

export async function runNodeStandIn(kube: Kube, signal: AbortSignal, runtime?: PodRuntime): Promise<void> {
  await startFakeNodes(kube, signal);
  const states = new Map<string, PodState>();
  const recorders = new Map(FAKE_NODES.map((n) => [n.name, new EventRecorder(kube, 'kubelet', n.name)]));
  const nextHost = new Map(FAKE_NODES.map((n) => [n.name, 2]));

  const allocateIP = (node: FakeNode): string => {
    const used = new Set([
      ...informer.items().map((p) => p.status?.podIP),
      ...[...states.values()].map((s) => s.podIP),
    ]);
    for (let i = 0; i < 253; i++) {
      const host = nextHost.get(node.name)!;
      nextHost.set(node.name, host >= 254 ? 2 : host + 1);
      const ip = `10.244.${node.subnet}.${host}`;
      if (!used.has(ip)) return ip;
    }
    throw new Error(`node ${node.name}: no free pod IP`);
  };

  const writeStatus = async (pod: Obj, view: KubeletView, now: number): Promise<void> => {
    const status = nextPodStatus(pod, view, now);
    if (jsonEqual(pod.status, status)) return;
    const { namespace, name } = pod.metadata;
    try {
      await kube.request('PUT', `${await kube.path('v1', 'Pod', namespace, name)}/status`, { ...pod, status });
    } catch (error) {
      // A stale cache (409): the watch brings the newer pod and triggers another pass. A gone pod: nothing to do.
      if (!isApiError(error, 'Conflict') && !isApiError(error, 'NotFound')) throw error;
    }
  };

  const reconcile = async (key: string): Promise<number | undefined> => {
    const pod = informer.get(key);
    const node = FAKE_NODES.find((n) => n.name === pod?.spec.nodeName);
    const previous = states.get(key);
    if (!pod || !node || previous?.uid !== pod.metadata.uid) {
      if (previous) for (const r of recorders.values()) r.forget(previous.uid);
      if (previous) runtime?.forget(key);
      states.delete(key);
      if (!pod || !node) return undefined;
    }
    const terminal = pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed';
    if (terminal && !pod.metadata.deletionTimestamp) return undefined;
    const now = Date.now();
    const startTime = pod.status?.startTime ? Date.parse(pod.status.startTime) : now;
    const state: PodState = states.get(key) ?? { uid: pod.metadata.uid!, seenAt: startTime, podIP: pod.status?.podIP };
    states.set(key, state);
    if (!state.podIP && now >= state.seenAt + podTrace(pod).startDelayMs) state.podIP = allocateIP(node);
    const ctx = { now, seenAt: state.seenAt, hostIP: node.ip, podIP: state.podIP };
    if (runtime && state.podIP && runtime.runs(pod)) {
      return runtime.reconcile(key, pod, ctx, {
        show: (view) => show(pod, view, now, node),
        remove: async () => {
          await kube.delete('v1', 'Pod', pod.metadata.name, pod.metadata.namespace, {
            gracePeriodSeconds: 0,
            uid: pod.metadata.uid!,
          });
          state.deleteSent = true;
        },
      });
    }

    let deadline: number | undefined;
    if (pod.metadata.deletionTimestamp) {
      // the end of grace, or earlier when the app exits on SIGTERM after its preStop hook
      deadline = Math.min(Date.parse(pod.metadata.deletionTimestamp), exitedByItselfAt(pod) ?? Infinity);
      if (now >= deadline) {
        if (state.deleteSent) return undefined;
        await writeStatus(pod, terminatedView(pod, ctx), now);
        // As the kubelet's status manager: delete with grace 0 once the containers are gone. A pod with
        // finalizers stays Terminating until someone removes them.
        await kube.delete('v1', 'Pod', pod.metadata.name, pod.metadata.namespace, {
          gracePeriodSeconds: 0,
          uid: pod.metadata.uid!,
        });
        state.deleteSent = true;
        return undefined;
      }
      if (terminal) return deadline;
    }
    const view = kubeletView(pod, ctx);
    await show(pod, view, now, node);
    return deadline === undefined ? view.wakeAt : Math.min(view.wakeAt ?? deadline, deadline);
  };

  /**
   * Records a view's events, then writes its status, as the kubelet's recorder and status manager do: the kubelet
   * records an event in the sync that causes it (killContainer records Killing before it stops the container,
   * pkg/kubelet/kuberuntime/kuberuntime_container.go), while the status manager writes the pod's status after the
   * sync (pkg/kubelet/status/status_manager.go), so a reader that sees the new status can find its event.
   */
  const show = async (pod: Obj, view: KubeletView, now: number, node: FakeNode): Promise<void> => {
    const { namespace, name, uid } = pod.metadata;
    for (const event of view.events) {
      const involved = {
        apiVersion: 'v1',
        kind: 'Pod',
        namespace: namespace!,
        name,
        uid: uid!,
        fieldPath: event.fieldPath,
      };
      await recorders.get(node.name)!.record(involved, event);
    }
    await writeStatus(pod, view, now);
  };

  const reconciler = new Reconciler('node', reconcile);
  runtime?.attach((key) => reconciler.enqueue(key));
  signal.addEventListener('abort', () => reconciler.stop(), { once: true });
  const informer = await kube.informer<Obj>(
    'v1',
    'Pod',
    {},
    { onObject: (key) => reconciler.enqueue(key), onError: informerLog('node: pods') },
    signal,
  );
  await informer.whenSynced;
  log('node', `nodes ${FAKE_NODES.map((n) => n.name).join(', ')} ready`);
}
