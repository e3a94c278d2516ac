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
// Goals: ≤ 1.5× for status and why-stalled, ≤ 1.3× for --version and --help. Wall time from spawn to exit, and to
// the first byte on stdout.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from 'node:fs';
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

export const STARTUP_APP = { name: 'web', replicas: 10 };

type Install = 'executable' | 'npm' | 'kubectl';

interface Row {
  name: string;
  install: Install;
  /** direct: the plugin's own executable; kubectl: `kubectl haptic …` (or kubectl's own command) */
  via: 'direct' | 'kubectl';
  argv: string[];
  /** the row it is compared with, and the most it may take of that row's time */
  baseline?: string;
  goal?: number;
  env: NodeJS.ProcessEnv;
}

export interface StartupResult {
  runs: number;
  warmups: number;
  replicas: number;
  /** the single executable's size */
  executable: { bytes: number };
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
  options: { runs?: number; warmups?: number } = {},
): Promise<StartupResult> {
  const runs = options.runs ?? 15;
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
    const pluginCommands = [
      { args: ['status', app, '-n', NAMESPACE], baseline: BASELINES.get, goal: 1.5 },
      { args: ['why-stalled', app, '-n', NAMESPACE], baseline: BASELINES.getWide, goal: 1.5 },
      { args: ['--version'], baseline: BASELINES.version, goal: 1.3 },
      { args: ['--help'], baseline: BASELINES.version, goal: 1.3 },
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
            env: ctx.env,
          },
          {
            name: `${install}: kubectl haptic ${shown}`,
            install,
            via: 'kubectl',
            argv: [KUBECTL, 'haptic', ...c.args],
            baseline: through(c.baseline),
            goal: c.goal,
            env: withPath(dir),
          },
        );
      }
    }
    // --compare PATH: another build's launcher (e.g. a checkout of the previous commit), run directly
    for (const other of ctx.compare) {
      const label = basename(dirname(dirname(other)));
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

    ctx.log(`startup: ${warmups} warm-up + ${runs} timed runs of ${rows.length} commands, interleaved`);
    const times = new Map(rows.map((r) => [r.name, { ms: [] as number[], firstByte: [] as number[] }]));
    for (let round = 0; round < warmups + runs; round++) {
      for (const r of rows) {
        const result = await run(r.argv, r.env, 60_000);
        if (result.code !== 0)
          throw new Error(`${r.argv.join(' ')} exited with ${result.code}\n${result.stderr}${result.stdout}`);
        if (round < warmups) continue;
        times.get(r.name)!.ms.push(result.ms);
        times.get(r.name)!.firstByte.push(result.firstByteMs ?? result.ms);
      }
    }

    const result: StartupResult = {
      runs,
      warmups,
      replicas: STARTUP_APP.replicas,
      executable: { bytes: statSync(executable).size },
      commands: {},
      ratios: {},
      firstByteRatios: {},
      goalsMet: true,
    };
    for (const r of rows) {
      const t = times.get(r.name)!;
      const command = r.argv.map((a) => a.replace(scratch, '$TMP').replace(repoRoot, '.')).join(' ');
      result.commands[r.name] = {
        command,
        install: r.install,
        via: r.via,
        ...summarize(t.ms),
        firstByteMs: round(median(t.firstByte)),
        ...(r.baseline ? { baseline: r.baseline, goal: r.goal } : {}),
      };
    }
    for (const r of rows) {
      if (!r.baseline) continue;
      const ours = result.commands[r.name]!;
      const base = result.commands[r.baseline]!;
      result.ratios[r.name] = round(ours.medianMs / base.medianMs, 2);
      result.firstByteRatios[r.name] = round(ours.firstByteMs / base.firstByteMs, 2);
      if (r.goal && result.ratios[r.name]! > r.goal) result.goalsMet = false;
    }
    return result;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function startupTable(r: StartupResult): string {
  const rows = Object.entries(r.commands).map(([name, s]) => {
    const ratio = r.ratios[name];
    return [
      name,
      s.medianMs.toFixed(1),
      s.p90Ms.toFixed(1),
      s.firstByteMs.toFixed(1),
      ratio === undefined ? '' : `${ratio.toFixed(2)}×`,
      s.goal === undefined ? '' : `≤ ${s.goal}× ${ratio! <= s.goal ? 'yes' : 'NO'}`,
      r.firstByteRatios[name] === undefined ? '' : `${r.firstByteRatios[name]!.toFixed(2)}×`,
    ];
  });
  const mib = (r.executable.bytes / 2 ** 20).toFixed(1);
  return `${table(['command', 'median ms', 'p90 ms', 'first byte ms', 'vs kubectl', 'goal', 'first byte vs kubectl'], rows)}\n(executable: ${mib} MiB; every goal met: ${r.goalsMet ? 'yes' : 'NO'})`;
}
