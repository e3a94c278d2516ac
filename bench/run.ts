// npm run bench [-- startup requests redraw memory all-namespaces overview verdict] [--keep] [--reuse] [--compare PATH] [--runs N]
//   [--rtt 0,10,25,50]
//   [--cluster NAME] [--crowd N] [--target-replicas N] [--namespaces N] [--per-namespace N]
//
// Starts a local cluster named "bench" (or --cluster NAME, or $BENCH_CLUSTER: two people benchmarking on one machine
// each use their own) (test/cluster/cluster.ts), deploys the apps the benchmarks need, runs them, prints a table per
// benchmark and writes bench/results.json (sections of benchmarks not run this time are kept from the previous
// file), then stops the cluster. --keep leaves it running, --reuse uses a running cluster of that name, --compare
// PATH also measures another build's launcher (e.g. /tmp/old/bin/kubectl-haptic): timed in the start-up benchmark,
// following a rollout of its own in the memory benchmark. The big-cluster sizes default to the project's goals:
// a 500-replica gated Deployment among 5,000 pods of other Deployments (requests, memory), and 200 namespaces × 5
// Deployments (all-namespaces).
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  clusterIsHealthy,
  readClusterState,
  startCluster,
  stopCluster,
  type ClusterState,
} from '../test/cluster/cluster.ts';
import { Kube } from '../test/cluster/kube.ts';
import {
  benchEnv,
  ensureNamespace,
  gatedApp,
  KUBECTL,
  NAMESPACE,
  repoRoot,
  round,
  waitRolledOut,
  type BenchContext,
} from './lib.ts';
import { benchMemory, memoryTable } from './memory.ts';
import { benchOverview, overviewTable } from './overview.ts';
import { PROBE_APP, benchRedraw, redrawTable } from './redraw.ts';
import { benchRequests, requestsTable, type Target } from './requests.ts';
import { allNamespacesTable, benchAllNamespaces } from './all-namespaces.ts';
import { deployAllNamespaces, deployCrowd } from './scale.ts';
import { STARTUP_APP, benchStartup, startupTable } from './startup.ts';
import { benchVerdict, verdictTable } from './verdict.ts';

const BIG_NAMESPACE = 'bench-300';
const BIG = { name: 'web', namespace: BIG_NAMESPACE, replicas: 300 };
const CROWD_NAMESPACE = 'bench-crowd';
const ALL = ['startup', 'requests', 'redraw', 'memory', 'all-namespaces', 'overview'] as const;
/** run only when named: the verdict benchmark waits out a progress deadline (10 minutes by default) */
const OPTIONAL = ['verdict'] as const;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    keep: { type: 'boolean', default: false },
    reuse: { type: 'boolean', default: false },
    compare: { type: 'string', multiple: true, default: [] },
    runs: { type: 'string', default: '15' },
    rtt: { type: 'string', default: '0,10,25,50' },
    command: { type: 'string', multiple: true, default: [] },
    cluster: { type: 'string', default: process.env.BENCH_CLUSTER || 'bench' },
    crowd: { type: 'string', default: '5000' },
    'target-replicas': { type: 'string', default: '500' },
    namespaces: { type: 'string', default: '200' },
    'per-namespace': { type: 'string', default: '5' },
    deadline: { type: 'string', default: '600' },
  },
});
const CLUSTER = values.cluster;
const count = (name: 'crowd' | 'target-replicas' | 'namespaces' | 'per-namespace' | 'deadline') => {
  const n = Number(values[name]);
  if (!Number.isInteger(n) || n < 1) throw new Error(`--${name} must be a whole number above 0`);
  return n;
};
const CROWD = {
  namespace: CROWD_NAMESPACE,
  target: { name: 'web', replicas: count('target-replicas') },
  others: { count: Math.max(1, Math.round(count('crowd') / 500)), pods: count('crowd') },
};
/** status --watch's overview follows this many Deployments of one replica at once */
const OVERVIEW_WORKLOADS = 200;
const ALL_NAMESPACES = {
  prefix: 'bench-all-',
  namespaces: count('namespaces'),
  perNamespace: count('per-namespace'),
  replicas: 1,
};
const selected = positionals.length ? positionals : [...ALL];
for (const name of selected)
  if (!([...ALL, ...OPTIONAL] as readonly string[]).includes(name))
    throw new Error(`unknown benchmark "${name}"; choose from ${[...ALL, ...OPTIONAL].join(', ')}`);

