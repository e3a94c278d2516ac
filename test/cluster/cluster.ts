// A real local Kubernetes control plane for the end-to-end tests (see README.md next to this file): etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler built from Go modules by build.sh, plus our node and
// HAPTIC stand-ins. Every process runs detached in its own process group and is remembered in state.json, so a
// cluster outlives the script that started it and any later script can stop it.
import { execFileSync, spawn } from 'node:child_process';
import {
  closeSync,
  existsSync,
  fstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { load } from 'js-yaml';
import { Kube, type KubeObject } from './kube.ts';
import { deletePodNetns, insideNetns } from './lab/netns.ts';
import { FAKE_NODES } from './standins/fake-nodes.ts';

export type ClusterState = {
  name: string;
  stateDir: string;
  server: string;
  adminKubeconfig: string;
  limitedKubeconfig: string;
  /** user `audited` (group system:masters, like admin): the API server records its every request in auditLog */
  auditedKubeconfig: string;
  /** the API server's audit log: one JSON event per line, with the request URI and the answer (audit.k8s.io/v1) */
  auditLog: string;
  logDir: string;
  /** kubectl of the control plane's version (build.sh), for tests that set its answers beside the plugin's */
  kubectl: string;
  pids: Record<string, number>;
  /** a lab cluster (test/cluster/lab/): the network namespace it runs in */
  lab?: { netns: string };
};

/**
 * A lab cluster runs inside its network namespace (the caller must already be in it): the API server reaches the
 * node stand-in's kubelet API at the nodes' InternalIPs (pods/log), and the stand-ins run real processes for pods.
 */
export type LabOptions = { netns: string };

export const repoRoot = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '');
const standinsMain = join(repoRoot, 'test/cluster/standins/main.ts');

export const READONLY_CLUSTER_ROLE = 'haptic-test-readonly';

export function cacheRoot(): string {
  return (
    process.env.KUBECTL_HAPTIC_CACHE ?? join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'kubectl-haptic')
  );
}

export function clustersDir(): string {
  return join(cacheRoot(), 'clusters');
}

/**
 * Clusters named `<prefix>-<pid>` (a test run's, named after its vitest process) whose process is gone: killed
 * before its teardown ran, they are left to the next run to stop.
 */
export function abandonedClusters(prefix: string): string[] {
  if (!existsSync(clustersDir())) return [];
  return readdirSync(clustersDir()).filter((name) => {
    const pid = new RegExp(`^${prefix}-(\\d+)$`).exec(name)?.[1];
    if (!pid) return false;
    try {
      process.kill(Number(pid), 0);
      return false;
    } catch {
      return true;
    }
  });
}

function log(message: string): void {
  process.stderr.write(`[cluster] ${message}\n`);
}

