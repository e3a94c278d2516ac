// Helpers for the end-to-end tests: the injected cluster, a raw JSON API client, per-file namespaces, polling,
// running the plugin, and builders of plain manifests.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, inject } from 'vitest';
import { READONLY_CLUSTER_ROLE, repoRoot, type ClusterState } from '../cluster/cluster.ts';
import { Kube, type KubeObject } from '../cluster/kube.ts';

export { Kube, KubeApiError, type KubeObject, type PatchType } from '../cluster/kube.ts';

/** The gate's condition type, spelled out here on purpose: the tests must not share the plugin's constant. */
export const GATE = 'haproxy-haptic.org/load-balancer-ready';

export function cluster(): ClusterState {
  return inject('cluster');
}

let admin: Kube | undefined;
let limited: Kube | undefined;

/** A client with cluster-admin rights (user `admin`, group system:masters). */
export function adminApi(): Kube {
  admin ??= new Kube(cluster().adminKubeconfig);
  return admin;
}

/** A client as user `limited`, who may do nothing until a test grants it something (see grantReadOnly). */
export function limitedApi(): Kube {
  limited ??= new Kube(cluster().limitedKubeconfig);
  return limited;
}

const namespaces: string[] = [];

/** Creates a namespace named `<prefix>-<random>`; it is deleted after the test file (setup-each.ts). */
export async function newNamespace(prefix: string): Promise<string> {
  const name = `${prefix.toLowerCase().slice(0, 50)}-${randomBytes(3).toString('hex')}`;
  await adminApi().create({
    apiVersion: 'v1',
    kind: 'Namespace',
    metadata: { name, labels: { 'haptic-test': 'true' } },
  });
  namespaces.push(name);
  return name;
}

/** Deletes the namespaces this test file created (not waiting for them to go); kept with KEEP_CLUSTER=1. */
export async function deleteTestNamespaces(): Promise<void> {
  if (process.env.KEEP_CLUSTER === '1') return;
  const names = namespaces.splice(0);
  await Promise.all(names.map((name) => adminApi().delete('v1', 'Namespace', name)));
}

/** Binds `user` to the read-only ClusterRole in one namespace. */
export async function grantReadOnly(namespace: string, user = 'limited'): Promise<void> {
  await adminApi().apply([
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: { name: `${READONLY_CLUSTER_ROLE}-${user}`, namespace },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: READONLY_CLUSTER_ROLE },
      subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: user }],
    },
  ]);
}

/**
 * Polls fn until it returns a truthy value (or, with `until`, a value that passes it) and returns that value.
 * A throw counts as "not yet". On timeout the error names what it waited for and the last value or error seen.
 */
