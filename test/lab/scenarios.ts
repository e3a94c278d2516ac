// The lab's rollouts under load, as `npm run lab` prints them and the lab tests assert them. Each scenario deploys
// into its own namespace, waits until its traffic path answers, starts a steady load through HAProxy's frontend
// (every request on a new connection), starts a rollout, waits until it is complete and the old pods are gone,
// keeps the load on a little longer, and counts every request by how it ended (test/cluster/lab/load.ts).
// - ungated / gated: one replica of the lab's HTTP server behind HAPTIC's HAProxy (its pods run real HAProxy), a
//   rolling update that starts the new pod before stopping the old one (maxSurge 1, maxUnavailable 0). Without the
//   gate the old pod is stopped as soon as the new one is Ready, while HAProxy still routes only to the old one;
//   with it, only once every HAProxy pod routes to the new one. A deploy to a HAProxy pod takes 2 s here (the
//   deployDelayMs knob; HAPTIC's ADR-0022 measured a route's propagation at about 1 s tuned and "seconds by
//   default"). The deploy that starts when the new pod is created lands a config with its server disabled; the one
//   enabling it starts once that one landed or, if the pod was Ready later, when it was Ready: either way HAProxy
//   routes to the new pod at least 2 s after it is Ready, and the old one is stopped well within that.
// - sts-ungated / sts-gated: the same server as a StatefulSet of two replicas behind HAPTIC's HAProxy. Its
//   controller replaces one ordinal at a time, the highest first, deleting the old pod before creating the new one
//   (no surge). The pod being replaced is covered by the other (HAPTIC's `option redispatch` retries a refused
//   connection on another server); without the gate, web-0 is deleted as soon as the new web-1 passes its probe,
//   while HAProxy does not route web-1 yet: for a moment no server takes requests. With the gate, web-1 is Ready
//   only once every HAProxy pod routes to it, and then web-0 goes.
// - haproxy-trap / haproxy-fixed: seed 004's HAProxy tier, two replicas of a plain HAProxy (master-worker, an image
//   that stops on SIGTERM, config from a ConfigMap) in front of the lab's server, rolled while the load goes through its
//   Service. The trap: no preStop, so SIGTERM hard-stops HAProxy (connections in flight are reset) while
//   kube-proxy still sends it new ones; the fix: a preStop that sleeps, sends SIGUSR1 (soft stop), sleeps, and
//   hard-stop-after bounding the soft stop.
import { Kube, type KubeObject } from '../cluster/kube.ts';
import { type Counts, get, Load } from '../cluster/lab/load.ts';
import type { Obj } from '../cluster/standins/common.ts';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import { labApp, labServed, labService } from './manifests.ts';

export const SCENARIOS = ['ungated', 'gated', 'sts-ungated', 'sts-gated', 'haproxy-trap', 'haproxy-fixed'] as const;
export type ScenarioName = (typeof SCENARIOS)[number];

export const DESCRIPTIONS: Record<ScenarioName, string> = {
  ungated: '1 replica behind HAPTIC, no readiness gate',
  gated: '1 replica behind HAPTIC, readiness gate',
  'sts-ungated': 'StatefulSet of 2 behind HAPTIC, no readiness gate',
  'sts-gated': 'StatefulSet of 2 behind HAPTIC, readiness gate',
  'haproxy-trap': 'HAProxy rolled: SIGTERM, no preStop',
  'haproxy-fixed': 'HAProxy rolled: sleep, SIGUSR1, hard-stop-after',
};

export type ScenarioResult = {
  name: ScenarioName;
  description: string;
  counts: Counts;
  rolloutMs: number;
  loadMs: number;
  /** what explains a failure: the first failed requests and the rolled pods' deletions and readiness, in ms from the restart */
  timeline: string[];
};

export type LoadSettings = {
  concurrency: number;
  intervalMs: number;
  timeoutMs: number;
  delayMs: number;
  minRequests: number;
  settleMs: number;
};

