// Helpers shared by the benchmarks: the cluster they run on, manifests, timing of spawned commands, statistics and
// the tables they print. Benchmarks are scripts a person runs (`npm run bench`), not timed tests.
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { repoRoot, type ClusterState } from '../test/cluster/cluster.ts';
import { type Kube, KubeApiError, type KubeObject } from '../test/cluster/kube.ts';

export { repoRoot };

export const NAMESPACE = 'bench';
export const GATE = 'haproxy-haptic.org/load-balancer-ready';
export const PLUGIN = join(repoRoot, 'bin/kubectl-haptic');
export const KUBECTL = process.env.KUBECTL ?? 'kubectl';

export interface BenchContext {
  cluster: ClusterState;
  kube: Kube;
  /** env for spawned commands: KUBECONFIG of the bench cluster, no colour */
  env: NodeJS.ProcessEnv;
  /** extra plugin launchers to time beside bin/kubectl-haptic (--compare PATH) */
  compare: string[];
  log: (line: string) => void;
}

export function benchEnv(cluster: ClusterState): NodeJS.ProcessEnv {
  const { FORCE_COLOR: _, ...inherited } = process.env;
  return { ...inherited, KUBECONFIG: cluster.adminKubeconfig, NO_COLOR: '1' };
}

// ---------- manifests ----------

export interface AppOptions {
  name: string;
  namespace?: string;
  replicas: number;
  image?: string;
  gates?: string[];
  maxSurge?: number | string;
  maxUnavailable?: number | string;
  terminationGracePeriodSeconds?: number;
  podAnnotations?: Record<string, string>;
}

/** A Deployment whose pods carry the HAPTIC readiness gate, and a Service selecting them. */
export function gatedApp(o: AppOptions): KubeObject[] {
  const namespace = o.namespace ?? NAMESPACE;
  const labels = { app: o.name };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: o.name, namespace, labels },
      spec: {
        replicas: o.replicas,
        selector: { matchLabels: labels },
        strategy: {
          type: 'RollingUpdate',
          rollingUpdate: { maxSurge: o.maxSurge ?? '25%', maxUnavailable: o.maxUnavailable ?? '25%' },
        },
        template: {
          metadata: { labels, ...(o.podAnnotations ? { annotations: o.podAnnotations } : {}) },
          spec: {
            readinessGates: (o.gates ?? [GATE]).map((conditionType) => ({ conditionType })),
            terminationGracePeriodSeconds: o.terminationGracePeriodSeconds ?? 2,
            containers: [
              { name: 'app', image: o.image ?? 'example/app:1', ports: [{ name: 'http', containerPort: 8080 }] },
            ],
          },
        },
      },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: o.name, namespace },
      spec: { selector: labels, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    },
    // the route that makes HAPTIC render the Service
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name: o.name, namespace },
      spec: {
        ingressClassName: 'haproxy',
        rules: [
          {
            host: `${o.name}.example`,
            http: {
              paths: [
                { path: '/', pathType: 'Prefix', backend: { service: { name: o.name, port: { name: 'http' } } } },
              ],
            },
          },
        ],
      },
    },
  ];
}

export async function ensureNamespace(kube: Kube, name: string): Promise<void> {
  await kube.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }]);
}

// ---------- waiting ----------

