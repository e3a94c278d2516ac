// Completion in Cobra's `__complete` protocol, which kubectl uses for plugins: one candidate per line
// (`value\tdescription`), then `:<directive>`. Pure: cluster look-ups are passed in.
import { parseWorkloadName, WORKLOAD_KINDS } from '../../kube/resources.ts';
import type { RolloutTarget } from '../../types/kube.ts';

/** The names of a namespace's workloads of each kind followed, each list sorted. */
export type WorkloadNames = Partial<Record<RolloutTarget['kind'], string[]>>;

export const Directive = { default: 0, noSpace: 2, noFileComp: 4 } as const;

export interface FlagSpec {
  name: string;
  char?: string | undefined;
  takesValue: boolean;
  options?: readonly string[] | undefined;
  summary?: string | undefined;
}

export interface CommandSpec {
  id: string;
  summary?: string | undefined;
  flags: FlagSpec[];
  /** whether positional arguments name workloads (of the kinds followed) */
  takesWorkloads: boolean;
}

export interface Lookups {
  namespaces(): Promise<string[]>;
  /** the names of the namespace's workloads of each kind */
  workloads(namespace: string | undefined): Promise<WorkloadNames>;
  contexts(): string[];
}

export interface Completion {
  candidates: string[];
  directive: number;
}

/** Flag values typed so far that change what the cluster look-ups see (namespace, context, kubeconfig). */
export function typedFlag(words: string[], spec: CommandSpec | undefined, name: string): string | undefined {
  const flag = spec?.flags.find((f) => f.name === name);
  for (let i = 0; i < words.length - 1; i++) {
    const w = words[i] as string;
    if (w === `--${name}` || (flag?.char && w === `-${flag.char}`)) return words[i + 1];
    if (w.startsWith(`--${name}=`)) return w.slice(name.length + 3);
  }
  return undefined;
}

export async function complete(words: string[], commands: CommandSpec[], lookups: Lookups): Promise<Completion> {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const visible = commands.filter((c) => !c.id.startsWith('_'));
  const command = visible.find((c) => c.id === before[0]);
  if (!command) {
    if (before.length > 0) return { candidates: [], directive: Directive.noFileComp };
    return {
      candidates: visible.filter((c) => c.id.startsWith(current)).map((c) => `${c.id}\t${c.summary ?? ''}`),
      directive: Directive.noFileComp,
    };
  }

  const previous = before.at(-1) ?? '';
  const valueFlag = command.flags.find(
    (f) => f.takesValue && (previous === `--${f.name}` || (f.char && previous === `-${f.char}`)),
  );
  if (valueFlag) return completeValue(valueFlag, lookups, current);

  if (current.startsWith('-')) {
    const candidates = command.flags.flatMap((f) =>
      [`--${f.name}`, ...(f.char ? [`-${f.char}`] : [])].map((n) => `${n}\t${f.summary ?? ''}`),
    );
    return { candidates: candidates.filter((c) => c.startsWith(current)), directive: Directive.noFileComp };
  }
  if (!command.takesWorkloads) return { candidates: [], directive: Directive.noFileComp };
  const found = await lookups.workloads(typedFlag(words, command, 'namespace'));
  const typed = new Set(before.slice(1));
  return {
    candidates: workloadCandidates(found, current).filter((n) => n.startsWith(current) && !typed.has(n)),
    directive: Directive.noFileComp,
  };
}

/**
 * Workload names as arguments: KIND/NAME when the word typed has a kind before a slash (kept as typed, in any
 * spelling kubectl accepts), else bare names of every kind; a name that two kinds have is offered as KIND/NAME of
 * each, as a bare one would be ambiguous.
 */
function workloadCandidates(found: WorkloadNames, current: string): string[] {
  const slash = current.indexOf('/');
  const of = (kind: RolloutTarget['kind']) => (found[kind] ?? []).filter(offerable);
  if (slash >= 0) {
    const prefix = current.slice(0, slash);
    const { kind } = parseWorkloadName(`${prefix}/`);
    return kind && (WORKLOAD_KINDS as string[]).includes(kind)
      ? of(kind as RolloutTarget['kind']).map((n) => `${prefix}/${n}`)
      : [];
  }
  const kindsOf = new Map<string, RolloutTarget['kind'][]>();
  for (const kind of WORKLOAD_KINDS) for (const n of of(kind)) kindsOf.set(n, [...(kindsOf.get(n) ?? []), kind]);
  const names = [...kindsOf.keys()].sort();
  return [
    ...names.filter((n) => kindsOf.get(n)!.length === 1),
    ...names
      .filter((n) => kindsOf.get(n)!.length > 1)
      .flatMap((n) => kindsOf.get(n)!.map((k) => `${k.toLowerCase()}/${n}`)),
  ];
}

/**
 * A name from the cluster or the kubeconfig offered as a candidate only when it is one word of visible characters:
 * a tab would forge a description and a newline another candidate (the protocol is line- and tab-separated), and
 * format characters (bidi overrides, zero-width) would show the user something else than they complete.
 */
const offerable = (name: string) => name.length > 0 && !/[\s\p{Cc}\p{Cf}]/u.test(name);

async function completeValue(flag: FlagSpec, lookups: Lookups, current: string): Promise<Completion> {
  let values: string[];
  if (flag.options) values = [...flag.options];
  else if (flag.name === 'namespace') values = await lookups.namespaces();
  else if (flag.name === 'context') values = lookups.contexts();
  // paths: the shell completes files itself when no candidate comes back with the default directive
  else if (flag.name === 'kubeconfig' || flag.name === 'filename')
    return { candidates: [], directive: Directive.default };
  else values = [];
  return { candidates: values.filter((v) => offerable(v) && v.startsWith(current)), directive: Directive.noFileComp };
}
