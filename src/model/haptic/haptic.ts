import type { Lease, Pod } from '../../types/kube.ts';
import type { DeployedToPod, HAProxyCfg, HAProxyTemplateConfig } from '../../types/haptic.ts';
import type { HapticInputs, ReadError } from '../../types/snapshot.ts';
import {
  COMPONENT_CONTROLLER, CONFIRMING_MODES, CRD_NAME_ENV, DEFAULT_TEMPLATE_CONFIG, DEPLOYMENT_INTENT_ANNOTATION, LABEL_COMPONENT, LABEL_INSTANCE,
  invalidHAProxyCfgName, leaseNameCandidates, liveHAProxyCfgName,
} from '../../haptic/names.ts';
import { findCondition } from '../conditions.ts';
import { configText, renderedServers, type RenderedServer } from './haptic-config.ts';
import { clusterRolesAllowing } from './rbac.ts';
import { routeAdmission, type RouteAdmission } from './routes.ts';
import { selectorMatches } from '../selectors.ts';
import { ageMs } from '../time.ts';

// What the plugin makes of HAPTIC's objects: installations (one per controller), their leader, their rendered
// config and the configs each HAProxy pod runs, and whether the gate feature may be on. Field by field, what each
// released generation writes is in docs/haptic-compat.md.

/** `disabled`: leader election is off (spec.controller.leaderElection.enabled: false): one controller, no Lease. */
export type LeaderState = 'held' | 'missing' | 'empty' | 'stale' | 'holder-gone' | 'holder-not-running' | 'unknown' | 'disabled';

export interface LeaderInfo {
  state: LeaderState;
  lease?: string | undefined;
  holder?: string | undefined;
  renewAgeMs?: number | undefined;
  leaseDurationSeconds?: number | undefined;
  holderPhase?: string | undefined;
  /** why the state is unknown (the Lease could not be read) */
  reason?: string | undefined;
}

/**
 * The config a HAProxy pod runs, as far as HAPTIC's objects tell: its deploy entry's checksum, where that config's
 * content can be read (the live HAProxyCfg, a retained checkpoint, one this process saw earlier), and whether the
 * deploy has settled (no reload pending, not scheduled or rejected).
 */
export interface RunningConfig {
  checksum?: string | undefined;
  source: 'live' | 'retained' | 'remembered' | 'unknown' | 'none';
  settled: boolean;
  /** why the deploy has not settled */
  pending?: string | undefined;
}

export interface HAProxyPodInfo {
  name: string;
  uid?: string | undefined;
  phase: string;
  ready: boolean;
  /** how long the pod has been Ready (a new HAProxy pod gets its first deploy a moment after it starts) */
  readyForMs?: number | undefined;
  /** this pod's deployedToPods entry (matched by podUID where the entry has one, else by name) */
  entry?: DeployedToPod | undefined;
  /** an entry under this pod's name left by an earlier pod of that name (another podUID) */
  staleEntry?: DeployedToPod | undefined;
  runs: RunningConfig;
  /** runs the live config, settled */
  current: boolean;
}

export interface ControllerPodInfo {
  name: string;
  phase: string;
  ready: boolean;
  restarts: number;
  waitingReason?: string | undefined;
  serviceAccount: string;
}

/**
 * Whether HAPTIC may set the gate: `on` once a pod of the rollout carries the condition (see buildRollout), `allowed`
 * when a ClusterRole bound to the controller allows patch on pods/status (needed, not proof), `off` when none does,
 * `unknown` when the RBAC could not be read.
 */
export type GateFeature =
  | { state: 'on'; proof: string; clusterRoles: string[] }
  | { state: 'allowed'; clusterRoles: string[] }
  | { state: 'off'; clusterRoles: string[] }
  | { state: 'unknown'; reason: string };

/** The verdict of HAPTIC's validation of its template config (the Validated condition, or validationStatus). */
export interface Validation {
  status: string;
  reason?: string | undefined;
  message?: string | undefined;
  errors: string[];
}

export interface ConfigView {
  name: string;
  checksum?: string | undefined;
  generation?: number | undefined;
  /** the gate release's conditions on the HAProxyCfg, when written */
  configValidated?: { status: string; reason?: string | undefined; message?: string | undefined } | undefined;
  pinned: boolean;
  servers: RenderedServer[];
  /** `<htc>-haproxycfg-invalid`: the render HAProxy refused and its first error */
  invalid?: { name: string; error?: string | undefined } | undefined;
  /** retained checkpoints the live config lists, with their servers when their content could be read */
  retained: { name: string; checksum: string; servers?: RenderedServer[] | undefined }[];
}

