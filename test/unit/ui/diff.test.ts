import { describe, expect, it } from 'vitest';
import { lineDiff } from '../../../src/ui/diff.ts';

describe('lineDiff', () => {
  it('shows changed lines with two lines of context and marks what it leaves out', () => {
    const before = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h', 'i', 'j', 'k'].join('\n');
    const after = ['a', 'b', 'c', 'd', 'E', 'f', 'g', 'h', 'i', 'j', 'k', 'l'].join('\n');
    expect(lineDiff(before, after)).toEqual(['  c', '  d', '- e', '+ E', '  f', '  g', '  ...', '  j', '  k', '+ l']);
  });

  it('is empty when nothing changed', () => expect(lineDiff('a\nb\n', 'a\nb')).toEqual([]));
});
