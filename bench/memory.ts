// (d) Peak memory while following a 300-replica rollout: `kubectl haptic status web --wait --drained` and
// `kubectl rollout status deployment/web` run side by side on the same rollout, each under `/usr/bin/time -v`
// (maximum resident set size of the process; the launcher execs node, so it is the plugin's own process).
// Without /usr/bin/time the plugin is measured with a preload that reports process.resourceUsage().maxRSS.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { KUBECTL, PLUGIN, ratio, round, setImage, table, waitNoTerminating, waitRolledOut, type BenchContext } from './lib.ts';

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
  measuredWith: string;
  plugin: Followed;
  kubectl?: Followed | undefined;
  rolloutSeconds: number;
  /** for scale: one-shot commands on the same cluster, before the rollout */
  oneShot: Followed[];
}

export async function benchMemory(
  ctx: BenchContext,
  target: { name: string; namespace: string; replicas: number },
  small: { name: string; namespace: string; replicas: number },
  image: string,
): Promise<MemoryResult> {
  const haveTime = existsSync(TIME);
  const env = { ...ctx.env };
  if (!haveTime) env.NODE_OPTIONS = `${env.NODE_OPTIONS ?? ''} --import=${pathToFileURL(join(import.meta.dirname, 'maxrss-preload.mjs')).href}`.trim();
  const wrap = (argv: string[]) => (haveTime ? [TIME, '-v', ...argv] : argv);
  const pluginArgv = [PLUGIN, 'status', target.name, '-n', target.namespace, '--wait', '--drained', '--timeout', '8m'];
  const kubectlArgv = [KUBECTL, 'rollout', 'status', `deployment/${target.name}`, '-n', target.namespace, '--timeout', '8m'];

  const oneShotArgv = [
    [PLUGIN, '--version'],
    [PLUGIN, 'status', small.name, '-n', small.namespace],
    [PLUGIN, 'status', target.name, '-n', target.namespace],
    ...(haveTime ? [[KUBECTL, 'get', 'deploy,rs,pods', '-o', 'json', '-n', target.namespace]] : []),
  ];
  const oneShot: Followed[] = [];
  for (const argv of oneShotArgv) {
    const r = await follow(wrap(argv), env, haveTime);
    const replicas = argv.includes(target.namespace) ? ` (${target.replicas} replicas)` : argv.includes(small.namespace) ? ` (${small.replicas} replicas)` : '';
    oneShot.push({ command: argv.join(' ').replace(PLUGIN, 'kubectl haptic').replace(/ -n \S+/, '') + replicas, ...r });
  }

  ctx.log(`memory: rolling ${target.namespace}/${target.name} (${target.replicas} replicas) to ${image}`);
  const started = performance.now();
  await setImage(ctx.kube, target.name, image, target.namespace);
  const [plugin, kubectl] = await Promise.all([follow(wrap(pluginArgv), env, haveTime), haveTime ? follow(wrap(kubectlArgv), env, true) : Promise.resolve(undefined)]);
  await waitRolledOut(ctx.kube, target.name, target.namespace, 60_000);
  await waitNoTerminating(ctx.kube, target.name, target.namespace);
  const rolloutSeconds = round((performance.now() - started) / 1000);
  if (plugin.exitCode !== 0) throw new Error(`${pluginArgv.join(' ')} exited with ${plugin.exitCode}`);
  return {
    replicas: target.replicas,
    namespace: target.namespace,
    measuredWith: haveTime ? `${TIME} -v (Maximum resident set size)` : 'process.resourceUsage().maxRSS (preload)',
    plugin: { command: pluginArgv.join(' ').replace(PLUGIN, 'bin/kubectl-haptic'), ...plugin },
    kubectl: kubectl && { command: kubectlArgv.join(' '), ...kubectl },
    rolloutSeconds,
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
    return { exitCode: code, maxRssMiB: round(field('Maximum resident set size') / 1024), cpuSeconds: round(field('User time') + field('System time'), 2), wallSeconds };
  }
  return { exitCode: code, maxRssMiB: round(Number(/maxrss-kib=(\d+)/.exec(stderr)?.[1] ?? NaN) / 1024), wallSeconds };
}

export function memoryTable(r: MemoryResult): string {
  const rows: (string | number)[][] = [
    ['kubectl haptic status --wait --drained', r.plugin.maxRssMiB.toFixed(1), r.plugin.cpuSeconds?.toFixed(2) ?? '-', r.plugin.wallSeconds.toFixed(1), r.kubectl ? ratio(r.plugin.maxRssMiB, r.kubectl.maxRssMiB) : '-'],
  ];
  if (r.kubectl) rows.push(['kubectl rollout status', r.kubectl.maxRssMiB.toFixed(1), r.kubectl.cpuSeconds?.toFixed(2) ?? '-', r.kubectl.wallSeconds.toFixed(1), '1.00×']);
  const refs = table(['for scale: one-shot', 'max RSS MiB'], r.oneShot.map((o) => [o.command, o.maxRssMiB.toFixed(1)]));
  return `${r.replicas}-replica rollout, ${r.rolloutSeconds} s until every old pod was gone\n${table(['following the rollout', 'max RSS MiB', 'CPU s', 'wall s', 'vs kubectl'], rows)}\n\n${refs}`;
}