export interface Installation {
  namespace: string;
  templateConfig: string;
  release?: string | undefined;
  /** which generation's deploy statuses HAPTIC writes here: `dataplane` (no readiness gate) or `agent` */
  statusShape: 'dataplane' | 'agent' | 'unknown';
  validated?: Validation | undefined;
  /** the template config's last edit that the controller has not processed yet */
  unobservedGeneration?: { generation: number; observedGeneration: number } | undefined;
  config?: ConfigView | undefined;
  /** from the Lease's deployment-intent annotation: the plan being rolled out */
  intent?: { planID?: string | undefined; checksum?: string | undefined } | undefined;
  leader: LeaderInfo;
  controllerPods: ControllerPodInfo[];
  haproxyPods: HAProxyPodInfo[];
  gateFeature: GateFeature;
  /** which routes it renders: its template config's watched Ingresses, Gateways, HTTPRoutes and GRPCRoutes */
  routes: RouteAdmission;
}

export interface HapticModel {
  installations: Installation[];
  /** why installations could not be discovered (CRD missing, forbidden), when that is the case */
  unreadable?: string | undefined;
  /** why rendered configs could not be read: then nobody can tell whether HAProxy routes a pod */
  configsUnreadable?: string | undefined;
}

/** Configs seen earlier in this process (watch mode), by installation namespace and checksum. */
export type ConfigMemory = ReadonlyMap<string, RenderedServer[]>;
export const memoryKey = (namespace: string, checksum: string) => `${namespace}/${checksum}`;

function condition(c: { status: string; reason?: string; message?: string } | undefined) {
  return c ? { status: c.status, reason: c.reason, message: c.message } : undefined;
}

function podReady(pod: Pod): boolean {
  return findCondition(pod.status?.conditions, 'Ready')?.status === 'True';
}

function readProblem(err: ReadError | undefined): string | undefined {
  return err?.message;
}

function leaderOf(lease: Lease | undefined, leaseName: string | undefined, controllers: Pod[], now: number): LeaderInfo {
  if (!lease) return { state: 'missing', lease: leaseName };
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? undefined;
  const renewAgeMs = ageMs(spec.renewTime, now);
  const base = { lease: lease.metadata.name, holder, renewAgeMs, leaseDurationSeconds: spec.leaseDurationSeconds };
  if (!holder) return { ...base, state: 'empty' };
  if (renewAgeMs === undefined || renewAgeMs > (spec.leaseDurationSeconds ?? 15) * 1000) return { ...base, state: 'stale' };
  // holderIdentity is the pod name ($POD_NAME); other controllers add a suffix (`<pod>_<uuid>`)
  const pod = controllers.find((p) => holder === p.metadata.name || holder.startsWith(`${p.metadata.name}_`));
  if (!pod || pod.metadata.deletionTimestamp) return { ...base, state: 'holder-gone' };
  if (pod.status?.phase !== 'Running') return { ...base, state: 'holder-not-running', holderPhase: pod.status?.phase };
  return { ...base, state: 'held', holderPhase: pod.status?.phase };
}

/** Leader election off: one controller, no Lease; "held" by its single controller pod while that one runs. */
function standaloneLeader(controllers: Pod[]): LeaderInfo {
  const live = controllers.filter((p) => !p.metadata.deletionTimestamp);
  const running = live.find((p) => p.status?.phase === 'Running');
  const pod = running ?? live[0];
  return { state: 'disabled', holder: pod?.metadata.name, holderPhase: pod?.status?.phase };
}

/** The validation verdict: the agent generation's Validated condition, else the validationStatus both write. */
function validationOf(htc: HAProxyTemplateConfig): Validation | undefined {
  const s = htc.status;
  const c = findCondition(s?.conditions, 'Validated');
  const errors = s?.validationErrors ?? [];
  if (c) return { status: c.status, reason: c.reason, message: c.message ?? s?.validationMessage, errors };
  if (!s?.validationStatus) return undefined;
  const status = s.validationStatus === 'Valid' ? 'True' : s.validationStatus === 'Invalid' ? 'False' : 'Unknown';
  return { status, message: s.validationMessage, errors };
}

