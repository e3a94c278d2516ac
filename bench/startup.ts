// (a) Cold start of one-shot commands, each a fresh process, interleaved with kubectl's, for both ways the plugin is
// installed: the single executable (built here for this machine's platform exactly as `npm run package` builds it)
// and the npm install's launcher (bin/kubectl-haptic running dist/ on the pinned Node). Each plugin command runs
// directly (`kubectl-haptic …`, as kubectl_complete-haptic or a script does), compared with kubectl's own command
// run directly, and through `kubectl haptic …` (kubectl's plugin lookup finds kubectl-haptic on PATH), compared with
// kubectl's own command through the same dispatch: `kubectl kubectl get …`, where the plugin kubectl-kubectl on PATH
// is kubectl itself. The questions and what kubectl does for them, on the same cluster:
//   status web              ↔ kubectl get deploy,rs,pods -o json
//   why-stalled web         ↔ kubectl get deploy,rs,pods,svc,endpointslices,events -o json (what one reads by hand)
//   --version, --help       ↔ kubectl version --client (no request)
// Every row runs at each round trip (--rtt, default 0, 10, 25 and 50 ms): at 0 straight to the local API server, at
// the others through a delay proxy on 127.0.0.1 (delay-proxy.ts) that the benchmark starts and stops, each command
// given a kubeconfig whose server is the proxy. Goals (#39): status and why-stalled ≤ 1.3× at 0 ms and ≤ 1.0× from
// 10 ms, --version ≤ 1.0× kubectl version --client, --help ≤ 1.3× (it is timed at 0 ms only). Wall time from spawn
// to exit, and to the first byte on stdout.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import {
  KUBECTL,
  NAMESPACE,
  PLUGIN,
  median,
  repoRoot,
  round,
  run,
  summarize,
  table,
  type BenchContext,
  type Summary,
} from './lib.ts';
import { startDelayProxy } from './delay-proxy.ts';

export const STARTUP_APP = { name: 'web', replicas: 10 };

type Install = 'executable' | 'npm' | 'kubectl';

interface Row {
  name: string;
  install: Install;
  /** direct: the plugin's own executable; kubectl: `kubectl haptic …` (or kubectl's own command) */
  via: 'direct' | 'kubectl';
  argv: string[];
  /** timed at 0 ms round trip only (it asks no server) */
  localOnly?: boolean;
  /** the row it is compared with, and the most it may take of that row's time */
  baseline?: string;
  goal?: Goal;
  env: NodeJS.ProcessEnv;
}

/** the most a row may take of its baseline's time: at 0 ms round trip, and at 10 ms and above */
type Goal = readonly [number, number];
const goalAt = (goal: Goal | undefined, rttMs: number) => goal && (rttMs === 0 ? goal[0] : goal[1]);

export interface StartupResult {
  runs: number;
  warmups: number;
  replicas: number;
  /** the single executable's size */
  executable: { bytes: number };
  /** one set of interleaved rows per round trip */
  roundTrips: RoundTripResult[];
  /** every ratio within its goal, at every round trip */
  goalsMet: boolean;
}

export interface RoundTripResult {
  /** the round trip the delay proxy added (0: straight to the API server) */
  rttMs: number;
  commands: Record<
    string,
    Summary & {
      command: string;
      install: Install;
      via: 'direct' | 'kubectl';
      firstByteMs: number;
      baseline?: string;
      goal?: number;
    }
  >;
  /** medians, plugin ÷ its kubectl baseline */
  ratios: Record<string, number>;
  /** the same for the time to the first byte of output */
  firstByteRatios: Record<string, number>;
  /** every ratio within its goal */
  goalsMet: boolean;
}

const BASELINES = {
  get: 'kubectl get deploy,rs,pods -o json',
  getWide: 'kubectl get deploy,rs,pods,svc,endpointslices,events -o json',
  version: 'kubectl version --client',
};

