// docs/commands/ is generated from oclif's manifest of the commands (npm run docs): a page per public command, in
// step with its summary, description, flags and examples, and the words written by hand below it kept.
import { readdirSync } from 'node:fs';
import type { Command, Interfaces } from '@oclif/core';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  COMMANDS_DIR,
  commandDocs,
  commandManifest,
  commandPage,
  HAND_WRITTEN,
  publicCommands,
  readCommandDoc,
} from '../../../scripts/command-docs.ts';

let manifest: Interfaces.Manifest;
// the manifest as the build embeds it: the command table bundled and loaded by oclif (several seconds)
beforeAll(async () => {
  manifest = await commandManifest();
}, 180_000);

describe('docs/commands/ (npm run docs)', () => {
  it('has a page for every public command and nothing else, each up to date', () => {
    const expected = commandDocs(manifest, readCommandDoc);
    expect(publicCommands(manifest).map((c) => c.id)).not.toContain('__complete');
    expect(readdirSync(COMMANDS_DIR).sort()).toEqual([...expected.keys()].sort());
    for (const [name, text] of expected)
      expect(readCommandDoc(name), `docs/commands/${name} is stale: run npm run docs`).toBe(text);
  });

  it("holds each command's usage, flags with their short form, values and default, examples and exit codes", () => {
    const page = readCommandDoc('status.md')!;
    expect(page).toContain('kubectl haptic status [NAME] [flags]');
    expect(page).toContain('| `-o`, `--output` | `json`, `yaml` |  | Output format. |');
    expect(page).toContain(
      '| `--condition-type` | value | `haproxy-haptic.org/load-balancer-ready` | Readiness gate condition type. |',
    );
    expect(page).toContain('```bash\nkubectl haptic status web --wait --drained --timeout 5m\n```');
    expect(page).toContain('| 130 | --watch stopped with q or Ctrl-C |');
    expect(readCommandDoc('enable-gate.md')).toContain('kubectl haptic enable-gate [TARGETS...] [flags]');
    expect(readCommandDoc('drill.md')).toContain('kubectl haptic drill NAME [flags]');
  });

  it('every exit code meaning fits one line of an 80-column help screen, and the gate commands say what is theirs', () => {
    for (const c of publicCommands(manifest)) {
      const exit = (c.description ?? '').split(/\n{2,}/).find((p) => p.startsWith('Exit codes:'))!;
      // oclif prints the line after its own 2-column margin (and drops the line's indent): under 80 stays whole
      for (const line of exit.split('\n').slice(1)) expect(2 + line.length, `${c.id}: ${line}`).toBeLessThan(80);
    }
    // enable-gate and disable-gate look for no stall unless --wait follows the rollout
    for (const page of ['enable-gate.md', 'disable-gate.md'])
      expect(readCommandDoc(page)).toContain(
        '| 1 | a target refused or failed; with --wait, the rollout failed or stalled |',
      );
  });

  it('keeps what is written by hand below the generated part, and only that', () => {
    const command: Command.Cached = {
      id: 'demo',
      summary: 'Show a demo.',
      description:
        'First line of a <demo> with a_b.\n\nChecks:\n  X1  one\n  X2  two\n\nExit codes:\n  0  success\n  3  usage error',
      examples: [{ description: 'Run it', command: 'kubectl haptic demo web' }],
      args: { name: { name: 'name', description: 'Deployment.', required: false } },
      flags: {
        out: {
          name: 'out',
          char: 'o',
          type: 'option',
          options: ['json', 'yaml'],
          summary: 'Output | format.',
          multiple: false,
        },
      },
      aliases: [],
      hidden: false,
      hiddenAliases: [],
    } as unknown as Command.Cached;
    const fresh = commandPage(command, undefined, 'kubectl haptic');
    expect(fresh.endsWith(`${HAND_WRITTEN}\n`)).toBe(true);
    expect(fresh).toContain('First line of a \\<demo\\> with a\\_b.');
    expect(fresh).toContain('Checks:\n\n```text\nX1  one\nX2  two\n```');
    expect(fresh).toContain('| `-o`, `--out` | `json`, `yaml` |  | Output \\| format. |');
    expect(fresh).toContain('| code | meaning |\n|---|---|\n| 0 | success |\n| 3 | usage error |');
    expect(fresh).not.toContain('Exit codes:');
    const edited = `${fresh.replace('Show a demo.', 'stale summary')}\n## More\n\nWritten by hand.\n`;
    expect(commandPage(command, edited, 'kubectl haptic')).toBe(`${fresh}\n## More\n\nWritten by hand.\n`);
  });

  it('refuses a description without its exit codes, or with a line it cannot read as one', () => {
    const base = { id: 'demo', summary: 'S.', args: {}, flags: {}, aliases: [], hidden: false, hiddenAliases: [] };
    expect(() =>
      commandPage({ ...base, description: 'No codes.' } as unknown as Command.Cached, undefined, 'k'),
    ).toThrow('demo: its description has no "Exit codes:" paragraph');
    expect(() =>
      commandPage(
        { ...base, description: 'Exit codes:\n  0  fine\nthen words' } as unknown as Command.Cached,
        undefined,
        'k',
      ),
    ).toThrow('demo: "then words" is not an exit code line');
  });
});
