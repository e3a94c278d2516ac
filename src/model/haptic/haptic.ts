import type { Container, ContainerStatus, Lease, Pod } from '../../types/kube.ts';
import type { DeployedToPod, HAProxyCfg, HAProxyTemplateConfig } from '../../types/haptic.ts';
import type { HapticInputs, ReadError } from '../../types/snapshot.ts';
import {
  COMPONENT_CONTROLLER,
  CONFIRMING_MODES,
  CRD_NAME_ENV,
  DEFAULT_TEMPLATE_CONFIG,
  DEPLOYMENT_INTENT_ANNOTATION,
  LABEL_COMPONENT,
  LABEL_INSTANCE,
  invalidHAProxyCfgName,
  leaseNameCandidates,
  liveHAProxyCfgName,
} from '../../haptic/names.ts';
import { findCondition } from '../conditions.ts';
import { configText, renderedServers, type RenderedServer } from './haptic-config.ts';
import { portNamesOf, type PortNames } from './frozen-render.ts';
import { clusterRolesAllowing } from './rbac.ts';
import { routeAdmission, type RouteAdmission } from './routes.ts';
import { selectorMatches } from '../selectors.ts';
import { ageMs } from '../time.ts';

// What the plugin makes of HAPTIC's objects: installations (one per controller), their leader, their rendered
// config and the configs each HAProxy pod runs, and whether the gate feature may be on. Field by field, what each
// released generation writes is in docs/haptic-compat.md.

/** `disabled`: leader election is off (spec.controller.leaderElection.enabled: false): one controller, no Lease. */
export type LeaderState =
  | 'held'
  | 'missing'
  | 'empty'
  | 'stale'
  | 'holder-gone'
  | 'holder-not-running'
  | 'unknown'
  | 'disabled';

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
  /**
   * the checksum is one a failed deploy tried, not one the pod runs: the dataplane generation writes it beside
   * lastError and lastErrorAt (configpublisher buildPodStatus); the agent generation's entry keeps what runs
   */
  tried?: boolean | undefined;
}

export interface HAProxyPodInfo {
  name: string;
  uid?: string | undefined;
  phase: string;
  ready: boolean;
  /**
   * whether HAPTIC deploys to it (pkg/controller/discovery/discovery.go, evaluatePod): not terminating, an IP,
   * Running, and the container exposing the Dataplane API port ready. Only these are pods the new pod must reach.
   */
  discovered: boolean;
  /** the container that takes HAPTIC's deploys (exposes the Dataplane API port: `dataplane`, or the agent's), when known */
  deployContainer?: string | undefined;
  /**
   * how long the pod has been up to take a deploy: Ready for, else (a HAProxy pod whose /ready answers 503 until its
   * first deploy is not Ready before it) since its deploy container, else the pod, started. A new HAProxy pod gets
   * its first deploy a moment after it starts.
   */
  upForMs?: number | undefined;
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
  /**
   * HAProxy's refusal of a render that the live config has since outlived: HAPTIC's status updater writes it on a
   * refused render and clears it only when the template config itself is validated again (an edit), never on a
   * later accepted render (pkg/controller/configchange/status_updater.go subscribes to ConfigValidated,
   * ConfigInvalid and ValidationFailed, not to the completed validation). History, not why nothing renders.
   */
  outlived?: boolean | undefined;
}

/** What HAPTIC's status updater writes for HAProxy's refusal of a render (status_updater.go). */
const HAPROXY_REFUSED_MESSAGE = 'HAProxy configuration validation failed';

/**
 * Whether a refusal by HAProxy that the template config reports is one the live config has outlived: nothing says
 * it still holds. HAPTIC's status updater writes HAProxyValidationFailed on a refused render and never clears it on a
 * later accepted one (status_updater.go hears ValidationFailed, not the completed validation), so what HAProxy runs
 * decides: the live HAProxyCfg is not held (ConfigPinned), its render gate does not say refused (ConfigValidated=False;
 * the gate release's gate writes True HAProxyAccepted again on the next accepted render), and no refused render newer
 * than it is kept (ConfigView.invalid.stale): HAPTIC writes `<htc>-haproxycfg-invalid` on every refusal
 * (pkg/controller/configpublisher/workers.go), the released tags delete it once a render is accepted, HEAD keeps it,
 * older than the live config. A refusal before any config was accepted stands.
 */