export function readClusterState(name: string): ClusterState | undefined {
  const file = join(clustersDir(), name, 'state.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ClusterState) : undefined;
}

export interface StartOptions {
  name: string;
  logDir?: string;
  /**
   * Requests per second the controller manager and the scheduler may send (their --kube-api-qps; burst twice that).
   * Their defaults (20 and 50) pace the creation of thousands of pods to minutes: the benchmarks raise them.
   */
  apiQps?: number;
  /** a lab cluster: started inside this network namespace (test/cluster/lab/) */
  lab?: LabOptions;
}

export async function startCluster(options: StartOptions): Promise<ClusterState> {
  const started = Date.now();
  if (options.lab && !insideNetns(options.lab.netns)) {
    throw new Error(
      `a lab cluster starts inside its network namespace ${options.lab.netns}: run the caller with ip netns exec`,
    );
  }
  if (!existsSync(standinsMain)) {
    throw new Error(`${standinsMain} is missing: the cluster needs the node and HAPTIC stand-ins to run any pod`);
  }
  const bin = await buildBinaries();
  await stopCluster(options.name);
  const stateDir = join(clustersDir(), options.name);
  const logDir = options.logDir ?? join(stateDir, 'logs');
  const pki = join(stateDir, 'pki');
  for (const dir of [stateDir, pki, logDir, join(stateDir, 'apiserver-certs')]) mkdirSync(dir, { recursive: true });

  const [etcdPort, etcdPeerPort, apiPort, argoMetricsPort, argoHealthzPort] = (await freePorts(5)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  const server = `https://127.0.0.1:${apiPort}`;
  const state: ClusterState = {
    name: options.name,
    stateDir,
    server,
    adminKubeconfig: join(stateDir, 'admin.kubeconfig'),
    limitedKubeconfig: join(stateDir, 'limited.kubeconfig'),
    auditedKubeconfig: join(stateDir, 'audited.kubeconfig'),
    auditLog: join(logDir, 'audit.jsonl'),
    logDir,
    kubectl: join(bin, 'kubectl'),
    pids: {},
    ...(options.lab ? { lab: { netns: options.lab.netns } } : {}),
  };
  const exits = new Map<string, string>();
  const launch = (component: string, command: string, args: string[]): void => {
    const out = openSync(join(logDir, `${component}.log`), 'w');
    const child = spawn(command, args, { cwd: repoRoot, detached: true, stdio: ['ignore', out, out] });
    closeSync(out);
    child.on('exit', (code, signal) =>
      exits.set(component, signal ? `killed by ${signal}` : `exited with code ${code}`),
    );
    child.unref();
    if (child.pid === undefined) throw new Error(`could not start ${command}`);
    state.pids[component] = child.pid;
    writeFileSync(join(stateDir, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
  };
  const waitUntil = async (what: string, timeoutMs: number, ready: () => Promise<boolean> | boolean): Promise<void> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const dead = [...exits].map(([component, how]) => `${component} ${how}`);
      if (dead.length) throw new Error(`${dead.join(', ')} while waiting for ${what}`);
      if (
        await Promise.resolve()
          .then(ready)
          .catch(() => false)
      )
        return;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs / 1000} s waiting for ${what}`);
      await sleep(200);
    }
  };

  try {
    log('generating a throwaway PKI');
    makePki(pki, options.lab !== undefined);
    writeKubeconfig(state.adminKubeconfig, 'haptic-test-admin', 'admin', server, pki);
    writeKubeconfig(state.limitedKubeconfig, 'haptic-test-limited', 'limited', server, pki);
    writeKubeconfig(state.auditedKubeconfig, 'haptic-test-audited', 'audited', server, pki);
    writeFileSync(join(stateDir, 'audit-policy.yaml'), AUDIT_POLICY);

    log(`starting etcd on 127.0.0.1:${etcdPort}`);
    const etcdUrl = `http://127.0.0.1:${etcdPort}`;
    const peerUrl = `http://127.0.0.1:${etcdPeerPort}`;
    launch('etcd', join(bin, 'etcd'), [
      '--name=default',
      `--data-dir=${join(stateDir, 'etcd')}`,
      `--listen-client-urls=${etcdUrl}`,
      `--advertise-client-urls=${etcdUrl}`,
      `--listen-peer-urls=${peerUrl}`,
      `--initial-advertise-peer-urls=${peerUrl}`,
      `--initial-cluster=default=${peerUrl}`,
      '--unsafe-no-fsync=true',
    ]);
    await waitUntil('etcd /health', 30_000, async () => (await fetch(`${etcdUrl}/health`)).ok);

    log(`starting kube-apiserver on ${server}`);
    launch('kube-apiserver', join(bin, 'kube-apiserver'), [
      `--etcd-servers=${etcdUrl}`,
      '--bind-address=127.0.0.1',
      '--advertise-address=127.0.0.1',
      `--secure-port=${apiPort}`,
      `--cert-dir=${join(stateDir, 'apiserver-certs')}`,
      `--tls-cert-file=${join(pki, 'apiserver.crt')}`,
      `--tls-private-key-file=${join(pki, 'apiserver.key')}`,
      `--client-ca-file=${join(pki, 'ca.crt')}`,
      '--service-cluster-ip-range=10.96.0.0/16',
      '--service-account-issuer=https://kubernetes.default.svc',
      `--service-account-key-file=${join(pki, 'sa.pub')}`,
      `--service-account-signing-key-file=${join(pki, 'sa.key')}`,
      '--authorization-mode=RBAC',
      '--allow-privileged=true',
      '--disable-admission-plugins=ServiceAccount,TaintNodesByCondition',
      '--endpoint-reconciler-type=none', // see README: the `kubernetes` Service's endpoint cannot be 127.0.0.1
      `--audit-policy-file=${join(stateDir, 'audit-policy.yaml')}`,
      `--audit-log-path=${state.auditLog}`,
      // the lab's node stand-in serves the kubelet API (pods/log) at the nodes' InternalIPs, with a cert of this CA
      ...(options.lab
        ? ['--kubelet-preferred-address-types=InternalIP', `--kubelet-certificate-authority=${join(pki, 'ca.crt')}`]
        : []),
    ]);
    const admin = new Kube(state.adminKubeconfig);
    await waitUntil('kube-apiserver /readyz', 60_000, async () => (await admin.request('GET', '/readyz')) === 'ok');
    await admin.apply([readonlyClusterRole()]);

    log('starting kube-controller-manager and kube-scheduler');
    const qps = options.apiQps ? [`--kube-api-qps=${options.apiQps}`, `--kube-api-burst=${options.apiQps * 2}`] : [];
    launch('kube-controller-manager', join(bin, 'kube-controller-manager'), [
      ...qps,
      `--kubeconfig=${state.adminKubeconfig}`,
      // statefulset and persistentvolume-binder: StatefulSets roll as in a cluster, and their claims bind to a
      // PersistentVolume that fits or stay Pending with the binder's own event (no StorageClass is installed);
      // daemonset: a DaemonSet runs a pod on each node stand-in and replaces them node by node
      '--controllers=deployment,replicaset,statefulset,daemonset,endpointslice,garbagecollector,namespace,podgc,resourcequota,disruption,persistentvolume-binder',
      '--leader-elect=false',
      '--use-service-account-credentials=false',
      '--bind-address=127.0.0.1',
      '--secure-port=0',
    ]);
    launch('kube-scheduler', join(bin, 'kube-scheduler'), [
      ...qps,
      `--kubeconfig=${state.adminKubeconfig}`,
      '--leader-elect=false',
      '--bind-address=127.0.0.1',
      '--secure-port=0',
    ]);

    // the real Argo Rollouts controller (build.sh), on its own CRDs: it decides a Rollout's steps, pauses and
    // promotion. Its informers need every CRD it watches to be served before it starts.
    log('starting the Argo Rollouts controller');
    const crdDir = join(bin, 'argo-crds');
    const crds = readdirSync(crdDir)
      .filter((f) => f.endsWith('-crd.yaml'))
      .sort()
      .map((f) => load(readFileSync(join(crdDir, f), 'utf8')) as KubeObject);
    await admin.apply(crds);
    await waitUntil('the Argo Rollouts CRDs to be served', 30_000, async () => {
      const answer = await admin.request('GET', '/apis/argoproj.io/v1alpha1');
      const served = (typeof answer === 'string' ? JSON.parse(answer) : answer) as { resources?: { name: string }[] };
      const names = new Set((served.resources ?? []).map((r) => r.name));
      return ['rollouts', 'analysisruns', 'analysistemplates', 'clusteranalysistemplates', 'experiments'].every((n) =>
        names.has(n),
      );
    });
    launch('rollouts-controller', join(bin, 'rollouts-controller'), [
      `--kubeconfig=${state.adminKubeconfig}`,
      '--leader-elect=false',
      `--metricsPort=${argoMetricsPort}`,
      `--healthzPort=${argoHealthzPort}`,
      ...(options.apiQps ? [`--qps=${options.apiQps}`, `--burst=${options.apiQps * 2}`] : []),
    ]);

    log('starting the node and HAPTIC stand-ins');
    const labArgs = options.lab
      ? [
          '--lab-netns',
          options.lab.netns,
          '--lab-dir',
          join(stateDir, 'lab'),
          '--kubelet-cert',
          join(pki, 'kubelet.crt'),
          '--kubelet-key',
          join(pki, 'kubelet.key'),
        ]
      : [];
    launch('standins', nodeBinary(), [standinsMain, '--kubeconfig', state.adminKubeconfig, ...labArgs]);
    const standinsLog = join(logDir, 'standins.log');
    await waitUntil('the stand-ins to print READY', 90_000, () => /^READY$/m.test(readFileSync(standinsLog, 'utf8')));
    // its caches synced: it then acts on every Rollout event
    const argoLog = join(logDir, 'rollouts-controller.log');
    await waitUntil('the Argo Rollouts controller to start', 60_000, () =>
      /Started controller/.test(readFileSync(argoLog, 'utf8')),
    );
  } catch (error) {
    await killAll(state);
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`starting cluster ${options.name} failed: ${message}\nlogs: ${logDir}\n${tailLogs(state)}`, {
      cause: error,
    });
  }
  log(`cluster ${options.name} is up at ${server} (${((Date.now() - started) / 1000).toFixed(1)} s)`);
  return state;
}

/** Stops a cluster's processes and removes its state folder; false when there was nothing to stop. */
export async function stopCluster(name: string): Promise<boolean> {
  const stateDir = join(clustersDir(), name);
  if (!existsSync(stateDir)) return false;
  const state = readClusterState(name);
  if (state) await killAll(state);
  // the pods' namespaces and any process left in them (the lab's own namespace belongs to whoever made it)
  if (state?.lab) deletePodNetns(state.lab.netns);
  rmSync(stateDir, { recursive: true, force: true });
  return true;
}

/** True when every process of the cluster still runs and the API server is ready. */
export async function clusterIsHealthy(state: ClusterState): Promise<boolean> {
  if (!Object.values(state.pids).every((pid) => ownsProcess(pid, state.stateDir))) return false;
  try {
    return (await new Kube(state.adminKubeconfig).request('GET', '/readyz')) === 'ok';
  } catch {
    return false;
  }
}

/** The last lines of every component's log, for a failing test's output. */
export function tailLogs(state: ClusterState, lines = 40): string {
  if (!existsSync(state.logDir)) return `(no logs in ${state.logDir})`;
  return readdirSync(state.logDir)
    .filter((file) => file.endsWith('.log'))
    .sort()
    .map((file) => `==> ${join(state.logDir, file)} <==\n${lastLines(join(state.logDir, file), lines)}`)
    .join('\n');
}

function lastLines(file: string, lines: number): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    const length = Math.min(size, 256 * 1024);
    const buffer = Buffer.alloc(length);
    readSync(fd, buffer, 0, length, size - length);
    return buffer.toString('utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } finally {
    closeSync(fd);
  }
}

