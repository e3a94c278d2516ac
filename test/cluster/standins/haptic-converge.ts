// The pure decisions of the HAPTIC stand-in: what a deploy to one HAProxy pod leaves in its deployedToPods entry,
// and which gated pods may get the readiness condition (routed by the config EVERY live HAProxy pod runs, its
// reload done).
import { type Condition, GATE_CONDITION } from './common.ts';
import { routedAddresses } from './haproxy-render.ts';
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
  workerOpsPlanID?: string;
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

/**
 * One accepted render: what HAProxy pods are asked to run. `checksum` is the HAProxyCfg's spec.checksum,
 * `entryChecksum` what a deploy of it writes in deployedToPods[] when that differs (the dataplane generation at
 * HEAD: haproxy-render.ts, checksums).
 */
export type Render = { checksum: string; entryChecksum?: string; content: string; generation: number; planID: string };

/** The checksum a deploy of `render` records. */
export const entryChecksum = (render: Render): string => render.entryChecksum ?? render.checksum;

export type HAProxyPod = { name: string; uid: string; runtimeID: string };

/** Plan IDs are opaque strings to HAPTIC's readers (their format is not published); this one names the render. */
export function planID(generation: number, checksum: string): string {
  return `plan-${generation}-${checksum.slice(0, 8)}`;
}

