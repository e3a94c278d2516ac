// The lab's stand-in for drill's probe image (curlimages/curl running drill's shell loop, src/model/drill-plan.ts
// PROBE_SCRIPT): what the node stand-in runs for a container of that image. It does what the loop does — a GET of
// $DRILL_URL (with Host $DRILL_HOST) on a new connection, then a pause of $DRILL_INTERVAL seconds, until SIGTERM —
// and prints each request as the loop does, `<n> <curl exit code> <HTTP status> <seconds>`, with the exit code
// curl gives for the same end: 0 for an answer, 7 for a connection that could not be made, 56 for a connection
// reset, 52 for one closed without an answer, 28 for a timeout ($DRILL_TIMEOUT seconds), 8 for an answer that is
// not HTTP, 1 for anything else.
// Besides, it keeps its own count, class by class and request by request, in $LAB_PROBE_TALLY (one JSON line per
// request, written before the log line): what the lab's tests compare drill's report with.
import { appendFileSync } from 'node:fs';
import { get } from './load.ts';

const url = process.env.DRILL_URL ?? '';
const host = process.env.DRILL_HOST || undefined;
const intervalMs = Number(process.env.DRILL_INTERVAL ?? '0.1') * 1000;
const timeoutMs = Number(process.env.DRILL_TIMEOUT ?? '2') * 1000;
const tally = process.env.LAB_PROBE_TALLY;

function curlExit(outcome: string, error: string | undefined): number {
  if (error === undefined) return 0;
  if (outcome === 'refused') return 7;
  if (outcome === 'timeout') return 28;
  if (outcome === 'reset') return error === 'ECONNRESET' || error === 'EPIPE' ? 56 : 52;
  return error.startsWith('HPE_') ? 8 : 1;
}

for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => process.exit(0));

for (let seq = 1; ; seq++) {
  const startedAt = Date.now();
  const answer = await get(url, { ...(host ? { host } : {}), timeoutMs });
  const seconds = (Date.now() - startedAt) / 1000;
  const exitCode = curlExit(answer.outcome, answer.error);
  if (tally)
    appendFileSync(
      tally,
      `${JSON.stringify({ seq, outcome: answer.outcome, exitCode, status: answer.status ?? 0, startedAt })}\n`,
    );
  process.stdout.write(`${seq} ${exitCode} ${String(answer.status ?? 0).padStart(3, '0')} ${seconds.toFixed(6)}\n`);
  await new Promise((r) => setTimeout(r, intervalMs));
}