export async function waitFor<T>(
  fn: () => T | Promise<T>,
  options: { what: string; timeoutMs?: number; intervalMs?: number; until?: (value: T) => boolean },
): Promise<T> {
  const { what, timeoutMs = 30_000, intervalMs = 250, until = Boolean } = options;
  const deadline = Date.now() + timeoutMs;
  let last = 'nothing yet';
  for (;;) {
    try {
      const value = await fn();
      if (until(value)) return value;
      last = `last value: ${describe(value)}`;
    } catch (error) {
      last = `last error: ${error instanceof Error ? error.message : String(error)}`;
    }
    if (Date.now() >= deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}; ${last}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

function describe(value: unknown): string {
  const text = JSON.stringify(value, (key, v) => (key === 'managedFields' ? undefined : v), 1) ?? String(value);
  return text.length > 4000 ? `${text.slice(0, 4000)}…` : text;
}

export type PluginResult = { code: number | null; stdout: string; stderr: string };

export type RunOptions = {
  kubeconfig?: string;
  env?: Record<string, string | undefined>;
  timeoutMs?: number;
  /** piped to standard input (else it is closed) */
  stdin?: string | Buffer;
};

/** Runs the plugin as installed by npm, `bin/kubectl-haptic`, from the repository (see runExecutable for others). */
export function runPlugin(args: string[], options: RunOptions = {}): Promise<PluginResult> {
  return runExecutable(join(repoRoot, 'bin/kubectl-haptic'), args, options);
}

/**
 * Runs an executable with KUBECONFIG set to the admin kubeconfig (unless given) and NO_COLOR=1, in `cwd` (default:
 * the repository). `env` entries set to undefined are removed.
 */
export function runExecutable(
  bin: string,
  args: string[],
  options: RunOptions & { cwd?: string } = {},
): Promise<PluginResult> {
  const { FORCE_COLOR: _, ...inherited } = process.env;
  const merged = {
    ...inherited,
    KUBECONFIG: options.kubeconfig ?? cluster().adminKubeconfig,
    NO_COLOR: '1',
    ...options.env,
  };
  const env = Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as Record<string, string>;
  const timeoutMs = options.timeoutMs ?? 60_000;
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, {
      cwd: options.cwd ?? repoRoot,
      env,
      stdio: [options.stdin === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(`${bin} ${args.join(' ')} ran longer than ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`),
      );
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(new Error(`could not run ${bin}: ${error.message}`, { cause: error }));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

export type DeploymentOptions = {
  name: string;
  namespace: string;
  replicas?: number;
  /** Pod labels, also the selector; default `{ app: name }`. */
  labels?: Record<string, string>;
  image?: string;
  /** Readiness gate condition types; default `[GATE]`. */
  gates?: string[];
  /** Default 5 s (not Kubernetes' 30) to keep rollouts short; the node stand-in honours it. */
  terminationGracePeriodSeconds?: number;
  progressDeadlineSeconds?: number;
  /** how long a new pod must stay Ready before it counts as available */
  minReadySeconds?: number;
  maxSurge?: number | string;
  maxUnavailable?: number | string;
  podAnnotations?: Record<string, string>;
};

/** A Deployment whose pods carry the HAPTIC readiness gate. */
export function gatedDeployment(options: DeploymentOptions): KubeObject {
  const labels = options.labels ?? { app: options.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: options.name, namespace: options.namespace, labels },
    spec: {
      replicas: options.replicas ?? 2,
      selector: { matchLabels: labels },
      ...(options.progressDeadlineSeconds === undefined
        ? {}
        : { progressDeadlineSeconds: options.progressDeadlineSeconds }),
      ...(options.minReadySeconds === undefined ? {} : { minReadySeconds: options.minReadySeconds }),
      strategy: {
        type: 'RollingUpdate',
        rollingUpdate: { maxSurge: options.maxSurge ?? '25%', maxUnavailable: options.maxUnavailable ?? '25%' },
      },
      template: gatedTemplate(options, labels, 5),
    },
  };
}

/** The pod template of the workloads above: one container `app` with an `http` port, the gate, a short grace. */
function gatedTemplate(
  options: DeploymentOptions,
  labels: Record<string, string>,
  grace: number,
  volume?: { name: string; mountPath: string },
): KubeObject['spec'] {
  return {
    metadata: { labels, ...(options.podAnnotations ? { annotations: options.podAnnotations } : {}) },
    spec: {
      readinessGates: (options.gates ?? [GATE]).map((conditionType) => ({ conditionType })),
      terminationGracePeriodSeconds: options.terminationGracePeriodSeconds ?? grace,
      containers: [
        {
          name: 'app',
          image: options.image ?? 'example/app:1',
          ports: [{ name: 'http', containerPort: 8080 }],
          ...(volume ? { volumeMounts: [volume] } : {}),
        },
      ],
    },
  };
}

export type StatefulSetOptions = Omit<
  DeploymentOptions,
  'progressDeadlineSeconds' | 'minReadySeconds' | 'maxSurge' | 'maxUnavailable'
> & {
  /** RollingUpdate (default) or OnDelete */
  updateStrategy?: 'RollingUpdate' | 'OnDelete';
  partition?: number;
  podManagementPolicy?: 'OrderedReady' | 'Parallel';
  /** one claim per pod from a volumeClaimTemplate `data` of this size, with no StorageClass (none is installed) */
  volume?: string;
};

/** A StatefulSet whose pods carry the HAPTIC readiness gate (its serviceName is its own name). */
export function gatedStatefulSet(options: StatefulSetOptions): KubeObject {
  const labels = options.labels ?? { app: options.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: options.name, namespace: options.namespace, labels },
    spec: {
      replicas: options.replicas ?? 3,
      serviceName: options.name,
      selector: { matchLabels: labels },
      podManagementPolicy: options.podManagementPolicy ?? 'OrderedReady',
      updateStrategy:
        options.updateStrategy === 'OnDelete'
          ? { type: 'OnDelete' }
          : { type: 'RollingUpdate', rollingUpdate: { partition: options.partition ?? 0 } },
      template: gatedTemplate(options, labels, 2, options.volume ? { name: 'data', mountPath: '/data' } : undefined),
      ...(options.volume
        ? {
            volumeClaimTemplates: [
              {
                metadata: { name: 'data' },
                spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: options.volume } } },
              },
            ],
          }
        : {}),
    },
  };
}

