import { describe, expect, it } from 'vitest';
import { overviewScope } from '../../../src/services/status.ts';

describe('--watch over several workloads', () => {
  it('names what the overview follows in its first line: -l and the namespace, or every namespace (-A)', () => {
    expect(overviewScope({ namespace: 'shop', names: [], selector: 'app.kubernetes.io/part-of=shop' })).toBe(
      '-l app.kubernetes.io/part-of=shop in namespace shop',
    );
    expect(overviewScope({ namespace: 'shop', names: [], all: true })).toBe('namespace shop');
    expect(overviewScope({ namespace: undefined, names: [], selector: 'tier=edge' })).toBe(
      '-l tier=edge in every namespace',
    );
    expect(overviewScope({ namespace: undefined, names: [], all: true })).toBe('every namespace');
  });
});
