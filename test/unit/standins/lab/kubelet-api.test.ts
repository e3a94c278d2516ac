import { describe, expect, it } from 'vitest';
import { containerLog } from '../../../cluster/standins/lab/kubelet-api.ts';
import { nanoTime } from '../../../cluster/standins/lab/container.ts';

const CRI = [
  '2026-03-01T10:00:00.100000000Z stdout F first',
  '2026-03-01T10:00:01.200000000Z stderr F second',
  '2026-03-01T10:00:02.300000000Z stdout F third',
  '',
].join('\n');

describe('containerLog', () => {
  it('shows the lines, with their times when asked', () => {
    expect(containerLog(CRI, { timestamps: false })).toBe('first\nsecond\nthird\n');
    expect(containerLog(CRI, { timestamps: true }).split('\n')[0]).toBe('2026-03-01T10:00:00.100000000Z first');
  });
  it('honours tailLines and sinceTime', () => {
    expect(containerLog(CRI, { timestamps: false, tailLines: 1 })).toBe('third\n');
    expect(containerLog(CRI, { timestamps: false, sinceTime: '2026-03-01T10:00:01Z' })).toBe('second\nthird\n');
  });
});

describe('nanoTime', () => {
  it('writes RFC 3339 with nine fractional digits', () => {
    expect(nanoTime(Date.parse('2026-03-01T10:00:00.123Z') + 0.5)).toBe('2026-03-01T10:00:00.123500000Z');
  });
});
