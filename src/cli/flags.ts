import { UserError } from '../lib/errors.ts';
import { Args, Flags, type Interfaces } from '@oclif/core';
import { GATE_CONDITION } from '../haptic/names.ts';

/** The flags kubectl users type without thinking. kubectl does not pass its global flags to plugins. */
export const kubeFlags = {
  namespace: Flags.string({
    char: 'n',
    summary: 'Namespace to use (default: the current context\'s namespace, else "default").',
    helpGroup: 'KUBECTL',
  }),
  context: Flags.string({ summary: 'The kubeconfig context to use.', helpGroup: 'KUBECTL' }),
  kubeconfig: Flags.string({
    summary: 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).',
    helpGroup: 'KUBECTL',
  }),
  'request-timeout': Flags.string({
    summary:
      'How long one API request may take, its credential plugin and whole answer included (e.g. 10s, 1m; 0 = no overall limit, but 60 s without an answer or 30 s of a stalled body still time out).',
    default: '0',
    helpGroup: 'KUBECTL',
  }),
  debug: Flags.boolean({ summary: 'Print stack traces with errors.', helpGroup: 'KUBECTL' }),
  'no-color': Flags.boolean({ summary: 'No colours, even on a terminal (also NO_COLOR=1).', helpGroup: 'KUBECTL' }),
};

export type KubeFlags = Interfaces.InferredFlags<typeof kubeFlags>;

export const outputFlag = Flags.option({ char: 'o', summary: 'Output format.', options: ['json', 'yaml'] as const })();

export const conditionTypeFlag = Flags.string({ summary: 'Readiness gate condition type.', default: GATE_CONDITION });

/**
 * What each exit code means for every command (README "Exit codes" has the whole table). Each fits on one line of
 * an 80-column help screen: oclif wraps a longer one to the paragraph's margin, not under its meaning.
 */
const EXIT_CODE_MEANINGS: Record<number, string> = {
  0: 'success',
  1: 'rollout failed, stall cause found, or a target refused/failed',
  2: 'timed out',
  3: 'usage or input error (bad flag, unknown object, unusable kubeconfig)',
  4: 'cluster or credential error (unreachable, refused, not an API server)',
};

/**
 * The last paragraph of a command's description: "Exit codes:", then a line per code (the command's own meanings
 * in place of the common ones). docs/commands/ shows it as a table.
 */
export function exitCodesHelp(own: Record<number, string> = {}): string {
  const meanings = Object.entries({ ...EXIT_CODE_MEANINGS, ...own });
  const width = Math.max(...meanings.map(([code]) => code.length));
  return ['Exit codes:', ...meanings.map(([code, meaning]) => `  ${code.padEnd(width)}  ${meaning}`)].join('\n');
}

/** enable-gate and disable-gate: no stall is looked for, unless --wait follows the rollout they start. */
export const GATE_EXIT_CODES_HELP = exitCodesHelp({
  1: 'a target refused or failed; with --wait, the rollout failed or stalled',
  2: 'timed out (--wait)',
});

/** The workload a read-only command looks at: NAME, else every one of the namespace (or -l, -A), like kubectl get. */
export const rolloutArgs = {
  // never read from standard input (oclif's default for a missing argument when stdin is not a terminal)
  name: Args.string({
    description:
      'A Deployment, StatefulSet, DaemonSet or Argo Rollout: NAME, deployment/NAME, statefulset/NAME (sts/NAME), daemonset/NAME (ds/NAME) or rollout/NAME (ro/NAME).',
    required: false,
    ignoreStdin: true,
  }),
};

export const rolloutFlags = {
  selector: Flags.string({
    char: 'l',
    summary: 'Label selector for the Deployments, StatefulSets and DaemonSets to look at.',
  }),
  'all-namespaces': Flags.boolean({
    char: 'A',
    summary: 'Deployments, StatefulSets and DaemonSets of every namespace.',
  }),
  output: outputFlag,
  'condition-type': conditionTypeFlag,
};

/** How --wait ends early on a cause that does not clear by itself (status, enable-gate, disable-gate, drill). */
export const failFastFlags = {
  'fail-fast': Flags.boolean({
    summary:
      'With --wait: end with exit 1 as soon as a stall cause that does not clear by itself has held past its hold (docs/checks.md, "ends a wait"); --no-fail-fast waits for the progress deadline or --timeout only, as kubectl rollout status.',
    allowNo: true,
    default: true,
  }),
  patience: Flags.string({
    summary:
      'With --wait: multiply every fail-fast hold and restart count by this factor (e.g. 2: twice as long, twice the restarts).',
    default: '1',
  }),
};

/** Workloads to act on: several NAME or KIND/NAME, or -l, or --all. */
export const gateArgs = {
  targets: Args.string({
    description:
      'Deployments, StatefulSets and DaemonSets: NAME, deployment/NAME, statefulset/NAME or daemonset/NAME (several allowed).',
    required: false,
    ignoreStdin: true,
  }),
};

export const gateFlags = {
  selector: Flags.string({
    char: 'l',
    summary: 'Label selector for the Deployments, StatefulSets and DaemonSets to act on (e.g. app=web,tier!=db).',
  }),
  all: Flags.boolean({ summary: 'Act on every Deployment, StatefulSet and DaemonSet in the namespace.' }),
  'condition-type': conditionTypeFlag,
  'dry-run': Flags.option({
    summary:
      'client: print the patch and the pod template before/after; server: let the API server validate the patch. Neither writes.',
    options: ['none', 'client', 'server'] as const,
    default: 'none' as const,
  })(),
  output: outputFlag,
  wait: Flags.boolean({
    summary: 'After the write, follow the rollout it started until it completes (as status --wait).',
  }),
  timeout: Flags.string({ summary: 'With --wait: give up after this long (e.g. 5m; 0 = no limit).', default: '0' }),
  ...failFastFlags,
};

/** --patience: a factor of at least 1. */
export function parsePatience(text: string): number {
  const n = Number(text.trim());
  if (!/^\d+(\.\d+)?$/.test(text.trim()) || !Number.isFinite(n) || n < 1 || n > 1000)
    throw new UserError(`invalid --patience "${text}": use a factor from 1 to 1000, such as 2 or 1.5`);
  return n;
}
