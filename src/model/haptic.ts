import type { Lease, Pod, PolicyRule } from '../types/kube.ts';
import type { HapticInputs } from '../types/snapshot.ts';
import { configText, renderedServers, type RenderedServer } from './haptic-config.ts';
import { COMPONENT_CONTROLLER, LABEL_COMPONENT, LABEL_INSTANCE, leaseNameCandidates, liveHAProxyCfgName } from '../haptic/names.ts';
import type { DeployedToPod } from '../types/haptic.ts';
import { findCondition } from './conditions.ts';
import { ageMs } from './time.ts';
import { selectorMatches } from './selectors.ts';

export type LeaderState = 'held' | 'missing' | 'empty' | 'stale' | 'holder-gone' | 'holder-not-running' | 'unknown';

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

export interface HAProxyPodInfo {
  name: string;
  phase: string;
  ready: boolean;
  entry?: DeployedToPod | undefined;
  /** runs the live config's current checksum (or a generation at least as new) */
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

export type GateFeature = { state: 'on'; clusterRoles: string[] } | { state: 'off'; clusterRoles: string[] } | { state: 'unknown'; reason: string };

export interface Installation {
  namespace: string;
  templateConfig: string;
  release?: string | undefined;
  validated?: { status: string; reason?: string | undefined; message?: string | undefined } | undefined;
  config?: {
    name: string;
    checksum?: string | undefined;
    generation?: number | undefined;
    configValidated?: { status: string; reason?: string | undefined; message?: string | undefined } | undefined;
    pinned: boolean;
    servers: RenderedServer[];
  } | undefined;
  leader: LeaderInfo;
  controllerPods: ControllerPodInfo[];
  haproxyPods: HAProxyPodInfo[];
  gateFeature: GateFeature;
}

export interface HapticModel {
  installations: Installation[];
  /** why installations could not be discovered (CRD missing, forbidden), when that is the case */
  unreadable?: string | undefined;
}

function condition(c: { status: string; reason?: string; message?: string } | undefined) {
  return c ? { status: c.status, reason: c.reason, message: c.message } : undefined;
}

function podReady(pod: Pod): boolean {
  return findCondition(pod.status?.conditions, 'Ready')?.status === 'True';
}

function leaderOf(lease: Lease | undefined, leaseName: string | undefined, controllers: Pod[], now: number): LeaderInfo {
  if (!lease) return { state: 'missing', lease: leaseName };
  const spec = lease.spec ?? {};
  const holder = spec.holderIdentity ?? undefined;
  const renewAgeMs = ageMs(spec.renewTime, now);
  const base = { lease: lease.metadata.name, holder, renewAgeMs, leaseDurationSeconds: spec.leaseDurationSeconds };
  if (!holder) return { ...base, state: 'empty' };
  if (renewAgeMs === undefined || renewAgeMs > (spec.leaseDurationSeconds ?? 15) * 1000) return { ...base, state: 'stale' };
  // holderIdentity is the pod name, sometimes with a suffix (`<pod>_<uuid>`)
  const pod = controllers.find((p) => holder === p.metadata.name || holder.startsWith(`${p.metadata.name}_`));
  if (!pod || pod.metadata.deletionTimestamp) return { ...base, state: 'holder-gone' };
  if (pod.status?.phase !== 'Running') return { ...base, state: 'holder-not-running', holderPhase: pod.status?.phase };
  return { ...base, state: 'held', holderPhase: pod.status?.phase };
}

function allows(rule: PolicyRule, group: string, resource: string, verb: string): boolean {
  const groups = rule.apiGroups ?? [];
  return (groups.includes(group) || groups.includes('*')) && (rule.resources ?? []).some((r) => r === resource || r === '*') && rule.verbs.some((v) => v === verb || v === '*');
}

/** The gate feature is on when a ClusterRole bound to the controller's service account may patch pods/status. */
function gateFeatureOf(namespace: string, serviceAccounts: string[], inputs: HapticInputs): GateFeature {
  const failed = inputs.clusterRoles.error ?? inputs.clusterRoleBindings.error;
  if (failed) return { state: 'unknown', reason: `cannot read RBAC: ${failed.message}` };
  if (serviceAccounts.length === 0) return { state: 'unknown', reason: 'no controller pod to read the service account from' };
  const bound = inputs.clusterRoleBindings.items.filter(
    (b) => b.roleRef.kind === 'ClusterRole' && (b.subjects ?? []).some((s) => s.kind === 'ServiceAccount' && s.namespace === namespace && serviceAccounts.includes(s.name)),
  );
  const roles = bound.map((b) => b.roleRef.name);
  const granting = inputs.clusterRoles.items.filter((r) => roles.includes(r.metadata.name) && (r.rules ?? []).some((rule) => allows(rule, '', 'pods/status', 'patch')));
  return granting.length ? { state: 'on', clusterRoles: granting.map((r) => r.metadata.name) } : { state: 'off', clusterRoles: roles };
}

export function buildHaptic(inputs: HapticInputs, now: number): HapticModel {
  if (inputs.templateConfigs.error) {
    const err = inputs.templateConfigs.error;
    const unreadable = err.kind === 'NotFound' ? 'HAPTIC is not installed: the HAProxyTemplateConfig CRD (haproxytemplateconfigs.haproxy-haptic.org) does not exist' : `cannot read HAProxyTemplateConfigs: ${err.message}`;
    return { installations: [], unreadable };
  }
  const installations = inputs.templateConfigs.items.map((htc): Installation => {
    const namespace = htc.metadata.namespace ?? '';
    const inNamespace = inputs.pods.items.filter((p) => p.metadata.namespace === namespace);
    const controllers = inNamespace.filter((p) => p.metadata.labels?.[LABEL_COMPONENT] === COMPONENT_CONTROLLER);
    const release = controllers[0]?.metadata.labels?.[LABEL_INSTANCE] ?? htc.metadata.labels?.[LABEL_INSTANCE];
    const leaseNames = leaseNameCandidates(htc, release);
    const lease = leaseNames.map((n) => inputs.leases.items.find((l) => l.metadata.namespace === namespace && l.metadata.name === n)).find(Boolean);
    const cfg = inputs.haproxyCfgs.items.find((c) => c.metadata.namespace === namespace && c.metadata.name === liveHAProxyCfgName(htc.metadata.name));
    const checksum = cfg?.spec?.checksum;
    const generation = cfg?.metadata.generation;
    const entries = cfg?.status?.deployedToPods ?? [];
    const haproxyPods = inNamespace
      .filter((p) => selectorMatches(htc.spec?.podSelector, p.metadata.labels) && !p.metadata.deletionTimestamp)
      .map((p): HAProxyPodInfo => {
        const entry = entries.find((e) => e.podName === p.metadata.name);
        const current = !!entry && ((!!checksum && entry.checksum === checksum) || (!!generation && (entry.observedGeneration ?? 0) >= generation));
        return { name: p.metadata.name, phase: p.status?.phase ?? 'Unknown', ready: podReady(p), entry, current };
      });
    return {
      namespace,
      templateConfig: htc.metadata.name,
      release,
      validated: condition(findCondition(htc.status?.conditions, 'Validated')),
      config: cfg && {
        name: cfg.metadata.name,
        checksum,
        generation,
        configValidated: condition(findCondition(cfg.status?.conditions, 'ConfigValidated')),
        pinned: findCondition(cfg.status?.conditions, 'ConfigPinned')?.status === 'True',
        servers: renderedServers(configText(cfg)),
      },
      leader: inputs.leases.error ? { state: 'unknown', lease: leaseNames[0], reason: inputs.leases.error.message } : leaderOf(lease, leaseNames[0], controllers, now),
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
    };
  });
  return { installations };
}
