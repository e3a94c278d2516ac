// rolloutSnapshots against a fake API server: for named Deployments, the lists that do not need their selectors go
// out beside the Deployments' GETs (a round trip sooner), with the very requests a selection by label makes; a
// missing Deployment stays the error reported whatever those early lists answered.
import { afterEach, describe, expect, it } from 'vitest';
import type { ServerResponse } from 'node:http';
import { answer, fakeApiServer, statusBody, type FakeApiServer, type Received } from '../kube/api-server.ts';
import { rolloutSnapshots } from '../../../src/services/rollout-snapshots.ts';

const web = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'ns', uid: 'u-web', labels: { app: 'web' }, resourceVersion: '7', generation: 1 },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'i' }] } },
  },
  status: {},
};
const emptyList = { kind: 'List', metadata: { resourceVersion: '9' }, items: [] };

let api: FakeApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const request = (r: Received) =>
  `${r.method} ${r.path}?${[...r.query]
    .map(([k, v]) => `${k}=${v}`)
    .sort()
    .join('&')}`;
const isDeploymentRead = (r: Received) =>
  /^\/apis\/(apps\/v1|argoproj\.io\/v1alpha1)\/namespaces\/ns\/(deployments|statefulsets|daemonsets|rollouts)/.test(
    r.path,
  );

describe('rolloutSnapshots', () => {
  it('sends the lists that need no selector beside the GET of a named Deployment, and no other requests than a selection by label', async () => {
    const held: ServerResponse[] = [];
    const early = [
      '/api/v1/namespaces/ns/services',
      '/apis/discovery.k8s.io/v1/namespaces/ns/endpointslices',
      '/api/v1/namespaces/ns/events',
      '/apis/haproxy-haptic.org/v1alpha1/haproxytemplateconfigs',
    ];
    api = await fakeApiServer((r, res) => {
      // the Deployment is answered only once the Services, EndpointSlices, events and HAPTIC's configs are asked
      // for: without the early lists its GET never gets an answer and the test times out
      if (r.path === '/apis/apps/v1/namespaces/ns/deployments/web') held.push(res);
      else if (r.path === '/apis/apps/v1/namespaces/ns/statefulsets/web')
        answer(res, statusBody(404, 'NotFound', 'statefulsets.apps "web" not found'), 404);
      else if (r.path === '/apis/apps/v1/namespaces/ns/daemonsets/web')
        answer(res, statusBody(404, 'NotFound', 'daemonsets.apps "web" not found'), 404);
      else if (r.path === '/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts/web')
        answer(res, statusBody(404, 'NotFound', 'rollouts.argoproj.io "web" not found'), 404);
      else if (r.path === '/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts')
        answer(res, statusBody(404, 'NotFound', 'the server could not find the requested resource'), 404);
      else if (r.path === '/apis/apps/v1/namespaces/ns/deployments') answer(res, { ...emptyList, items: [web] });
      else answer(res, emptyList);
      if (early.every((path) => api!.received.some((x) => x.path === path)))
        for (const h of held.splice(0)) answer(h, web);
    });
    const [named] = await rolloutSnapshots(api.client, { namespace: 'ns', names: [{ name: 'web' }] });
    expect(named!.workload).toMatchObject({ kind: 'Deployment', metadata: { name: 'web' } });
    const selectorRequests = api.received.filter(
      (r) => /\/(replicasets|pods)$/.test(r.path) && r.query.get('labelSelector') === 'app=web',
    );
    expect(selectorRequests).toHaveLength(2);
    const namedRequests = api.received
      .filter((r) => !isDeploymentRead(r))
      .map(request)
      .sort();

    api.received.length = 0;
    await rolloutSnapshots(api.client, { namespace: 'ns', names: [], selector: 'app=web' });
    expect(
      api.received
        .filter((r) => !isDeploymentRead(r))
        .map(request)
        .sort(),
    ).toEqual(namedRequests);
  });

  it('reports a missing named Deployment, not the failures of the lists sent beside its GET', async () => {
    api = await fakeApiServer((r, res) => {
      if (r.path === '/apis/apps/v1/namespaces/ns/deployments/gone')
        return answer(res, statusBody(404, 'NotFound', 'deployments.apps "gone" not found'), 404);
      if (r.path === '/apis/apps/v1/namespaces/ns/statefulsets/gone')
        return answer(res, statusBody(404, 'NotFound', 'statefulsets.apps "gone" not found'), 404);
      if (r.path === '/apis/apps/v1/namespaces/ns/daemonsets/gone')
        return answer(res, statusBody(404, 'NotFound', 'daemonsets.apps "gone" not found'), 404);
      if (r.path === '/apis/argoproj.io/v1alpha1/namespaces/ns/rollouts/gone')
        return answer(res, statusBody(404, 'NotFound', 'rollouts.argoproj.io "gone" not found'), 404);
      if (r.path === '/api/v1/namespaces/ns') return answer(res, { kind: 'Namespace', metadata: { name: 'ns' } });
      answer(res, statusBody(403, 'Forbidden', 'services is forbidden'), 403);
    });
    await expect(rolloutSnapshots(api.client, { namespace: 'ns', names: [{ name: 'gone' }] })).rejects.toThrow(
      'deployments.apps, statefulsets.apps, daemonsets.apps or rollouts.argoproj.io "gone" not found in namespace "ns"',
    );
    await expect(
      rolloutSnapshots(api.client, { namespace: 'ns', names: [{ kind: 'Deployment', name: 'gone' }] }),
    ).rejects.toThrow('deployments.apps "gone" not found in namespace "ns"');
  });
});
