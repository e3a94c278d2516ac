// (b) API requests and bytes of one-shot commands for a Deployment of 10 replicas, one of 300, and one of 500 among
// thousands of pods of other Deployments in its namespace: the same count, because a snapshot is one parallel round
// of label-selected list/get calls paged by 500, never a request per pod, and other Deployments' pods are never
// asked for. The commands run in this process (the oclif command classes from src/, not the bundle) and every
// KubeClient's `requestCount` and `bytesReceived` are summed. kubectl's count for `get deploy,rs,pods` (from its
// -v=6 request log) is printed beside it.
import { Errors } from '@oclif/core';
import { KubeClient } from '../src/kube/client.ts';
import { KUBECTL, repoRoot, run, table, type BenchContext } from './lib.ts';

/**
 * The commands measured, as `kubectl haptic` argv (command id first) for Deployment `name` in namespace `ns`. A command is measured once its id is in
 * src/commands.ts (COMMANDS); until then it is listed as skipped. Adding a command here is one line.
 */
export const REQUEST_COMMANDS: { id: string; argv: (name: string, ns: string) => string[] }[] = [
  { id: 'status', argv: (name, ns) => ['status', name, '-n', ns] },
  { id: 'why-stalled', argv: (name, ns) => ['why-stalled', name, '-n', ns] },
];

export interface Target {
  label: string;
  name: string;
  namespace: string;
  replicas: number;
}

export interface Measured {
  requests: number;
  bytes: number;
  largestPage: number;
  exitCode: number;
}

export interface RequestsResult {
  targets: Target[];
  /** command id → target label → requests, bytes, the largest list answer */
  plugin: Record<string, Record<string, Measured>>;
  kubectl: { command: string; requests: Record<string, number> };
  /** objects in each target's namespace, and how many of its pods belong to other Deployments */
  objects: Record<string, { pods: number; otherPods: number; events: number }>;
  skipped: string[];
  /** true when every command sent the same number of requests for every target */
  equal: boolean;
}

export async function benchRequests(ctx: BenchContext, targets: Target[], only?: string[]): Promise<RequestsResult> {
  const { COMMANDS } = (await import('../src/commands.ts')) as { COMMANDS: Record<string, unknown> };
  const wanted = REQUEST_COMMANDS.filter((c) => !only?.length || only.includes(c.id));
  const present = wanted.filter((c) => c.id in COMMANDS);
  const skipped = wanted.filter((c) => !(c.id in COMMANDS)).map((c) => c.id);
  const result: RequestsResult = {
    targets,
    plugin: {},
    kubectl: { command: 'kubectl get deploy,rs,pods -o json', requests: {} },
    objects: {},
    skipped,
    equal: true,
  };
  for (const t of targets) {
    const [pods, events] = await Promise.all([
      ctx.kube.list<any>('v1', 'Pod', { namespace: t.namespace }),
      ctx.kube.list('v1', 'Event', { namespace: t.namespace }),
    ]);
    result.objects[t.label] = {
      pods: pods.length,
      otherPods: pods.filter((p) => p.metadata.labels?.app !== t.name).length,
      events: events.length,
    };
  }
  for (const c of present) {
    result.plugin[c.id] = {};
    for (const t of targets) {
      // argv after the command id, as oclif hands it to the command class
      const argv = [...c.argv(t.name, t.namespace).slice(1), '--kubeconfig', ctx.cluster.adminKubeconfig];
      const measured = await countRequests(COMMANDS[c.id], argv);
      // 0 ok, 1 rollout failed / stall found: both read the whole snapshot; anything else is a broken measurement
      if (measured.exitCode !== 0 && measured.exitCode !== 1)
        throw new Error(`kubectl haptic ${c.argv(t.name, t.namespace).join(' ')} exited with ${measured.exitCode}`);
      ctx.log(
        `requests: ${c.id} ${t.label}: ${measured.requests} requests, ${measured.bytes} bytes (exit ${measured.exitCode})`,
      );
      result.plugin[c.id]![t.label] = measured;
    }
    const counts = new Set(Object.values(result.plugin[c.id]!).map((r) => r.requests));
    if (counts.size !== 1) result.equal = false;
  }
  for (const t of targets) {
    // -v=6 logs one line per HTTP request; discovery is served from kubectl's cache after the start-up benchmark.
    const r = await run([KUBECTL, 'get', 'deploy,rs,pods', '-o', 'json', '-n', t.namespace, '-v=6'], ctx.env);
    result.kubectl.requests[t.label] = r.stderr
      .split('\n')
      .filter((l) => /\b(GET|POST|PUT|PATCH|DELETE) https?:\/\/\S+ \d{3}\b/.test(l)).length;
  }
  return result;
}

