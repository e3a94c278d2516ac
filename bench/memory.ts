// (d) Peak memory while following a full rollout of a 500-replica gated Deployment in a namespace of thousands of
// pods of other Deployments: `kubectl haptic status web --wait --drained` and `kubectl rollout status
// deployment/web` run side by side on the same rollout, each under `/usr/bin/time -v` (maximum resident set size
// of the process; the launcher execs node, so it is the plugin's own process). Without /usr/bin/time the plugin is
// measured with a preload that reports process.resourceUsage().maxRSS. Each launcher given with --compare follows
// a rollout of its own afterwards (the image flips back and forth), measured the same way.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  KUBECTL,
  PLUGIN,
  ratio,
  round,
  setImage,
  table,
  waitNoTerminating,
  waitRolledOut,
  type BenchContext,
} from './lib.ts';

const TIME = '/usr/bin/time';

export interface Followed {
  command: string;
  exitCode: number | null;
  maxRssMiB: number;
  cpuSeconds?: number | undefined;
  wallSeconds: number;
}

export interface MemoryResult {
  replicas: number;
  namespace: string;
  /** pods of other Deployments in the namespace */
  otherPods: number;
  measuredWith: string;
  plugin: Followed;
  kubectl?: Followed | undefined;
  rolloutSeconds: number;
  /** --compare launchers, each on a rollout of its own */
  compared: (Followed & { rolloutSeconds: number })[];
  /** for scale: one-shot commands on the same cluster, before the rollout */
  oneShot: Followed[];
}

export async function benchMemory(
  ctx: BenchContext,
  target: { name: string; namespace: string; replicas: number },
  small: { name: string; namespace: string; replicas: number },
): Promise<MemoryResult> {
  const haveTime = existsSync(TIME);
  const env = { ...ctx.env };
  if (!haveTime)
    env.NODE_OPTIONS =
      `${env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(join(import.meta.dirname, 'maxrss-preload.mjs')).href}`.trim();
  const wrap = (argv: string[]) => (haveTime ? [TIME, '-v', ...argv] : argv);
  const followArgv = (launcher: string) => [
    launcher,
    'status',
    target.name,
    '-n',
    target.namespace,
    '--wait',
    '--drained',
    '--timeout',
    '15m',
  ];
  const pluginArgv = followArgv(PLUGIN);
  const kubectlArgv = [
    KUBECTL,
    'rollout',
    'status',
    `deployment/${target.name}`,
    '-n',
    target.namespace,
    '--timeout',
    '15m',
  ];

  const oneShotArgv = [
    [PLUGIN, '--version'],
    [PLUGIN, 'status', small.name, '-n', small.namespace],
    [PLUGIN, 'status', target.name, '-n', target.namespace],
    ...(haveTime ? [[KUBECTL, 'get', 'deploy,rs,pods', '-o', 'json', '-n', target.namespace]] : []),
  ];
  const oneShot: Followed[] = [];
  for (const argv of oneShotArgv) {
    const r = await follow(wrap(argv), env, haveTime);
    const replicas = argv.includes(target.namespace)
      ? ` (${target.replicas} replicas)`
      : argv.includes(small.namespace)
        ? ` (${small.replicas} replicas)`
        : '';
    oneShot.push({
      command:
        argv
          .join(' ')
          .replace(PLUGIN, 'kubectl haptic')
          .replace(/ -n \S+/, '') + replicas,
      ...r,
    });
  }

  const pods = await ctx.kube.list<any>('v1', 'Pod', { namespace: target.namespace });
  const otherPods = pods.filter((p) => p.metadata.labels?.app !== target.name).length;

  /** Rolls the Deployment to its other image and follows the rollout with `argv` (and kubectl, when asked). */
  const rollout = async (argv: string[], withKubectl: boolean) => {
    const current = (await ctx.kube.get<any>('apps/v1', 'Deployment', target.name, target.namespace)).spec.template.spec
      .containers[0].image as string;
    const image = current.endsWith(':1') ? current.replace(/:1$/, ':2') : current.replace(/:\d+$/, ':1');
    ctx.log(
      `memory: rolling ${target.namespace}/${target.name} (${target.replicas} replicas, ${otherPods} other pods around) to ${image}, followed by ${argv[0]}`,
    );
    const started = performance.now();
    await setImage(ctx.kube, target.name, image, target.namespace);
    const [plugin, kubectl] = await Promise.all([
      follow(wrap(argv), env, haveTime),
      withKubectl && haveTime ? follow(wrap(kubectlArgv), env, true) : Promise.resolve(undefined),
    ]);
    await waitRolledOut(ctx.kube, target.name, target.namespace, 120_000);
    await waitNoTerminating(ctx.kube, target.name, target.namespace);
    if (plugin.exitCode !== 0) throw new Error(`${argv.join(' ')} exited with ${plugin.exitCode}`);
    return { plugin, kubectl, rolloutSeconds: round((performance.now() - started) / 1000) };
  };
  const { plugin, kubectl, rolloutSeconds } = await rollout(pluginArgv, true);
  const compared: MemoryResult['compared'] = [];
  for (const launcher of ctx.compare) {
    const argv = followArgv(launcher);
    const other = await rollout(argv, false);
    compared.push({ command: argv.join(' '), ...other.plugin, rolloutSeconds: other.rolloutSeconds });
  }
  return {
    replicas: target.replicas,
    namespace: target.namespace,
    otherPods,
    measuredWith: haveTime ? `${TIME} -v (Maximum resident set size)` : 'process.resourceUsage().maxRSS (preload)',
    plugin: { command: pluginArgv.join(' ').replace(PLUGIN, 'bin/kubectl-haptic'), ...plugin },
    kubectl: kubectl && { command: kubectlArgv.join(' '), ...kubectl },
    rolloutSeconds,
    compared,
    oneShot,
  };
}

