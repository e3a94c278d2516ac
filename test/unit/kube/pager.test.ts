import { afterEach, describe, expect, it } from 'vitest';
import { isApiError } from '../../../src/kube/errors.ts';
import { Informer } from '../../../src/kube/informer.ts';
import { isExpired, listPaged } from '../../../src/kube/pager.ts';
import { PAGE_SIZE } from '../../../src/kube/client.ts';
import { R } from '../../../src/kube/resources.ts';
import { fetchQuery } from '../../../src/kube/snapshot.ts';
import type { KubeObject } from '../../../src/types/kube.ts';
import {
  answer,
  fakeApiServer,
  pod,
  statusBody,
  stream,
  until,
  type FakeApiServer,
  type Received,
} from './api-server.ts';

// The API server's paging protocol, played by a local server: `limit` caps a page, `metadata.continue` names the next
// one, every page carries the first page's resourceVersion, and a continue token whose revision was compacted is
// answered 410 with reason Expired (the Status text is the API server's, storage/etcd3: "The provided continue
// parameter is too old…").
let api: FakeApiServer | undefined;
let informer: Informer | undefined;
afterEach(async () => {
  informer?.stop();
  await api?.close();
  informer = api = undefined;
});

const pods = (n: number) =>
  Array.from({ length: n }, (_, i) =>
    pod(`p${String(i).padStart(4, '0')}`, String(100 + i), { spec: { nodeName: 'n1' } }),
  );
const isWatch = (r: Received) => r.query.get('watch') === 'true';
const EXPIRED = statusBody(
  410,
  'Expired',
  'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
);

/** Serves `items` in pages as the API server does: a token is the offset of the next page, at snapshot rv 500. */
function pagedList(items: KubeObject[], req: Received, res: Parameters<typeof answer>[0]): void {
  const limit = Number(req.query.get('limit') ?? 0);
  const from = Number(req.query.get('continue') ?? 0);
  const to = limit > 0 ? Math.min(items.length, from + limit) : items.length;
  const metadata = { resourceVersion: '500', ...(to < items.length ? { continue: String(to) } : {}) };
  answer(res, { kind: 'PodList', apiVersion: 'v1', metadata, items: items.slice(from, to) });
}

describe('listPaged', () => {
  it('asks for 500 objects per page, follows continue tokens, and keeps the list resourceVersion', async () => {
    const all = pods(1203);
    api = await fakeApiServer((req, res) => pagedList(all, req, res));
    const list = await listPaged(
      api.client,
      '/api/v1/namespaces/ns/pods',
      { verb: 'list', resource: 'pods', namespace: 'ns' },
      { labelSelector: 'app=web' },
    );
    expect(PAGE_SIZE).toBe(500);
    expect(list.items.map((p) => p.metadata.name)).toEqual(all.map((p) => p.metadata.name));
    expect(list).toMatchObject({ resourceVersion: '500', pages: 3 });
    expect(api.received.map((r) => Object.fromEntries(r.query))).toEqual([
      { labelSelector: 'app=web', limit: '500' },
      { labelSelector: 'app=web', limit: '500', continue: '500' },
      { labelSelector: 'app=web', limit: '500', continue: '1000' },
    ]);
    expect(api.client.requestCount).toBe(3);
  });

  it('sends a limit on every request, also for a list that fits one page, and the client page size when set', async () => {
    const all = pods(7);
    api = await fakeApiServer((req, res) => pagedList(all, req, res));
    api.client.pageSize = 3;
    const list = await listPaged(
      api.client,
      '/api/v1/pods',
      { verb: 'list', resource: 'pods' },
      { fieldSelector: 'spec.nodeName=n1' },
    );
    expect(list.items).toHaveLength(7);
    expect(
      api.received.map(
        (r) => `${r.query.get('limit')} ${r.query.get('continue') ?? '-'} ${r.query.get('fieldSelector')}`,
      ),
    ).toEqual(['3 - spec.nodeName=n1', '3 3 spec.nodeName=n1', '3 6 spec.nodeName=n1']);
    api.received.length = 0;
    await listPaged(api.client, '/api/v1/pods', { verb: 'list', resource: 'pods' }, {});
    api.client.pageSize = 500;
    await listPaged(api.client, '/api/v1/pods', { verb: 'list', resource: 'pods' }, {});
    expect(api.received.map((r) => r.query.get('limit'))).toEqual(['3', '3', '3', '500']);
  });

  it('trims each object as its page arrives', async () => {
    const all = pods(5).map((p) => ({ ...p, metadata: { ...p.metadata, managedFields: [{ manager: 'kubelet' }] } }));
    api = await fakeApiServer((req, res) => pagedList(all, req, res));
    api.client.pageSize = 2;
    const seen: number[] = [];
    const list = await listPaged(
      api.client,
      '/api/v1/pods',
      { verb: 'list', resource: 'pods' },
      {},
      {
        trim: (item) => {
          seen.push(api!.received.length);
          return { metadata: { name: item.metadata.name } };
        },
      },
    );
    expect(list.items).toEqual(all.map((p) => ({ metadata: { name: p.metadata.name } })));
    // each object is trimmed before the next page is asked for
    expect(seen).toEqual([1, 1, 2, 2, 3]);
  });

  it("falls back to one full list when a continue token expired (410 Expired), as client-go's pager does", async () => {
    const all = pods(5);
    let expire = true;
    api = await fakeApiServer((req, res) => {
      if (req.query.get('continue') === '4' && expire) {
        expire = false;
        return answer(res, EXPIRED, 410);
      }
      pagedList(all, req, res);
    });
    api.client.pageSize = 2;
    const list = await listPaged(
      api.client,
      '/api/v1/namespaces/ns/pods',
      { verb: 'list', resource: 'pods', namespace: 'ns' },
      { labelSelector: 'app=web' },
    );
    expect(list.items.map((p) => p.metadata.name)).toEqual(all.map((p) => p.metadata.name));
    expect(list.pages).toBe(4);
    expect(api.received.map((r) => Object.fromEntries(r.query))).toEqual([
      { labelSelector: 'app=web', limit: '2' },
      { labelSelector: 'app=web', limit: '2', continue: '2' },
      { labelSelector: 'app=web', limit: '2', continue: '4' },
      // the pages read so far are dropped: no limit, no token, the same selector
      { labelSelector: 'app=web' },
    ]);
  });

  it('throws a 410 on the first page, and a 410 that is not Expired, as client-go does', async () => {
    api = await fakeApiServer((req, res) =>
      answer(res, statusBody(410, req.query.get('continue') ? 'Gone' : 'Expired', 'gone'), 410),
    );
    const first = await listPaged(api.client, '/api/v1/pods', { verb: 'list', resource: 'pods' }, {}).catch(
      (e: unknown) => e,
    );
    expect(isApiError(first, 'Gone') && isExpired(first)).toBe(true);
    await api.close();
    api = await fakeApiServer((req, res) =>
      req.query.get('continue')
        ? answer(res, statusBody(410, 'Gone', 'gone'), 410)
        : answer(res, { metadata: { continue: 'x' }, items: [pod('a', '1')] }),
    );
    const later = await listPaged(api.client, '/api/v1/pods', { verb: 'list', resource: 'pods' }, {}).catch(
      (e: unknown) => e,
    );
    expect(isApiError(later, 'Gone') && !isExpired(later)).toBe(true);
    expect(api.received).toHaveLength(2);
  });

  it('refuses a server whose continue tokens repeat, instead of paging forever', async () => {
    api = await fakeApiServer((req, res) =>
      answer(res, {
        metadata: { continue: req.query.get('continue') === 'b' ? 'a' : req.query.get('continue') ? 'b' : 'a' },
        items: [pod('a', '1')],
      }),
    );
    const err = await listPaged(api.client, '/api/v1/pods', { verb: 'list', resource: 'pods' }, {}).catch(
      (e: unknown) => e,
    );
    expect(isApiError(err, 'BadResponse')).toBe(true);
    expect((err as Error).message).toMatch(/continue token repeats an earlier one/);
    expect(api.received.map((r) => r.query.get('continue'))).toEqual([null, 'a', 'b']);
  });
});

