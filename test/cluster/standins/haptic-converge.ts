// The pure decisions of the HAPTIC stand-in: what a deploy to one HAProxy pod leaves in its deployedToPods entry,
// and which gated pods may get the readiness condition (routed by the config EVERY live HAProxy pod runs, its
// reload done).
import { type Condition, GATE_CONDITION } from './common.ts';
import { routedPods } from './haproxy-render.ts';
import type { StatusShape } from './knobs.ts';

/**
 * One HAProxy pod's deployedToPods entry, in either generation's shape (haptic-crds.ts has the schemas): the agent
 * generation's pod identity, plan IDs, mode and reasons, or the dataplane generation's sync telemetry. No
 * observedGeneration: no released CRD has one.
 */
export type DeployEntry = {
  podName: string;
  checksum?: string;
  lastError?: string;
  consecutiveErrors: number;
  // agent generation
  podUID?: string;
  podRuntimeID?: string;
  appliedPlanID?: string;
  runningPlanID?: string;
  mode?: string;
  reasons?: string[];
  // dataplane generation
  deployedAt?: string;
  lastReloadAt?: string;
  lastReloadID?: string;
  syncDuration?: string;
  versionConflictRetries?: number;
  fallbackUsed?: boolean;
  lastOperationSummary?: Record<string, number>;
  lastErrorAt?: string;
};

/** One accepted render: what HAProxy pods are asked to run. */
export type Render = { checksum: string; content: string; generation: number; planID: string };

export type HAProxyPod = { name: string; uid: string; runtimeID: string };

/** Plan IDs are opaque strings to HAPTIC's readers (their format is not published); this one names the render. */
export function planID(generation: number, checksum: string): string {
  return `plan-${generation}-${checksum.slice(0, 8)}`;
}

/** Lines that a runtime API update cannot change: everything but server lines and their comments. */
const structure = (content: string) => content.split('\n').filter((l) => !/^\s+(server |# Pod: )/.test(l)).join('\n');

/**
 * How HAProxy takes the change: servers only → runtime API; anything structural → reload, as HAPTIC's comparator
 * counts them (pkg/dataplane/comparator/diff.go, StructuralOperations: server modifications are runtime-eligible).
 * Written as the agent generation's deployedToPods[].mode and free-text reasons (HAPTIC's
 * pkg/apis/haproxytemplate/v1alpha1/types_haproxycfg.go and docs/controller/docs/crd-reference.md; the fields as
 * docs/haptic-compat.md records them).
 */
export function deployMode(previous: string | undefined, next: string): { mode: string; reasons: string[] } {
  if (previous === undefined) return { mode: 'reload', reasons: ['initial configuration'] };
  if (structure(previous) === structure(next)) return { mode: 'runtime', reasons: ['server changes applied through the runtime API'] };
  return { mode: 'reload', reasons: ['configuration structure changed'] };
}

/**
 * The entry after a deploy attempt of `render` to `pod`; `previousContent` is what the pod ran before. On an error
 * the last good checksum stays and the error is recorded. Agent shape: a reload leaves runningPlanID on the old plan
 * until the reload is done (finishReload); dataplane shape: telemetry of the sync, deployedAt only when it changed
 * something (workers.go updates it only then).
 */
export function deployOutcome(
  entry: DeployEntry | undefined,
  pod: HAProxyPod,
  render: Render,
  previousContent: string | undefined,
  error: string | undefined,
  shape: StatusShape,
  now: string,
  /** how the agent applied it, when it says so (the lab's agent reloads for every change) */
  applied?: { mode: string; reasons: string[] },
): DeployEntry {
  if (shape === 'dataplane') return dataplaneOutcome(entry, pod, render, previousContent, error, now);
  const base: DeployEntry = { ...agentFields(entry), podName: pod.name, podUID: pod.uid, podRuntimeID: pod.runtimeID, consecutiveErrors: entry?.consecutiveErrors ?? 0 };
  if (error !== undefined) return { ...base, lastError: error, consecutiveErrors: (entry?.consecutiveErrors ?? 0) + 1 };
  const { lastError: _cleared, ...rest } = base;
  const how = applied ?? deployMode(previousContent, render.content);
  return {
    ...rest,
    ...how,
    checksum: render.checksum,
    appliedPlanID: render.planID,
    runningPlanID: how.mode === 'reload' ? (entry?.runningPlanID ?? render.planID) : render.planID,
    consecutiveErrors: 0,
  };
}

/** The agent reports the reload done: the running HAProxy serves the applied plan. */
export function finishReload(entry: DeployEntry): DeployEntry {
  return { ...entry, runningPlanID: entry.appliedPlanID };
}

/** Whether a pod's deploy has settled (HAPTIC's confirmsOutput: the running plan is the applied one, no error). */
export function settled(entry: DeployEntry | undefined): boolean {
  if (!entry?.checksum) return false;
  if (entry.appliedPlanID !== undefined && entry.runningPlanID !== entry.appliedPlanID) return false;
  return entry.mode !== 'rejected' && entry.mode !== 'scheduled';
}

function agentFields(entry: DeployEntry | undefined): Partial<DeployEntry> {
  if (!entry) return {};
  const { podUID, podRuntimeID, checksum, appliedPlanID, runningPlanID, mode, reasons, lastError } = entry;
  return Object.fromEntries(Object.entries({ podUID, podRuntimeID, checksum, appliedPlanID, runningPlanID, mode, reasons, lastError }).filter(([, v]) => v !== undefined));
}

function dataplaneOutcome(entry: DeployEntry | undefined, pod: HAProxyPod, render: Render, previousContent: string | undefined, error: string | undefined, now: string): DeployEntry {
  const { deployedAt, checksum, lastReloadAt, lastReloadID, syncDuration, lastOperationSummary, lastError, lastErrorAt } = entry ?? {};
  const kept = Object.fromEntries(Object.entries({ deployedAt, checksum, lastReloadAt, lastReloadID, syncDuration, lastOperationSummary, lastError, lastErrorAt }).filter(([, v]) => v !== undefined)) as Partial<DeployEntry>;
  // deployedAt is required by the dataplane CRD: a pod whose first sync fails gets the attempt's time
  const base: DeployEntry = { ...kept, podName: pod.name, deployedAt: deployedAt ?? now, versionConflictRetries: 0, fallbackUsed: false, consecutiveErrors: entry?.consecutiveErrors ?? 0 };
  if (error !== undefined) return { ...base, lastError: error, lastErrorAt: now, consecutiveErrors: (entry?.consecutiveErrors ?? 0) + 1 };
  const { lastError: _e, lastErrorAt: _t, ...rest } = base;
  const how = deployMode(previousContent, render.content);
  const servers = (c: string | undefined) => (c ?? '').split('\n').filter((l) => /^\s+server /.test(l)).length;
  const changed = previousContent !== render.content;
  return {
    ...rest,
    checksum: render.checksum,
    deployedAt: changed ? now : (deployedAt ?? now),
    syncDuration: '0.120s',
    ...(how.mode === 'reload' ? { lastReloadAt: now, lastReloadID: `reload-${render.checksum.slice(0, 8)}` } : {}),
    lastOperationSummary: { totalAPIOperations: changed ? 1 : 0, serversModified: changed ? Math.abs(servers(render.content) - servers(previousContent)) : 0 },
    consecutiveErrors: 0,
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
    const entry = deployed.get(name);
    const render = settled(entry) ? renders.get(entry!.checksum!) : undefined;
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