function intentOf(lease: Lease | undefined): Installation['intent'] {
  const raw = lease?.metadata.annotations?.[DEPLOYMENT_INTENT_ANNOTATION];
  if (!raw) return undefined;
  try {
    const parsed = JSON.parse(raw) as { planID?: unknown; checksum?: unknown };
    return { planID: typeof parsed.planID === 'string' ? parsed.planID : undefined, checksum: typeof parsed.checksum === 'string' ? parsed.checksum : undefined };
  } catch {
    return undefined;
  }
}

/**
 * Each HAProxyCfg's servers, parsed once per object: watch mode rebuilds the model every second from the same
 * objects, which change only when HAPTIC renders or deploys, and a config of a 500-replica rollout is 1,000 lines.
 */
const parsedServers = new WeakMap<HAProxyCfg, RenderedServer[] | undefined>();

function serversOf(cfg: HAProxyCfg): RenderedServer[] | undefined {
  if (parsedServers.has(cfg)) return parsedServers.get(cfg);
  let servers: RenderedServer[] | undefined;
  try {
    servers = renderedServers(configText(cfg));
  } catch {
    // content that cannot be decoded (truncated zstd, bad base64) routes nothing we can read
    servers = undefined;
  }
  parsedServers.set(cfg, servers);
  return servers;
}

/**
 * Whether a deploy has settled, from the entry alone: a reload still pending (runningPlanID behind appliedPlanID, and
 * the worker's runtime-ops plan not it either), or a mode that HAPTIC's own check (confirmsOutput) does not accept.
 * Entries of the dataplane generation carry none of these fields: a checksum there is the config the pod runs.
 */
function settlement(entry: DeployedToPod): { settled: boolean; pending?: string } {
  if (entry.mode === 'rejected') return { settled: false, pending: `mode rejected${entry.reasons?.length ? ` (${entry.reasons.join('; ')})` : ''}` };
  if (entry.mode === 'scheduled') return { settled: false, pending: `mode scheduled (a reload is queued)${entry.reasons?.length ? `: ${entry.reasons.join('; ')}` : ''}` };
  if (entry.appliedPlanID !== undefined) {
    const running = entry.runningPlanID === entry.appliedPlanID || entry.workerOpsPlanID === entry.appliedPlanID;
    if (!running) return { settled: false, pending: `reload pending: running plan ${entry.runningPlanID ?? 'none'}, applied plan ${entry.appliedPlanID}` };
  }
  if (entry.mode !== undefined && !CONFIRMING_MODES.includes(entry.mode)) return { settled: false, pending: `mode ${entry.mode}` };
  return { settled: true };
}

function haproxyPodInfo(pod: Pod, entries: DeployedToPod[], config: ConfigView | undefined, namespace: string, memory: ConfigMemory | undefined, now: number): HAProxyPodInfo {
  const named = entries.filter((e) => e.podName === pod.metadata.name);
  // agent entries carry the pod's UID: an entry under this name with another UID was written for an earlier pod
  const entry = named.find((e) => !e.podUID || !pod.metadata.uid || e.podUID === pod.metadata.uid);
  const staleEntry = entry ? undefined : named[0];
  let runs: RunningConfig = { source: 'none', settled: false };
  if (entry?.checksum) {
    const { settled, pending } = settlement(entry);
    const source = config?.checksum === entry.checksum ? 'live'
      : config?.retained.some((r) => r.checksum === entry.checksum && r.servers) ? 'retained'
      : memory?.has(memoryKey(namespace, entry.checksum)) ? 'remembered'
      : 'unknown';
    runs = { checksum: entry.checksum, source, settled, pending };
  }
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    phase: pod.status?.phase ?? 'Unknown',
    ready: podReady(pod),
    readyForMs: podReady(pod) ? ageMs(findCondition(pod.status?.conditions, 'Ready')?.lastTransitionTime, now) : undefined,
    entry,
    staleEntry,
    runs,
    current: runs.source === 'live' && runs.settled,
  };
}

/** The servers of the config a HAProxy pod runs, when its content can be read. */
export function serversRunOn(inst: Installation, pod: HAProxyPodInfo, memory: ConfigMemory | undefined): RenderedServer[] | undefined {
  const checksum = pod.runs.checksum;
  if (!checksum) return undefined;
  if (pod.runs.source === 'live') return inst.config?.servers;
  if (pod.runs.source === 'retained') return inst.config?.retained.find((r) => r.checksum === checksum)?.servers;
  if (pod.runs.source === 'remembered') return memory?.get(memoryKey(inst.namespace, checksum));
  return undefined;
}

