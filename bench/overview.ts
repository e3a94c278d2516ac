// (g) status --watch over many workloads: the overview's feed (src/services/live-overview.ts, what the live overview
// subscribes to) following 10 and then 200 gated Deployments of one replica at once, each count in a fresh process
// of its own (`node bench/overview.ts --child …`, so that one's memory is not the other's): from the start until
// every row has its first model, then through a rollout of every one of them (a template annotation changed on
// all at once) until every row is done with its report. What it prints: the API requests the plugin's client sent
// (KubeClient.requestCount: lists, their pages, watches), the informers opened, peak RSS (process.resourceUsage's
// maxRSS), the heap after a full GC once every row has its model, and the CPU time, in all and over 10 quiet seconds. The same 10 Deployments are
// also followed as if each had a follower of its own (followRollout per workload: its own informers, on its own
// connection), the way the overview is not built, to show what sharing saves.
import { spawn } from 'node:child_process';
import { setTimeout as delay } from 'node:timers/promises';
import { parseArgs } from 'node:util';
import { KubeClient } from '../src/kube/client.ts';
import { connect } from '../src/kube/config.ts';
import { Informer } from '../src/kube/informer.ts';
import type { RolloutUpdate } from '../src/model/rollout/report.ts';
import { LiveOverview } from '../src/services/live-overview.ts';
import { followRollout, sharedStores } from '../src/services/live-rollout.ts';
import { resolveTargets } from '../src/services/targets.ts';
import { Kube } from '../test/cluster/kube.ts';
import { ensureNamespace, GATE, gatedApp, repoRoot, round, table, type BenchContext } from './lib.ts';
import { BULK_LABEL, inParallel, waitAllRolledOut } from './scale.ts';

export const OVERVIEW_NAMESPACE = 'bench-overview';
const GROUP = 'bench.kubectl-haptic.dev/overview';

type Mode = 'overview' | 'separate';

export interface FollowMeasure {
  mode: Mode;
  workloads: number;
  /** from the start to every row's first model */
  firstModelSeconds: number;
  requestsToFirstModel: number;
  informers: number | undefined;
  heapAfterGcMiB: number;
  /** CPU seconds per second over 10 s in which nothing changed */
  quietCpuPerSecond: number;
  /** through the rollout of every workload, to every row done */
  rolloutSeconds: number;
  requestsInAll: number;
  /** rows with a report: their rollout seen on its way, not only done */
  reported: number;
  peakRssMiB: number;
  cpuSeconds: number;
}

export interface OverviewBenchResult {
  namespace: string;
  replicasEach: number;
  runs: FollowMeasure[];
}

/** The Deployments the benchmark follows: `workloads` gated ones of one replica, the first `small` in a group of their own. */
export async function deployOverview(ctx: BenchContext, workloads: number, small: number): Promise<void> {
  await ensureNamespace(ctx.kube, OVERVIEW_NAMESPACE);
  ctx.log(`overview: ${workloads} gated Deployments of 1 replica in ${OVERVIEW_NAMESPACE}`);
  const started = Date.now();
  const apps = Array.from({ length: workloads }, (_, i) => {
    const objects = gatedApp({
      name: `app-${String(i).padStart(3, '0')}`,
      namespace: OVERVIEW_NAMESPACE,
      replicas: 1,
      terminationGracePeriodSeconds: 1,
    });
    const labels = (objects[0]!.metadata as { labels: Record<string, string> }).labels;
    labels[BULK_LABEL] = 'overview';
    labels[GROUP] = i < small ? 'small' : 'rest';
    return objects;
  });
  await inParallel(apps, 8, (objects) => ctx.kube.apply(objects));
  await waitAllRolledOut(ctx.kube, `${BULK_LABEL}=overview`, workloads, 900_000);
  ctx.log(`overview: ready (${((Date.now() - started) / 1000).toFixed(0)} s)`);
}

export async function benchOverview(
  ctx: BenchContext,
  options: { workloads?: number; small?: number } = {},
): Promise<OverviewBenchResult> {
  const workloads = options.workloads ?? 200;
  const small = options.small ?? 10;
  await deployOverview(ctx, workloads, small);
  const plan: { mode: Mode; selector: string; expect: number }[] = [
    { mode: 'overview', selector: `${GROUP}=small`, expect: small },
    { mode: 'separate', selector: `${GROUP}=small`, expect: small },
    { mode: 'overview', selector: GROUP, expect: workloads },
  ];
  const runs: FollowMeasure[] = [];
  for (const p of plan) {
    const measured = await child(ctx, p.mode, p.selector, p.expect);
    ctx.log(
      `overview: ${p.mode} of ${p.expect}: ${measured.requestsInAll} requests, ${measured.peakRssMiB} MiB peak RSS, ${measured.cpuSeconds} s CPU`,
    );
    runs.push(measured);
  }
  return { namespace: OVERVIEW_NAMESPACE, replicasEach: 1, runs };
}

function child(ctx: BenchContext, mode: Mode, selector: string, expect: number): Promise<FollowMeasure> {
  const argv = [
    '--expose-gc',
    'bench/overview.ts',
    '--child',
    mode,
    '--kubeconfig',
    ctx.cluster.adminKubeconfig,
    '--selector',
    selector,
    '--expect',
    String(expect),
  ];
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, argv, { cwd: repoRoot, env: ctx.env, stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
    proc.on('error', reject);
    proc.on('close', (code) =>
      code === 0 ? resolve(JSON.parse(out) as FollowMeasure) : reject(new Error(`overview child exited ${code}`)),
    );
  });
}