async function buildBinaries(): Promise<string> {
  const child = spawn('bash', [join(repoRoot, 'test/cluster/build.sh')], { stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const bin = stdout.trim().split('\n').at(-1);
  if (code !== 0 || !bin) throw new Error(`test/cluster/build.sh failed (exit code ${code})`);
  return bin;
}

/** Node 26 runs the stand-ins' TypeScript: prefer the repo's pinned node over whatever runs this script. */
function nodeBinary(): string {
  const pinned = join(repoRoot, 'node_modules/.bin/node');
  return existsSync(pinned) ? pinned : process.execPath;
}

async function freePorts(count: number): Promise<number[]> {
  const servers = await Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<Server>((resolve, reject) => {
          const server = createServer();
          server.once('error', reject);
          server.listen(0, '127.0.0.1', () => resolve(server));
        }),
    ),
  );
  const ports = servers.map((server) => (server.address() as AddressInfo).port);
  await Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve))));
  return ports;
}

/**
 * Only user `audited` is recorded, with each answer (level RequestResponse: e2e tests count the objects of every
 * list answer); the components and the other users, which send most of the traffic, are not.
 */
const AUDIT_POLICY = `apiVersion: audit.k8s.io/v1
kind: Policy
omitStages: [RequestReceived]
rules:
  - level: RequestResponse
    users: [audited]
  - level: None
`;