export const DEFAULT_LOAD: LoadSettings = {
  concurrency: 8,
  intervalMs: 20,
  timeoutMs: 5000,
  delayMs: 20,
  minRequests: 2500,
  settleMs: 2000,
};

const EDGE_IMAGE = 'registry.example.com/platform/edge-haproxy:2.6';
/** How long HAPTIC takes to bring a change to each HAProxy pod in the HAPTIC scenarios (see the header). */
const HAPTIC_DEPLOY_MS = 2000;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until<T>(what: string, timeoutMs: number, fn: () => Promise<T | undefined | false>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn().catch(() => undefined);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
    await sleep(200);
  }
}

/** The edge HAProxy's haproxy.cfg: its frontend, a health frontend for its readiness probe, the app by its Service. */
export function edgeConfig(appClusterIP: string, hardStopAfter?: string): string {
  return [
    'global',
    '    log stdout format raw local0',
    ...(hardStopAfter ? [`    hard-stop-after ${hardStopAfter}`] : []),
    'defaults',
    '    mode http',
    '    timeout connect 5s',
    '    timeout client 30s',
    '    timeout server 30s',
    'frontend fe_http',
    '    bind :8080',
    '    default_backend app',
    'frontend health',
    '    bind :8404',
    '    monitor-uri /healthz',
    'backend app',
    `    server app ${appClusterIP}:80`,
    '',
  ].join('\n');
}

export function edgeDeployment(namespace: string, fixed: boolean): KubeObject {
  const labels = { app: 'edge' };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'edge', namespace, labels },
    spec: {
      replicas: 2,
      selector: { matchLabels: labels },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels },
        spec: {
          terminationGracePeriodSeconds: fixed ? 20 : 10,
          volumes: [{ name: 'config', configMap: { name: 'edge' } }],
          containers: [
            {
              name: 'haproxy',
              image: EDGE_IMAGE,
              // master-worker, as the official image's entrypoint runs it: the master handles SIGTERM (forwarding it to
              // the worker, a hard stop). Without -W HAProxy installs no SIGTERM handler, and as PID 1 of its
              // container a signal without a handler is not delivered: it would stop only at the grace period's SIGKILL
              command: ['haproxy', '-W', '-db', '-f', '/usr/local/etc/haproxy/haproxy.cfg'],
              ports: [
                { name: 'http', containerPort: 8080 },
                { name: 'health', containerPort: 8404 },
              ],
              volumeMounts: [{ name: 'config', mountPath: '/usr/local/etc/haproxy' }],
              readinessProbe: { httpGet: { path: '/healthz', port: 'health' }, periodSeconds: 1, failureThreshold: 1 },
              // seed 004's fix: sleep while kube-proxy drops the pod (the seed's 10 s whole: on this two-core machine
              // under the whole suite's load, the endpoint removal reaching the node's Service rules took more than
              // 3 s once and more than 5 s once, each a refused connection), soft-stop, drain (the seed's 20 s cut to
              // 5, hard-stop-after being 4 s)
              ...(fixed
                ? { lifecycle: { preStop: { exec: { command: ['sh', '-c', 'sleep 10; kill -USR1 1; sleep 5'] } } } }
                : {}),
            },
          ],
        },
      },
    },
  };
}

type Workload = { kind: 'Deployment' | 'StatefulSet'; name: string };

/** Restarts a workload's rollout as `kubectl rollout restart` does. */
export async function restart(kube: Kube, namespace: string, { kind, name }: Workload): Promise<void> {
  const annotations = { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() };
  await kube.patch('apps/v1', kind, name, namespace, { spec: { template: { metadata: { annotations } } } });
}

/**
 * The rollout is complete (kubectl's rule; a StatefulSet's with its update revision the current one) and no pod
 * made before the restart is left. `seen` records, the first time each is seen, a pod's deletion and readiness.
 */
