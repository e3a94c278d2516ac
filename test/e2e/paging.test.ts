import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { adminApi, cluster, gatedDeployment, newNamespace, routedService, runPlugin, waitFor } from './support.ts';

// What status asks the API server for, as the API server itself recorded it: the test cluster's audit log holds
// every request of user `audited` with its answer (test/cluster/README.md). With KUBECTL_HAPTIC_PAGE_SIZE=2 (the
// page size override for tests; 500 otherwise) a few pods span several pages on a small cluster.

interface AuditEvent {
  stage: string;
  verb: string;
  requestURI: string;
  userAgent?: string;
  user: { username: string };
  objectRef?: { resource?: string; namespace?: string };
  responseStatus?: { code?: number };
  responseObject?: { items?: { metadata: { name: string } }[]; metadata?: { continue?: string } };
  requestReceivedTimestamp: string;
}

const PAGE = 2;

/** The plugin's requests since `since`, once the API server has written all of them (the log stops growing). */
async function pluginRequests(since: number): Promise<AuditEvent[]> {
  let last = -1;
  const settled = await waitFor(
    () => {
      const events = readFileSync(cluster().auditLog, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as AuditEvent)
        .filter(
          (e) =>
            e.stage === 'ResponseComplete' &&
            e.user.username === 'audited' &&
            e.userAgent === 'kubectl-haptic' &&
            Date.parse(e.requestReceivedTimestamp) >= since,
        );
      const stable = events.length > 0 && events.length === last;
      last = events.length;
      return stable ? events : undefined;
    },
    { what: 'the audit log to hold every request of the plugin', intervalMs: 300 },
  );
  return settled ?? [];
}

const query = (e: AuditEvent) => new URL(e.requestURI, 'https://x').searchParams;
const names = (e: AuditEvent) => (e.responseObject?.items ?? []).map((i) => i.metadata.name);
const podLists = (events: AuditEvent[], ns: string) =>
  events.filter((e) => e.verb === 'list' && e.objectRef?.resource === 'pods' && e.objectRef.namespace === ns);

describe('status reads label-selected lists in pages', () => {
  let ns: string;
  const scaleOther = async (replicas: number) => {
    await adminApi().patch('apps/v1', 'Deployment', 'batch', ns, { spec: { replicas } });
    await waitFor(
      async () =>
        (await adminApi().list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app=batch' })).filter(
          (p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp,
        ).length === replicas,
      { what: `${replicas} batch pods running`, timeoutMs: 60_000 },
    );
  };

  beforeAll(async () => {
    ns = await newNamespace('paging');
    await adminApi().apply([
      gatedDeployment({ name: 'web', namespace: ns, replicas: 5 }),
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
      // another team's pods in the same namespace: never asked for
      gatedDeployment({ name: 'batch', namespace: ns, replicas: 3, gates: [] }),
    ]);
    await waitFor(
      async () =>
        (await adminApi().list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' })).filter(
          (p) => p.status?.phase === 'Running',
        ).length === 5,
      { what: '5 web pods running', timeoutMs: 60_000 },
    );
    await scaleOther(3);
  });

  it("asks for the Deployment's pods and ReplicaSets by its selector, every list with a limit, following continue tokens; requests do not grow with other pods", async () => {
    const run = async () => {
      const since = Date.now();
      const r = await runPlugin(['status', 'web', '-n', ns, '-o', 'json'], {
        kubeconfig: cluster().auditedKubeconfig,
        env: { KUBECTL_HAPTIC_PAGE_SIZE: String(PAGE) },
      });
      expect(r.code, r.stderr).toBe(0);
      const model = JSON.parse(r.stdout) as { newPods: { name: string }[] };
      expect(model.newPods.map((p) => p.name)).toHaveLength(5);
      return pluginRequests(since);
    };
    const first = await run();
    const lists = first.filter((e) => e.verb === 'list');
    expect(lists.length).toBeGreaterThan(8);
    for (const e of lists) {
      expect(query(e).get('limit'), e.requestURI).toBe(String(PAGE));
      expect(names(e).length, e.requestURI).toBeLessThanOrEqual(PAGE);
    }
    // the pods: by the Deployment's selector, three pages for five pods, each page after the first by its token
    const pods = podLists(first, ns);
    expect(pods.map((e) => query(e).get('labelSelector'))).toEqual(['app=web', 'app=web', 'app=web']);
    expect(pods.map((e) => !!query(e).get('continue'))).toEqual([false, true, true]);
    expect(query(pods[1]!).get('continue')).toBe(pods[0]!.responseObject?.metadata?.continue);
    expect(query(pods[2]!).get('continue')).toBe(pods[1]!.responseObject?.metadata?.continue);
    expect(new Set(pods.flatMap(names)).size).toBe(5);
    expect(pods.flatMap(names).every((n) => n.startsWith('web-'))).toBe(true);
    const replicaSets = first.filter((e) => e.verb === 'list' && e.objectRef?.resource === 'replicasets');
    expect(replicaSets.map((e) => query(e).get('labelSelector'))).toEqual(['app=web']);
    // no answer holds anything of the other Deployment
    expect(first.flatMap(names).filter((n) => n.startsWith('batch-'))).toEqual([]);
    const events = first
      .filter((e) => e.verb === 'list' && e.objectRef?.resource === 'events')
      .map((e) => query(e).get('fieldSelector'))
      .sort();
    expect(events).toEqual(['type=Normal,involvedObject.name=web', 'type=Normal,reason=Killing', 'type=Warning']);

    // four times the other pods: the same requests
    await scaleOther(12);
    const second = await run();
    const shape = (events: AuditEvent[]) =>
      events
        .map(
          (e) =>
            `${e.verb} ${e.objectRef?.resource} ${query(e).get('labelSelector') ?? ''} ${query(e).get('fieldSelector') ?? ''}`,
        )
        .sort();
    expect(second.length).toBe(first.length);
    expect(shape(second)).toEqual(shape(first));
  });

  it('--wait lists in pages too, then watches from the list with the same selectors', async () => {
    const since = Date.now();
    const r = await runPlugin(['status', 'web', '-n', ns, '--wait'], {
      kubeconfig: cluster().auditedKubeconfig,
      env: { KUBECTL_HAPTIC_PAGE_SIZE: String(PAGE) },
    });
    expect(r.code, r.stderr).toBe(0);
    const requests = await pluginRequests(since);
    const lists = requests.filter((e) => e.verb === 'list');
    for (const e of lists) expect(query(e).get('limit'), e.requestURI).toBe(String(PAGE));
    expect(podLists(requests, ns).map((e) => query(e).get('labelSelector'))).toEqual(['app=web', 'app=web', 'app=web']);
    const podWatch = requests.filter(
      (e) => e.verb === 'watch' && e.objectRef?.resource === 'pods' && e.objectRef.namespace === ns,
    );
    expect(podWatch.map((e) => query(e).get('labelSelector'))).toEqual(['app=web']);
    expect(requests.flatMap(names).filter((n) => n.startsWith('batch-'))).toEqual([]);
  });
});