export interface Counted {
  requests: number;
  /** bytes of JSON the API server sent (decompressed) */
  bytes: number;
  /** the most objects one list answer held: at most the page size (500) */
  largestPage: number;
  exitCode: number;
}

/**
 * Runs an oclif command class in this process, output swallowed, and sums requestCount and bytesReceived over the
 * KubeClients it used; notes the largest list answer.
 */
export async function countRequests(command: unknown, argv: string[]): Promise<Counted> {
  const clients = new Set<KubeClient>();
  const request = KubeClient.prototype.request;
  let largestPage = 0;
  KubeClient.prototype.request = async function (this: KubeClient, ...args: Parameters<KubeClient['request']>) {
    clients.add(this);
    const answer = await request.apply(this, args);
    const items = (answer as { items?: unknown } | undefined)?.items;
    if (Array.isArray(items)) largestPage = Math.max(largestPage, items.length);
    return answer;
  } as KubeClient['request'];
  const write = process.stdout.write;
  process.stdout.write = (() => true) as typeof process.stdout.write;
  let exitCode = 0;
  try {
    await (command as { run(argv: string[], root: string): Promise<unknown> }).run(argv, repoRoot);
  } catch (error) {
    if (error instanceof Errors.ExitError) exitCode = error.oclif.exit ?? 1;
    else throw error;
  } finally {
    process.stdout.write = write;
    KubeClient.prototype.request = request;
  }
  const sum = (f: (c: KubeClient) => number) => [...clients].reduce((total, c) => total + f(c), 0);
  return { requests: sum((c) => c.requestCount), bytes: sum((c) => c.bytesReceived), largestPage, exitCode };
}

export function requestsTable(r: RequestsResult): string {
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const rows: (string | number)[][] = Object.entries(r.plugin).map(([id, byTarget]) => [
    `kubectl haptic ${id}`,
    ...r.targets.map((t) => `${byTarget[t.label]!.requests} (${kib(byTarget[t.label]!.bytes)})`),
  ]);
  rows.push([r.kubectl.command, ...r.targets.map((t) => String(r.kubectl.requests[t.label] ?? NaN))]);
  rows.push([
    '(largest list answer, objects)',
    ...r.targets.map((t) =>
      String(Math.max(...Object.values(r.plugin).map((byTarget) => byTarget[t.label]!.largestPage))),
    ),
  ]);
  rows.push([
    '(pods / of other Deployments / events in the namespace)',
    ...r.targets.map(
      (t) => `${r.objects[t.label]?.pods} / ${r.objects[t.label]?.otherPods} / ${r.objects[t.label]?.events}`,
    ),
  ]);
  const lines = [table(['requests (bytes)', ...r.targets.map((t) => t.label)], rows)];
  if (r.skipped.length) lines.push(`(not measured, not in src/commands.ts yet: ${r.skipped.join(', ')})`);
  lines.push(
    `the same number of requests for every size: ${r.equal ? 'yes' : 'NO (a list past 500 objects takes one more request per 500)'}`,
  );
  return lines.join('\n');
}
