// The single executable's main is written in ASCII alone (scripts/build.js): the escapes must mean what the
// characters meant, in strings, templates, regular expressions and comments.
import { describe, expect, it } from 'vitest';

const program = `// the pod’s state
const mark = '✓ ready · 2×';
const template = \`→ \${mark} ✗\`;
const units = /(\\d+)(ns|us|µs|ms)/;
const csi = /[\\u001b\\u009b][[()#;?]*/g;
const astral = '🚦 gate';
return [mark, template, units.exec('5µs')?.[2], 'a\\u009b[31mb'.replace(csi, '|'), astral, astral.length];`;

describe('asciiOnly', () => {
  it('writes every character beyond ASCII as an escape that means the same', async () => {
    // scripts/ are plain JavaScript, without type declarations
    const { asciiOnly } = (await import('../../../scripts/build.js' as string)) as { asciiOnly: (text: string) => string };
    const escaped = asciiOnly(program);
    expect(escaped).toMatch(/^[\0-\x7f]*$/);
    expect(new Function(escaped)()).toEqual(new Function(program)());
    expect(new Function(escaped)()).toEqual(['✓ ready · 2×', '→ ✓ ready · 2× ✗', 'µs', 'a|31mb', '🚦 gate', 7]);
  });
});
