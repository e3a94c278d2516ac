import { type DrainSessions, spread, type RolloutReport, type Spread } from '../model/rollout/report.ts';
import type { Painter } from './style.ts';
import { workloadRef } from './status-rows.ts';

/** Configs listed one by one in the text report: the last few (-o json|yaml has them all). */
const CONFIGS_LISTED = 3;

/** Durations in a report: tenths of a second under a minute (the steps are short), else like ages. */
export function duration(ms: number): string {
  if (ms < 60_000) return `${(Math.round(ms / 100) / 10).toFixed(1)}s`;
  const s = Math.round(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

const spreadText = (s: Spread) =>
  s.count === 1
    ? `${duration(s.minMs)}`
    : `min ${duration(s.minMs)} · median ${duration(s.medianMs)} · max ${duration(s.maxMs)}`;

/** A pod name with its ReplicaSet hash shortened: web-7f5f5b8fd6-dl48n → web-7f5…-dl48n. */
export function shortPod(name: string): string {
  return name.replace(/-([a-z0-9]{3})[a-z0-9]{4,}-([a-z0-9]{5})$/, '-$1…-$2');
}

/** How an old pod's sessions ended, in the report's words. */
export function sessionsLine(s: DrainSessions): { text: string; tone: 'good' | 'bad' | 'plain' } | undefined {
  const plural = (n: number) => `${n} session${n === 1 ? '' : 's'}`;
  const faults = [s.failed ? `${s.failed} failed` : '', s.retried ? `${s.retried} retried on another pod` : '']
    .filter(Boolean)
    .join(', ');
  const counted = faults ? ` (HAProxy: ${faults})` : '';
  if (s.killedWith !== undefined)
    return {
      text: `killed with ${plural(s.killedWith)} open${counted}${s.readBeforeEndMs ? `; last read ${duration(s.readBeforeEndMs)} before` : ''}`,
      tone: 'bad',
    };
  if (s.unsettled !== undefined)
    return {
      text: `ended with ${plural(s.unsettled)} open at its last read; HAProxy no longer listed it to tell how they ended${counted}`,
      tone: 'plain',
    };
  if (s.drainedAfterMs !== undefined)
    return {
      text: `drained of connections ${s.asItEnded ? 'as it ended, ' : ''}at +${duration(s.drainedAfterMs)}${s.graceLeftMs !== undefined ? ` (${duration(s.graceLeftMs)} of grace left)` : ''}${s.peak ? `, from ${plural(s.peak)}` : ''}${counted}`,
      tone: faults ? 'plain' : 'good',
    };
  return undefined;
}

/** The report status --wait and --watch print once the rollout is done (and drained, with --drained). */
export function reportText(r: RolloutReport, paint: Painter): string {
  const lines = [
    paint(
      'bold',
      `Rollout report: ${workloadRef(r)} -n ${r.namespace} ${r.drained ? 'complete and drained' : 'complete'}${r.totalMs !== undefined ? ` in ${duration(r.totalMs)}` : ''} (as watched)`,
    ),
  ];
  const g = r.gateLatency;
  lines.push(
    g
      ? `  gate latency (ContainersReady → gate True): ${spreadText(g)} over ${g.count} pod${g.count === 1 ? '' : 's'}`
      : '  gate latency: no new pod went through the gate while watched',
  );
  for (const p of g?.pods ?? []) lines.push(`    ${p.pod}  ${duration(p.ms)}`);
  const d = r.readyToDeletion;
  if (d) lines.push(`  new pod Ready → old pod deleted: ${spreadText(d)}`);
  if (r.drains.length) {
    lines.push('  old pods drained:');
    for (const x of r.drains) {
      const grace = x.graceMs === undefined ? '' : ` of ${duration(x.graceMs)} grace`;
      const how = !x.gone
        ? paint('yellow', ' (still terminating)')
        : x.killedAtEndOfGrace
          ? paint('yellow', ' (killed at the end of grace)')
          : ' (exited by itself)';
      lines.push(`    ${x.pod}  ${x.drainMs === undefined ? '?' : duration(x.drainMs)}${grace}${how}`);
      const s = x.sessions && sessionsLine(x.sessions);
      if (s) lines.push(`      ${s.tone === 'bad' ? paint('red', s.text) : s.text}`);
    }
  }
  const converged = r.haproxy.filter((c) => c.convergenceMs !== undefined);
  if (converged.length) {
    const superseded = r.haproxy.length - converged.length;
    lines.push(
      `  HAProxy convergence (a config first seen → on every HAProxy pod): ${spreadText(spread(converged.map((c) => c.convergenceMs!))!)}`,
    );
    lines.push(
      `    over ${converged.length} config${converged.length === 1 ? '' : 's'}${superseded ? `; ${superseded} more replaced before reaching every pod` : ''}`,
    );
    for (const c of converged.slice(-CONFIGS_LISTED))
      lines.push(
        `    ${c.installation} ${c.checksum.slice(0, 12)}  ${duration(c.convergenceMs!)} on ${c.haproxyPods} HAProxy pod${c.haproxyPods === 1 ? '' : 's'}`,
      );
    if (converged.length > CONFIGS_LISTED) lines.push(`    (the last ${CONFIGS_LISTED}; -o json lists all)`);
  }
  return `${lines.join('\n')}\n`;
}