export function overviewTable(r: OverviewBenchResult): string {
  return table(
    [
      'followed',
      'workloads',
      'informers',
      'requests to first models',
      'requests in all',
      'first models',
      'rollout of all',
      'rows with a report',
      'heap after GC',
      'peak RSS',
      'CPU in all',
      'CPU when quiet',
    ],
    r.runs.map((m) => [
      m.mode === 'overview' ? 'the overview (shared informers)' : 'a follower each (own informers)',
      m.workloads,
      m.informers ?? '',
      m.requestsToFirstModel,
      m.requestsInAll,
      `${m.firstModelSeconds} s`,
      `${m.rolloutSeconds} s`,
      m.reported,
      `${m.heapAfterGcMiB} MiB`,
      `${m.peakRssMiB} MiB`,
      `${m.cpuSeconds} s`,
      `${m.quietCpuPerSecond} s/s`,
    ]),
  );
}

/** The measuring process: follows the workloads of `selector`, rolls them all out, prints a FollowMeasure. */
async function measure(mode: Mode, kubeconfig: string, selector: string, expect: number): Promise<FollowMeasure> {
  const started = performance.now();
  const client = new KubeClient(connect({ kubeconfig }));
  const clients = [client];
  const own = () => {
    const c = new KubeClient(connect({ kubeconfig }));
    clients.push(c);
    return c;
  };
  const requests = () => clients.reduce((n, c) => n + c.requestCount, 0);
  const kube = new Kube(kubeconfig);
  const namespace = OVERVIEW_NAMESPACE;
  const targets = await resolveTargets(client, { namespace, names: [], selector });
  if (targets.length !== expect) throw new Error(`${selector} matches ${targets.length} workloads, not ${expect}`);
  const latest = new Map<string, RolloutUpdate>();
  const seen = (key: string, u: RolloutUpdate) => latest.set(key, u);
  let informers: number | undefined;
  let stop: () => void;
  if (mode === 'overview') {
    informers = 0;
    const open = sharedStores((query, onChange) => {
      informers!++;
      return new Informer(client, query, { onChange });
    });
    const overview = new LiveOverview(open, targets, { conditionType: GATE, drained: false, namespace, selector });
    const unsubscribe = overview.subscribe((e) => e.type === 'update' && seen(e.key, e.update));
    stop = unsubscribe;
  } else {
    // each follower on a connection of its own, as that many single views would be: one HTTP/2 connection carries
    // at most the server's SETTINGS_MAX_CONCURRENT_STREAMS (100 here) at once, and ten followers' watches alone
    // are more, so that the lists behind them would never be answered
    const followers = targets.map((t) =>
      followRollout(own(), t, {
        conditionType: GATE,
        drained: false,
        onUpdate: (u) => seen(`${t.metadata.namespace}/${t.kind}/${t.metadata.name}`, u),
      }),
    );
    for (const f of followers) f.start();
    stop = () => {
      for (const f of followers) f.stop();
    };
  }
  const until = async (what: string, done: () => boolean, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!done()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await delay(100);
    }
  };
  await until('every row to have a model', () => latest.size === expect, 300_000);
  const firstModelSeconds = round((performance.now() - started) / 1000, 1);
  const requestsToFirstModel = requests();
  globalThis.gc?.();
  const heapAfterGcMiB = round(process.memoryUsage().heapUsed / 2 ** 20, 1);
  // nothing changes for 10 s: what following costs while the cluster is quiet (each row recomputes on its tick)
  const quietFrom = process.cpuUsage();
  await delay(10_000);
  const quiet = process.cpuUsage(quietFrom);
  const quietCpuPerSecond = round((quiet.user + quiet.system) / 1e6 / 10, 2);
  // every workload rolls at once; each row is done once it has seen its rollout through (its report)
  const rolloutStarted = performance.now();
  const revisions = new Map([...latest].map(([key, u]) => [key, u.model.revision]));
  latest.clear();
  const mark = new Date().toISOString();
  await inParallel(targets, 8, (t) =>
    kube.patch('apps/v1', 'Deployment', t.metadata.name, namespace, {
      spec: { template: { metadata: { annotations: { 'bench.kubectl-haptic.dev/rolled-at': mark } } } },
    }),
  );
  await until(
    'every row done after its rollout',
    () => latest.size === expect && [...latest].every(([key, u]) => u.done && u.model.revision !== revisions.get(key)),
    900_000,
  );
  // a rollout done between two recomputes is seen complete without being seen on its way: no report then
  const reported = [...latest.values()].filter((u) => u.report).length;
  const rolloutSeconds = round((performance.now() - rolloutStarted) / 1000, 1);
  stop();
  const cpu = process.cpuUsage();
  return {
    mode,
    workloads: expect,
    firstModelSeconds,
    requestsToFirstModel,
    informers,
    heapAfterGcMiB,
    quietCpuPerSecond,
    rolloutSeconds,
    requestsInAll: requests(),
    reported,
    peakRssMiB: round(process.resourceUsage().maxRSS / 1024, 1),
    cpuSeconds: round((cpu.user + cpu.system) / 1e6, 1),
  };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      child: { type: 'string' },
      kubeconfig: { type: 'string' },
      selector: { type: 'string' },
      expect: { type: 'string' },
    },
  });
  if (!values.child || !values.kubeconfig || !values.selector || !values.expect)
    throw new Error('bench/overview.ts runs as a child of bench/run.ts (npm run bench -- overview)');
  const result = await measure(values.child as Mode, values.kubeconfig, values.selector, Number(values.expect));
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}
