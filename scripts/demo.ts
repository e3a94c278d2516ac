// npm run demo — the main job for a newcomer: a gated rollout on the bundled local cluster, followed live.
//
// Builds the plugin when dist/ is older than its sources, starts the local cluster "dev" (or reuses it, like
// `npm run cluster:up`), deploys a small gated app in namespace "demo", waits until it is available, starts a rollout
// (a new image) and runs
// `kubectl haptic status web -n demo --watch --drained --no-sessions` in the foreground: new pods wait for HAProxy,
// the gate turns True, old pods drain. When stdout is not a terminal it runs `status --wait --drained` instead (one
// line per transition). The HAPTIC stand-in is slowed a little (each HAProxy pod takes 1.5 s to pick up a new config)
// so the story is visible. Exits with the plugin's exit code; progress goes to stderr, the closing notes to stdout.
import { spawn } from 'node:child_process';
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import {
  clusterIsHealthy,
  readClusterState,
  repoRoot,
  startCluster,
  type ClusterState,
} from '../test/cluster/cluster.ts';
import { Kube, KubeApiError } from '../test/cluster/kube.ts';
import { api, APP, NAMESPACE, web } from './demo-app.ts';
import { resetKnobs, setKnobs } from '../test/cluster/standins/knobs.ts';

const CLUSTER = 'dev';
const PLUGIN = join(repoRoot, 'bin/kubectl-haptic');

const log = (line: string) => process.stderr.write(`[demo] ${line}\n`);

async function cluster(): Promise<ClusterState> {
  const running = readClusterState(CLUSTER);
  if (running && (await clusterIsHealthy(running))) {
    log(`cluster ${CLUSTER} is already running at ${running.server}; reusing it`);
    return running;
  }
  if (running) log(`cluster ${CLUSTER} is not healthy; starting it afresh`);
  else
    log(
      `starting the local cluster ${CLUSTER} (the first time, etcd and Kubernetes are built from Go modules: 10–25 minutes)`,
    );
  return startCluster({ name: CLUSTER });
}

/** example/web:1.0 → example/web:1.1 → …, so every run of the demo starts a real rollout. */
function nextImage(image: string): string {
  const m = /^(.*):(\d+)\.(\d+)$/.exec(image);
  return m ? `${m[1]}:${m[2]}.${Number(m[3]) + 1}` : 'example/web:1.0';
}

async function waitSettled(kube: Kube, name: string, timeoutMs = 120_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const d = await kube.get<any>('apps/v1', 'Deployment', name, NAMESPACE);
    const s = d.status ?? {};
    const want = d.spec.replicas;
    const pods = await kube.list<any>('v1', 'Pod', { namespace: NAMESPACE, labelSelector: `app=${name}` });
    const done =
      (s.observedGeneration ?? 0) >= d.metadata.generation &&
      s.updatedReplicas === want &&
      s.replicas === want &&
      s.availableReplicas === want;
    if (done && pods.length === want && pods.every((p) => !p.metadata.deletionTimestamp)) return;
    if (Date.now() > deadline)
      throw new Error(
        `deployment ${NAMESPACE}/${name} did not become available within ${timeoutMs / 1000} s; see: kubectl haptic why-stalled ${name} -n ${NAMESPACE}`,
      );
    await new Promise((r) => setTimeout(r, 300));
  }
}

async function currentImage(kube: Kube): Promise<string | undefined> {
  const d = await kube.tryGet<any>('apps/v1', 'Deployment', APP, NAMESPACE);
  return d?.spec.template.spec.containers?.[0]?.image;
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function closingNotes(state: ClusterState): string {
  const k = onPath('kubectl-haptic') ? 'kubectl haptic' : 'bin/kubectl-haptic';
  const commented = (rows: [string, string][]) => {
    const width = Math.max(...rows.map(([c]) => c.length));
    return rows.map(([c, comment]) => `  ${c.padEnd(width)}   # ${comment}`);
  };
  const lines = [
    '',
    'The cluster keeps running. Keep playing:',
    '',
    `  export KUBECONFIG=${state.adminKubeconfig}`,
    ...commented([
      [`${k} status ${APP} -n ${NAMESPACE}`, 'one-shot view'],
      [`${k} why-stalled ${APP} -n ${NAMESPACE}`, 'nothing stalled: says so, or what it waits for'],
      [`${k} enable-gate api -n ${NAMESPACE} --dry-run=client`, 'preview adding the gate to an ungated app'],
    ]),
    '',
    '  Make HAPTIC lose its leader, roll again and ask why the rollout stalls:',
    `  kubectl -n haptic patch configmap haptic-standin-knobs -p '{"data":{"leader":"false"}}'`,
    `  kubectl -n ${NAMESPACE} set image deployment/${APP} web=example/web:2.0`,
    `  ${k} why-stalled ${APP} -n ${NAMESPACE}`,
    "  It says progressing (HS901) until the leader's Lease expires, 15 s after its last renewal, and when that is;",
    "  then no leader (HS103). Its fix reads the controller's logs, which this cluster cannot serve: its nodes are",
    '  stand-ins with no kubelet to read them from. npm run demo heals HAPTIC again and starts a new rollout.',
    '',
    ...commented([['npm run cluster:down', 'stop the cluster and remove its state']]),
  ];
  if (k !== 'kubectl haptic')
    lines.push('', '(kubectl-haptic is not on your PATH yet: `npm install -g .` makes it `kubectl haptic`)');
  return `${lines.join('\n')}\n`;
}

/** The newest modification time under `path` (a file, or a folder walked whole). */
function newest(path: string): number {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) return 0;
  if (!stat.isDirectory()) return stat.mtimeMs;
  return Math.max(0, ...readdirSync(path).map((entry) => newest(join(path, entry))));
}

