// npm run bench [-- startup requests redraw memory] [--keep] [--reuse] [--compare PATH] [--runs N] [--cluster NAME]
//
// Starts a local cluster named "bench" (or --cluster NAME, or $BENCH_CLUSTER: two people benchmarking on one machine
// each use their own) (test/cluster/cluster.ts), deploys the apps the benchmarks need, runs them,
// prints a table per benchmark and writes bench/results.json (sections of benchmarks not run this time are kept from
// the previous file), then stops the cluster. --keep leaves it running, --reuse uses a running "bench" cluster,
// --compare PATH also times another build's launcher (e.g. /tmp/old/bin/kubectl-haptic) in the start-up benchmark.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { clusterIsHealthy, readClusterState, startCluster, stopCluster, type ClusterState } from '../test/cluster/cluster.ts';
import { Kube } from '../test/cluster/kube.ts';
import { benchEnv, ensureNamespace, gatedApp, KUBECTL, NAMESPACE, repoRoot, round, waitRolledOut, type BenchContext } from './lib.ts';
import { benchMemory, memoryTable } from './memory.ts';
import { PROBE_APP, benchRedraw, redrawTable } from './redraw.ts';
import { benchRequests, requestsTable, type Target } from './requests.ts';
import { STARTUP_APP, benchStartup, startupTable } from './startup.ts';

const BIG_NAMESPACE = 'bench-300';
const BIG = { name: 'web', namespace: BIG_NAMESPACE, replicas: 300 };
const ALL = ['startup', 'requests', 'redraw', 'memory'] as const;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    compare: { type: 'string', multiple: true, default: [] },
    runs: { type: 'string', default: '15' },
    command: { type: 'string', multiple: true, default: [] },
    cluster: { type: 'string', default: process.env.BENCH_CLUSTER || 'bench' },
  },
});
const CLUSTER = values.cluster;
const selected = positionals.length ? positionals : [...ALL];
for (const name of selected) if (!(ALL as readonly string[]).includes(name)) throw new Error(`unknown benchmark "${name}"; choose from ${ALL.join(', ')}`);

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const started = Date.now();
const loadAtStart = round(loadavg()[0]!, 2);

if (!existsSync(join(repoRoot, 'dist/kubectl-haptic.js'))) throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');

async function cluster(): Promise<ClusterState> {
  // 300 replicas + 25% surge + the rest: more than the kubelet's default of 110 pods on each of the two stand-in nodes
  process.env.STANDIN_NODE_PODS = '250';
  const running = readClusterState(CLUSTER);
  if (values.reuse && running && (await clusterIsHealthy(running))) {
    log(`reusing the running cluster ${CLUSTER}`);
    return running;
  }
  return startCluster({ name: CLUSTER });
}

