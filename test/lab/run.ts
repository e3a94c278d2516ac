// npm run lab — the lab's rollouts under load, side by side: a single-replica rollout behind HAPTIC's real HAProxy
// without and with the readiness gate, a StatefulSet's the same, and seed 004's HAProxy shutdown trap against its fix. Prints a table of
// requests and failures by class (test/lab/scenarios.ts says what each row does).
//   npm run lab [-- SCENARIO…] [-- --json]
// Needs root (it makes network namespaces) and Debian's haproxy, nftables and iproute2. Starts its own cluster
// "lab-run" inside the namespace khlab-lab-run, and removes both at the end (also on Ctrl-C).
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { startCluster, stopCluster } from '../cluster/cluster.ts';
import { createLabNetns, deleteLabNetns, insideNetns, labNetnsName, labUnavailable } from '../cluster/lab/netns.ts';
import { resultsTable, runScenario, SCENARIOS, type ScenarioName, type ScenarioResult } from './scenarios.ts';

const NAME = 'lab-run';
const netns = labNetnsName(NAME);
const { values, positionals } = parseArgs({ options: { json: { type: 'boolean' } }, allowPositionals: true });
const unknown = positionals.filter((p) => !(SCENARIOS as readonly string[]).includes(p));
if (unknown.length) {
  process.stderr.write(`unknown scenario ${unknown.join(', ')}; scenarios: ${SCENARIOS.join(', ')}\n`);
  process.exit(3);
}
const chosen = (positionals.length ? positionals : SCENARIOS) as ScenarioName[];
const log = (line: string) => process.stderr.write(`[lab] ${line}\n`);

if (!insideNetns(netns)) {
  // a process cannot move itself into a network namespace: make it, run this script again inside, remove it
  const unavailable = labUnavailable();
  if (unavailable) {
    process.stderr.write(`error: ${unavailable}\n`);
    process.exit(1);
  }
  createLabNetns(netns);
  process.on('SIGINT', () => {}); // the child (same process group) gets it and cleans up; then so do we
  const child = spawnSync(
    'ip',
    ['netns', 'exec', netns, process.execPath, ...process.execArgv, process.argv[1]!, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  deleteLabNetns(netns);
  process.exit(child.status ?? 1);
}

let stopping = false;
process.on('SIGINT', () => {
  if (stopping) return;
  stopping = true;
  log('interrupted: stopping the lab cluster');
  void stopCluster(NAME).finally(() => process.exit(130));
});

const results: ScenarioResult[] = [];
try {
  const state = await startCluster({ name: NAME, lab: { netns } });
  for (const name of chosen) results.push(await runScenario(state.adminKubeconfig, name, undefined, log));
} catch (error) {
  process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
} finally {
  if (!stopping) await stopCluster(NAME);
}
if (results.length) process.stdout.write(values.json ? `${JSON.stringify(results, null, 2)}\n` : resultsTable(results));
