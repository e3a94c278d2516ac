import { describe, expect, it } from 'vitest';
import { editDistance, suggestionsFor } from '../../../src/lib/suggest.ts';

describe('did-you-mean', () => {
  it('edit distance, with a swap of neighbours as one typo when asked', () => {
    expect(editDistance('stauts', 'status')).toBe(2);
    expect(editDistance('stauts', 'status', true)).toBe(1);
    expect(editDistance('wacth', 'wait', true)).toBe(2);
    expect(editDistance('', 'abc')).toBe(3);
  });

  it('the closest names within two typos, or those the word starts; nothing for a word far from all', () => {
    const commands = ['disable-gate', 'doctor', 'drill', 'enable-gate', 'status', 'why-stalled'];
    expect(suggestionsFor('stauts', commands)).toEqual(['status']);
    expect(suggestionsFor('Statsu', commands)).toEqual(['status']);
    expect(suggestionsFor('why', commands)).toEqual(['why-stalled']);
    expect(suggestionsFor('dril', commands)).toEqual(['drill']);
    expect(suggestionsFor('wait', commands)).toEqual([]);
    expect(suggestionsFor('', commands)).toEqual([]);
    expect(suggestionsFor('wacth', ['watch', 'wait', 'wide'])).toEqual(['watch']);
    expect(suggestionsFor('status', commands)).toEqual([]);
  });
});