export type DaemonSetOptions = Omit<
  DeploymentOptions,
  'replicas' | 'progressDeadlineSeconds' | 'minReadySeconds' | 'maxSurge' | 'maxUnavailable'
> & {
  /** RollingUpdate (default) or OnDelete */
  updateStrategy?: 'RollingUpdate' | 'OnDelete';
  maxSurge?: number | string;
  maxUnavailable?: number | string;
};

/** A DaemonSet whose pods carry the HAPTIC readiness gate: one pod on each node of the cluster. */
export function gatedDaemonSet(options: DaemonSetOptions): KubeObject {
  const labels = options.labels ?? { app: options.name };
  return {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: { name: options.name, namespace: options.namespace, labels },
    spec: {
      selector: { matchLabels: labels },
      updateStrategy:
        options.updateStrategy === 'OnDelete'
          ? { type: 'OnDelete' }
          : {
              type: 'RollingUpdate',
              rollingUpdate: { maxSurge: options.maxSurge ?? 0, maxUnavailable: options.maxUnavailable ?? 1 },
            },
      template: gatedTemplate(options, labels, 2),
    },
  };
}

/**
 * An Ingress of HAPTIC's class `haproxy` (the chart's IngressClass) to a Service port: the route a user creates so
 * that HAPTIC renders the Service's pods (it renders only Services a route of its class references).
 */
export function ingress(options: {
  name: string;
  namespace: string;
  service?: string;
  port?: { number: number } | { name: string };
  className?: string | null;
}): KubeObject {
  const cls = options.className === undefined ? 'haproxy' : options.className;
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: options.name, namespace: options.namespace },
    spec: {
      ...(cls ? { ingressClassName: cls } : {}),
      rules: [
        {
          host: `${options.name}.${options.namespace}.example`,
          http: {
            paths: [
              {
                path: '/',
                pathType: 'Prefix',
                backend: { service: { name: options.service ?? options.name, port: options.port ?? { name: 'http' } } },
              },
            ],
          },
        },
      ],
    },
  };
}

/** A Service (as `service`) and the Ingress of class haproxy that routes it. */
export function routedService(options: Parameters<typeof service>[0]): KubeObject[] {
  return [service(options), ingress({ name: options.name, namespace: options.namespace })];
}

/** A ClusterIP Service from port (default 80) to the pods' `http` port. */
export function service(options: {
  name: string;
  namespace: string;
  selector: Record<string, string>;
  port?: number;
  targetPort?: number | string;
}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: options.name, namespace: options.namespace },
    spec: {
      selector: options.selector,
      ports: [{ name: 'http', port: options.port ?? 80, targetPort: options.targetPort ?? 'http' }],
    },
  };
}

export type Timed = PluginResult & { ms: number };

/** Outside GitHub Actions, whatever runs the tests: the plugin's GitHub output is asked for by a test alone. */
export const NOT_GITHUB = { GITHUB_ACTIONS: undefined, GITHUB_STEP_SUMMARY: undefined };