async function rolledOut(
  kube: Kube,
  namespace: string,
  { kind, name }: Workload,
  since: number,
  seen: Map<string, number>,
): Promise<boolean> {
  const d = await kube.get<Obj>('apps/v1', kind, name, namespace);
  const s = d.status ?? {};
  const complete =
    (s.observedGeneration ?? 0) >= (d.metadata.generation ?? 0) &&
    s.updatedReplicas === d.spec.replicas &&
    s.replicas === d.spec.replicas &&
    (kind === 'StatefulSet'
      ? s.readyReplicas === d.spec.replicas && s.currentRevision === s.updateRevision
      : s.availableReplicas === d.spec.replicas);
  const pods = await kube.list<Obj>('v1', 'Pod', { namespace, labelSelector: `app=${name}` });
  const now = Date.now();
  for (const p of pods) {
    const ready = p.status?.conditions?.some(
      (c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True',
    );
    if (ready && !seen.has(`${p.metadata.name} Ready`)) seen.set(`${p.metadata.name} Ready`, now);
    if (p.metadata.deletionTimestamp && !seen.has(`${p.metadata.name} deleted`))
      seen.set(`${p.metadata.name} deleted`, now);
  }
  if (!complete) return false;
  return pods.every((p) => Date.parse(p.metadata.creationTimestamp as string) >= since - 1000);
}

/** The scenarios whose load goes through HAPTIC's HAProxy (the others through seed 004's own HAProxy tier). */
const throughHaptic = (name: ScenarioName) => !name.startsWith('haproxy-');

async function newNamespace(kube: Kube, name: string): Promise<string> {
  const namespace = `${name}-${Math.random().toString(16).slice(2, 8)}`;
  await kube.create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name: namespace, labels: { 'haptic-test': 'true' } },
  });
  return namespace;
}

/** Where the load goes and what rolls, once the scenario's objects answer through its path. */
async function prepare(
  kube: Kube,
  name: ScenarioName,
  namespace: string,
): Promise<{ url: string; host?: string; rolls: Workload }> {
  if (throughHaptic(name)) {
    const sts = name.startsWith('sts-');
    await kube.apply([
      labApp({
        name: 'web',
        namespace,
        kind: sts ? 'StatefulSet' : 'Deployment',
        replicas: sts ? 2 : 1,
        gated: name.endsWith('-gated') || name === 'gated',
        maxSurge: 1,
        maxUnavailable: 0,
      }),
      ...labServed({ name: 'web', namespace }),
    ]);
    if (sts)
      await until('both pods of statefulset web Ready', 90_000, async () => {
        const s = await kube.get<Obj>('apps/v1', 'StatefulSet', 'web', namespace);
        return s.status?.readyReplicas === 2;
      });
    const svc = await kube.get<Obj>('v1', 'Service', 'haptic-haproxy', 'haptic');
    const haproxies = await kube.list<Obj>('v1', 'Pod', {
      namespace: 'haptic',
      labelSelector: 'app.kubernetes.io/component=loadbalancer,app.kubernetes.io/instance=haptic',
    });
    const host = `web.${namespace}.svc`;
    // every HAProxy pod routes the app before the load starts
    for (const pod of haproxies.filter((p) => p.status?.podIP)) {
      await until(
        `HAProxy pod ${pod.metadata.name} routing ${host}`,
        90_000,
        async () => (await get(`http://${pod.status.podIP}:8080/`, { host, timeoutMs: 2000 })).outcome === 'ok',
      );
    }
    return {
      url: `http://${svc.spec.clusterIP}/`,
      host,
      rolls: { kind: sts ? 'StatefulSet' : 'Deployment', name: 'web' },
    };
  }
  await kube.apply([labApp({ name: 'web', namespace, replicas: 2 }), labService({ name: 'web', namespace })]);
  const app = await kube.get<Obj>('v1', 'Service', 'web', namespace);
  const fixed = name === 'haproxy-fixed';
  await kube.apply([
    {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'edge', namespace },
      data: { 'haproxy.cfg': edgeConfig(app.spec.clusterIP, fixed ? '4s' : undefined) },
    },
    edgeDeployment(namespace, fixed),
    labService({ name: 'edge', namespace }),
  ]);
  const edge = await kube.get<Obj>('v1', 'Service', 'edge', namespace);
  await until('the edge HAProxy answering through its Service', 90_000, async () => {
    const ready = await kube.list<Obj>('v1', 'Pod', { namespace, labelSelector: 'app=edge' });
    const readyCount = ready.filter((p) =>
      p.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True'),
    ).length;
    return readyCount === 2 && (await get(`http://${edge.spec.clusterIP}/`, { timeoutMs: 2000 })).outcome === 'ok';
  });
  return { url: `http://${edge.spec.clusterIP}/`, rolls: { kind: 'Deployment', name: 'edge' } };
}

