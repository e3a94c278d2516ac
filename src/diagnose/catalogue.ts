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
} as const satisfies Record<string, { severity: Severity; summary: string }>;

export type FindingId = keyof typeof CATALOGUE;
