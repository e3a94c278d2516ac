import { describe, expect, it } from 'vitest';
import { compareText } from '../../../src/lib/order.ts';

describe('compareText', () => {
  it('orders Kubernetes names as kubectl does (code units), and as localeCompare does for them', () => {
    const names = ['web-7d9f-b2', 'web-7d9f-a1', 'web.v2', 'web-10', 'web-9', 'api', 'web', 'web-', 'a.b-c'];
    const sorted = [...names].sort(compareText);
    expect(sorted).toEqual(['a.b-c', 'api', 'web', 'web-', 'web-10', 'web-7d9f-a1', 'web-7d9f-b2', 'web-9', 'web.v2']);
    expect(sorted).toEqual([...names].sort((a, b) => a.localeCompare(b)));
  });

  it('tells equal strings apart from different ones, and case by code unit', () => {
    expect(compareText('x', 'x')).toBe(0);
    expect(compareText('HD002', 'HD010')).toBeLessThan(0);
    expect(compareText('Z', 'a')).toBeLessThan(0);
  });
});
