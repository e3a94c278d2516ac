import { describe, expect, it } from 'vitest';
import { exitCodeOf } from '../../../src/cli/errors.ts';
import { ExitCode } from '../../../src/lib/errors.ts';
import { parseDuration } from '../../../src/cli/duration.ts';
import { apiErrorFromStatus, unreachable } from '../../../src/kube/errors.ts';
import { formatAge } from '../../../src/model/time.ts';
import { parseWorkloadName, R, resourcePath } from '../../../src/kube/resources.ts';

const target = { verb: 'patch', resource: 'deployments.apps', namespace: 'shop', name: 'web' };

describe('API errors', () => {
  it.each([
    [404, 'NotFound', ExitCode.usage, 'deployments.apps "web" in namespace "shop" not found'],
    [403, 'Forbidden', ExitCode.cluster, 'forbidden: cannot patch deployments.apps in namespace "shop" (denied)'],
    [
      401,
      'Unauthorized',
      ExitCode.cluster,
      'unauthorized: the API server at https://k:6443 rejected the credentials of the current context; log in again or check --kubeconfig/--context',
    ],
    [
      409,
      'Conflict',
      ExitCode.cluster,
      'conflict: deployments.apps "web" in namespace "shop" was changed by someone else while this command ran (denied)',
    ],
    [422, 'Invalid', ExitCode.usage, 'denied'],
  ])('maps HTTP %i to %s with exit %i', (status, kind, exit, message) => {
    const err = apiErrorFromStatus(status, { kind: 'Status', message: 'denied' }, target, 'https://k:6443');
    expect(err.kind).toBe(kind);
    expect(exitCodeOf(err)).toBe(exit);
    expect(err.message).toBe(message);
  });

  it('names the server and the network reason when unreachable', () => {
    const cause = Object.assign(new Error('fetch failed'), {
      cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }),
    });
    expect(unreachable('https://127.0.0.1:1', target, cause).message).toBe(
      'cannot reach the Kubernetes API server at https://127.0.0.1:1 (ECONNREFUSED); check --context/--kubeconfig and that the cluster is running',
    );
  });
});

describe('durations and ages', () => {
  it.each([
    ['30', 30_000],
    ['30s', 30_000],
    ['1m30s', 90_000],
    ['500ms', 500],
    ['2h', 7_200_000],
    ['0', 0],
    ['1000h', 3_600_000_000],
    ['2147484', 2_147_484_000],
    ['2562047h', 9_223_369_200_000],
  ])('parses %s', (text, ms) => expect(parseDuration(text, '--timeout')).toBe(ms));

  it('refuses what Go cannot hold', () => {
    expect(() => parseDuration('2562048h', '--timeout')).toThrow(
      'invalid --timeout "2562048h": longer than the longest duration kubectl accepts (about 292 years)',
    );
    expect(() => parseDuration('-1s', '--timeout')).toThrow('invalid --timeout "-1s"');
  });
  it('rejects junk with the flag name', () =>
    expect(() => parseDuration('soon', '--timeout')).toThrow(
      'invalid --timeout "soon": use a duration such as 30s, 5m or 1h',
    ));
  it.each([
    [5_000, '5s'],
    [125_000, '2m5s'],
    [3_600_000, '60m'],
    [3 * 3_600_000 + 60_000 * 5, '3h5m'],
    [3 * 86_400_000, '3d'],
  ])('formats %i ms as %s', (ms, text) => expect(formatAge(ms)).toBe(text));
});

describe('resources', () => {
  it('builds REST paths', () => {
    expect(resourcePath(R.deployments, { namespace: 'shop', name: 'web' })).toBe(
      '/apis/apps/v1/namespaces/shop/deployments/web',
    );
    expect(resourcePath(R.pods, { namespace: 'shop', name: 'p', subresource: 'status' })).toBe(
      '/api/v1/namespaces/shop/pods/p/status',
    );
    expect(resourcePath(R.haproxycfgs)).toBe('/apis/haproxy-haptic.org/v1alpha1/haproxycfgs');
    expect(resourcePath(R.clusterroles, { namespace: 'ignored' })).toBe(
      '/apis/rbac.authorization.k8s.io/v1/clusterroles',
    );
  });
  it.each([
    ['web', undefined, 'web'],
    ['deployment/web', 'Deployment', 'web'],
    ['deploy/web', 'Deployment', 'web'],
    ['deployments.apps/web', 'Deployment', 'web'],
    ['statefulset/db', 'StatefulSet', 'db'],
    ['sts/db', 'StatefulSet', 'db'],
    ['STATEFULSETS.APPS/db', 'StatefulSet', 'db'],
  ])('parses target %s', (arg, kind, name) => {
    const parsed = parseWorkloadName(arg);
    expect([parsed.kind, parsed.name]).toEqual([kind, name]);
  });
});
