import { CLASS_WORDS, type DrillReport, FAILURE_CLASSES } from '../model/drill/probe-log.ts';
import { duration } from './report-text.ts';
import type { Painter } from './style.ts';
import { workloadRef } from './status-rows.ts';

const CHANGE_WORDS = {
  restart: () => 'the restart',
  created: (pod: string) => `pod/${pod} created`,
  ready: (pod: string) => `pod/${pod} Ready`,
  draining: (pod: string) => `pod/${pod} (old) started draining`,
  gone: (pod: string) => `pod/${pod} (old) gone`,
} as const;

const requests = (n: number) => `${n} request${n === 1 ? '' : 's'}`;
const signed = (ms: number) => `${ms < 0 ? '−' : '+'}${duration(Math.abs(ms))}`;

/** drill's report as text: the target, the rollout, requests and failures by class, each group of failures set
 * against the rollout change closest before it, the verdict. Times are from the restart (else the first request). */
export function drillText(r: DrillReport, paint: Painter): string {
  const zero = Date.parse(r.rollout.restartedAt ?? r.startedAt ?? '') || 0;
  const at = (iso: string) => signed(Date.parse(iso) - zero);
  const lines = [
    paint('bold', `drill ${workloadRef(r)} -n ${r.namespace}: ${requests(r.requests)}, ${r.failed} failed`),
  ];
  const via =
    r.target.via === 'haproxy'
      ? `through HAPTIC's HAProxy (service ${r.target.service}) with Host ${r.target.host}`
      : `service ${r.target.service}`;
  lines.push(
    `  probe     pod/${r.probe.pod} (${r.probe.image}): GET ${r.target.url} every ${r.probe.intervalMs}ms, ${duration(r.probe.timeoutMs)} timeout, ${via}`,
  );
  const rollout =
    r.rollout.outcome === 'complete'
      ? `complete, old pods gone${r.rollout.durationMs !== undefined ? ` ${duration(r.rollout.durationMs)} after the ${r.rollout.restartedAt ? 'restart' : 'rollout started'}` : ''}`
      : r.rollout.outcome === 'failed'
        ? paint(
            'red',
            r.rollout.cause
              ? `failed: [${r.rollout.cause.id}] ${r.rollout.cause.title}; fix: ${r.rollout.cause.fix ?? 'see why-stalled'}`
              : 'failed (progress deadline exceeded)',
          )
        : paint('yellow', 'not done when --timeout ran out');
  lines.push(
    `  rollout   ${rollout}${r.rollout.restartedAt ? ` (restarted at ${new Date(r.rollout.restartedAt).toISOString().slice(11, 19)} UTC)` : ''}`,
  );
  lines.push(`  failures  ${FAILURE_CLASSES.map((c) => `${CLASS_WORDS[c]} ${r.failures[c]}`).join(' · ')}`);
  if (r.groups.length) {
    const rows = r.groups.map((g) => {
      const when = g.from === g.to ? at(g.from) : `${at(g.from)} … ${at(g.to)}`;
      const change = g.after
        ? `${g.after.pod ? CHANGE_WORDS[g.after.change](g.after.pod) : CHANGE_WORDS.restart()} ${duration(g.after.beforeMs)} before`
        : 'before any rollout change';
      return [String(g.count), CLASS_WORDS[g.class], when, change];
    });
    const header = [
      'FAILED',
      'CLASS',
      `WHEN (from the ${r.rollout.restartedAt ? 'restart' : 'first request'})`,
      'CLOSEST ROLLOUT CHANGE BEFORE THEM',
    ];
    const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
    const line = (cells: string[]) =>
      `  ${cells
        .map((c, i) => c.padEnd(widths[i]!))
        .join('   ')
        .trimEnd()}`;
    lines.push('', line(header), ...rows.map(line));
  }
  if (r.unreadableLines)
    lines.push(
      paint(
        'yellow',
        `  ${r.unreadableLines} probe log line${r.unreadableLines === 1 ? ' was' : 's were'} not a request (not counted)`,
      ),
    );
  lines.push(
    r.failed === 0
      ? paint('green', `✓ no request failed (${requests(r.requests)})`)
      : paint('red', `✗ ${r.failed} of ${requests(r.requests)} failed during the rollout`),
  );
  return `${lines.join('\n')}\n`;
}
