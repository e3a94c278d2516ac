import { CATALOGUE } from './catalogue.ts';
import type { CatalogueEntry, Finding, WaitHold } from '../types/finding.ts';

// Fail fast: when a wait may end on a stall cause instead of waiting out the progress deadline. Which causes, and
// after how long or how many restarts, is the catalogue's `endsWait`; this module only keeps the clock.

/** The hold of a finding's form, if that form ends a wait. */
export function waitHoldOf(f: Finding): WaitHold | undefined {
  const hold = (CATALOGUE as Record<string, CatalogueEntry>)[f.id]?.endsWait;
  if (!hold) return undefined;
  if (typeof hold.holdSeconds === 'number') return hold as WaitHold;
  return f.variant === undefined ? undefined : (hold as Readonly<Record<string, WaitHold>>)[f.variant];
}

/** One cause held without a break since `since`: the same id, form and pod as the workload's first finding. */
export interface Held {
  key: string;
  since: number;
  /** when it becomes definite, if it can: past its hold, the pod's own allowance and (×patience) its restarts */
  dueAt?: number | undefined;
}

/**
 * The clock of the workload's first finding at `now`, continuing `previous` when it is the same cause. `patience`
 * multiplies every hold and restart count (status --patience). A cause that is not `endsWait` holds nothing.
 */
export function holdOf(
  finding: Finding | undefined,
  previous: Held | undefined,
  now: number,
  patience = 1,
): Held | undefined {
  const hold = finding && waitHoldOf(finding);
  if (!finding || !hold) return undefined;
  const key = JSON.stringify([finding.id, finding.variant ?? '', finding.pod ?? '']);
  const since = previous?.key === key ? previous.since : now;
  const restartsNeeded = hold.restarts === undefined ? 0 : Math.ceil(hold.restarts * patience);
  // restarts decide only a finding that counts them (a StatefulSet's pod may wait on an image, not a crash)
  if (finding.restarts !== undefined && finding.restarts < restartsNeeded) return { key, since };
  const dueAt = Math.max(since + hold.holdSeconds * patience * 1000, now + Math.max(0, finding.withinMs ?? 0));
  return { key, since, dueAt };
}

/** Whether the cause is definite at `now`. */
export const isDefinite = (held: Held | undefined, now: number): boolean =>
  held?.dueAt !== undefined && held.dueAt <= now;
