// The lab's pods are real: processes in their own network namespaces at their pod IPs, probed for real, reached
// through their Service's ClusterIP, stopped as the kubelet stops them, their logs served through pods/log.
import { describe, expect, it } from 'vitest';
import type { Obj } from '../cluster/standins/common.ts';
import { get } from '../cluster/lab/load.ts';
import { adminApi, newNamespace, waitFor } from '../e2e/support.ts';
import { labApp, labService, readyPods } from './support.ts';

describe('lab pods', () => {
  it('serve at their pod IP and through the Service ClusterIP; Ready follows the readiness probe', async () => {
    const ns = await newNamespace('lab-pods');
    const api = adminApi();
    await api.apply([labApp({ name: 'web', namespace: ns, replicas: 2 }), labService({ name: 'web', namespace: ns })]);
    const pods = await waitFor(() => readyPods(ns), {
      what: 'two Ready pods',
      timeoutMs: 60_000,
      until: (ready) => ready.length === 2,
    });
    for (const pod of pods) {
      const answer = await fetch(`http://${pod.status.podIP}:8080/`);
      expect(await answer.text()).toBe(`${pod.metadata.name}\n`);
    }
    // every request on a new connection: kube-proxy's rule picks an endpoint at random for each. Its rules trail the
    // API (2 s in the lab): wait for both pods to be in them, then every request must succeed
    const svc = await api.get<Obj>('v1', 'Service', 'web', ns);
    const names = new Set<string>();
    await waitFor(
      async () => {
        const answer = await fetch(`http://${svc.spec.clusterIP}/`, { headers: { connection: 'close' } });
        names.add((await answer.text()).trim());
        return names.size === 2;
      },
      { what: 'both pods answering through the ClusterIP', timeoutMs: 30_000, intervalMs: 50 },
    );
    const seen = new Map<string, number>();
    for (let i = 0; i < 40; i++) {
      const { outcome } = await get(`http://${svc.spec.clusterIP}/`, { timeoutMs: 2000 });
      seen.set(outcome, (seen.get(outcome) ?? 0) + 1);
    }
    expect(seen.get('ok')).toBe(40);

    // a readiness probe that fails takes the pod out of Ready (the server answers 503 on /healthz once stopping)
    const pod = pods[0]!;
    await api.delete('v1', 'Pod', pod.metadata.name, ns);
    await waitFor(async () => (await api.tryGet<Obj>('v1', 'Pod', pod.metadata.name, ns)) === undefined, {
      what: `pod ${pod.metadata.name} gone`,
      timeoutMs: 30_000,
    });
    const gone = await get(`http://${pod.status.podIP}:8080/`, { timeoutMs: 5000 });
    expect(gone.outcome).toBe('refused');
  });

  it('runs the preStop before SIGTERM, kills at the end of the grace period, and serves the logs through pods/log', async () => {
    const ns = await newNamespace('lab-stop');
    const api = adminApi();
    await api.apply([
      labApp({ name: 'slow', namespace: ns, preStop: { exec: { command: ['sh', '-c', 'sleep 2'] } } }),
      labApp({ name: 'stubborn', namespace: ns, env: { ON_SIGTERM: 'ignore' }, terminationGracePeriodSeconds: 2 }),
    ]);
    const [slow, stubborn] = await waitFor(
      async () => {
        const ready = await readyPods(ns);
        return [
          ready.find((p) => p.metadata.labels?.app === 'slow'),
          ready.find((p) => p.metadata.labels?.app === 'stubborn'),
        ];
      },
      { what: 'both pods Ready', timeoutMs: 60_000, until: ([a, b]) => a !== undefined && b !== undefined },
    );
    const last = new Map<string, Obj>();
    const ended = new Map<string, Obj>();
    const watching = new AbortController();
    await api.informer<Obj>(
      'v1',
      'Pod',
      { namespace: ns },
      {
        onObject: (key, obj) => (obj ? last.set(key, obj) : ended.set(key, last.get(key)!)),
      },
      watching.signal,
    );
    try {
      const deletedAt = Date.now();
      await api.delete('v1', 'Pod', slow!.metadata.name, ns);
      await api.delete('v1', 'Pod', stubborn!.metadata.name, ns);
      // during the preStop's sleep the server still serves, and has not been told to stop
      await new Promise((r) => setTimeout(r, 1000));
      expect((await get(`http://${slow!.status.podIP}:8080/`, { timeoutMs: 2000 })).outcome).toBe('ok');
      const logPath = `${await api.path('v1', 'Pod', ns, slow!.metadata.name)}/log`;
      const during: string = await api.request('GET', logPath);
      expect(during).toContain(`${slow!.metadata.name}: serving on :8080`);
      expect(during).not.toContain('SIGTERM');
      const withTimes: string = await api.request('GET', `${logPath}?timestamps=true`);
      expect(withTimes.split('\n')[0]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z slow-/);

      await waitFor(() => ended.size === 2, { what: 'both pods deleted', timeoutMs: 30_000 });
      const final = (name: string) => ended.get(`${ns}/${name}`)!.status.containerStatuses[0].state.terminated;
      expect(final(slow!.metadata.name)).toMatchObject({ exitCode: 0, reason: 'Completed' });
      expect(final(stubborn!.metadata.name)).toMatchObject({ exitCode: 137, reason: 'Error' });
      // the graceful one drained after its 2 s preStop; the stubborn one was killed after its 2 s grace period
      expect(Date.parse(final(slow!.metadata.name).finishedAt) - deletedAt).toBeGreaterThanOrEqual(1000);
      expect(Date.parse(final(stubborn!.metadata.name).finishedAt) - deletedAt).toBeGreaterThanOrEqual(1000);
    } finally {
      watching.abort();
    }
  });
});
