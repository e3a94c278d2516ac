// The report at a terminal's width: broken between words, continued lines indented, colour codes not counted.
import { describe, expect, it } from 'vitest';
import { painter } from '../../../src/ui/style.ts';
import { wrapText } from '../../../src/ui/wrap.ts';

describe('wrapText', () => {
  const long = '  HAProxy convergence (a config first seen → on every HAProxy pod): min 0.4s · median 0.8s · max 1.0s';

  it('breaks a long line between words, the rest indented two more, no line wider than the width', () => {
    expect(wrapText(long, 79).split('\n')).toEqual([
      '  HAProxy convergence (a config first seen → on every HAProxy pod): min 0.4s ·',
      '    median 0.8s · max 1.0s',
    ]);
    for (const l of wrapText(long, 40).split('\n')) expect(l.length).toBeLessThanOrEqual(40);
  });

  it('keeps lines that fit, their inner spacing, and a word wider than the width whole', () => {
    const text = '    web-7f5f5b8fd6-dl48n  1.0s\nshort';
    expect(wrapText(text, 79)).toBe(text);
    expect(wrapText(`x ${'y'.repeat(30)} z`, 20).split('\n')).toEqual(['x', `  ${'y'.repeat(30)}`, '  z']);
  });

  it('counts what is seen, not colour codes, and leaves text for a pipe (no width) as it is', () => {
    const paint = painter(true);
    const coloured = `    web-old-1  8.3s of 8.0s grace${paint('yellow', ' (killed at the end of grace)')}`;
    expect(wrapText(coloured, 62)).toBe(coloured); // 62 columns seen, 72 characters
    expect(wrapText(long, undefined)).toBe(long);
  });
});