/**
 * `status --wait` followed from the start of the rollout, as CI runs it, twice: it fails fast (exit 1 within 60 s,
 * naming `first`, the cause why-stalled gives, with its evidence and a verdict line), and with --no-fail-fast
 * --timeout 20s it times out (exit 2) instead. Start it right after the change; await `check(first)` at the end.
 */
export function followFromStart(ns: string, name: string, kind = 'deployment', o: { github?: boolean } = {}) {
  const started = Date.now();
  const timed = (args: string[], env: Record<string, string | undefined> = NOT_GITHUB): Promise<Timed> =>
    runPlugin(['status', `${kind}/${name}`, '-n', ns, '--wait', ...args], { timeoutMs: 90_000, env }).then((r) => ({
      ...r,
      ms: Date.now() - started,
    }));
  const fast = timed([]);
  const patient = timed(['--no-fail-fast', '--timeout', '20s']);
  // as a GitHub Actions job runs it: an annotation on stdout, the failure appended to the job's step summary
  const summary = join(tmpdir(), `haptic-summary-${randomBytes(4).toString('hex')}.md`);
  const github = o.github ? timed([], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary }) : undefined;
  return {
    async check(first: string): Promise<Timed> {
      const [r, slow, gh] = await Promise.all([fast, patient, github]);
      expect(r.code, `${r.stdout}${r.stderr}`).toBe(1);
      expect(r.ms, r.stdout).toBeLessThan(60_000);
      expect(r.stdout).toContain(`\n${kind}.apps/${name} -n ${ns}: stalled\n  ✗ [${first}] `);
      expect(r.stdout.trimEnd().split('\n').at(-1)).toMatch(
        new RegExp(
          `^✗ ${kind}\\.apps/${name} -n ${ns}: rollout failed after \\d+s of waiting: ${first}, held \\d+s; it does not clear by itself`,
        ),
      );
      expect(slow.code, `${slow.stdout}${slow.stderr}`).toBe(2);
      expect(slow.stdout.trimEnd().split('\n').at(-1)).toMatch(/timed out after 20s$/);
      expect(r.stdout).not.toContain('::error');
      if (gh) {
        expect(gh.code, `${gh.stdout}${gh.stderr}`).toBe(1);
        const annotation = gh.stdout.split('\n').find((l) => l.startsWith('::error '));
        expect(annotation, gh.stdout).toMatch(
          new RegExp(
            `^::error title=kubectl haptic%3A ${name} ${first} rollout failed::${kind}\\.apps/${name} -n ${ns}: rollout failed after \\d+s of waiting: ${first}, held \\d+s.*%0A\\[${first}\\] `,
          ),
        );
        const written = await readFile(summary, 'utf8');
        expect(written).toMatch(new RegExp(`^### ✗ ${kind}\\.apps/${name} -n ${ns}: rollout failed after`));
        expect(written).toContain(`**[${first}](`);
        await rm(summary, { force: true });
      }
      return r;
    },
  };
}

/** A Rollout object as the API returns it (status.observedGeneration is a string there). */
export type Rollout = KubeObject & { spec: any; status?: any; metadata: { generation: number } };

export const getRollout = (ns: string, name: string) =>
  adminApi().get<Rollout>('argoproj.io/v1alpha1', 'Rollout', name, ns);

/** An Argo Rollout of 2 replicas (by default gated) with `strategy`: app=NAME, a container with an `http` port. */
export function argoRollout(
  ns: string,
  name: string,
  strategy: object,
  o: { image?: string; gated?: boolean; replicas?: number } = {},
): KubeObject {
  const labels = { app: name };
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Rollout',
    metadata: { name, namespace: ns },
    spec: {
      replicas: o.replicas ?? 2,
      selector: { matchLabels: labels },
      strategy,
      template: {
        metadata: { labels },
        spec: {
          ...(o.gated === false ? {} : { readinessGates: [{ conditionType: GATE }] }),
          terminationGracePeriodSeconds: 2,
          containers: [
            { name: 'app', image: o.image ?? 'example/app:1', ports: [{ name: 'http', containerPort: 8080 }] },
          ],
        },
      },
    },
  };
}
