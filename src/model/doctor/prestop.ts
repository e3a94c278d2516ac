// What a preStop hook does, step by step: the sleeps and the signals in the order they run. Reads the three forms
// Kubernetes has: `exec` (a command, or a shell line `sh -c "…"` split into its simple commands), the `sleep`
// action, and `httpGet` (whose duration only the application knows). A shell line with loops, conditionals or
// functions is not followed: its order is reported as unknown rather than guessed. Pure.
import type { LifecycleHandler } from '../../types/kube.ts';

export type StopStep =
  | { kind: 'sleep'; seconds: number; text: string }
  | { kind: 'signal'; signal: string; target: string; text: string }
  | { kind: 'other'; text: string };

export interface PreStopPlan {
  handler: 'none' | 'exec' | 'sleep' | 'httpGet' | 'tcpSocket';
  /** the hook as evidence shows it */
  text: string;
  steps: StopStep[];
  /** false when the shell line has control flow the doctor does not follow */
  linear: boolean;
}

const SHELLS = new Set(['sh', 'bash', 'ash', 'dash', 'zsh', 'busybox']);
const CONTROL = new Set([
  'if',
  'then',
  'else',
  'elif',
  'fi',
  'while',
  'until',
  'for',
  'do',
  'done',
  'case',
  'esac',
  'function',
  '{',
  '}',
  '(',
  ')',
]);

/** Linux signal numbers of the signals that matter here (x86 and arm). */
const NUMBERED: Record<string, string> = {
  '1': 'SIGHUP',
  '2': 'SIGINT',
  '3': 'SIGQUIT',
  '9': 'SIGKILL',
  '10': 'SIGUSR1',
  '12': 'SIGUSR2',
  '15': 'SIGTERM',
};

/** `USR1`, `SIGUSR1`, `usr1`, `10` → `SIGUSR1`. */
export function signalName(s: string): string {
  const upper = s.toUpperCase();
  if (NUMBERED[upper]) return NUMBERED[upper];
  return upper.startsWith('SIG') ? upper : `SIG${upper}`;
}

const base = (word: string) => word.split('/').pop() ?? word;

/** Splits a shell line into simple commands at ; && || | & and newlines, outside quotes and $( … ). */
export function splitCommands(line: string): string[] {
  const commands: string[] = [];
  let current = '';
  let quote: string | undefined;
  let depth = 0;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"') current += line[i++];
      current += c;
      continue;
    }
    if (c === "'" || c === '"') quote = c;
    else if (c === '$' && line[i + 1] === '(') depth++;
    else if (c === ')' && depth > 0) depth--;
    else if (depth === 0 && (c === ';' || c === '&' || c === '|' || c === '\n')) {
      if (current.trim()) commands.push(current.trim());
      current = '';
      if ((c === '&' || c === '|') && line[i + 1] === c) i++;
      continue;
    }
    current += c;
  }
  if (current.trim()) commands.push(current.trim());
  return commands;
}

/** The words of a simple command, quotes removed; leading `exec`, `command` and VAR=value assignments dropped. */
export function commandWords(command: string): string[] {
  const words = (command.match(/"[^"]*"|'[^']*'|\$\([^)]*\)|[^\s]+/g) ?? []).map((w) => w.replace(/^["']|["']$/g, ''));
  while (
    words.length &&
    (['exec', 'command', 'builtin'].includes(words[0] as string) || /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0] as string))
  )
    words.shift();
  return words;
}

/** GNU sleep's argument: a number with an optional s/m/h/d suffix; several are added up. `infinity` never ends. */
function sleepSeconds(args: string[]): number | undefined {
  let total = 0;
  for (const a of args) {
    if (a === 'infinity' || a === 'inf') return Number.POSITIVE_INFINITY;
    const m = /^(\d+(?:\.\d+)?)([smhd]?)$/.exec(a);
    if (!m) return undefined;
    total += Number(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as string] ?? 1);
  }
  return args.length ? total : undefined;
}

/** kill / pkill / killall with their signal options: -USR1, -SIGUSR1, -10, -s USR1, -n 10, --signal USR1. */
function killStep(words: string[], text: string): StopStep | undefined {
  const name = base(words[0] ?? '');
  if (!['kill', 'pkill', 'killall'].includes(name)) return undefined;
  let signal = 'SIGTERM';
  const targets: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const w = words[i] as string;
    if (['-s', '-n', '--signal'].includes(w)) signal = signalName(words[++i] ?? 'TERM');
    else if (w.startsWith('--signal=')) signal = signalName(w.slice('--signal='.length));
    // a single lower-case letter is an option of pkill/killall (-f, -x, -e), anything else names a signal
    else if (/^-[A-Za-z0-9]+$/.test(w) && !/^-[a-z]$/.test(w)) signal = signalName(w.slice(1));
    else if (!w.startsWith('-')) targets.push(w);
  }
  return { kind: 'signal', signal, target: targets.join(' ') || '?', text };
}

