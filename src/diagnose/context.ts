import type { KubeEvent, Pod, Service } from '../types/kube.ts';
import type { Installation } from '../model/haptic/haptic.ts';
import type { PodView } from '../model/rollout/pod.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import type { RolloutSnapshot } from '../types/snapshot.ts';
import { kindOf } from '../model/rollout/kinds/index.ts';

/** What the rules read: the model, plus the raw objects behind a few pieces of evidence (probes, selectors). */
export interface DiagnoseContext {
  model: RolloutModel;
  services: Service[];
  pods: Pod[];
  events: KubeEvent[];
  now: number;
}

export function diagnoseContext(snapshot: RolloutSnapshot, model: RolloutModel, now: number): DiagnoseContext {
  return { model, services: snapshot.services, pods: snapshot.pods, events: snapshot.events, now };
}

/**
 * Pods that hold the rollout: not Ready and not terminating. A Deployment's new pods; any of a StatefulSet's, whose
 * controller waits on a pod of whatever revision that is not Ready before it goes on (an older revision's, after a
 * rollback), in ordinal order.
 */
export function blockingPods(ctx: DiagnoseContext): PodView[] {
  const m = ctx.model;
  const pods = kindOf(m.workloadKind).oldPodsHold ? [...m.newPods, ...m.oldPods] : m.newPods;
  return pods.filter((p) => p.ready.status !== 'True' && !p.terminating);
}

/** Blocking pods whose containers are ready and that wait for the gate only. */
export function waitingForGate(ctx: DiagnoseContext): PodView[] {
  return blockingPods(ctx).filter(
    (p) => p.containersReady.status === 'True' && p.gate.state !== 'True' && p.gate.state !== 'not-gated',
  );
}

/** The installations that matter for these pods: those whose config routes them, else every installation. */
export function relevantInstallations(ctx: DiagnoseContext, pods: PodView[]): Installation[] {
  const routing = new Set(pods.flatMap((p) => p.haproxy.map((h) => h.installation)));
  const all = ctx.model.installations;
  const routed = all.filter((i) => routing.has(`${i.namespace}/${i.templateConfig}`));
  return routed.length ? routed : all;
}

/** The pods of a context by name, indexed once: rules look up many of a rollout's pods. */
const podIndex = new WeakMap<Pod[], Map<string, Pod>>();

export function rawPod(ctx: DiagnoseContext, name: string): Pod | undefined {
  let index = podIndex.get(ctx.pods);
  if (!index) {
    index = new Map();
    // the first pod of a name wins, as a search from the start would find it
    for (const p of ctx.pods) if (!index.has(p.metadata.name)) index.set(p.metadata.name, p);
    podIndex.set(ctx.pods, index);
  }
  return index.get(name);
}

/** Names a few pods and counts the rest, so a title stays one line with 300 replicas. */
export const podList = (pods: PodView[]) =>
  pods
    .slice(0, 3)
    .map((p) => p.name)
    .join(', ') + (pods.length > 3 ? ` and ${pods.length - 3} more` : '');