/**
 * The template config each controller uses: its pods' CRD_NAME (the chart's controller.crdName, default
 * haptic-config). One installation is one controller; HAProxyTemplateLibrary objects and template configs no
 * controller uses are not installations. Without a controller pod (scaled to zero), the template configs HAPTIC
 * rendered a config for stand in for it.
 */
function installationsOf(inputs: HapticInputs): { namespace: string; htc: HAProxyTemplateConfig; release?: string | undefined; controllers: Pod[] }[] {
  const htcs = inputs.templateConfigs.items;
  const namespaces = [...new Set(htcs.map((h) => h.metadata.namespace ?? ''))].sort();
  return namespaces.flatMap((namespace) => {
    const inNamespace = htcs.filter((h) => (h.metadata.namespace ?? '') === namespace);
    const controllers = inputs.pods.items.filter((p) => p.metadata.namespace === namespace && p.metadata.labels?.[LABEL_COMPONENT] === COMPONENT_CONTROLLER);
    const releases = [...new Set(controllers.map((p) => p.metadata.labels?.[LABEL_INSTANCE] ?? ''))].sort();
    const rendered = inNamespace.filter((h) => inputs.haproxyCfgs.items.some((c) => c.metadata.namespace === namespace && c.metadata.name === liveHAProxyCfgName(h.metadata.name)));
    if (!releases.length) {
      const chosen = rendered.length ? rendered : inNamespace.length === 1 ? inNamespace : inNamespace.filter((h) => h.metadata.name === DEFAULT_TEMPLATE_CONFIG);
      return (chosen.length ? chosen : inNamespace).map((htc) => ({ namespace, htc, release: htc.metadata.labels?.[LABEL_INSTANCE], controllers: [] }));
    }
    return releases.flatMap((release) => {
      const pods = controllers.filter((p) => (p.metadata.labels?.[LABEL_INSTANCE] ?? '') === release);
      const named = pods.flatMap((p) => p.spec.containers.flatMap((c) => c.env ?? [])).find((e) => e.name === CRD_NAME_ENV && e.value)?.value;
      const htc = inNamespace.find((h) => h.metadata.name === (named ?? DEFAULT_TEMPLATE_CONFIG)) ?? (inNamespace.length === 1 ? inNamespace[0] : rendered[0]);
      return htc ? [{ namespace, htc, release: release || undefined, controllers: pods }] : [];
    });
  });
}

function configView(namespace: string, htcName: string, cfgs: HAProxyCfg[]): ConfigView | undefined {
  const find = (name: string) => cfgs.find((c) => c.metadata.namespace === namespace && c.metadata.name === name);
  const cfg = find(liveHAProxyCfgName(htcName));
  if (!cfg) return undefined;
  const invalid = find(invalidHAProxyCfgName(htcName));
  return {
    name: cfg.metadata.name,
    checksum: cfg.spec?.checksum,
    generation: cfg.metadata.generation,
    configValidated: condition(findCondition(cfg.status?.conditions, 'ConfigValidated')),
    pinned: findCondition(cfg.status?.conditions, 'ConfigPinned')?.status === 'True',
    servers: serversOf(cfg) ?? [],
    invalid: invalid && { name: invalid.metadata.name, error: invalid.status?.validationError },
    retained: (cfg.status?.retainedConfigs ?? []).map((ref) => {
      const held = find(ref.name);
      // a checkpoint whose UID or checksum differs from the reference is not the one referenced (HAPTIC checks both)
      const usable = held && (!ref.uid || held.metadata.uid === ref.uid) && held.spec?.checksum === ref.checksum;
      return { name: ref.name, checksum: ref.checksum, servers: usable ? serversOf(held) : undefined };
    }),
  };
}

function statusShapeOf(entries: DeployedToPod[]): Installation['statusShape'] {
  if (entries.some((e) => e.podUID !== undefined || e.appliedPlanID !== undefined || e.mode !== undefined)) return 'agent';
  if (entries.some((e) => e.deployedAt !== undefined || e.lastReloadAt !== undefined || e.syncDuration !== undefined)) return 'dataplane';
  return 'unknown';
}

function gateFeatureOf(namespace: string, serviceAccounts: string[], inputs: HapticInputs): GateFeature {
  const failed = inputs.clusterRoles.error ?? inputs.clusterRoleBindings.error;
  if (failed) return { state: 'unknown', reason: `cannot read RBAC: ${failed.message}` };
  if (serviceAccounts.length === 0) return { state: 'unknown', reason: 'no controller pod to read the service account from' };
  const { bound, allowing } = clusterRolesAllowing(serviceAccounts.map((name) => ({ namespace, name })), inputs.clusterRoles.items, inputs.clusterRoleBindings.items, '', 'pods/status', 'patch');
  return allowing.length ? { state: 'allowed', clusterRoles: allowing } : { state: 'off', clusterRoles: bound };
}

