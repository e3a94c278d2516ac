// drill's probe pod when the answer to its creation is lost (issue #21): the API server may have created it before
// answering 500, so it is looked for by the run's own label and deleted, instead of probing until its deadline.
import { afterEach, describe, expect, it } from 'vitest';
import { DRILL_RUN_LABEL, probePod } from '../../../src/model/drill/plan.ts';
import { runDrill, type DrillPlan, type DrillRequest } from '../../../src/services/drill.ts';
import type { RolloutTarget } from '../../../src/types/kube.ts';
import { answer, fakeApiServer, statusBody, type FakeApiServer } from '../kube/api-server.ts';

let api: FakeApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const deployment = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', uid: 'u1', generation: 1 },
  spec: { selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [] } } },
} as unknown as RolloutTarget;
const target = { via: 'service' as const, service: 'web', url: 'http://10.0.0.1:80/' };
const plan: DrillPlan = {
  workload: deployment,
  target,
  pod: probePod(deployment, target, { image: 'curl', intervalMs: 100, timeoutMs: 2000, deadlineMs: 60_000 }),
  permissions: [],
};
const request = { image: 'curl', intervalMs: 100, probeTimeoutMs: 2000 } as DrillRequest;

describe('runDrill: the probe pod of a lost create answer', () => {
  it('finds the pod a 500 hid by its run label, deletes it, and still fails the drill', async () => {
    let run = '';
    api = await fakeApiServer((req, res) => {
      if (req.method === 'POST') {
        run = JSON.parse(req.body).metadata.labels[DRILL_RUN_LABEL];
        return answer(res, statusBody(500, 'InternalError', 'etcd timed out after the write'), 500);
      }
      if (req.method === 'GET' && req.path === '/api/v1/namespaces/ns/pods')
        return answer(res, {
          metadata: { resourceVersion: '5' },
          items:
            req.query.get('labelSelector') === `${DRILL_RUN_LABEL}=${run}`
              ? [{ metadata: { name: 'haptic-drill-web-x7k2p', namespace: 'ns' } }]
              : [],
        });
      if (req.method === 'DELETE') return answer(res, { kind: 'Status', status: 'Success' });
      answer(res, statusBody(404, 'NotFound', 'not found'), 404);
    });
    const steps: string[] = [];
    await expect(
      runDrill(api.client, plan, request, {
        onStep: (l) => steps.push(l),
        onUpdate: () => {},
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow(/etcd timed out after the write/);
    expect(run).toMatch(/^[0-9a-f]{8}$/);
    expect(api.received.filter((r) => r.method === 'DELETE').map((r) => r.path)).toEqual([
      '/api/v1/namespaces/ns/pods/haptic-drill-web-x7k2p',
    ]);
    expect(steps).toContain('deleted pod/haptic-drill-web-x7k2p');
  });

  it('a refusal (4xx) created nothing: no search, no delete', async () => {
    api = await fakeApiServer((req, res) =>
      req.method === 'POST'
        ? answer(res, statusBody(403, 'Forbidden', 'pods is forbidden'), 403)
        : answer(res, statusBody(404, 'NotFound', 'not found'), 404),
    );
    await expect(
      runDrill(api.client, plan, request, {
        onStep: () => {},
        onUpdate: () => {},
        signal: new AbortController().signal,
      }),
    ).rejects.toThrow(/forbidden/);
    expect(api.received.map((r) => r.method)).toEqual(['POST']);
  });
});