const OPENSSL_CONFIG = `[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost, IP:10.96.0.1, DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
[kubelet]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = ${FAKE_NODES.map((n) => `IP:${n.ip}, DNS:${n.name}`).join(', ')}
`;

function makePki(dir: string, kubelet: boolean): void {
  writeFileSync(join(dir, 'openssl.cnf'), OPENSSL_CONFIG);
  const openssl = (...args: string[]) =>
    execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
  const newKey = [
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-days',
    '3650',
    '-config',
    'openssl.cnf',
  ];
  openssl(
    'req',
    '-x509',
    ...newKey,
    '-extensions',
    'ca',
    '-subj',
    '/CN=haptic-test-ca',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
  );
  const issue = (file: string, subject: string, extensions: string) =>
    openssl(
      'req',
      '-x509',
      ...newKey,
      '-CA',
      'ca.crt',
      '-CAkey',
      'ca.key',
      '-extensions',
      extensions,
      '-subj',
      subject,
      '-keyout',
      `${file}.key`,
      '-out',
      `${file}.crt`,
    );
  issue('apiserver', '/CN=kube-apiserver', 'server');
  issue('admin', '/O=system:masters/CN=admin', 'client');
  issue('limited', '/CN=limited', 'client');
  issue('audited', '/O=system:masters/CN=audited', 'client');
  if (kubelet) issue('kubelet', '/CN=standin-kubelet', 'kubelet');
  openssl('genrsa', '-out', 'sa.key', '2048');
  openssl('rsa', '-in', 'sa.key', '-pubout', '-out', 'sa.pub');
}