const log = (line: string) => process.stderr.write(`[bench] ${line}\n`);
const invocation = ['npm run bench', ...(process.argv.length > 2 ? ['--', ...process.argv.slice(2)] : [])].join(' ');
const started = Date.now();
const loadAtStart = round(loadavg()[0]!, 2);

if (!existsSync(join(repoRoot, 'dist/kubectl-haptic.js')))
  throw new Error('dist/ is missing: run `npm run build` (npm run bench does)');

const needsCrowd = selected.includes('requests') || selected.includes('memory');
const needsAllNamespaces = selected.includes('all-namespaces');
// every pod at once, surges included (25% of each rolling Deployment), and HAPTIC's
const podsNeeded = Math.ceil(
  (STARTUP_APP.replicas + PROBE_APP.replicas + BIG.replicas) * 1.25 +
    10 +
    (needsCrowd ? CROWD.others.pods + CROWD.target.replicas * 1.5 : 0) +
    (needsAllNamespaces ? ALL_NAMESPACES.namespaces * ALL_NAMESPACES.perNamespace * ALL_NAMESPACES.replicas * 2 : 0) +
    (selected.includes('overview') ? OVERVIEW_WORKLOADS * 2 : 0) +
    (selected.includes('verdict') ? 30 : 0),
);

async function cluster(): Promise<ClusterState> {
  // fake nodes of the kubelet's default 110 pods, filled to 100 at most (the node stand-in's STANDIN_NODES)
  process.env.STANDIN_NODES = String(Math.max(2, Math.ceil(podsNeeded / 100)));
  const running = readClusterState(CLUSTER);
  if (values.reuse && running && (await clusterIsHealthy(running))) {
    log(`reusing the running cluster ${CLUSTER}`);
    return running;
  }
  // thousands of pods are made by the controller manager and placed by the scheduler: let them send 200 requests/s
  return startCluster({ name: CLUSTER, apiQps: 200 });
}

const state = await cluster();
const kube = new Kube(state.adminKubeconfig);
const podCapacity = (await kube.list<any>('v1', 'Node')).reduce(
  (sum, n) => sum + Number(n.status?.allocatable?.pods ?? 0),
  0,
);
if (podCapacity < podsNeeded)
  throw new Error(
    `the ${CLUSTER} cluster has room for ${podCapacity} pods, ${podsNeeded} are needed: run without --reuse to start it afresh`,
  );
