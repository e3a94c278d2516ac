// status --sessions on the real control plane, where HAProxy cannot be read: what the plugin says instead. (Reading
// real HAProxy is proved in the lab: test/lab/sessions.test.ts.)
// - A user who may not exec into HAPTIC's pods: said once, before any read, and the rollout is followed by its stages.
// - The kubelet cannot be reached for exec (this cluster's nodes are stand-ins without a kubelet API): each read
//   fails, which is said once it lasts, and an old pod's sessions are unknown to the end: never drained, never 0.
import { afterAll, describe, expect, it } from 'vitest';
import { adminApi, cluster, gatedDeployment, newNamespace, routedService, runPlugin, waitFor } from './support.ts';

const BINDING = 'haptic-test-readonly-limited-cluster';

/** A gated Deployment HAPTIC routes, its rollout started once it is complete; resolves with the old pods' names. */
async function rolling(ns: string): Promise<string[]> {
  const api = adminApi();
  await api.apply([
    gatedDeployment({ name: 'web', namespace: ns, replicas: 1, maxSurge: 1, maxUnavailable: 0 }),
    ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
  ]);
  await waitFor(() => api.get('apps/v1', 'Deployment', 'web', ns), {
    what: 'web available',
    timeoutMs: 60_000,
    until: (d) => (d.status?.availableReplicas ?? 0) === 1 && d.status?.updatedReplicas === 1,
  });
  const old = await api.list('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' });
  await api.patch('apps/v1', 'Deployment', 'web', ns, {
    spec: { template: { metadata: { annotations: { restartedAt: new Date().toISOString() } } } },
  });
  return old.map((p) => p.metadata!.name as string);
}

describe('status --sessions where HAProxy cannot be read', () => {
  afterAll(async () => {
    await adminApi()
      .delete('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding', BINDING)
      .catch(() => {});
  });

  it('without pods/exec: says so once and follows the rollout by its stages', async () => {
    const ns = await newNamespace('sessions-forbidden');
    // the limited user may read everything status reads, everywhere, and exec nowhere
    await adminApi().apply([
      {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: BINDING },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'haptic-test-readonly' },
        subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: 'limited' }],
      },
    ]);
    await rolling(ns);
    const r = await runPlugin(['status', 'web', '-n', ns, '--wait', '--drained', '--sessions', '--timeout', '90s'], {
      kubeconfig: cluster().limitedKubeconfig,
      timeoutMs: 120_000,
    });
    expect(r.code, r.stderr).toBe(0);
    const said = r.stdout
      .split('\n')
      .filter((l) =>
        l.includes(
          "sessions: no permission to exec into HAProxy's pods in namespace haptic (pods/exec: create, get): showing stages only",
        ),
      );
    expect(said, r.stdout).toHaveLength(1);
    expect(r.stdout).toMatch(/Rollout report: deployment\.apps\/web/);
    expect(r.stdout).not.toMatch(/drained of connections|killed with/);
    // one shot: the same, in the model
    const once = await runPlugin(['status', 'web', '-n', ns, '--sessions', '-o', 'json'], {
      kubeconfig: cluster().limitedKubeconfig,
    });
    expect(once.code, once.stderr).toBe(0);
    expect(JSON.parse(once.stdout).sessions).toEqual({
      unavailable:
        "no permission to exec into HAProxy's pods in namespace haptic (pods/exec: create, get): sessions not read",
      problems: [],
    });
  });

  it('exec that fails: the old pod is never said drained, its sessions stay unknown', async () => {
    const ns = await newNamespace('sessions-unreachable');
    const [old] = await rolling(ns);
    const r = await runPlugin(
      ['status', 'web', '-n', ns, '--wait', '--drained', '--sessions', '--timeout', '90s', '-o', 'json'],
      { timeoutMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout) as { drains: { pod: string; sessions?: Record<string, unknown> }[] };
    const drain = report.drains.find((d) => d.pod === old);
    expect(drain, r.stdout).toBeDefined();
    expect(drain!.sessions).toMatchObject({ unsettled: 0, peak: 0, failed: 0, retried: 0 });
    expect(drain!.sessions!.drainedAfterMs).toBeUndefined();
    expect(drain!.sessions!.killedWith).toBeUndefined();
    expect(r.stderr).toContain(`pod/${old} (old) ended before HAProxy's sessions to it could be read`);
    expect(r.stderr).not.toContain('drained of connections');
    // one shot: no HAProxy pod answered, so no SESSIONS column of "≥0" on every row: the reason is said once
    const once = await runPlugin(['status', 'web', '-n', ns, '--sessions']);
    expect(once.code, once.stderr).toBe(0);
    expect(once.stdout).not.toMatch(/SESSIONS|≥0/);
    expect(once.stdout).toMatch(/^sessions: (could not read HAProxy in|exec into) \S+/m);
    const json = await runPlugin(['status', 'web', '-n', ns, '--sessions', '-o', 'json']);
    expect(JSON.parse(json.stdout).sessions).toMatchObject({ unread: true });
  });
});
