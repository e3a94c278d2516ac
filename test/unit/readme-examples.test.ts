// The README's examples are what the commands print: its status and why-stalled blocks are the golden outputs of the
// scenarios they show (golden.test.ts pins those to the code), byte for byte, so a change to the output that the
// goldens take up and the README does not fails here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SCENARIOS_DIR } from '../fixtures/load.ts';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');

/** The text a README block shows after its `$ command` line. */
function example(command: string): string {
  const block = new RegExp(
    `^\`\`\`text\\n\\$ ${command.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n([\\s\\S]*?)^\`\`\``,
    'm',
  );
  const found = block.exec(readme);
  if (!found) throw new Error(`README.md has no example of ${command}`);
  return found[1]!;
}

describe("the README's examples", () => {
  it.each([
    ['kubectl haptic status web -n shop', 'hs901-progressing/status.golden.txt'],
    ['kubectl haptic why-stalled web -n shop', 'hs113-not-routed/why-stalled.golden.txt'],
  ])('%s prints what the %s golden holds', (command, golden) => {
    expect(example(command)).toBe(readFileSync(join(SCENARIOS_DIR, golden), 'utf8'));
  });
});