/**
 * Runs one scenario: load before, during and after a rollout; resolves with the counts. Its namespace is deleted
 * afterwards (not waited for).
 */
export async function runScenario(
  kubeconfig: string,
  name: ScenarioName,
  settings: LoadSettings = DEFAULT_LOAD,
  log: (line: string) => void = () => {},
): Promise<ScenarioResult> {
  const kube = new Kube(kubeconfig);
  const namespace = await newNamespace(kube, `lab-${name}`);
  const haptic = throughHaptic(name);
  if (haptic) await setKnobs(kubeconfig, { deployDelayMs: String(HAPTIC_DEPLOY_MS) as `${number}` });
  try {
    log(`${name}: deploying in namespace ${namespace}`);
    const target = await prepare(kube, name, namespace);
    const path = settings.delayMs > 0 ? `?delay=${settings.delayMs}` : '';
    const load = new Load({
      url: `${target.url}${path}`,
      ...(target.host ? { host: target.host } : {}),
      concurrency: settings.concurrency,
      intervalMs: settings.intervalMs,
      timeoutMs: settings.timeoutMs,
    }).start();
    const loadStarted = Date.now();
    await sleep(settings.settleMs);
    const started = Date.now();
    const rolls = `${target.rolls.kind.toLowerCase()}/${target.rolls.name}`;
    log(`${name}: restarting ${rolls} under load`);
    await restart(kube, namespace, target.rolls);
    const seen = new Map<string, number>();
    await until(`${rolls} rolled out and drained`, 120_000, () =>
      rolledOut(kube, namespace, target.rolls, started, seen),
    );
    const rolloutMs = Date.now() - started;
    await sleep(settings.settleMs);
    while (load.results.length < settings.minRequests) await sleep(100);
    const counts = await load.stop();
    log(`${name}: ${counts.requests} requests, ${counts.failed} failed (rollout ${(rolloutMs / 1000).toFixed(1)} s)`);
    const at = (t: number) => `+${((t - started) / 1000).toFixed(1)}s`;
    const timeline = [
      ...[...seen].map(([what, t]) => ({ t, line: `${at(t)} pod ${what} (seen)` })),
      ...load.results
        .filter((r) => r.outcome !== 'ok')
        .slice(0, 20)
        .map((r) => ({
          t: r.startedAt,
          line: `${at(r.startedAt)}…${at(r.endedAt)} request ${r.seq} ${r.outcome}${r.error ? ` ${r.error}` : ''}`,
        })),
    ]
      .sort((a, b) => a.t - b.t)
      .map((e) => e.line);
    return { name, description: DESCRIPTIONS[name], counts, rolloutMs, loadMs: Date.now() - loadStarted, timeline };
  } finally {
    if (haptic) await resetKnobs(kubeconfig);
    await kube.delete('v1', 'Namespace', namespace);
  }
}

const COLUMNS = ['requests', 'failed', 'refused', 'reset', 'timeout', 'http5xx', 'other'] as const;

/** The table `npm run lab` prints: one row per scenario, requests and failures by class. Pure. */
export function resultsTable(results: ScenarioResult[]): string {
  const header = ['scenario', ...COLUMNS, 'rollout'];
  const rows = results.map((r) => [
    `${r.name} (${r.description})`,
    ...COLUMNS.map((c) => String(r.counts[c])),
    `${(r.rolloutMs / 1000).toFixed(1)} s`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[line(header), ...rows.map(line)].join('\n')}\n`;
}
