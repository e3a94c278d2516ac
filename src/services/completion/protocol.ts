// Completion in Cobra's `__complete` protocol, which kubectl uses for plugins: one candidate per line
// (`value\tdescription`), then `:<directive>`. Pure: cluster look-ups are passed in.

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
  /** whether positional arguments name workloads (Deployments and StatefulSets) */
  takesWorkloads: boolean;
}

export interface Lookups {
  namespaces(): Promise<string[]>;
  /** the names of the namespace's Deployments and StatefulSets, each list sorted */
  workloads(namespace: string | undefined): Promise<{ deployments: string[]; statefulSets: string[] }>;
  contexts(): string[];
}

/** The spellings before a slash that completion keeps, as kubectl accepts them (kube/resources.ts has them all). */
const KIND_PREFIXES: Record<string, 'deployments' | 'statefulSets'> = {
  deployment: 'deployments',
  deploy: 'deployments',
  deployments: 'deployments',
  statefulset: 'statefulSets',
  sts: 'statefulSets',
  statefulsets: 'statefulSets',
};

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
 * Workload names as arguments: KIND/NAME when the word typed has a kind before a slash (kept as typed), else bare
 * names of both kinds; a name that both kinds have is offered as deployment/NAME and statefulset/NAME, as a bare one
 * would be ambiguous.
 */
function workloadCandidates(found: { deployments: string[]; statefulSets: string[] }, current: string): string[] {
  const slash = current.indexOf('/');
  const deployments = found.deployments.filter(offerable);
  const sets = found.statefulSets.filter(offerable);
  if (slash >= 0) {
    const prefix = current.slice(0, slash);
    const kind = KIND_PREFIXES[prefix.toLowerCase()];
    return kind ? (kind === 'deployments' ? deployments : sets).map((n) => `${prefix}/${n}`) : [];
  }
  const both = new Set(deployments.filter((n) => sets.includes(n)));
  const bare = [...new Set([...deployments, ...sets])].filter((n) => !both.has(n)).sort();
  return [...bare, ...[...both].flatMap((n) => [`deployment/${n}`, `statefulset/${n}`])];
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
