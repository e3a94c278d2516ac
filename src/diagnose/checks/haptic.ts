import { GATE_CONDITION, HAPTIC_DOMAIN } from '../../haptic/names.ts';
import type { Installation, Validation } from '../../model/haptic/haptic.ts';
import { leaderEvidence } from '../evidence.ts';

// Checks of HAPTIC that enable-gate's preflight and why-stalled share: each says what is wrong and proves it; the
// caller picks its own catalogue id (a preflight blocker, or a stall cause).

export const installationId = (i: Installation) => `${i.namespace}/${i.templateConfig}`;

/** No controller leader: the Lease is missing, empty, stale, or held by a pod that is gone or not running. */
export function leaderProblem(
  inst: Installation,
): { evidence: string[]; variant: 'scaledToZero' | 'controllerLogs' } | undefined {
  if (inst.leader.state === 'held' || inst.leader.state === 'unknown' || inst.leader.state === 'disabled')
    return undefined;
  return {
    evidence: leaderEvidence(inst),
    variant: inst.controllerPods.length === 0 ? 'scaledToZero' : 'controllerLogs',
  };
}

/** Leader election off (one controller, no Lease) and that controller is not running: nothing renders or gates. */
export function standaloneControllerDown(
  inst: Installation,
): { evidence: string[]; variant: 'scaledToZero' | 'notRunning'; pod?: string | undefined } | undefined {
  if (inst.leader.state !== 'disabled' || inst.leader.holderPhase === 'Running') return undefined;
  return {
    evidence: [
      `haproxytemplateconfig ${installationId(inst)}: spec.controller.leaderElection.enabled: false (one controller, no Lease)`,
      ...leaderEvidence(inst),
    ],
    variant: inst.leader.holder ? 'notRunning' : 'scaledToZero',
    pod: inst.leader.holder,
  };
}

/** The Lease could not be read: whether there is a leader is unknown (never shown as "no leader"). */
export function leaderUnknown(inst: Installation): { evidence: string[] } | undefined {
  return inst.leader.state === 'unknown' ? { evidence: leaderEvidence(inst) } : undefined;
}

/** The gate feature is off: no ClusterRole bound to the controller may patch pods/status. */
export function gateFeatureOff(inst: Installation): { evidence: string[]; variant: 'rbac' | 'dataplane' } | undefined {
  const gate = inst.gateFeature;
  if (gate.state !== 'off') return undefined;
  const evidence = [
    `ClusterRoles bound to the controller: ${gate.clusterRoles.join(', ') || 'none'}; none allows patch on pods/status`,
  ];
  if (inst.statusShape === 'dataplane') {
    evidence.push(
      `haproxycfg ${inst.namespace}/${inst.config?.name}: deploy statuses of the dataplane-API generation (deployedAt, no podUID): a HAPTIC release from before the readiness gate`,
    );
  }
  return { evidence, variant: inst.statusShape === 'dataplane' ? 'dataplane' : 'rbac' };
}

/** No installation: the answer of a cluster without HAPTIC, or of a user who may not read HAPTIC's objects. */
export function noInstallation(unreadable: string | undefined): {
  evidence: string[];
  variant: 'absent' | 'unreadable';
} {
  const absent = !unreadable || unreadable.startsWith('HAPTIC is not installed');
  return {
    evidence: [unreadable ?? 'no HAProxyTemplateConfig exists in any namespace'],
    variant: absent ? 'absent' : 'unreadable',
  };
}

/** Gate types in HAPTIC's domain that are not the one HAPTIC writes: most likely a typo. */
export function foreignGateTypes(types: Iterable<string>): string[] {
  return [...new Set(types)].filter((t) => t.startsWith(HAPTIC_DOMAIN) && t !== GATE_CONDITION);
}

export type RenderProblem = 'haproxyRefused' | 'gateUnavailable' | 'configInvalid' | 'loadGateFailed';

/** What HAPTIC's status updater writes for HAProxy's refusal of a render (configchange/status_updater.go). */
const HAPROXY_REFUSED_MESSAGE = 'HAProxy configuration validation failed';

