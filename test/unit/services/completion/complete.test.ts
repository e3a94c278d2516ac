import { describe, expect, it } from 'vitest';
import { complete, Directive, type CommandSpec, type Lookups } from '../../../../src/services/completion/protocol.ts';

const commands: CommandSpec[] = [
  {
    id: 'status',
    summary: 'Follow a gated rollout.',
    takesWorkloads: true,
    flags: [
      { name: 'namespace', char: 'n', takesValue: true },
      { name: 'output', char: 'o', takesValue: true, options: ['json', 'yaml'] },
      { name: 'context', takesValue: true },
      { name: 'watch', char: 'w', takesValue: false },
    ],
  },
  {
    id: 'doctor',
    summary: 'Find the drain-safety traps.',
    takesWorkloads: true,
    flags: [
      { name: 'filename', char: 'f', takesValue: true },
      { name: 'output', char: 'o', takesValue: true, options: ['json', 'yaml', 'sarif'] },
    ],
  },
  { id: '__complete', takesWorkloads: false, flags: [] },
];

const seen: (string | undefined)[] = [];
const lookups: Lookups = {
  namespaces: async () => ['default', 'shop'],
  workloads: async (ns) => {
    seen.push(ns);
    return ns === 'shop'
      ? { Deployment: ['cart', 'web'], StatefulSet: ['db', 'web'], DaemonSet: ['edge'] }
      : { Deployment: ['other'], StatefulSet: [] };
  },
  contexts: () => ['dev', 'prod'],
};

describe('complete', () => {
  it("leaves -f and --filename to the shell's own file completion (no candidate, default directive)", async () => {
    expect(await complete(['doctor', '-f', 'dep'], commands, lookups)).toEqual({
      candidates: [],
      directive: Directive.default,
    });
    expect(await complete(['doctor', '--filename', ''], commands, lookups)).toEqual({
      candidates: [],
      directive: Directive.default,
    });
    expect((await complete(['doctor', '-o', 's'], commands, lookups)).candidates).toEqual(['sarif']);
  });
  it('offers visible commands first', async () => {
    expect(await complete(['st'], commands, lookups)).toEqual({
      candidates: ['status\tFollow a gated rollout.'],
      directive: Directive.noFileComp,
    });
  });
  it('offers the workloads of every kind of the namespace typed with -n, skipping ones already given', async () => {
    expect((await complete(['status', '-n', 'shop', 'cart', ''], commands, lookups)).candidates).toEqual([
      'db',
      'edge',
      'deployment/web',
      'statefulset/web',
    ]);
    expect(seen.at(-1)).toBe('shop');
    expect((await complete(['status', ''], commands, lookups)).candidates).toEqual(['other']);
  });
  it('keeps a kind typed before a slash, offering names of that kind only', async () => {
    expect((await complete(['status', '-n', 'shop', 'sts/'], commands, lookups)).candidates).toEqual([
      'sts/db',
      'sts/web',
    ]);
    expect((await complete(['status', '-n', 'shop', 'deployment/c'], commands, lookups)).candidates).toEqual([
      'deployment/cart',
    ]);
    expect((await complete(['status', '-n', 'shop', 'ds/'], commands, lookups)).candidates).toEqual(['ds/edge']);
    // a kind kubectl knows but the plugin does not follow (yet): nothing
    expect((await complete(['status', '-n', 'shop', 'rollout/'], commands, lookups)).candidates).toEqual([]);
    expect((await complete(['status', '-n', 'shop', 'pod/'], commands, lookups)).candidates).toEqual([]);
  });
  it('completes flag values: namespaces, contexts, -o options', async () => {
    expect((await complete(['status', '-n', 's'], commands, lookups)).candidates).toEqual(['shop']);
    expect((await complete(['status', '--context', ''], commands, lookups)).candidates).toEqual(['dev', 'prod']);
    expect((await complete(['status', '-o', 'y'], commands, lookups)).candidates).toEqual(['yaml']);
  });
  it('completes flag names', async () => {
    expect((await complete(['status', '--w'], commands, lookups)).candidates).toEqual(['--watch\t']);
  });
  it('never offers a name that would forge a candidate or a description, or hide what it is', async () => {
    const hostile: Lookups = {
      ...lookups,
      workloads: async () => ({
        Deployment: ['web', 'web\tforged description', 'evil\nsecond-candidate', 'we\u202Ebb'],
        StatefulSet: ['zero\u200Bwidth'],
      }),
      contexts: () => ['dev', 'prod\n:4'],
    };
    expect((await complete(['status', ''], commands, hostile)).candidates).toEqual(['web']);
    expect((await complete(['status', '--context', ''], commands, hostile)).candidates).toEqual(['dev']);
  });
});
