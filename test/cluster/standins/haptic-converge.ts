// The pure decisions of the HAPTIC stand-in: what a deploy to one HAProxy pod leaves in its deployedToPods entry,
// and which gated pods may get the readiness condition (routed by the config EVERY live HAProxy pod runs).
import { type Condition, GATE_CONDITION } from './common.ts';
import { routedPods } from './haproxy-render.ts';

export type DeployEntry = {
  podName: string;
  podUID: string;
  podRuntimeID: string;
  checksum?: string;
  appliedPlanID?: string;
  runningPlanID?: string;
  mode?: string;
  reasons?: string[];
  lastError?: string;
  consecutiveErrors: number;
  observedGeneration: number;
};

/** One accepted render: what HAProxy pods are asked to run. */
export type Render = { checksum: string; content: string; generation: number; planID: string };

export type HAProxyPod = { name: string; uid: string; runtimeID: string };

export function planID(generation: number, checksum: string): string {
  return `plan-${generation}-${checksum.slice('sha256:'.length, 'sha256:'.length + 8)}`;
}

/** Lines that a runtime API update cannot change: everything but server lines and their comments. */
const structure = (content: string) => content.split('\n').filter((l) => !/^\s+(server |# Pod: )/.test(l)).join('\n');

/** How HAProxy takes the change: servers only → runtime API; anything structural → reload. */
export function deployMode(previous: string | undefined, next: string): { mode: string; reasons: string[] } {
  if (previous === undefined) return { mode: 'reload', reasons: ['initial configuration'] };
  if (structure(previous) === structure(next)) return { mode: 'runtime', reasons: ['server changes applied through the runtime API'] };
  return { mode: 'reload', reasons: ['configuration structure changed'] };
}

/** The entry after a deploy attempt of `render` to `pod`; `previousContent` is what the pod ran before. */
export function deployOutcome(
  entry: DeployEntry | undefined,
  pod: HAProxyPod,
  render: Render,
  previousContent: string | undefined,
  error: string | undefined,
): DeployEntry {
  const base = { ...entry, podName: pod.name, podUID: pod.uid, podRuntimeID: pod.runtimeID };
  if (error !== undefined) {
    return { ...base, lastError: error, consecutiveErrors: (entry?.consecutiveErrors ?? 0) + 1, observedGeneration: entry?.observedGeneration ?? 0 };
  }
  const { lastError: _cleared, ...rest } = base;
  return {
    ...rest,
    ...deployMode(previousContent, render.content),
    checksum: render.checksum,
    appliedPlanID: render.planID,
    runningPlanID: render.planID,
    consecutiveErrors: 0,
    observedGeneration: render.generation,
  };
}

/**
 * The gated pods (`namespace/name`) that every live HAProxy pod now routes to: each one's deployed checksum is a
 * known render whose config has the pod's server enabled. No live HAProxy pod → nobody routes → none.
 */
export function podsRoutedEverywhere(
  candidates: string[],
  liveHAProxyPods: string[],
  deployed: Map<string, DeployEntry>,
  renders: Map<string, Render>,
): string[] {
  if (liveHAProxyPods.length === 0) return [];
  const routing = liveHAProxyPods.map((name) => {
    const render = renders.get(deployed.get(name)?.checksum ?? '');
    return render ? routedPods(render.content) : new Set<string>();
  });
  return candidates.filter((pod) => routing.every((routed) => routed.has(pod)));
}

export function gateCondition(installation: string, existing: Condition | undefined, now: string): Condition {
  return {
    type: GATE_CONDITION,
    status: 'True',
    reason: 'RoutedByAllHAProxyPods',
    message: `every HAProxy pod of ${installation} runs a configuration that routes to this pod`,
    lastTransitionTime: existing?.status === 'True' && existing.lastTransitionTime ? existing.lastTransitionTime : now,
  };
}

/**
 * Whether to (re)write the condition: missing or not True; or True but written by another installation (its
 * message differs) for `fightIntervalMs` already — so two installations keep overwriting each other, each
 * version living about that long.
 */
export function needsGateWrite(existing: Condition | undefined, ours: Condition, foreignForMs: number, fightIntervalMs: number): boolean {
  if (existing?.status !== 'True') return true;
  return existing.message !== ours.message && foreignForMs >= fightIntervalMs;
}