export async function benchStartup(
  ctx: BenchContext,
  options: { runs?: number; warmups?: number; roundTrips?: number[] } = {},
): Promise<StartupResult> {
  const runs = options.runs ?? 15;
  const roundTrips = options.roundTrips ?? [0, 10, 25, 50];
  const warmups = options.warmups ?? 2;
  const app = STARTUP_APP.name;
  const scratch = mkdtempSync(join(tmpdir(), 'kh-bench-startup-'));
  try {
    // one folder per install, each holding a kubectl-haptic for kubectl's plugin lookup to find first on PATH
    const exeDir = join(scratch, 'executable');
    const npmDir = join(scratch, 'npm');
    const executable = join(exeDir, 'kubectl-haptic');
    ctx.log('startup: building the single executable for this platform (npm run package -- --executable)');
    execFileSync(process.execPath, [join(repoRoot, 'scripts/package.js'), '--executable', executable], {
      cwd: repoRoot,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    mkdirSync(npmDir);
    symlinkSync(PLUGIN, join(npmDir, 'kubectl-haptic'));
    const withPath = (dir: string): NodeJS.ProcessEnv => ({ ...ctx.env, PATH: `${dir}:${ctx.env.PATH ?? ''}` });
    // kubectl as a plugin of itself: `kubectl kubectl get …` goes through the plugin dispatch `kubectl haptic …` does
    const selfDir = join(scratch, 'kubectl-as-plugin');
    mkdirSync(selfDir);
    symlinkSync(
      execFileSync('sh', ['-c', 'command -v "$0"', KUBECTL], { encoding: 'utf8' }).trim(),
      join(selfDir, 'kubectl-kubectl'),
    );

    const baselineArgs = {
      [BASELINES.get]: ['get', 'deploy,rs,pods', '-o', 'json', '-n', NAMESPACE],
      [BASELINES.getWide]: ['get', 'deploy,rs,pods,svc,endpointslices,events', '-o', 'json', '-n', NAMESPACE],
      [BASELINES.version]: ['version', '--client'],
    };
    const rows: Row[] = [];
    for (const [name, args] of Object.entries(baselineArgs)) {
      rows.push(
        { name, install: 'kubectl', via: 'direct', argv: [KUBECTL, ...args], env: ctx.env },
        {
          name: `${name} (through kubectl's plugin dispatch)`,
          install: 'kubectl',
          via: 'kubectl',
          argv: [KUBECTL, 'kubectl', ...args],
          env: withPath(selfDir),
        },
      );
    }
    const through = (baseline: string) => `${baseline} (through kubectl's plugin dispatch)`;
    // goals at 0 ms round trip and at 10 ms and above
    const pluginCommands: { args: string[]; baseline: string; goal: Goal; localOnly?: boolean }[] = [
      { args: ['status', app, '-n', NAMESPACE], baseline: BASELINES.get, goal: [1.3, 1.0] },
      { args: ['why-stalled', app, '-n', NAMESPACE], baseline: BASELINES.getWide, goal: [1.3, 1.0] },
      { args: ['--version'], baseline: BASELINES.version, goal: [1.0, 1.0] },
      { args: ['--help'], baseline: BASELINES.version, goal: [1.3, 1.3], localOnly: true },
    ];
    for (const [install, dir] of [
      ['executable', exeDir],
      ['npm', npmDir],
    ] as const) {
      for (const c of pluginCommands) {
        const shown = c.args.filter((a, i) => a !== '-n' && c.args[i - 1] !== '-n').join(' ');
        rows.push(
          {
            name: `${install}: kubectl-haptic ${shown}`,
            install,
            via: 'direct',
            argv: [join(dir, 'kubectl-haptic'), ...c.args],
            baseline: c.baseline,
            goal: c.goal,
            localOnly: c.localOnly,
            env: ctx.env,
          },
          {
            name: `${install}: kubectl haptic ${shown}`,
            install,
            via: 'kubectl',
            argv: [KUBECTL, 'haptic', ...c.args],
            baseline: through(c.baseline),
            goal: c.goal,
            localOnly: c.localOnly,
            env: withPath(dir),
          },
        );
      }
    }
    // --compare PATH: another build's launcher (e.g. a checkout of the previous commit), run directly
    for (const other of ctx.compare) {
      // a checkout's bin/kubectl-haptic or an executable beside others: named by its two folders
      const label = `${basename(dirname(dirname(other)))}/${basename(dirname(other))}`;
      rows.push(
        {
          name: `${label}: kubectl-haptic status ${app}`,
          install: 'npm',
          via: 'direct',
          argv: [other, 'status', app, '-n', NAMESPACE],
          baseline: BASELINES.get,
          env: ctx.env,
        },
        {
          name: `${label}: kubectl-haptic --version`,
          install: 'npm',
          via: 'direct',
          argv: [other, '--version'],
          baseline: BASELINES.version,
          env: ctx.env,
        },
      );
    }

    const result: StartupResult = {
      runs,
      warmups,
      replicas: STARTUP_APP.replicas,
      executable: { bytes: statSync(executable).size },
      roundTrips: [],
      goalsMet: true,
    };
    const kubeconfig = readFileSync(ctx.cluster.adminKubeconfig, 'utf8');
    const server = new URL(/^\s*server:\s*(\S+)\s*$/m.exec(kubeconfig)?.[1] ?? '');
    for (const rttMs of roundTrips) {
      const timed = rows.filter((r) => rttMs === 0 || !r.localOnly);
      // 0 ms: straight to the API server; else through a delay proxy, named by a kubeconfig of its own
      const proxy =
        rttMs === 0 ? undefined : await startDelayProxy({ host: server.hostname, port: Number(server.port) }, rttMs);
      const env: NodeJS.ProcessEnv = {};
      if (proxy) {
        env.KUBECONFIG = join(scratch, `kubeconfig-${rttMs}ms`);
        writeFileSync(env.KUBECONFIG, kubeconfig.replace(server.origin, `https://127.0.0.1:${proxy.port}`));
      }
      try {
        ctx.log(
          `startup at ${rttMs} ms round trip: ${warmups} warm-up + ${runs} timed runs of ${timed.length} commands, interleaved`,
        );
        result.roundTrips.push(await timeRows(timed, env, rttMs, runs, warmups, scratch));
      } finally {
        await proxy?.close();
      }
    }
    result.goalsMet = result.roundTrips.every((r) => r.goalsMet);
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The rows interleaved (A B C A B C …), `env` over each row's own; medians, ratios to the baselines, goals. */
async function timeRows(
  rows: Row[],
  env: NodeJS.ProcessEnv,
  rttMs: number,
  runs: number,
  warmups: number,
  scratch: string,
): Promise<RoundTripResult> {
  const times = new Map(rows.map((r) => [r.name, { ms: [] as number[], firstByte: [] as number[] }]));
  for (let round = 0; round < warmups + runs; round++) {
    for (const r of rows) {
      const result = await run(r.argv, { ...r.env, ...env }, 60_000);
      if (result.code !== 0)
        throw new Error(`${r.argv.join(' ')} exited with ${result.code}\n${result.stderr}${result.stdout}`);
      if (round < warmups) continue;
      times.get(r.name)!.ms.push(result.ms);
      times.get(r.name)!.firstByte.push(result.firstByteMs ?? result.ms);
    }
  }
  const result: RoundTripResult = { rttMs, commands: {}, ratios: {}, firstByteRatios: {}, goalsMet: true };
  for (const r of rows) {
    const t = times.get(r.name)!;
    const command = r.argv.map((a) => a.replace(scratch, '$TMP').replace(repoRoot, '.')).join(' ');
    const goal = goalAt(r.goal, rttMs);
    result.commands[r.name] = {
      command,
      install: r.install,
      via: r.via,
      ...summarize(t.ms),
      firstByteMs: round(median(t.firstByte)),
      ...(r.baseline ? { baseline: r.baseline, goal } : {}),
    };
  }
  for (const r of rows) {
    if (!r.baseline) continue;
    const ours = result.commands[r.name]!;
    const base = result.commands[r.baseline]!;
    result.ratios[r.name] = round(ours.medianMs / base.medianMs, 2);
    result.firstByteRatios[r.name] = round(ours.firstByteMs / base.firstByteMs, 2);
    if (ours.goal && result.ratios[r.name]! > ours.goal) result.goalsMet = false;
  }
  return result;
}

export function startupTable(r: StartupResult): string {
  const sections = r.roundTrips.map((trip) => {
    const rows = Object.entries(trip.commands).map(([name, s]) => {
      const ratio = trip.ratios[name];
      return [
        name,
        s.medianMs.toFixed(1),
        s.p90Ms.toFixed(1),
        s.firstByteMs.toFixed(1),
        ratio === undefined ? '' : `${ratio.toFixed(2)}×`,
        s.goal === undefined ? '' : `≤ ${s.goal}× ${ratio! <= s.goal ? 'yes' : 'NO'}`,
        trip.firstByteRatios[name] === undefined ? '' : `${trip.firstByteRatios[name]!.toFixed(2)}×`,
      ];
    });
    return `### ${trip.rttMs} ms round trip\n${table(['command', 'median ms', 'p90 ms', 'first byte ms', 'vs kubectl', 'goal', 'first byte vs kubectl'], rows)}`;
  });
  // the ratios side by side, one column per round trip
  const names = Object.keys(r.roundTrips[0]?.ratios ?? {});
  const summary = table(
    ['command', ...r.roundTrips.map((t) => `${t.rttMs} ms`)],
    names.map((name) => [
      name,
      ...r.roundTrips.map((t) => {
        const ratio = t.ratios[name];
        const goal = t.commands[name]?.goal;
        return ratio === undefined ? '' : `${ratio.toFixed(2)}×${goal !== undefined && ratio > goal ? ' NO' : ''}`;
      }),
    ]),
  );
  const mib = (r.executable.bytes / 2 ** 20).toFixed(1);
  return `${sections.join('\n\n')}\n\n### vs kubectl, by round trip\n${summary}\n(executable: ${mib} MiB; every goal met: ${r.goalsMet ? 'yes' : 'NO'})`;
}