export function buildHaptic(inputs: HapticInputs, now: number, memory?: ConfigMemory): HapticModel {
  if (inputs.templateConfigs.error) {
    const err = inputs.templateConfigs.error;
    const unreadable = err.kind === 'NotFound' ? 'HAPTIC is not installed: the HAProxyTemplateConfig CRD (haproxytemplateconfigs.haproxy-haptic.org) does not exist' : `cannot read HAProxyTemplateConfigs: ${err.message}`;
    return { installations: [], unreadable };
  }
  const installations = installationsOf(inputs).map(({ namespace, htc, release, controllers }): Installation => {
    const election = htc.spec?.controller?.leaderElection;
    const leaseNames = leaseNameCandidates(htc, release);
    const lease = leaseNames.map((n) => inputs.leases.items.find((l) => l.metadata.namespace === namespace && l.metadata.name === n)).find(Boolean);
    const config = configView(namespace, htc.metadata.name, inputs.haproxyCfgs.items);
    const entries = inputs.haproxyCfgs.items.find((c) => c.metadata.namespace === namespace && c.metadata.name === liveHAProxyCfgName(htc.metadata.name))?.status?.deployedToPods ?? [];
    const intent = intentOf(lease);
    const haproxyPods = inputs.pods.items
      .filter((p) => p.metadata.namespace === namespace && selectorMatches(htc.spec?.podSelector, p.metadata.labels) && !p.metadata.deletionTimestamp)
      .map((p) => haproxyPodInfo(p, entries, config, namespace, memory, now));
    const observed = htc.status?.observedGeneration;
    const generation = htc.metadata.generation;
    return {
      namespace,
      templateConfig: htc.metadata.name,
      release,
      statusShape: statusShapeOf(entries),
      validated: validationOf(htc),
      unobservedGeneration: observed !== undefined && generation !== undefined && observed < generation ? { generation, observedGeneration: observed } : undefined,
      config,
      intent,
      leader: election?.enabled === false
        ? standaloneLeader(controllers)
        : inputs.leases.error ? { state: 'unknown', lease: leaseNames[0], reason: readProblem(inputs.leases.error) } : leaderOf(lease, leaseNames[0], controllers, now),
      controllerPods: controllers.map((p) => {
        const statuses = p.status?.containerStatuses ?? [];
        return {
          name: p.metadata.name,
          phase: p.status?.phase ?? 'Unknown',
          ready: podReady(p),
          restarts: statuses.reduce((n, s) => n + s.restartCount, 0),
          waitingReason: statuses.find((s) => s.state?.waiting?.reason)?.state?.waiting?.reason,
          serviceAccount: p.spec.serviceAccountName ?? 'default',
        };
      }),
      haproxyPods,
      gateFeature: gateFeatureOf(namespace, [...new Set(controllers.map((p) => p.spec.serviceAccountName ?? 'default'))], inputs),
      routes: routeAdmission(htc),
    };
  });
  const configsUnreadable = inputs.haproxyCfgs.error ? `cannot read HAProxyCfgs: ${inputs.haproxyCfgs.error.message}` : undefined;
  return { installations, ...(configsUnreadable ? { configsUnreadable } : {}) };
}

/** The memory given, plus the configs these installations show now (live and retained), keyed by checksum. */
export function rememberConfigs(memory: ConfigMemory, installations: Installation[], limit = 64): ConfigMemory {
  let next: Map<string, RenderedServer[]> | undefined;
  for (const inst of installations) {
    const c = inst.config;
    if (!c) continue;
    const seen = [...(c.checksum ? [{ checksum: c.checksum, servers: c.servers }] : []), ...c.retained.filter((r) => r.servers).map((r) => ({ checksum: r.checksum, servers: r.servers! }))];
    for (const { checksum, servers } of seen) {
      const key = memoryKey(inst.namespace, checksum);
      if ((next ?? memory).has(key)) continue;
      next ??= new Map(memory);
      next.set(key, servers);
    }
  }
  if (!next) return memory;
  // forget the oldest configs beyond the limit (Maps keep insertion order)
  for (const key of [...next.keys()].slice(0, Math.max(0, next.size - limit))) next.delete(key);
  return next;
}
