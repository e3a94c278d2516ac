// Smoke test of the harness itself: a real API server with RBAC, a real scheduler, and the node stand-in.
import { describe, expect, it } from 'vitest';
import {
  adminApi,
  gatedDeployment,
  grantReadOnly,
  limitedApi,
  newNamespace,
  waitFor,
  type KubeObject,
} from './support.ts';

describe('the local cluster', () => {
  it('answers as a ready API server', async () => {
    expect(await adminApi().request('GET', '/readyz')).toBe('ok');
  });

  it('lets the limited user read a Deployment but not patch it where it is read-only', async () => {
    const namespace = await newNamespace('smoke-rbac');
    await adminApi().create(gatedDeployment({ name: 'web', namespace, replicas: 1 }));
    await expect(limitedApi().get('apps/v1', 'Deployment', 'web', namespace)).rejects.toMatchObject({ status: 403 });

    await grantReadOnly(namespace);
    const read = await waitFor(() => limitedApi().get('apps/v1', 'Deployment', 'web', namespace), {
      what: 'the limited user to be able to read the Deployment',
    });
    expect(read.metadata?.name).toBe('web');
    await expect(
      limitedApi().patch('apps/v1', 'Deployment', 'web', namespace, { spec: { replicas: 2 } }),
    ).rejects.toMatchObject({ status: 403 });
  });

  it('schedules a plain pod on a fake Node, where the node stand-in makes it Running and Ready', async () => {
    const namespace = await newNamespace('smoke-pod');
    await adminApi().create({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'plain', namespace },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'app', image: 'example/app:1' }] },
    });
    const pod = await waitFor(() => adminApi().get('v1', 'Pod', 'plain', namespace), {
      what: 'pod plain to be Running and Ready',
      until: (p) => p.status?.phase === 'Running' && condition(p, 'Ready') === 'True',
    });
    expect(pod.status.podIP).toBeTruthy();
    const node = await adminApi().get('v1', 'Node', pod.spec.nodeName);
    expect(condition(node, 'Ready')).toBe('True');
  });
});

function condition(object: KubeObject, type: string): string | undefined {
  return object.status?.conditions?.find((c: { type: string }) => c.type === type)?.status;
}
