import { GATE_CONDITION, HAPTIC_DOMAIN } from '../../haptic/names.ts';
import type { Installation } from '../../model/haptic.ts';
import { leaderEvidence } from '../evidence.ts';

// Checks of HAPTIC that enable-gate's preflight and why-stalled share: each says what is wrong and proves it; the
// caller picks its own catalogue id (a preflight blocker, or a stall cause).

export const installationId = (i: Installation) => `${i.namespace}/${i.templateConfig}`;

/** No controller leader: the Lease is missing, empty, stale, or held by a pod that is gone or not running. */
export function leaderProblem(inst: Installation): { evidence: string[]; variant: 'scaledToZero' | 'controllerLogs' } | undefined {
  if (inst.leader.state === 'held' || inst.leader.state === 'unknown') return undefined;
  return { evidence: leaderEvidence(inst), variant: inst.controllerPods.length === 0 ? 'scaledToZero' : 'controllerLogs' };
}

/** The gate feature is off: no ClusterRole bound to the controller may patch pods/status. */
export function gateFeatureOff(inst: Installation): { evidence: string[] } | undefined {
  const gate = inst.gateFeature;
  if (gate.state !== 'off') return undefined;
  return { evidence: [`ClusterRoles bound to the controller: ${gate.clusterRoles.join(', ') || 'none'}; none allows patch on pods/status`] };
}

/** No installation: the answer of a cluster without HAPTIC, or of a user who may not read HAPTIC's objects. */
export function noInstallation(unreadable: string | undefined): { evidence: string[]; variant: 'absent' | 'unreadable' } {
  const absent = !unreadable || unreadable.startsWith('HAPTIC is not installed');
  return { evidence: [unreadable ?? 'no HAProxyTemplateConfig exists in any namespace'], variant: absent ? 'absent' : 'unreadable' };
}

/** Gate types in HAPTIC's domain that are not the one HAPTIC writes: most likely a typo. */
export function foreignGateTypes(types: Iterable<string>): string[] {
  return [...new Set(types)].filter((t) => t.startsWith(HAPTIC_DOMAIN) && t !== GATE_CONDITION);
}