const kubernetes = ((await kube.request('GET', '/version')) as { gitVersion?: string }).gitVersion;
const ctx: BenchContext = { cluster: state, kube, env: benchEnv(state), compare: values.compare, log };
const results: Record<string, unknown> = {};
const tables: string[] = [];
try {
  // the overview benchmark follows Deployments of its own: the shared apps are for the others
  if (selected.some((name) => name !== 'overview')) {
    log(
      `cluster ${CLUSTER}: room for ${podCapacity} pods; deploying bench/web (10 replicas), bench/probe (1) and bench-300/web (300)`,
    );
    await ensureNamespace(kube, NAMESPACE);
    await ensureNamespace(kube, BIG_NAMESPACE);
    await kube.apply([
      ...gatedApp({ name: STARTUP_APP.name, replicas: STARTUP_APP.replicas }),
      ...gatedApp({ name: PROBE_APP.name, replicas: PROBE_APP.replicas }),
      ...gatedApp({ ...BIG, terminationGracePeriodSeconds: 1 }),
    ]);
    for (const [name, ns] of [
      [STARTUP_APP.name, NAMESPACE],
      [PROBE_APP.name, NAMESPACE],
      [BIG.name, BIG_NAMESPACE],
    ] as const)
      await waitRolledOut(kube, name, ns);
    log(`apps ready (${((Date.now() - started) / 1000).toFixed(1)} s since start)`);
  }

  const section = (title: string, body: string) => {
    const text = `\n## ${title}\n${body}\n`;
    tables.push(text);
    process.stdout.write(text);
  };
  if (selected.includes('startup')) {
    const roundTrips = values.rtt.split(',').map(Number);
    if (!roundTrips.every((n) => Number.isInteger(n) && n >= 0))
      throw new Error('--rtt is a comma-separated list of whole milliseconds, e.g. 0,10,25,50');
    const r = await benchStartup(ctx, { runs: Number(values.runs), roundTrips });
    results.startup = r;
    section(
      `Start-up, one-shot: the single executable and the npm install, directly and through kubectl, at ${roundTrips.join(', ')} ms round trip (median of ${r.runs} runs after ${r.warmups} warm-ups; ${r.replicas}-replica Deployment)`,
      startupTable(r),
    );
  }
  if (selected.includes('verdict')) {
    const r = await benchVerdict(ctx, { deadlineSeconds: count('deadline') });
    results.verdict = r;
    section(
      `Time from the breaking change to the verdict: status --wait beside kubectl rollout status (progressDeadlineSeconds ${r.deadlineSeconds})`,
      verdictTable(r),
    );
  }
  if (needsAllNamespaces) {
    // before the crowded namespace exists: -A then lists these namespaces and the other benchmarks' small apps
    await deployAllNamespaces(ctx, ALL_NAMESPACES);
    const r = await benchAllNamespaces(ctx, { runs: Math.min(Number(values.runs), 11) });
    results.allNamespaces = r;
    section(
      `-A across ${ALL_NAMESPACES.namespaces} namespaces × ${ALL_NAMESPACES.perNamespace} Deployments (median of ${r.runs} runs after ${r.warmups} warm-ups)`,
      allNamespacesTable(r),
    );
  }
  if (selected.includes('overview')) {
    const r = await benchOverview(ctx, { workloads: OVERVIEW_WORKLOADS, small: 10 });
    results.overview = r;
    section(
      `status --watch over many workloads: the overview's feed following 10 and ${OVERVIEW_WORKLOADS} gated Deployments (1 replica each) at once, through a rollout of all of them (a fresh process each)`,
      overviewTable(r),
    );
  }
  if (needsCrowd) await deployCrowd(ctx, CROWD);
  const crowdLabel = `${CROWD.target.replicas} among ${CROWD.others.pods} other pods`;
  const requestTargets: Target[] = [
    {
      label: `${STARTUP_APP.replicas} replicas`,
      name: STARTUP_APP.name,
      namespace: NAMESPACE,
      replicas: STARTUP_APP.replicas,
    },
    { label: `${BIG.replicas} replicas`, ...BIG },
    { label: crowdLabel, name: CROWD.target.name, namespace: CROWD.namespace, replicas: CROWD.target.replicas },
  ];
  if (selected.includes('requests')) {
    const r = await benchRequests(ctx, requestTargets, values.command);
    results.requests = r;
    section('API requests (and bytes) of a one-shot command (fresh Deployments)', requestsTable(r));
  }
  if (selected.includes('redraw')) {
    const r = await benchRedraw(ctx, [
      { label: '1', name: PROBE_APP.name, namespace: NAMESPACE, replicas: PROBE_APP.replicas },
      { label: '300', ...BIG },
    ]);
    results.redraw = r;
    section(
      `Watch mode: a pod condition changes → the model shows it (${r.flips} changes)`,
      `${redrawTable(r)}\n(${r.note})`,
    );
  }
  if (selected.includes('memory')) {
    const r = await benchMemory(
      ctx,
      { name: CROWD.target.name, namespace: CROWD.namespace, replicas: CROWD.target.replicas },
      { name: STARTUP_APP.name, namespace: NAMESPACE, replicas: STARTUP_APP.replicas },
    );
    results.memory = r;
    section('Peak memory following a rollout', memoryTable(r));
    if (selected.includes('requests')) {
      // The rollout left its events behind (Scheduled, Killing… per pod): the same count, since only Warning events are read.
      const after = await benchRequests(ctx, requestTargets, values.command);
      results.requestsAfterRollout = after;
      section(
        `API requests (and bytes) of a one-shot command (after the ${CROWD.target.replicas}-replica rollout)`,
        requestsTable(after),
      );
    }
  }
} finally {
  if (values.keep)
    log(
      `--keep: cluster ${CLUSTER} keeps running; export KUBECONFIG=${state.adminKubeconfig}; stop it with: node test/cluster/down.ts ${CLUSTER}`,
    );
  else {
    await stopCluster(CLUSTER);
    log(`stopped cluster ${CLUSTER}`);
  }
}

const file = join(repoRoot, 'bench/results.json');
const previous = existsSync(file)
  ? (JSON.parse(readFileSync(file, 'utf8')) as { results?: Record<string, unknown> })
  : {};
const output = {
  generatedAt: new Date().toISOString(),
  machine: machine(),
  // each section says which command measured it: sections of benchmarks not run this time come from other runs
  results: {
    ...(previous.results ?? {}),
    ...Object.fromEntries(
      Object.entries(results).map(([k, v]) => [
        k,
        { measuredAt: new Date().toISOString(), measuredBy: invocation, ...(v as object) },
      ]),
    ),
  },
};
writeFileSync(file, `${JSON.stringify(output, null, 2)}\n`);
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
