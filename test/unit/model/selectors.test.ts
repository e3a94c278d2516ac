// Label selectors with the API's semantics: matchLabels and every matchExpressions operator, all terms ANDed.
import { describe, expect, it } from 'vitest';
import { formatSelector, mapSelects, selectorMatches } from '../../../src/model/selectors.ts';
import { labelSelectorQuery } from '../../../src/kube/selector-query.ts';
import type { LabelSelector } from '../../../src/types/kube.ts';

const labels = { app: 'web', tier: 'front', canary: 'true' };

describe('selectorMatches', () => {
  it.each<[string, LabelSelector, boolean]>([
    ['matchLabels all present', { matchLabels: { app: 'web', tier: 'front' } }, true],
    ['matchLabels one differs', { matchLabels: { app: 'web', tier: 'back' } }, false],
    ['In with the value', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back', 'front'] }] }, true],
    ['In without the value', { matchExpressions: [{ key: 'tier', operator: 'In', values: ['back'] }] }, false],
    ['In on a missing key', { matchExpressions: [{ key: 'zone', operator: 'In', values: ['a'] }] }, false],
    ['NotIn with the value', { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] }, false],
    ['NotIn on a missing key', { matchExpressions: [{ key: 'zone', operator: 'NotIn', values: ['a'] }] }, true],
    ['Exists', { matchExpressions: [{ key: 'canary', operator: 'Exists' }] }, true],
    ['Exists on a missing key', { matchExpressions: [{ key: 'zone', operator: 'Exists' }] }, false],
    ['DoesNotExist', { matchExpressions: [{ key: 'zone', operator: 'DoesNotExist' }] }, true],
    ['DoesNotExist on a present key', { matchExpressions: [{ key: 'app', operator: 'DoesNotExist' }] }, false],
    [
      'labels and expressions together',
      {
        matchLabels: { app: 'web' },
        matchExpressions: [
          { key: 'tier', operator: 'In', values: ['front'] },
          { key: 'zone', operator: 'DoesNotExist' },
        ],
      },
      true,
    ],
    [
      'an unknown operator selects nothing',
      { matchExpressions: [{ key: 'app', operator: 'Gt', values: ['1'] }] },
      false,
    ],
    ['the empty selector selects everything', {}, true],
  ])('%s', (_, selector, want) => expect(selectorMatches(selector, labels)).toBe(want));

  it('no selector selects nothing', () => expect(selectorMatches(undefined, labels)).toBe(false));

  it('a Service selector (a plain map) selects when every pair is present; an empty one selects nothing', () => {
    expect(mapSelects({ app: 'web' }, labels)).toBe(true);
    expect(mapSelects({ app: 'web', tier: 'back' }, labels)).toBe(false);
    expect(mapSelects({}, labels)).toBe(false);
  });

  it('prints like kubectl and queries like the API', () => {
    const selector: LabelSelector = {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'NotIn', values: ['db', 'cache'] },
        { key: 'canary', operator: 'Exists' },
        { key: 'zone', operator: 'DoesNotExist' },
      ],
    };
    expect(formatSelector(selector)).toBe('app=web,tier notin (db,cache),canary,!zone');
    expect(labelSelectorQuery(selector)).toBe('app=web,tier notin (db,cache),canary,!zone');
    expect(labelSelectorQuery({})).toBeUndefined();
  });
});
