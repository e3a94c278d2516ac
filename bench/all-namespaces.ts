// (e) -A across many namespaces: `kubectl haptic status -A` against `kubectl get deploy,rs,pods -A -o json`
// on the same cluster (200 namespaces × 5 Deployments by default, beside the other benchmarks' apps), timed as
// fresh processes interleaved; and the requests each sends: the plugin's counted in this process (every
// KubeClient's requestCount), kubectl's from its -v=6 request log. The plugin lists each kind cluster-wide, so its
// count is the same for 2 namespaces or 200.
import {
  KUBECTL,
  PLUGIN,
  ratio,
  run,
  summarize,
  table,
  timeInterleaved,
  type BenchContext,
  type Summary,
} from './lib.ts';
import { countRequests } from './requests.ts';

export interface AllNamespacesResult {
  runs: number;
  warmups: number;
  /** what the cluster held when measured, cluster-wide */
  cluster: { namespaces: number; deployments: number; replicaSets: number; pods: number };
  commands: Record<string, Summary & { command: string }>;
  /** median of the plugin ÷ median of kubectl */
  ratio: number;
  requests: {
    plugin: number;
    pluginBytes: number;
    largestPage: number;
    kubectl: number;
    pluginCommand: string;
    kubectlCommand: string;
  };
}

const KUBECTL_ARGV = [KUBECTL, 'get', 'deploy,rs,pods', '-A', '-o', 'json'];
const PLUGIN_ARGS = ['status', '-A'];

export async function benchAllNamespaces(
  ctx: BenchContext,
  options: { runs?: number; warmups?: number } = {},
): Promise<AllNamespacesResult> {
  const runs = options.runs ?? 11;
  const warmups = options.warmups ?? 2;
  const [namespaces, deployments, replicaSets, pods] = await Promise.all([
    ctx.kube.list('v1', 'Namespace'),
    ctx.kube.list('apps/v1', 'Deployment'),
    ctx.kube.list('apps/v1', 'ReplicaSet'),
    ctx.kube.list('v1', 'Pod'),
  ]);
  const kubectlName = `kubectl ${KUBECTL_ARGV.slice(1).join(' ')}`;
  const pluginName = `kubectl haptic ${PLUGIN_ARGS.join(' ')}`;
  const times = await timeInterleaved(
    [
      { name: kubectlName, argv: KUBECTL_ARGV },
      { name: pluginName, argv: [PLUGIN, ...PLUGIN_ARGS] },
    ],
    ctx.env,
    runs,
    warmups,
  );
  const commands = Object.fromEntries([...times].map(([name, ms]) => [name, { command: name, ...summarize(ms) }]));
  const { COMMANDS } = (await import('../src/commands.ts')) as { COMMANDS: Record<string, unknown> };
  const counted = await countRequests(COMMANDS.status, [
    ...PLUGIN_ARGS.slice(1),
    '--kubeconfig',
    ctx.cluster.adminKubeconfig,
  ]);
  const logged = await run([...KUBECTL_ARGV, '-v=6'], ctx.env);
  const kubectlRequests = logged.stderr
    .split('\n')
    .filter((l) => /\b(GET|POST|PUT|PATCH|DELETE) https?:\/\/\S+ \d{3}\b/.test(l)).length;
  ctx.log(`all-namespaces: ${counted.requests} requests (kubectl ${kubectlRequests})`);
  return {
    runs,
    warmups,
    cluster: {
      namespaces: namespaces.length,
      deployments: deployments.length,
      replicaSets: replicaSets.length,
      pods: pods.length,
    },
    commands,
    ratio: Number((commands[pluginName]!.medianMs / commands[kubectlName]!.medianMs).toFixed(2)),
    requests: {
      plugin: counted.requests,
      pluginBytes: counted.bytes,
      largestPage: counted.largestPage,
      kubectl: kubectlRequests,
      pluginCommand: pluginName,
      kubectlCommand: kubectlName,
    },
  };
}

export function allNamespacesTable(r: AllNamespacesResult): string {
  const kubectl = Object.values(r.commands)[0]!;
  const rows = Object.values(r.commands).map((c) => [
    c.command,
    `${c.medianMs.toFixed(1)} ms`,
    `${c.p90Ms.toFixed(1)} ms`,
    ratio(c.medianMs, kubectl.medianMs),
  ]);
  const requests = table(
    ['requests', 'count', 'largest answer'],
    [
      [r.requests.pluginCommand, r.requests.plugin, `${r.requests.largestPage} objects`],
      [r.requests.kubectlCommand, r.requests.kubectl, '-'],
    ],
  );
  return `${r.cluster.namespaces} namespaces, ${r.cluster.deployments} Deployments, ${r.cluster.replicaSets} ReplicaSets, ${r.cluster.pods} pods in the cluster\n${table(['command', 'median', 'p90', 'vs kubectl'], rows)}\n\n${requests}`;
}