function outlivedRefusal(v: Validation, config: ConfigView | undefined): boolean {
  const haproxyRefused =
    v.reason === 'HAProxyValidationFailed' || (v.reason === undefined && v.message === HAPROXY_REFUSED_MESSAGE);
  if (v.status !== 'False' || !haproxyRefused || !config) return false;
  return !(config.pinned || config.configValidated?.status === 'False' || (config.invalid && !config.invalid.stale));
}

export interface ConfigView {
  name: string;
  checksum?: string | undefined;
  /**
   * SHA-256 of the content, 64 hex: what deploy entries name where spec.checksum is HEAD's 16-hex digest of config
   * and auxiliary files (pkg/dataplane/checksum.go, ComputeContentChecksum); released tags write this one to both
   */
  contentChecksum?: string | undefined;
  generation?: number | undefined;
  /** the gate release's conditions on the HAProxyCfg, when written */
  configValidated?: { status: string; reason?: string | undefined; message?: string | undefined } | undefined;
  pinned: boolean;
  /**
   * when the live config was last rendered: the dataplane generation's status.metadata.renderedAt, else the last
   * write of its spec (managedFields: the API server moves an entry's time only when a write changes the object, and
   * HAPTIC's publisher skips a render whose checksum is unchanged, configpublisher/workers.go processPublishWork)
   */
  writtenAt?: string | undefined;
  servers: RenderedServer[];
  /** why the content could not be read (then `servers` is empty: unknown, not none) */
  unreadable?: string | undefined;
  /**
   * `<htc>-haproxycfg-invalid`: the render HAProxy refused and its first error. Released HAPTIC deletes it once a
   * render is accepted; HEAD keeps it (pkg/k8s/configpublisher/publisher.go), so a refusal rendered before the live
   * config is `stale`: history, not why nothing new reaches HAProxy. Where their render times cannot be told apart,
   * the gate release's render gate decides: ConfigValidated=True and not ConfigPinned, HAProxy accepted one since.
   */
  invalid?: { name: string; error?: string | undefined; stale: boolean; writtenAt?: string | undefined } | undefined;
  /** retained checkpoints the live config lists, with their servers when their content could be read */
  retained: {
    name: string;
    checksum: string;
    contentChecksum?: string | undefined;
    servers?: RenderedServer[] | undefined;
  }[];
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
  /**
   * the agent generation's one render: the Ingresses it renders that name a Service port by name, and those whose
   * Service lacks it, which fail every render (frozen-render.ts); undefined for the dataplane generation
   */
  portNames?: PortNames | undefined;
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

function leaderOf(
  lease: Lease | undefined,
  leaseName: string | undefined,
  controllers: Pod[],
  now: number,
): LeaderInfo {
  if (!lease) return { state: 'missing', lease: leaseName };
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? undefined;
  const renewAgeMs = ageMs(spec.renewTime, now);
  const base = { lease: lease.metadata.name, holder, renewAgeMs, leaseDurationSeconds: spec.leaseDurationSeconds };
  if (!holder) return { ...base, state: 'empty' };
  if (renewAgeMs === undefined || renewAgeMs > (spec.leaseDurationSeconds ?? 15) * 1000)
    return { ...base, state: 'stale' };
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
    return {
      planID: typeof parsed.planID === 'string' ? parsed.planID : undefined,
      checksum: typeof parsed.checksum === 'string' ? parsed.checksum : undefined,
    };
  } catch {
    return undefined;
  }
}

/**
 * Each HAProxyCfg's servers, parsed once per object: watch mode rebuilds the model every second from the same
 * objects, which change only when HAPTIC renders or deploys, and a config of a 500-replica rollout is 1,000 lines.
 */