/**
 * What HAPTIC's validation says, told apart by what HAProxy runs. `blocking`: no new render reaches HAProxy — it
 * refused the render (the gate release's HAProxyCfg ConfigValidated=False HAProxyRefused or ConfigPinned=True, or a
 * `-invalid` HAProxyCfg newer than the live config: pkg/controller/configpublisher/workers.go writes one on every
 * refusal; Validated=False HAProxyValidationFailed is written then and never cleared by a later accepted render, so it
 * alone is history once HAProxy accepts again, Validation.outlived), or the validation could not run
 * (GateUnavailable). Not blocking: a template-config edit was refused (Validated=False ConfigInvalid, the dataplane
 * generation's "N validation error(s)"), and the previous config keeps rendering and deploying
 * (pkg/controller/configchange/handler.go publishes ConfigInvalidEvent and does not reinitialize the controller); new
 * controller pods refused the config at start-up (LoadGateFailed): they crash-loop, and the controller that leads keeps
 * rendering with what it loaded.
 */
export function renderProblem(
  inst: Installation,
): { variant: RenderProblem; evidence: string[]; blocking: boolean } | undefined {
  const c = inst.config;
  const v = inst.validated;
  const refusedByCfg = c?.configValidated?.status === 'False' || c?.pinned;
  const invalid = c?.invalid && !c.invalid.stale ? c.invalid : undefined;
  const haproxyVerdict =
    v?.reason === 'HAProxyValidationFailed' || (v?.reason === undefined && v?.message === HAPROXY_REFUSED_MESSAGE);
  const failed = v?.status === 'False' && !v.outlived;
  const blocking = !!(refusedByCfg || invalid || (failed && haproxyVerdict));
  if (!blocking && !failed) return undefined;
  const evidence: string[] = [];
  if (c?.configValidated && (blocking || c.configValidated.status === 'False'))
    evidence.push(
      `haproxycfg ${inst.namespace}/${c.name}: ConfigValidated=${c.configValidated.status} reason ${c.configValidated.reason}${c.configValidated.message ? `: ${c.configValidated.message}` : ''}`,
    );
  if (c?.pinned) evidence.push(`haproxycfg ${inst.namespace}/${c.name}: ConfigPinned=True (renders are held)`);
  if (v) evidence.push(validationLine(inst, v));
  if (invalid)
    evidence.push(
      `haproxycfg ${inst.namespace}/${invalid.name} holds the refused render${invalid.error ? `: ${invalid.error}` : ''}`,
    );
  if (blocking) {
    const reason = c?.configValidated?.status === 'False' ? c.configValidated.reason : undefined;
    return { variant: reason === 'GateUnavailable' ? 'gateUnavailable' : 'haproxyRefused', evidence, blocking };
  }
  if (v!.reason === 'LoadGateFailed') {
    evidence.push(...loadGateEvidence(inst));
    return { variant: 'loadGateFailed', evidence, blocking };
  }
  // what renders and deploys meanwhile: the live config, from before the refused edit
  if (c?.checksum)
    evidence.push(
      `haproxycfg ${inst.namespace}/${c.name} (checksum ${c.checksum}): rendered, and rendered again as the cluster changes, from the template config as it was before the refused edit`,
    );
  return { variant: 'configInvalid', evidence, blocking };
}

/** The controller pods that crash-loop (the new ones refusing the config) and the one that leads meanwhile. */
function loadGateEvidence(inst: Installation): string[] {
  const crashing = inst.controllerPods.filter(
    (p) => p.waitingReason === 'CrashLoopBackOff' || (!p.ready && p.restarts > 0),
  );
  const lines = crashing.map(
    (p) =>
      `controller pod ${p.name}: ${p.waitingReason ?? p.phase}, ${p.restarts} restart${p.restarts === 1 ? '' : 's'}`,
  );
  const l = inst.leader;
  if (l.state === 'held' || (l.state === 'disabled' && l.holderPhase === 'Running'))
    lines.push(`controller pod ${l.holder} leads and keeps rendering with the configuration it loaded`);
  return lines;
}

function validationLine(inst: Installation, v: Validation): string {
  const head = v.reason
    ? `Validated=${v.status} reason ${v.reason}`
    : `validationStatus ${v.status === 'True' ? 'Valid' : v.status === 'False' ? 'Invalid' : 'Unknown'}`;
  const errors = v.errors.length
    ? `; validationErrors: ${v.errors.slice(0, 3).join(' | ')}${v.errors.length > 3 ? ` (+${v.errors.length - 3} more)` : ''}`
    : '';
  const history = v.outlived ? ' (an earlier refusal: a render was accepted since)' : '';
  return `haproxytemplateconfig ${installationId(inst)}: ${head}${v.message ? `: ${v.message}` : ''}${errors}${history}`;
}