describe('paged lists in snapshots and informers', () => {
  it('fetchQuery reads every page of a list and trims its objects; a get is one request', async () => {
    const all = pods(5);
    api = await fakeApiServer((req, res) =>
      req.path.endsWith('/pods') ? pagedList(all, req, res) : answer(res, all[0]),
    );
    api.client.pageSize = 2;
    const trim = (item: KubeObject) => ({
      metadata: { name: item.metadata.name, resourceVersion: item.metadata.resourceVersion },
    });
    const listed = await fetchQuery(api.client, { resource: R.pods, namespace: 'ns', labelSelector: 'app=web', trim });
    expect(listed).toEqual(all.map(trim));
    const got = await fetchQuery(api.client, { resource: R.pods, namespace: 'ns', name: 'p0000', trim });
    expect(got).toEqual([trim(all[0]!)]);
    expect(api.received.map((r) => `${r.path} ${r.query.get('limit') ?? '-'}`)).toEqual([
      '/api/v1/namespaces/ns/pods 2',
      '/api/v1/namespaces/ns/pods 2',
      '/api/v1/namespaces/ns/pods 2',
      '/api/v1/namespaces/ns/pods/p0000 -',
    ]);
  });

  it('an informer lists in pages, watches from the list resourceVersion, and trims listed and watched objects', async () => {
    const all = pods(5).map((p) => ({ ...p, metadata: { ...p.metadata, managedFields: [{ manager: 'kubelet' }] } }));
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) return pagedList(all, req, res);
      stream(res, [
        {
          type: 'MODIFIED',
          object: {
            ...all[0],
            metadata: { ...all[0]!.metadata, resourceVersion: '501', managedFields: [{ manager: 'x' }] },
          },
        },
      ]);
    });
    api.client.pageSize = 2;
    const trim = (item: KubeObject) => ({
      metadata: {
        name: item.metadata.name,
        namespace: item.metadata.namespace,
        resourceVersion: item.metadata.resourceVersion,
      },
    });
    informer = new Informer(api.client, { resource: R.pods, namespace: 'ns', trim });
    informer.start();
    await until(() => informer!.get('ns/p0000')?.metadata.resourceVersion === '501', 'the watched change');
    expect(informer.items()).toHaveLength(5);
    expect(informer.items().every((p) => p.metadata.managedFields === undefined)).toBe(true);
    expect(
      api.received.map((r) =>
        isWatch(r)
          ? `watch rv=${r.query.get('resourceVersion')}`
          : `list limit=${r.query.get('limit')} continue=${r.query.get('continue') ?? ''}`,
      ),
    ).toEqual(['list limit=2 continue=', 'list limit=2 continue=2', 'list limit=2 continue=4', 'watch rv=500']);
    expect(informer.lists).toBe(1);
  });
});