export async function waitFor<T>(
  fn: () => Promise<T> | T,
  what: string,
  timeoutMs = 120_000,
  intervalMs = 250,
): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  for (;;) {
    try {
      const value = await fn();
      if (value) return value as NonNullable<T>;
    } catch (error) {
      last = error instanceof Error ? error.message : String(error);
    }
    if (Date.now() > deadline)
      throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}${last ? `: ${last}` : ''}`);
    await sleep(intervalMs);
  }
}

/** kubectl rollout status's notion of done: every replica updated and available, no old replica left. */
export async function waitRolledOut(
  kube: Kube,
  name: string,
  namespace = NAMESPACE,
  timeoutMs = 240_000,
): Promise<void> {
  await waitFor(
    async () => {
      const d = await kube.get<any>('apps/v1', 'Deployment', name, namespace);
      const s = d.status ?? {};
      const want = d.spec.replicas;
      return (
        (s.observedGeneration ?? 0) >= d.metadata.generation &&
        s.updatedReplicas === want &&
        s.replicas === want &&
        s.availableReplicas === want
      );
    },
    `deployment ${namespace}/${name} to roll out`,
    timeoutMs,
    500,
  );
}

/** Waits until no pod of the Deployment is terminating any more (old pods drained). */
export async function waitNoTerminating(
  kube: Kube,
  name: string,
  namespace = NAMESPACE,
  timeoutMs = 120_000,
): Promise<void> {
  await waitFor(
    async () =>
      (await kube.list<any>('v1', 'Pod', { namespace, labelSelector: `app=${name}` })).every(
        (p) => !p.metadata.deletionTimestamp,
      ),
    `old pods of ${namespace}/${name} to go`,
    timeoutMs,
    500,
  );
}

export async function setImage(kube: Kube, name: string, image: string, namespace = NAMESPACE): Promise<void> {
  await kube.patch(
    'apps/v1',
    'Deployment',
    name,
    namespace,
    { spec: { template: { spec: { containers: [{ name: 'app', image }] } } } },
    { type: 'strategic' },
  );
}

export async function tryDelete(
  kube: Kube,
  apiVersion: string,
  kind: string,
  name: string,
  namespace?: string,
): Promise<void> {
  try {
    await kube.delete(apiVersion, kind, name, namespace);
  } catch (error) {
    if (!(error instanceof KubeApiError && error.status === 404)) throw error;
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

// ---------- running and timing commands ----------

export interface Run {
  code: number | null;
  ms: number;
  /** from spawn to the first byte on stdout (undefined when nothing was printed there) */
  firstByteMs: number | undefined;
  stdout: string;
  stderr: string;
}

/** Runs a command to completion; ms is wall time from spawn to exit. */
export function run(argv: string[], env: NodeJS.ProcessEnv, timeoutMs = 600_000): Promise<Run> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const child = spawn(argv[0]!, argv.slice(1), { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    let firstByteMs: number | undefined;
    child.stdout.on('data', (c: Buffer) => {
      firstByteMs ??= Number(process.hrtime.bigint() - started) / 1e6;
      stdout += c.toString();
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, ms: Number(process.hrtime.bigint() - started) / 1e6, firstByteMs, stdout, stderr });
    });
  });
}

export interface Timed {
  name: string;
  argv: string[];
}

/**
 * Times commands interleaved (A B C A B C …) so a noisy neighbour hurts every command alike: `warmups` untimed rounds,
 * then `runs` timed rounds. Every run must exit 0.
 */
export async function timeInterleaved(
  commands: Timed[],
  env: NodeJS.ProcessEnv,
  runs: number,
  warmups: number,
): Promise<Map<string, number[]>> {
  const times = new Map(commands.map((c) => [c.name, [] as number[]]));
  for (let round = 0; round < warmups + runs; round++) {
    for (const c of commands) {
      const r = await run(c.argv, env, 60_000);
      if (r.code !== 0) throw new Error(`${c.argv.join(' ')} exited with ${r.code}\n${r.stderr}${r.stdout}`);
      if (round >= warmups) times.get(c.name)!.push(r.ms);
    }
  }
  return times;
}

// ---------- statistics and tables ----------

export function median(xs: number[]): number {
  return quantile(xs, 0.5);
}

export function quantile(xs: number[], q: number): number {
  if (!xs.length) return NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo]! + (s[hi]! - s[lo]!) * (pos - lo);
}

export function round(x: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}

export interface Summary {
  runs: number;
  medianMs: number;
  minMs: number;
  p90Ms: number;
}

export function summarize(xs: number[]): Summary {
  return {
    runs: xs.length,
    medianMs: round(median(xs)),
    minMs: round(Math.min(...xs)),
    p90Ms: round(quantile(xs, 0.9)),
  };
}

/** A plain aligned table; numbers are right-aligned. */
export function table(header: string[], rows: (string | number)[][]): string {
  const cells = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)));
  const numeric = header.map((_, i) =>
    rows.every((r) => typeof r[i] === 'number' || /^([\d.]+( ?[a-z×%]+)?|\d+ \/ \d+)$/i.test(String(r[i]))),
  );
  const line = (r: string[]) =>
    r
      .map((c, i) => (numeric[i] ? c.padStart(widths[i]!) : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(cells[0]!), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n');
}

export function ratio(a: number, b: number): string {
  return `${(a / b).toFixed(2)}×`;
}
