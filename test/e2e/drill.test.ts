// drill on the bundled cluster, where the API server cannot reach a kubelet for pods/log (its nodes are stand-ins
// with names that do not resolve, as behind a private kubelet or a broken konnectivity agent): drill finds it out
// by reading the probe's log once before it changes anything, and stops with one line; nothing is restarted and
// the probe pod is deleted. The lab (test/lab/drill.test.ts) runs drill where the logs are served.
import { describe, expect, it } from 'vitest';
import { adminApi, gatedDeployment, newNamespace, routedService, runPlugin, waitFor } from './support.ts';

type Deployment = { metadata: { generation: number }; status?: { availableReplicas?: number } };

describe('kubectl haptic drill where pod logs cannot be read', () => {
  it('stops before the restart, in one line, exit 4; the workload is untouched and no probe pod is left', async () => {
    const ns = await newNamespace('drill-nologs');
    await adminApi().apply([
      gatedDeployment({ name: 'web', namespace: ns, replicas: 1 }),
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
    ]);
    const before = await waitFor(() => adminApi().get<Deployment>('apps/v1', 'Deployment', 'web', ns), {
      what: 'web available',
      until: (d) => d.status?.availableReplicas === 1,
    });
    const r = await runPlugin(['drill', 'web', '-n', ns], { timeoutMs: 120_000 });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(4);
    expect(r.stdout).toBe('');
    const errors = r.stderr.split('\n').filter((l) => l.startsWith('error: '));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(
      /^error: drill reads its results from the probe pod's log, and the API server could not serve it \(.*standin-node-\d.*\); nothing was restarted$/,
    );
    expect(r.stderr).not.toContain('restarting deployment');
    expect(r.stderr).toMatch(/deleted pod\/haptic-drill-web-\S+/);
    const after = await adminApi().get<Deployment>('apps/v1', 'Deployment', 'web', ns);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    await waitFor(
      () =>
        adminApi().list('v1', 'Pod', { namespace: ns, labelSelector: 'app.kubernetes.io/name=kubectl-haptic-drill' }),
      { what: 'no probe pod left', until: (pods) => pods.length === 0, timeoutMs: 30_000 },
    );
  });
});