/** Lines that a runtime API update cannot change: everything but server lines and their comments. */
const structure = (content: string) =>
  content
    .split('\n')
    .filter((l) => !/^\s+(server |# Pod: )/.test(l))
    .join('\n');

/**
 * How HAProxy takes the change: servers only → runtime API; anything structural → reload, as HAPTIC's comparator
 * counts them (pkg/dataplane/comparator/diff.go, StructuralOperations: server modifications are runtime-eligible).
 * Written as the agent generation's deployedToPods[].mode and free-text reasons (HAPTIC's
 * pkg/apis/haproxytemplate/v1alpha1/types_haproxycfg.go and docs/controller/docs/crd-reference.md; the fields as
 * docs/haptic-compat.md records them).
 */
export function deployMode(previous: string | undefined, next: string): { mode: string; reasons: string[] } {
  if (previous === undefined) return { mode: 'reload', reasons: ['initial configuration'] };
  if (structure(previous) === structure(next))
    return { mode: 'runtime', reasons: ['server changes applied through the runtime API'] };
  return { mode: 'reload', reasons: ['configuration structure changed'] };
}

/**
 * The entry after a deploy attempt of `render` to `pod`; `previousContent` is what the pod ran before. On an error
 * the agent generation keeps the last applied plan and its checksum and records the error; the dataplane generation
 * records the checksum it tried with the error. Agent shape: a reload leaves runningPlanID on the old plan
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
  const base: DeployEntry = {
    ...agentFields(entry),
    podName: pod.name,
    podUID: pod.uid,
    podRuntimeID: pod.runtimeID,
    consecutiveErrors: entry?.consecutiveErrors ?? 0,
  };
  if (error !== undefined) return { ...base, lastError: error, consecutiveErrors: (entry?.consecutiveErrors ?? 0) + 1 };
  const { lastError: _cleared, ...rest } = base;
  const how = applied ?? deployMode(previousContent, render.content);
  return {
    ...rest,
    ...how,
    checksum: entryChecksum(render),
    appliedPlanID: render.planID,
    runningPlanID: how.mode === 'reload' ? (entry?.runningPlanID ?? render.planID) : render.planID,
    consecutiveErrors: 0,
  };
}

/** The agent reports the reload done: the running HAProxy serves the applied plan. */
export function finishReload(entry: DeployEntry): DeployEntry {
  return { ...entry, runningPlanID: entry.appliedPlanID };
}

/**
 * Whether a pod's deploy has settled (HAPTIC's confirmsOutput: no error, the running plan — or the plan whose
 * runtime operations the worker applied — is the applied one, not scheduled or rejected).
 */
export function settled(entry: DeployEntry | undefined): boolean {
  if (!entry?.checksum || entry.lastError) return false;
  const running = entry.runningPlanID === entry.appliedPlanID || entry.workerOpsPlanID === entry.appliedPlanID;
  if (entry.appliedPlanID !== undefined && !running) return false;
  return entry.mode !== 'rejected' && entry.mode !== 'scheduled';
}

export type AgentMode = 'scheduled' | 'rejected' | 'noop' | 'file_only';

/**
 * What the agent reports for a deploy in one of its other modes (the agentMode knob): the agent generation's
 * deployedToPods[].mode enum and workerOpsPlanID (pkg/apis/haproxytemplate/v1alpha1/types_haproxycfg.go, as
 * docs/haptic-compat.md records it). `before` is the entry before this deploy.
 * - scheduled: the plan is accepted and a reload queued; the running plan stays the previous one;
 * - rejected: the agent refused the plan; the running plan stays the previous one;
 * - noop: nothing to change; the pod runs the plan;
 * - file_only: the file is written and the worker applied the plan's runtime operations (workerOpsPlanID) while the
 *   running plan stays the previous one.
 */
export function agentReport(entry: DeployEntry, before: DeployEntry | undefined, mode: AgentMode): DeployEntry {
  const previous = before?.runningPlanID;
  const { runningPlanID: _r, workerOpsPlanID: _w, ...rest } = entry;
  const keep = previous === undefined ? {} : { runningPlanID: previous };
  switch (mode) {
    case 'scheduled':
      return { ...rest, ...keep, mode, reasons: ['a reload is queued behind the one in progress'] };
    case 'rejected':
      return { ...rest, ...keep, mode, reasons: ['the agent refused the plan'] };
    case 'noop':
      return {
        ...rest,
        runningPlanID: entry.appliedPlanID!,
        mode,
        reasons: ['the pod already runs this configuration'],
      };
    case 'file_only':
      return {
        ...rest,
        ...keep,
        workerOpsPlanID: entry.appliedPlanID!,
        mode,
        reasons: ['written to the config file; server changes applied through the runtime API'],
      };
  }
}

function agentFields(entry: DeployEntry | undefined): Partial<DeployEntry> {
  if (!entry) return {};
  const { podUID, podRuntimeID, checksum, appliedPlanID, runningPlanID, mode, reasons, lastError } = entry;
  return Object.fromEntries(
    Object.entries({ podUID, podRuntimeID, checksum, appliedPlanID, runningPlanID, mode, reasons, lastError }).filter(
      ([, v]) => v !== undefined,
    ),
  );
}

function dataplaneOutcome(
  entry: DeployEntry | undefined,
  pod: HAProxyPod,
  render: Render,
  previousContent: string | undefined,
  error: string | undefined,
  now: string,
): DeployEntry {
  const {
    deployedAt,
    checksum,
    lastReloadAt,
    lastReloadID,
    syncDuration,
    lastOperationSummary,
    lastError,
    lastErrorAt,
  } = entry ?? {};
  const kept = Object.fromEntries(
    Object.entries({
      deployedAt,
      checksum,
      lastReloadAt,
      lastReloadID,
      syncDuration,
      lastOperationSummary,
      lastError,
      lastErrorAt,
    }).filter(([, v]) => v !== undefined),
  ) as Partial<DeployEntry>;
  // deployedAt is required by the dataplane CRD: a pod whose first sync fails gets the attempt's time
  const base: DeployEntry = {
    ...kept,
    podName: pod.name,
    deployedAt: deployedAt ?? now,
    versionConflictRetries: 0,
    fallbackUsed: false,
    consecutiveErrors: entry?.consecutiveErrors ?? 0,
  };
  // a failed sync records the checksum it tried, beside the error (pkg/k8s/configpublisher/name_helpers.go,
  // buildPodStatus: Checksum from the update whatever its Error)
  if (error !== undefined)
    return {
      ...base,
      checksum: entryChecksum(render),
      lastError: error,
      lastErrorAt: now,
      consecutiveErrors: (entry?.consecutiveErrors ?? 0) + 1,
    };
  const { lastError: _e, lastErrorAt: _t, ...rest } = base;
  const how = deployMode(previousContent, render.content);
  const servers = (c: string | undefined) => (c ?? '').split('\n').filter((l) => /^\s+server /.test(l)).length;
  const changed = previousContent !== render.content;
  return {
    ...rest,
    checksum: entryChecksum(render),
    deployedAt: changed ? now : (deployedAt ?? now),
    syncDuration: '0.120s',
    ...(how.mode === 'reload' ? { lastReloadAt: now, lastReloadID: `reload-${render.checksum.slice(0, 8)}` } : {}),
    lastOperationSummary: {
      totalAPIOperations: changed ? 1 : 0,
      serversModified: changed ? Math.abs(servers(render.content) - servers(previousContent)) : 0,
    },
    consecutiveErrors: 0,
  };
}

/**
 * The gated pods (`namespace/name@ip`) that every live HAProxy pod now routes to: each one's deployed checksum is a
 * known render whose config has the pod's server enabled at the pod's own address (the seed's "a configuration that
 * routes to it": a server of its name at another address routes to the pod that had the name before). No live
 * HAProxy pod → nobody routes → none.
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
    return render ? routedAddresses(render.content) : new Set<string>();
  });
  // a pod IP names one pod cluster-wide: the config's `name@ip` whatever the namespace
  return candidates.filter((pod) => routing.every((routed) => routed.has(pod.slice(pod.indexOf('/') + 1))));
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
export function needsGateWrite(
  existing: Condition | undefined,
  ours: Condition,
  foreignForMs: number,
  fightIntervalMs: number,
): boolean {
  if (existing?.status !== 'True') return true;
  return existing.message !== ours.message && foreignForMs >= fightIntervalMs;
}