const state = await cluster();
const kube = new Kube(state.adminKubeconfig);
const podCapacity = (await kube.list<any>('v1', 'Node')).reduce((sum, n) => sum + Number(n.status?.allocatable?.pods ?? 0), 0);
if (podCapacity < 400) throw new Error(`the ${CLUSTER} cluster has room for ${podCapacity} pods, 400 are needed: run without --reuse to start it afresh`);
const kubernetes = ((await kube.request('GET', '/version')) as { gitVersion?: string }).gitVersion;
const ctx: BenchContext = { cluster: state, kube, env: benchEnv(state), compare: values.compare, log };
const results: Record<string, unknown> = {};
const tables: string[] = [];
try {
  log('deploying bench/web (10 replicas), bench/probe (1) and bench-300/web (300)');
  await ensureNamespace(kube, NAMESPACE);
  await ensureNamespace(kube, BIG_NAMESPACE);
  await kube.apply([
    ...gatedApp({ name: STARTUP_APP.name, replicas: STARTUP_APP.replicas }),
    ...gatedApp({ name: PROBE_APP.name, replicas: PROBE_APP.replicas }),
    ...gatedApp({ ...BIG, terminationGracePeriodSeconds: 1 }),
  ]);
  for (const [name, ns] of [[STARTUP_APP.name, NAMESPACE], [PROBE_APP.name, NAMESPACE], [BIG.name, BIG_NAMESPACE]] as const) await waitRolledOut(kube, name, ns);
  log(`apps ready (${((Date.now() - started) / 1000).toFixed(1)} s since start)`);

  const section = (title: string, body: string) => {
    const text = `\n## ${title}\n${body}\n`;
    tables.push(text);
    process.stdout.write(text);
  };
  if (selected.includes('startup')) {
    const r = await benchStartup(ctx, { runs: Number(values.runs) });
    results.startup = r;
    section(`Start-up, one-shot: the single executable and the npm install, directly and through kubectl (median of ${r.runs} runs after ${r.warmups} warm-ups; ${r.replicas}-replica Deployment)`, startupTable(r));
  }
  const requestTargets: Target[] = [
    { label: '10', name: STARTUP_APP.name, namespace: NAMESPACE, replicas: STARTUP_APP.replicas },
    { label: '300', ...BIG },
  ];
  if (selected.includes('requests')) {
    const r = await benchRequests(ctx, requestTargets, values.command);
    results.requests = r;
    section('API requests of a one-shot command (fresh Deployments)', requestsTable(r));
  }
  if (selected.includes('redraw')) {
    const r = await benchRedraw(ctx, [
      { label: '1', name: PROBE_APP.name, namespace: NAMESPACE, replicas: PROBE_APP.replicas },
      { label: '300', ...BIG },
    ]);
    results.redraw = r;
    section(`Watch mode: a pod condition changes → the model shows it (${r.flips} changes)`, `${redrawTable(r)}\n(${r.note})`);
  }
  if (selected.includes('memory')) {
    const current = (await kube.get<any>('apps/v1', 'Deployment', BIG.name, BIG.namespace)).spec.template.spec.containers[0].image as string;
    const r = await benchMemory(ctx, BIG, { name: STARTUP_APP.name, namespace: NAMESPACE, replicas: STARTUP_APP.replicas }, current.endsWith(':1') ? current.replace(/:1$/, ':2') : current.replace(/:\d+$/, ':1'));
    results.memory = r;
    section('Peak memory following a rollout', memoryTable(r));
    if (selected.includes('requests')) {
      // The rollout left its events behind (Scheduled, Killing… per pod): the same count, or one more page per 500.
      const after = await benchRequests(ctx, requestTargets, values.command);
      results.requestsAfterRollout = after;
      section('API requests of a one-shot command (after the 300-replica rollout)', requestsTable(after));
    }
  }
} finally {
  if (values.keep) log(`--keep: cluster ${CLUSTER} keeps running; export KUBECONFIG=${state.adminKubeconfig}; stop it with: node test/cluster/down.ts ${CLUSTER}`);
  else {
    await stopCluster(CLUSTER);
    log(`stopped cluster ${CLUSTER}`);
  }
}

const file = join(repoRoot, 'bench/results.json');
const previous = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as { results?: Record<string, unknown> }) : {};
const output = {
  generatedAt: new Date().toISOString(),
  machine: machine(),
  results: { ...(previous.results ?? {}), ...Object.fromEntries(Object.entries(results).map(([k, v]) => [k, { measuredAt: new Date().toISOString(), ...(v as object) }])) },
};
writeFileSync(file, JSON.stringify(output, null, 2) + '\n');
log(`wrote bench/results.json (${((Date.now() - started) / 1000).toFixed(0)} s in all)`);

function machine() {
  const sh = (cmd: string, args: string[]) => {
    try {
      return execFileSync(cmd, args, { cwd: repoRoot, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    } catch {
      return undefined;
    }
  };
  const kubectlVersion = sh(KUBECTL, ['version', '--client', '-o', 'json']);
  return {
    cpu: cpus()[0]?.model,
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    /** other work on the machine skews timings: the 1-minute load average when the benchmarks started and ended */
    loadAverage: { start: loadAtStart, end: round(loadavg()[0]!, 2) },
    kubectl: kubectlVersion ? (JSON.parse(kubectlVersion).clientVersion?.gitVersion as string) : undefined,
    kubernetes,
    commit: sh('git', ['rev-parse', '--short', 'HEAD']),
    dirty: (sh('git', ['status', '--porcelain']) ?? '') !== '',
  };
}
