import { afterEach, describe, expect, it } from 'vitest';
import { colorEnabled, painter } from '../../../src/ui/style.ts';

const saved = { FORCE_COLOR: process.env.FORCE_COLOR, NO_COLOR: process.env.NO_COLOR };
afterEach(() => {
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('colour', () => {
  it.each([
    [{}, false, true, true],
    [{}, false, false, false],
    [{ NO_COLOR: '1' }, false, true, false],
    [{ FORCE_COLOR: '1' }, false, false, true],
    [{ FORCE_COLOR: '1', NO_COLOR: '1' }, false, false, true],
    [{ FORCE_COLOR: '0' }, false, true, false],
    [{ FORCE_COLOR: '1' }, true, true, false],
  ] as const)('env %o, --no-color %s, TTY %s → %s', (env, flag, tty, expected) => {
    delete process.env.FORCE_COLOR;
    delete process.env.NO_COLOR;
    Object.assign(process.env, env);
    expect(colorEnabled(flag, { isTTY: tty })).toBe(expected);
  });
  it('paints only when enabled', () => {
    expect(painter(true)('red', 'x')).toBe('\u001b[31mx\u001b[39m');
    expect(painter(false)('red', 'x')).toBe('x');
  });
});