const parsedServers = new WeakMap<HAProxyCfg, RenderedServer[] | undefined>();

const digests = new WeakMap<HAProxyCfg, string | undefined>();

/** The SHA-256 of a HAProxyCfg's content, once per object (undefined when the content cannot be decoded). */
function contentDigest(cfg: HAProxyCfg): string | undefined {
  if (digests.has(cfg)) return digests.get(cfg);
  let digest: string | undefined;
  try {
    // node:crypto loads when a config is hashed; the TLS connection has loaded it already
    digest = process.getBuiltinModule('node:crypto').createHash('sha256').update(configText(cfg)).digest('hex');
  } catch {
    digest = undefined;
  }
  digests.set(cfg, digest);
  return digest;
}

/** Whether a deploy entry's checksum names this config: its spec.checksum, or the SHA-256 of its content. */
export function namesConfig(
  checksum: string,
  config: { checksum?: string | undefined; contentChecksum?: string | undefined },
): boolean {
  return checksum === config.checksum || checksum === config.contentChecksum;
}

const contentErrors = new WeakMap<HAProxyCfg, string>();

function serversOf(cfg: HAProxyCfg): RenderedServer[] | undefined {
  if (parsedServers.has(cfg)) return parsedServers.get(cfg);
  let servers: RenderedServer[] | undefined;
  try {
    servers = renderedServers(configText(cfg));
  } catch (err) {
    // content that cannot be decoded (truncated zstd, bad base64, a decompression bomb) routes nothing we can read
    servers = undefined;
    contentErrors.set(cfg, err instanceof Error ? err.message : 'its content cannot be read');
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
  // a failed deploy: the dataplane generation records the checksum it tried (pkg/controller/deployer/component.go,
  // publisher.go), and the agent generation's confirmsOutput rejects any entry with lastError: not deployed
  if (entry.lastError) return { settled: false };
  if (entry.mode === 'rejected')
    return { settled: false, pending: `mode rejected${entry.reasons?.length ? ` (${entry.reasons.join('; ')})` : ''}` };
  if (entry.mode === 'scheduled')
    return {
      settled: false,
      pending: `mode scheduled (a reload is queued)${entry.reasons?.length ? `: ${entry.reasons.join('; ')}` : ''}`,
    };
  if (entry.appliedPlanID !== undefined) {
    const running = entry.runningPlanID === entry.appliedPlanID || entry.workerOpsPlanID === entry.appliedPlanID;
    if (!running)
      return {
        settled: false,
        pending: `reload pending: running plan ${entry.runningPlanID ?? 'none'}, applied plan ${entry.appliedPlanID}`,
      };
  }
  if (entry.mode !== undefined && !CONFIRMING_MODES.includes(entry.mode))
    return { settled: false, pending: `mode ${entry.mode}` };
  return { settled: true };
}

/** The Dataplane API's default port (pkg/apis/haproxytemplate/v1alpha1/types_config.go, DataplaneConfig.Port). */
const DATAPLANE_PORT = 5555;

/**
 * The containers that run for the pod's whole life: its containers and its restartable init containers (native
 * sidecars: `restartPolicy: Always`, KEP-753, whose status the kubelet writes in initContainerStatuses,
 * pkg/kubelet/kubelet_pods.go generateAPIPodStatus). The agent generation runs its agent beside HAProxy as one
 * (docs/haptic-compat.md); the dataplane generation's discovery looks in spec.containers and containerStatuses only
 * (pkg/controller/discovery/discovery.go, findDataplaneContainerName and checkContainerReady), so `sidecars: false`
 * leaves them out as it does.
 */
export function lifetimeContainers(pod: Pod, sidecars = true): Container[] {
  const own = pod.spec.containers;
  return sidecars ? [...own, ...(pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always')] : own;
}

/** The statuses of lifetimeContainers: containerStatuses, and the sidecars' entries of initContainerStatuses. */
export function lifetimeStatuses(pod: Pod, sidecars = true): ContainerStatus[] {
  const own = pod.status?.containerStatuses ?? [];
  if (!sidecars) return own;
  const names = new Set((pod.spec.initContainers ?? []).filter((c) => c.restartPolicy === 'Always').map((c) => c.name));
  return [...own, ...(pod.status?.initContainerStatuses ?? []).filter((s) => names.has(s.name))];
}

/**
 * HAPTIC's discovery of a HAProxy pod (discovery.go, evaluatePod and isDataplaneContainerReady). HAPTIC refuses a pod
 * none of whose containers exposes the port; a generation whose pods expose another one cannot be told apart here,
 * so such a pod counts when all its containers (native sidecars included, as the pod's Ready does) are ready.
 */
function discovered(pod: Pod, port: number, sidecars: boolean): boolean {
  if (pod.metadata.deletionTimestamp || !pod.status?.podIP || pod.status.phase !== 'Running') return false;
  const statuses = lifetimeStatuses(pod, sidecars);
  const exposing = dataplaneContainer(pod, port, sidecars);
  if (exposing) return statuses.some((s) => s.name === exposing && s.ready);
  // the port only on a native sidecar, where this generation's discovery does not look: it never deploys there
  if (!sidecars && dataplaneContainer(pod, port, true)) return false;
  const all = lifetimeStatuses(pod);
  return all.length > 0 && all.every((s) => s.ready);
}

/** The container exposing the Dataplane API port (the chart's `dataplane`, or a sidecar agent's). */
function dataplaneContainer(pod: Pod, port: number, sidecars: boolean): string | undefined {
  return lifetimeContainers(pod, sidecars).find((c) => (c.ports ?? []).some((p) => p.containerPort === port))?.name;
}

/** The container HAPTIC deploys through: the one exposing the Dataplane API port, else one named dataplane or agent. */
function deployContainerOf(pod: Pod, port: number, sidecars: boolean): string | undefined {
  return (
    dataplaneContainer(pod, port, sidecars) ??
    lifetimeContainers(pod)
      .map((c) => c.name)
      .find((n) => n === 'dataplane' || n === 'agent')
  );
}

function haproxyPodInfo(
  pod: Pod,
  entries: DeployedToPod[],
  config: ConfigView | undefined,
  namespace: string,
  memory: ConfigMemory | undefined,
  now: number,
  port: number,
  sidecars: boolean,
): HAProxyPodInfo {
  const named = entries.filter((e) => e.podName === pod.metadata.name);
  // agent entries carry the pod's UID: an entry under this name with another UID was written for an earlier pod
  const entry = named.find((e) => !e.podUID || !pod.metadata.uid || e.podUID === pod.metadata.uid);
  const staleEntry = entry ? undefined : named[0];
  let runs: RunningConfig = { source: 'none', settled: false };
  if (entry?.checksum) {
    const { settled, pending } = settlement(entry);
    const source =
      config && namesConfig(entry.checksum, config)
        ? 'live'
        : config?.retained.some((r) => namesConfig(entry.checksum!, r) && r.servers)
          ? 'retained'
          : memory?.has(memoryKey(namespace, entry.checksum))
            ? 'remembered'
            : 'unknown';
    runs = { checksum: entry.checksum, source, settled, pending };
    if (entry.lastError && entry.lastErrorAt) runs.tried = true;
  }
  const deployContainer = deployContainerOf(pod, port, sidecars);
  return {
    name: pod.metadata.name,
    uid: pod.metadata.uid,
    phase: pod.status?.phase ?? 'Unknown',
    ready: podReady(pod),
    discovered: discovered(pod, port, sidecars),
    deployContainer,
    upForMs: upFor(pod, deployContainer, now),
    entry,
    staleEntry,
    runs,
    current: runs.source === 'live' && runs.settled,
  };
}

/** How long a HAProxy pod has been up to take a deploy (HAProxyPodInfo.upForMs). */
function upFor(pod: Pod, deployContainer: string | undefined, now: number): number | undefined {
  if (podReady(pod)) return ageMs(findCondition(pod.status?.conditions, 'Ready')?.lastTransitionTime, now);
  const started = lifetimeStatuses(pod).find((s) => s.name === deployContainer)?.state?.running?.startedAt;
  return ageMs(started ?? pod.status?.startTime, now);
}

/** The servers of the config a HAProxy pod runs, when its content can be read. */
export function serversRunOn(
  inst: Installation,
  pod: HAProxyPodInfo,
  memory: ConfigMemory | undefined,
): RenderedServer[] | undefined {
  const checksum = pod.runs.checksum;
  if (!checksum) return undefined;
  if (pod.runs.source === 'live') return inst.config?.servers;
  if (pod.runs.source === 'retained') return inst.config?.retained.find((r) => namesConfig(checksum, r))?.servers;
  if (pod.runs.source === 'remembered') return memory?.get(memoryKey(inst.namespace, checksum));
  return undefined;
}

/**
 * The template config each controller uses: its pods' CRD_NAME (the chart's controller.crdName, default
 * haptic-config). One installation is one controller; HAProxyTemplateLibrary objects and template configs no
 * controller uses are not installations. Without a controller pod (scaled to zero), the template configs HAPTIC
 * rendered a config for stand in for it.
 */
function installationsOf(
  inputs: HapticInputs,
): { namespace: string; htc: HAProxyTemplateConfig; release?: string | undefined; controllers: Pod[] }[] {
  const htcs = inputs.templateConfigs.items;
  const namespaces = [...new Set(htcs.map((h) => h.metadata.namespace ?? ''))].sort();
  return namespaces.flatMap((namespace) => {
    const inNamespace = htcs.filter((h) => (h.metadata.namespace ?? '') === namespace);
    const controllers = inputs.pods.items.filter(
      (p) => p.metadata.namespace === namespace && p.metadata.labels?.[LABEL_COMPONENT] === COMPONENT_CONTROLLER,
    );
    const releases = [...new Set(controllers.map((p) => p.metadata.labels?.[LABEL_INSTANCE] ?? ''))].sort();
    const rendered = inNamespace.filter((h) =>
      inputs.haproxyCfgs.items.some(
        (c) => c.metadata.namespace === namespace && c.metadata.name === liveHAProxyCfgName(h.metadata.name),
      ),
    );
    if (!releases.length) {
      const chosen = rendered.length
        ? rendered
        : inNamespace.length === 1
          ? inNamespace
          : inNamespace.filter((h) => h.metadata.name === DEFAULT_TEMPLATE_CONFIG);
      return (chosen.length ? chosen : inNamespace).map((htc) => ({
        namespace,
        htc,
        release: htc.metadata.labels?.[LABEL_INSTANCE],
        controllers: [],
      }));
    }
    return releases.flatMap((release) => {
      const pods = controllers.filter((p) => (p.metadata.labels?.[LABEL_INSTANCE] ?? '') === release);
      const named = pods
        .flatMap((p) => p.spec.containers.flatMap((c) => c.env ?? []))
        .find((e) => e.name === CRD_NAME_ENV && e.value)?.value;
      const htc =
        inNamespace.find((h) => h.metadata.name === (named ?? DEFAULT_TEMPLATE_CONFIG)) ??
        (inNamespace.length === 1 ? inNamespace[0] : rendered[0]);
      return htc ? [{ namespace, htc, release: release || undefined, controllers: pods }] : [];
    });
  });
}

/**
 * When a HAProxyCfg was last rendered: the render time the dataplane generation records, else the last time a write
 * changed its spec (the newest managedFields entry owning spec fields; the agent generation records no render time).
 */
export function renderedAt(c: HAProxyCfg): string | undefined {
  const recorded = c.status?.metadata?.renderedAt ?? c.status?.metadata?.validatedAt;
  if (recorded) return recorded;
  const times = (c.metadata.managedFields ?? [])
    .filter((f) => !f.subresource && f.time && f.fieldsV1 && 'f:spec' in f.fieldsV1)
    .map((f) => f.time!)
    .filter((t) => Number.isFinite(Date.parse(t)));
  return times.sort((x, y) => Date.parse(x) - Date.parse(y)).at(-1);
}

/** Whether `a` was rendered before `b`, by renderedAt (undefined when either is unknown; a tie is not before). */
function renderedBefore(a: HAProxyCfg, b: HAProxyCfg): boolean | undefined {
  const [x, y] = [Date.parse(renderedAt(a) ?? ''), Date.parse(renderedAt(b) ?? '')];
  return Number.isFinite(x) && Number.isFinite(y) ? x < y : undefined;
}

function configView(namespace: string, htcName: string, cfgs: HAProxyCfg[]): ConfigView | undefined {
  const find = (name: string) => cfgs.find((c) => c.metadata.namespace === namespace && c.metadata.name === name);
  const cfg = find(liveHAProxyCfgName(htcName));
  if (!cfg) return undefined;
  const invalid = find(invalidHAProxyCfgName(htcName));
  const configValidated = condition(findCondition(cfg.status?.conditions, 'ConfigValidated'));
  const pinned = findCondition(cfg.status?.conditions, 'ConfigPinned')?.status === 'True';
  // the gate release's render gate says whether HAProxy accepts what runs now, whatever an older refusal left
  const accepted = configValidated?.status === 'True' && !pinned;
  return {
    name: cfg.metadata.name,
    checksum: cfg.spec?.checksum,
    contentChecksum: contentDigest(cfg),
    generation: cfg.metadata.generation,
    configValidated,
    pinned,
    writtenAt: renderedAt(cfg),
    servers: serversOf(cfg) ?? [],
    unreadable: contentErrors.get(cfg),
    invalid: invalid && {
      name: invalid.metadata.name,
      error: invalid.status?.validationError,
      stale: renderedBefore(invalid, cfg) ?? accepted,
      writtenAt: renderedAt(invalid),
    },
    retained: (cfg.status?.retainedConfigs ?? []).map((ref) => {
      const held = find(ref.name);
      // a checkpoint whose UID or checksum differs from the reference is not the one referenced (HAPTIC checks both)
      const usable = held && (!ref.uid || held.metadata.uid === ref.uid) && held.spec?.checksum === ref.checksum;
      return {
        name: ref.name,
        checksum: ref.checksum,
        contentChecksum: usable ? contentDigest(held) : undefined,
        servers: usable ? serversOf(held) : undefined,
      };
    }),
  };
}

function statusShapeOf(entries: DeployedToPod[]): Installation['statusShape'] {
  if (entries.some((e) => e.podUID !== undefined || e.appliedPlanID !== undefined || e.mode !== undefined))
    return 'agent';
  if (entries.some((e) => e.deployedAt !== undefined || e.lastReloadAt !== undefined || e.syncDuration !== undefined))
    return 'dataplane';
  return 'unknown';
}

function gateFeatureOf(namespace: string, serviceAccounts: string[], inputs: HapticInputs): GateFeature {
  const failed = inputs.clusterRoles.error ?? inputs.clusterRoleBindings.error;
  if (failed) return { state: 'unknown', reason: `cannot read RBAC: ${failed.message}` };
  if (serviceAccounts.length === 0)
    return { state: 'unknown', reason: 'no controller pod to read the service account from' };
  const { bound, allowing } = clusterRolesAllowing(
    serviceAccounts.map((name) => ({ namespace, name })),
    inputs.clusterRoles.items,
    inputs.clusterRoleBindings.items,
    '',
    'pods/status',
    'patch',
  );
  return allowing.length ? { state: 'allowed', clusterRoles: allowing } : { state: 'off', clusterRoles: bound };
}

export function buildHaptic(inputs: HapticInputs, now: number, memory?: ConfigMemory): HapticModel {
  if (inputs.templateConfigs.error) {
    const err = inputs.templateConfigs.error;
    const unreadable =
      err.kind === 'NotFound'
        ? 'HAPTIC is not installed: the HAProxyTemplateConfig CRD (haproxytemplateconfigs.haproxy-haptic.org) does not exist'
        : `cannot read HAProxyTemplateConfigs: ${err.message}`;
    return { installations: [], unreadable };
  }
  const installations = installationsOf(inputs).map(({ namespace, htc, release, controllers }): Installation => {
    const election = htc.spec?.controller?.leaderElection;
    const leaseNames = leaseNameCandidates(htc, release);
    const lease = leaseNames
      .map((n) => inputs.leases.items.find((l) => l.metadata.namespace === namespace && l.metadata.name === n))
      .find(Boolean);
    const config = configView(namespace, htc.metadata.name, inputs.haproxyCfgs.items);
    const entries =
      inputs.haproxyCfgs.items.find(
        (c) => c.metadata.namespace === namespace && c.metadata.name === liveHAProxyCfgName(htc.metadata.name),
      )?.status?.deployedToPods ?? [];
    const intent = intentOf(lease);
    const haproxyPods = inputs.pods.items
      .filter(
        (p) =>
          p.metadata.namespace === namespace &&
          selectorMatches(htc.spec?.podSelector, p.metadata.labels) &&
          !p.metadata.deletionTimestamp,
      )
      .map((p) =>
        haproxyPodInfo(
          p,
          entries,
          config,
          namespace,
          memory,
          now,
          htc.spec?.dataplane?.port ?? DATAPLANE_PORT,
          statusShapeOf(entries) !== 'dataplane',
        ),
      );
    const observed = htc.status?.observedGeneration;
    const generation = htc.metadata.generation;
    const validated = validationOf(htc);
    return {
      namespace,
      templateConfig: htc.metadata.name,
      release,
      statusShape: statusShapeOf(entries),
      validated: validated && {
        ...validated,
        ...(outlivedRefusal(validated, config) ? { outlived: true } : {}),
      },
      unobservedGeneration:
        observed !== undefined && generation !== undefined && observed < generation
          ? { generation, observedGeneration: observed }
          : undefined,
      config,
      intent,
      leader:
        election?.enabled === false
          ? standaloneLeader(controllers)
          : inputs.leases.error
            ? { state: 'unknown', lease: leaseNames[0], reason: readProblem(inputs.leases.error) }
            : leaderOf(lease, leaseNames[0], controllers, now),
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
      gateFeature: gateFeatureOf(
        namespace,
        [...new Set(controllers.map((p) => p.spec.serviceAccountName ?? 'default'))],
        inputs,
      ),
      routes: routeAdmission(htc),
      portNames: portNamesOf(
        inputs,
        {
          id: `${namespace}/${htc.metadata.name}`,
          admission: routeAdmission(htc),
          generation: statusShapeOf(entries) === 'dataplane' ? 'dataplane' : 'agent',
        },
        inputs.routeServices,
      ),
    };
  });
  const configsUnreadable = inputs.haproxyCfgs.error
    ? `cannot read HAProxyCfgs: ${inputs.haproxyCfgs.error.message}`
    : undefined;
  return { installations, ...(configsUnreadable ? { configsUnreadable } : {}) };
}

/** The memory given, plus the configs these installations show now (live and retained), keyed by checksum. */
export function rememberConfigs(memory: ConfigMemory, installations: Installation[], limit = 64): ConfigMemory {
  let next: Map<string, RenderedServer[]> | undefined;
  for (const inst of installations) {
    const c = inst.config;
    if (!c) continue;
    // under both names a deploy entry may give it
    const named = (
      view: { checksum?: string | undefined; contentChecksum?: string | undefined },
      servers: RenderedServer[],
    ) =>
      [view.checksum, view.contentChecksum].filter((x): x is string => !!x).map((checksum) => ({ checksum, servers }));
    const seen = [...named(c, c.servers), ...c.retained.filter((r) => r.servers).flatMap((r) => named(r, r.servers!))];
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
