// (a) Cold start of a one-shot command: `kubectl haptic status web` against `kubectl get deploy,rs,pods -o json`,
// `kubectl haptic why-stalled web` against `kubectl get deploy,rs,pods,svc,endpointslices -o json` (what a person
// would read by hand), on the same cluster, and `kubectl haptic --version` alone (the floor: runtime + bundle +
// oclif, no API request).
// Each process starts from nothing (no daemon), so this is what a person waits for at the prompt.
import { basename, dirname } from 'node:path';
import { KUBECTL, NAMESPACE, PLUGIN, ratio, round, summarize, table, timeInterleaved, type BenchContext, type Summary, type Timed } from './lib.ts';

export const STARTUP_APP = { name: 'web', replicas: 10 };

export interface StartupResult {
  runs: number;
  warmups: number;
  replicas: number;
  commands: Record<string, Summary & { command: string }>;
  /** medians, plugin ÷ kubectl */
  ratios: Record<string, number>;
}

export async function benchStartup(ctx: BenchContext, options: { runs?: number; warmups?: number } = {}): Promise<StartupResult> {
  const runs = options.runs ?? 15;
  const warmups = options.warmups ?? 2;
  const app = STARTUP_APP.name;
  const commands: Timed[] = [
    { name: 'kubectl get deploy,rs,pods -o json', argv: [KUBECTL, 'get', 'deploy,rs,pods', '-o', 'json', '-n', NAMESPACE] },
    { name: `kubectl haptic status ${app}`, argv: [PLUGIN, 'status', app, '-n', NAMESPACE] },
    { name: 'kubectl haptic --version', argv: [PLUGIN, '--version'] },
    { name: 'kubectl get deploy,rs,pods,svc,endpointslices -o json', argv: [KUBECTL, 'get', 'deploy,rs,pods,svc,endpointslices', '-o', 'json', '-n', NAMESPACE] },
    { name: `kubectl haptic why-stalled ${app}`, argv: [PLUGIN, 'why-stalled', app, '-n', NAMESPACE] },
  ];
  // --compare PATH: another build's launcher (e.g. a checkout of the previous commit), timed the same way.
  for (const other of ctx.compare) {
    const label = `${basename(dirname(dirname(other)))}: `;
    commands.push({ name: `${label}status ${app}`, argv: [other, 'status', app, '-n', NAMESPACE] }, { name: `${label}--version`, argv: [other, '--version'] });
  }
  ctx.log(`startup: ${warmups} warm-up + ${runs} timed runs of ${commands.length} commands, interleaved`);
  const times = await timeInterleaved(commands, ctx.env, runs, warmups);
  const result: StartupResult = { runs, warmups, replicas: STARTUP_APP.replicas, commands: {}, ratios: {} };
  for (const c of commands) result.commands[c.name] = { command: c.argv.map((a) => a.replace(/^.*\/bin\/kubectl-haptic$/, 'bin/kubectl-haptic')).join(' '), ...summarize(times.get(c.name)!) };
  for (const c of commands) {
    const base = baselineOf(c.name, Object.keys(result.commands));
    if (base !== c.name) result.ratios[c.name] = round(result.commands[c.name]!.medianMs / result.commands[base]!.medianMs, 2);
  }
  return result;
}

/** why-stalled is compared with the wider kubectl read a person does by hand; everything else with the narrow one. */
function baselineOf(name: string, names: string[]): string {
  const wide = names.find((n) => n.startsWith('kubectl get deploy,rs,pods,svc'));
  return name.includes('why-stalled') && wide ? wide : name.startsWith('kubectl get deploy,rs,pods,svc') ? name : names[0]!;
}

export function startupTable(r: StartupResult): string {
  const names = Object.keys(r.commands);
  return table(
    ['command', 'median ms', 'min ms', 'p90 ms', 'vs kubectl'],
    names.map((n) => {
      const s = r.commands[n]!;
      return [n, s.medianMs.toFixed(1), s.minMs.toFixed(1), s.p90Ms.toFixed(1), ratio(s.medianMs, r.commands[baselineOf(n, names)]!.medianMs)];
    }),
  );
}