function writeKubeconfig(file: string, context: string, user: string, server: string, pki: string): void {
  const base64 = (name: string) => readFileSync(join(pki, name)).toString('base64');
  writeFileSync(
    file,
    `apiVersion: v1
kind: Config
clusters:
- name: haptic-test
  cluster:
    server: ${server}
    certificate-authority-data: ${base64('ca.crt')}
users:
- name: ${user}
  user:
    client-certificate-data: ${base64(`${user}.crt`)}
    client-key-data: ${base64(`${user}.key`)}
contexts:
- name: ${context}
  context:
    cluster: haptic-test
    user: ${user}
    namespace: default
current-context: ${context}
`,
    { mode: 0o600 },
  );
}

function readonlyClusterRole() {
  const read = ['get', 'list', 'watch'];
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: READONLY_CLUSTER_ROLE },
    rules: [
      {
        apiGroups: [''],
        resources: ['pods', 'services', 'endpoints', 'events', 'configmaps', 'namespaces'],
        verbs: read,
      },
      { apiGroups: ['apps'], resources: ['deployments', 'replicasets'], verbs: read },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: read },
      { apiGroups: ['events.k8s.io'], resources: ['events'], verbs: read },
      { apiGroups: ['haproxy-haptic.org'], resources: ['haproxytemplateconfigs', 'haproxycfgs'], verbs: read },
    ],
  };
}

/** Whether pid is alive and (where /proc tells) one of this cluster's processes, not a recycled pid. */
function ownsProcess(pid: number, stateDir: string): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const cmdline = `/proc/${pid}/cmdline`;
  return !existsSync('/proc/self/cmdline') || (existsSync(cmdline) && readFileSync(cmdline, 'utf8').includes(stateDir));
}

/** SIGTERM to each process group, SIGKILL to what still runs after 5 s. */
async function killAll(state: ClusterState): Promise<void> {
  const signal = (pids: number[], sig: NodeJS.Signals) => {
    for (const pid of pids) {
      try {
        process.kill(-pid, sig);
      } catch {
        // already gone
      }
    }
  };
  const waitGone = async (pids: number[]): Promise<number[]> => {
    const deadline = Date.now() + 5_000;
    while (pids.length && Date.now() < deadline) {
      await sleep(100);
      pids = pids.filter((pid) => ownsProcess(pid, state.stateDir));
    }
    return pids;
  };
  // etcd last, so the API server does not spend its shutdown retrying a vanished etcd.
  const { etcd, ...rest } = state.pids;
  for (const group of [Object.values(rest), etcd === undefined ? [] : [etcd]]) {
    let running = group.filter((pid) => ownsProcess(pid, state.stateDir));
    signal(running, 'SIGTERM');
    running = await waitGone(running);
    signal(running, 'SIGKILL');
    running = await waitGone(running);
    if (running.length) throw new Error(`could not stop processes ${running.join(', ')} of cluster ${state.name}`);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Stops the API server (SIGTERM, as in a rolling control-plane upgrade) and starts it again with the same command
 * line; resolves once /readyz answers again. Clients see their connections drop and watches end.
 */
export async function restartApiServer(state: ClusterState, downMs = 1000): Promise<void> {
  const pid = state.pids['kube-apiserver'];
  if (pid === undefined) throw new Error('no kube-apiserver pid in the cluster state');
  const [command, ...args] = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  process.kill(pid, 'SIGTERM');
  for (
    let i = 0;
    i < 100 && existsSync(`/proc/${pid}`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z');
    i++
  )
    await sleep(100);
  await sleep(downMs);
  const out = openSync(join(state.logDir, 'kube-apiserver.log'), 'a');
  const child = spawn(command as string, args, { cwd: repoRoot, detached: true, stdio: ['ignore', out, out] });
  closeSync(out);
  child.unref();
  state.pids['kube-apiserver'] = child.pid as number;
  writeFileSync(join(state.stateDir, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
  const admin = new Kube(state.adminKubeconfig);
  for (let i = 0; i < 300; i++) {
    if ((await admin.request('GET', '/readyz').catch(() => '')) === 'ok') return;
    await sleep(200);
  }
  throw new Error('kube-apiserver did not become ready again after a restart');
}