function stepOf(command: string): StopStep | 'control' {
  const words = commandWords(command);
  const first = words[0];
  if (first === undefined) return { kind: 'other', text: command };
  if (CONTROL.has(first) || first.endsWith('()')) return 'control';
  if (base(first) === 'sleep') {
    const seconds = sleepSeconds(words.slice(1));
    return seconds === undefined ? { kind: 'other', text: command } : { kind: 'sleep', seconds, text: command };
  }
  return killStep(words, command) ?? { kind: 'other', text: command };
}

function execPlan(command: string[]): PreStopPlan {
  const shown = JSON.stringify(command);
  const [first = '', ...rest] = command;
  const shell = SHELLS.has(base(first)) && rest.length >= 2 && /^-[a-z]*c[a-z]*$/.test(rest[0] as string);
  const commands = shell ? splitCommands(rest[1] as string) : [command.join(' ')];
  const steps: StopStep[] = [];
  let linear = true;
  for (const c of commands) {
    const step = shell ? stepOf(c) : stepOfWords(command);
    if (step === 'control') linear = false;
    else steps.push(step);
  }
  return { handler: 'exec', text: `exec ${shown}`, steps, linear };
}

/** An exec command run without a shell: its words are already split. */
function stepOfWords(words: string[]): StopStep {
  const text = words.join(' ');
  if (base(words[0] ?? '') === 'sleep') {
    const seconds = sleepSeconds(words.slice(1));
    if (seconds !== undefined) return { kind: 'sleep', seconds, text };
  }
  return killStep(words, text) ?? { kind: 'other', text };
}

export function preStopPlan(handler: LifecycleHandler | undefined): PreStopPlan {
  if (!handler || typeof handler !== 'object') return { handler: 'none', text: 'no preStop', steps: [], linear: true };
  if (handler.sleep && typeof handler.sleep.seconds === 'number') {
    const s = handler.sleep.seconds;
    return {
      handler: 'sleep',
      text: `sleep action ${s}s`,
      steps: [{ kind: 'sleep', seconds: s, text: `sleep ${s}` }],
      linear: true,
    };
  }
  if (handler.exec && Array.isArray(handler.exec.command) && handler.exec.command.every((w) => typeof w === 'string'))
    return execPlan(handler.exec.command);
  if (handler.httpGet)
    return {
      handler: 'httpGet',
      text: `httpGet :${handler.httpGet.port}${handler.httpGet.path ?? '/'}`,
      steps: [],
      linear: true,
    };
  if (handler.tcpSocket)
    return { handler: 'tcpSocket', text: `tcpSocket :${handler.tcpSocket.port}`, steps: [], linear: true };
  return { handler: 'none', text: 'no preStop', steps: [], linear: true };
}

/** Seconds the hook sleeps in all (Infinity for `sleep infinity`). */
export function totalSleep(plan: PreStopPlan): number {
  return plan.steps.reduce((t, s) => t + (s.kind === 'sleep' ? s.seconds : 0), 0);
}

/** The first signal of a kind the hook sends, with the seconds it slept before and after it. */
export function signalAt(
  plan: PreStopPlan,
  signal: string,
): { step: StopStep & { kind: 'signal' }; before: number; after: number } | undefined {
  let before = 0;
  for (let i = 0; i < plan.steps.length; i++) {
    const s = plan.steps[i] as StopStep;
    if (s.kind === 'sleep') before += s.seconds;
    if (s.kind === 'signal' && s.signal === signal) {
      const after = plan.steps.slice(i + 1).reduce((t, x) => t + (x.kind === 'sleep' ? x.seconds : 0), 0);
      return { step: s, before, after };
    }
  }
  return undefined;
}

/** The first signal the hook sends, whatever it is. */
export function firstSignal(
  plan: PreStopPlan,
): { step: StopStep & { kind: 'signal' }; before: number; after: number } | undefined {
  const first = plan.steps.find((s): s is StopStep & { kind: 'signal' } => s.kind === 'signal');
  return first ? signalAt(plan, first.signal) : undefined;
}
