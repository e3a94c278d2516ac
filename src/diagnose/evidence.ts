import { formatAge } from '../model/time.ts';
import type { Installation } from '../model/haptic/haptic.ts';

/** The Lease and controller facts behind a leader verdict, as evidence lines. */
export function leaderEvidence(inst: Installation): string[] {
  const l = inst.leader;
  const lease = l.lease ? `lease ${inst.namespace}/${l.lease}` : `no lease in ${inst.namespace}`;
  const lines: string[] = [];
  switch (l.state) {
    case 'missing':
      lines.push(`${lease} does not exist`);
      break;
    case 'empty':
      lines.push(`${lease}: holderIdentity is empty`);
      break;
    case 'unknown':
      lines.push(`${lease}: could not be read (${l.reason ?? 'unknown reason'})`);
      break;
    case 'disabled':
      // leader election off: no Lease to show, the controller pods below are the whole story
      break;
    default:
      lines.push(
        `${lease}: holder ${l.holder}, renewed ${l.renewAgeMs === undefined ? 'never' : `${formatAge(l.renewAgeMs)} ago`}, leaseDurationSeconds ${l.leaseDurationSeconds ?? '?'}${l.state === 'stale' ? ' (stale)' : ''}`,
      );
  }
  if (l.state === 'holder-gone') lines.push(`holder pod ${l.holder} does not exist`);
  if (l.state === 'holder-not-running') lines.push(`holder pod ${l.holder} is ${l.holderPhase}`);
  if (inst.controllerPods.length === 0)
    lines.push(`no controller pods in namespace ${inst.namespace} (scaled to zero?)`);
  for (const p of inst.controllerPods) {
    lines.push(
      `controller pod ${p.name}: ${p.phase}${p.ready ? ', ready' : ', not ready'}${p.waitingReason ? `, ${p.waitingReason}` : ''}${p.restarts ? `, ${p.restarts} restarts` : ''}`,
    );
  }
  return lines;
}
