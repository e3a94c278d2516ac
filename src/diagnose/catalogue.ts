import type { Severity } from './finding.ts';

/**
 * Every finding id, its severity and what it means. Ids are stable and never reused: HG1xx are enable-gate
 * preflight checks, HS1xx HAPTIC-specific stall causes, HS2xx generic rollout causes, HS9xx progress notes.
 */
export const CATALOGUE = {
  HG100: { severity: 'ok', summary: 'A Service selects the pod template.' },
  HG101: { severity: 'blocker', summary: 'No Service selects the pod template, so HAPTIC would never set the gate.' },
  HG102: { severity: 'blocker', summary: 'No HAPTIC installation found.' },
  HG103: { severity: 'blocker', summary: 'HAPTIC has no controller leader.' },
  HG104: { severity: 'blocker', summary: 'HAPTIC\'s readiness-gate feature is off (controller may not patch pods/status).' },
  HG105: { severity: 'warning', summary: 'Whether HAPTIC\'s gate feature is on could not be checked.' },
  HG106: { severity: 'ok', summary: 'HAPTIC installation with a leader and the gate feature on.' },
  HG111: { severity: 'warning', summary: 'The rollout takes the only pod down before its replacement is Ready.' },
  HG112: { severity: 'warning', summary: 'Recreate strategy: every old pod stops before new ones start; the gate cannot keep one serving.' },
  HG113: { severity: 'warning', summary: 'The Deployment is paused: the rollout starts when it is resumed.' },
  HG114: { severity: 'warning', summary: 'A gate type in HAPTIC\'s domain that HAPTIC does not write (likely a typo).' },
  HG115: { severity: 'warning', summary: 'More than one HAPTIC installation: they would fight over the condition.' },
  HS101: { severity: 'error', summary: 'A gated pod is selected by no Service, so HAPTIC never sets its condition.' },
  HS102: { severity: 'error', summary: 'A Service selects the pod but no EndpointSlice lists it with a port HAProxy could route to.' },
  HS103: { severity: 'error', summary: 'HAPTIC has no controller leader: nothing renders, deploys or sets the gate.' },
  HS104: { severity: 'error', summary: 'No HAPTIC installation found.' },
  HS105: { severity: 'error', summary: "HAPTIC's gate feature is off: the controller may not patch pods/status." },
  HS106: { severity: 'error', summary: 'A HAProxy pod did not get the configuration routing to the pod (failed deploy).' },
  HS107: { severity: 'error', summary: 'HAProxy refused the rendered configuration; pods keep the last accepted one.' },
  HS108: { severity: 'error', summary: 'The readiness gate names a condition no installed controller writes (typo?).' },
  HS109: { severity: 'error', summary: 'Two HAPTIC installations route the pod and overwrite each other\'s condition.' },
  HS110: { severity: 'warning', summary: 'Every HAProxy pod routes to the pod, but HAPTIC has not set the condition.' },
  HS201: { severity: 'error', summary: "A readiness probe fails: the pod's containers never become ready." },
  HS202: { severity: 'error', summary: 'A container is crash-looping.' },
  HS203: { severity: 'error', summary: 'An image cannot be pulled.' },
  HS204: { severity: 'error', summary: 'A pod cannot be scheduled.' },
  HS205: { severity: 'error', summary: 'The ReplicaSet cannot create pods.' },
  HS206: { severity: 'warning', summary: 'The Deployment is paused.' },
  HS207: { severity: 'error', summary: 'The rollout exceeded its progress deadline.' },
  HS208: { severity: 'warning', summary: 'Old pods are stuck terminating past their grace period.' },
  HS901: { severity: 'info', summary: 'The rollout is progressing; what it is waiting for.' },
  HS902: { severity: 'ok', summary: 'The rollout is complete.' },
} as const satisfies Record<string, { severity: Severity; summary: string }>;

export type FindingId = keyof typeof CATALOGUE;