async function follow(argv: string[], env: NodeJS.ProcessEnv, timeV: boolean): Promise<Omit<Followed, 'command'>> {
  const started = performance.now();
  const child = spawn(argv[0]!, argv.slice(1), { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stdout.resume();
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const wallSeconds = round((performance.now() - started) / 1000);
  const field = (label: string) => Number(new RegExp(`${label}[^:]*:\\s*([\\d.]+)`).exec(stderr)?.[1] ?? NaN);
  if (timeV) {
    // /usr/bin/time -v reports the child's own exit status; its own exit code mirrors it
    return {
      exitCode: code,
      maxRssMiB: round(field('Maximum resident set size') / 1024),
      cpuSeconds: round(field('User time') + field('System time'), 2),
      wallSeconds,
    };
  }
  return { exitCode: code, maxRssMiB: round(Number(/maxrss-kib=(\d+)/.exec(stderr)?.[1] ?? NaN) / 1024), wallSeconds };
}

export function memoryTable(r: MemoryResult): string {
  const rows: (string | number)[][] = [
    [
      'kubectl haptic status --wait --drained',
      r.plugin.maxRssMiB.toFixed(1),
      r.plugin.cpuSeconds?.toFixed(2) ?? '-',
      r.plugin.wallSeconds.toFixed(1),
      r.kubectl ? ratio(r.plugin.maxRssMiB, r.kubectl.maxRssMiB) : '-',
    ],
  ];
  if (r.kubectl)
    rows.push([
      'kubectl rollout status',
      r.kubectl.maxRssMiB.toFixed(1),
      r.kubectl.cpuSeconds?.toFixed(2) ?? '-',
      r.kubectl.wallSeconds.toFixed(1),
      '1.00×',
    ]);
  for (const c of r.compared)
    rows.push([
      `${c.command.split(' ')[0]} (its own rollout, ${c.rolloutSeconds} s)`,
      c.maxRssMiB.toFixed(1),
      c.cpuSeconds?.toFixed(2) ?? '-',
      c.wallSeconds.toFixed(1),
      r.kubectl ? ratio(c.maxRssMiB, r.kubectl.maxRssMiB) : '-',
    ]);
  const refs = table(
    ['for scale: one-shot', 'max RSS MiB'],
    r.oneShot.map((o) => [o.command, o.maxRssMiB.toFixed(1)]),
  );
  return `${r.replicas}-replica rollout among ${r.otherPods} pods of other Deployments, ${r.rolloutSeconds} s until every old pod was gone\n${table(['following the rollout', 'max RSS MiB', 'CPU s', 'wall s', 'vs kubectl'], rows)}\n\n${refs}`;
}