/** Builds the plugin when dist/ is missing or older than what it is built from; says so, as it takes ~20 s. */
async function buildIfStale(): Promise<void> {
  const built = newest(join(repoRoot, 'dist/kubectl-haptic.js'));
  const sources = Math.max(
    ...['src', 'scripts/build.js', 'package.json', 'package-lock.json'].map((p) => newest(join(repoRoot, p))),
  );
  if (built && built >= sources) return;
  log(built ? 'building the plugin: dist/ is older than src/ (about 20 s)' : 'building the plugin (about 20 s)');
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, [join(repoRoot, 'scripts/build.js')], { stdio: 'inherit', cwd: repoRoot });
    child.on('error', reject);
    child.on('close', resolve);
  });
  if (code !== 0) throw new Error(`the build failed (exit ${code}); run npm run build to see why`);
}

async function main(): Promise<number> {
  await buildIfStale();
  const state = await cluster();
  const kube = new Kube(state.adminKubeconfig);

  // An earlier demo or test run may have left failure knobs on (e.g. leader=false); the demo wants a healthy HAPTIC.
  await resetKnobs(state.adminKubeconfig);

  await kube.apply([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } }]);
  const before = await currentImage(kube);
  if (before) log(`${NAMESPACE}/${APP} exists (image ${before}); waiting until it is available`);
  else
    log(`deploying ${NAMESPACE}/${APP}: 3 replicas behind HAPTIC's gate, maxSurge 1, maxUnavailable 0, 10 s to drain`);
  await kube.apply([...web(before ?? 'example/web:1.0'), ...api()]);
  await waitSettled(kube, APP);
  await waitSettled(kube, 'api');

  // Each HAProxy pod takes 1.5 s to pick up a new config, so the gate's wait is visible.
  await setKnobs(state.adminKubeconfig, { deployDelayMs: '1500' });

  const from = (await currentImage(kube))!;
  const to = nextImage(from);
  log(`rolling ${NAMESPACE}/${APP} from ${from} to ${to}`);
  await kube.patch(
    'apps/v1',
    'Deployment',
    APP,
    NAMESPACE,
    { spec: { template: { spec: { containers: [{ name: 'web', image: to }] } } } },
    { type: 'strategic' },
  );

  const tty = process.stdout.isTTY === true;
  // the bundled cluster's nodes are stand-ins that run no process to exec into (only the lab's do, as root): the
  // sessions HAProxy holds cannot be read there, so the live view shows the stages (docs/sessions.md)
  const args = ['status', APP, '-n', NAMESPACE, ...(tty ? ['--watch', '--no-sessions'] : ['--wait']), '--drained'];
  log(
    `kubectl haptic ${args.join(' ')}${tty ? '   (Ctrl-C to stop watching)' : '   (stdout is not a terminal: --wait instead of --watch)'}`,
  );
  const child = spawn(PLUGIN, args, { stdio: 'inherit', env: { ...process.env, KUBECONFIG: state.adminKubeconfig } });
  // Ctrl-C reaches the plugin too (same process group): let it restore the terminal and exit, then print the notes.
  const ignore = () => {};
  process.on('SIGINT', ignore);
  const code = await new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (c, signal) => resolve(c ?? (signal === 'SIGINT' ? 130 : 1)));
  });
  process.off('SIGINT', ignore);
  process.stdout.write(closingNotes(state));
  return code;
}

try {
  process.exitCode = await main();
} catch (error) {
  const message = error instanceof KubeApiError || error instanceof Error ? error.message : String(error);
  log(`failed: ${message}`);
  process.exitCode = 1;
}
