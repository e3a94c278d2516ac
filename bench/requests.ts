// (b) API requests of one-shot commands for a Deployment of 10 replicas and one of 300: the same count, because a
// snapshot is one parallel round of list/get calls scoped by selectors, never a request per pod. The commands run
// in this process (the oclif command classes from src/, not the bundle) and every KubeClient's `requestCount` is
// summed. kubectl's count for `get deploy,rs,pods` (from its -v=6 request log) is printed beside it.
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

export interface RequestsResult {
  targets: Target[];
  /** command id → target label → requests */
  plugin: Record<string, Record<string, { requests: number; exitCode: number }>>;
  kubectl: { command: string; requests: Record<string, number> };
  /** objects in each target's namespace: lists are paged by 500, so a list past 500 objects costs another request */
  objects: Record<string, { pods: number; events: number }>;
  skipped: string[];
  /** true when every command sent the same number of requests for every target */
  equal: boolean;
}

export async function benchRequests(ctx: BenchContext, targets: Target[], only?: string[]): Promise<RequestsResult> {
  const { COMMANDS } = (await import('../src/commands.ts')) as { COMMANDS: Record<string, unknown> };
  const wanted = REQUEST_COMMANDS.filter((c) => !only?.length || only.includes(c.id));
  const present = wanted.filter((c) => c.id in COMMANDS);
  const skipped = wanted.filter((c) => !(c.id in COMMANDS)).map((c) => c.id);
  const result: RequestsResult = { targets, plugin: {}, kubectl: { command: 'kubectl get deploy,rs,pods -o json', requests: {} }, objects: {}, skipped, equal: true };
  for (const t of targets) {
    const [pods, events] = await Promise.all([ctx.kube.list('v1', 'Pod', { namespace: t.namespace }), ctx.kube.list('v1', 'Event', { namespace: t.namespace })]);
    result.objects[t.label] = { pods: pods.length, events: events.length };
  }
  for (const c of present) {
    result.plugin[c.id] = {};
    for (const t of targets) {
      // argv after the command id, as oclif hands it to the command class
      const argv = [...c.argv(t.name, t.namespace).slice(1), '--kubeconfig', ctx.cluster.adminKubeconfig];
      const { requests, exitCode } = await countRequests(COMMANDS[c.id], argv);
      // 0 ok, 1 rollout failed / stall found: both read the whole snapshot; anything else is a broken measurement
      if (exitCode !== 0 && exitCode !== 1) throw new Error(`kubectl haptic ${c.argv(t.name, t.namespace).join(' ')} exited with ${exitCode}`);
      ctx.log(`requests: ${c.id} ${t.label}: ${requests} (exit ${exitCode})`);
      result.plugin[c.id]![t.label] = { requests, exitCode };
    }
    const counts = new Set(Object.values(result.plugin[c.id]!).map((r) => r.requests));
    if (counts.size !== 1) result.equal = false;
  }
  for (const t of targets) {
    // -v=6 logs one line per HTTP request; discovery is served from kubectl's cache after the start-up benchmark.
    const r = await run([KUBECTL, 'get', 'deploy,rs,pods', '-o', 'json', '-n', t.namespace, '-v=6'], ctx.env);
    result.kubectl.requests[t.label] = r.stderr.split('\n').filter((l) => /\b(GET|POST|PUT|PATCH|DELETE) https?:\/\/\S+ \d{3}\b/.test(l)).length;
  }
  return result;
}

/** Runs an oclif command class in this process, output swallowed, and sums requestCount over the KubeClients it used. */
async function countRequests(command: unknown, argv: string[]): Promise<{ requests: number; exitCode: number }> {
  const clients = new Set<KubeClient>();
  const request = KubeClient.prototype.request;
  KubeClient.prototype.request = function (this: KubeClient, ...args: Parameters<KubeClient['request']>) {
    clients.add(this);
    return request.apply(this, args);
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
  return { requests: [...clients].reduce((sum, c) => sum + c.requestCount, 0), exitCode };
}

export function requestsTable(r: RequestsResult): string {
  const rows: (string | number)[][] = Object.entries(r.plugin).map(([id, byTarget]) => [`kubectl haptic ${id}`, ...r.targets.map((t) => byTarget[t.label]!.requests)]);
  rows.push([r.kubectl.command, ...r.targets.map((t) => r.kubectl.requests[t.label] ?? NaN)]);
  rows.push(['(pods / events in the namespace)', ...r.targets.map((t) => `${r.objects[t.label]?.pods} / ${r.objects[t.label]?.events}`)]);
  const lines = [table(['command', ...r.targets.map((t) => `${t.replicas} replicas`)], rows)];
  if (r.skipped.length) lines.push(`(not measured, not in src/commands.ts yet: ${r.skipped.join(', ')})`);
  const paged = r.targets.filter((t) => Math.max(r.objects[t.label]?.pods ?? 0, r.objects[t.label]?.events ?? 0) > 500).map((t) => t.label);
  lines.push(r.equal ? 'equal for every size: yes' : `equal for every size: NO${paged.length ? ` (lists are paged by 500 objects: more than 500 pods or events in the namespace of ${paged.join(', ')} replicas)` : ''}`);
  return lines.join('\n');
}
