import { describe, expect, it } from 'vitest';
import { watchOneOf } from '../../../src/services/status.ts';
import type { RolloutTarget } from '../../../src/types/kube.ts';

const target = (kind: RolloutTarget['kind'], name: string, namespace = 'shop') =>
  ({ kind, apiVersion: 'apps/v1', metadata: { name, namespace }, spec: {} }) as unknown as RolloutTarget;

describe('--watch on several matches', () => {
  it('names them, as kind/name, with the namespace when they are in several', () => {
    expect(watchOneOf([target('Deployment', 'web'), target('StatefulSet', 'db')])).toBe(
      '--watch follows one workload; 2 match (deployment/web, statefulset/db): name one',
    );
    expect(watchOneOf([target('Deployment', 'web', 'a'), target('Deployment', 'web', 'b')])).toBe(
      '--watch follows one workload; 2 match (deployment/web -n a, deployment/web -n b): name one',
    );
  });

  it('names the first five of many, and counts the rest', () => {
    const many = Array.from({ length: 8 }, (_, i) => target('Deployment', `web-${i}`));
    expect(watchOneOf(many)).toBe(
      '--watch follows one workload; 8 match (deployment/web-0, deployment/web-1, deployment/web-2, deployment/web-3, deployment/web-4 and 3 more): name one',
    );
    expect(watchOneOf([])).toBe('--watch follows one workload; none matches');
  });
});
