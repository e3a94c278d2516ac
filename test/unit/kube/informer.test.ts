import { afterEach, describe, expect, it } from 'vitest';
import type { ApiError } from '../../../src/kube/errors.ts';
import { Informer, reflectorBackoff } from '../../../src/kube/informer.ts';
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

// The real API server's watch cache makes a 410 Gone hard to provoke on demand, and errors harder still, so these
// protocol-level tests play the server: lists, watch streams, ERROR events and Status answers, in a scripted order.
let api: FakeApiServer | undefined;
let informer: Informer | undefined;
afterEach(async () => {
  informer?.stop();
  await api?.close();
  informer = api = undefined;
});

const isWatch = (r: Received) => r.query.get('watch') === 'true';
const describeRequest = (r: Received) => `${isWatch(r) ? 'watch' : 'list'} rv=${r.query.get('resourceVersion') ?? ''}`;
const rvOf = (o: KubeObject | undefined) => o?.metadata.resourceVersion ?? 'deleted';

/** An informer of pods whose back-offs are 20 ms and recorded by attempt. */
const recordingBackoffs = (server: FakeApiServer, backoffs: number[]) =>
  new Informer(
    server.client,
    { resource: R.pods, namespace: 'ns' },
    {},
    {
      backoffMs: (n) => {
        backoffs.push(n);
        return 20;
      },
    },
  );

describe('Informer', () => {
  it('relists after a watch expires with 410 Gone, then follows the new watch', async () => {
    let lists = 0;
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) {
        lists++;
        const items = lists === 1 ? [pod('a', '10')] : [pod('a', '10'), pod('b', '20')];
        answer(res, { metadata: { resourceVersion: lists === 1 ? '10' : '20' }, items });
      } else if (req.query.get('resourceVersion') === '10') {
        stream(
          res,
          [
            {
              type: 'ERROR',
              object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (15)' },
            },
          ],
          true,
        );
      } else {
        stream(res, [
          { type: 'ADDED', object: pod('c', '21') },
          { type: 'BOOKMARK', object: { metadata: { resourceVersion: '22' } } },
        ]);
      }
    });
    informer = new Informer(api.client, { resource: R.pods, namespace: 'ns' }, {}, { backoffMs: () => 10 });
    informer.start();
    await until(() => informer!.items().length === 3, 'three pods');
    expect(
      informer
        .items()
        .map((p) => p.metadata.name)
        .sort(),
    ).toEqual(['a', 'b', 'c']);
    expect(informer.lists).toBe(2);
    expect(informer.error).toBeUndefined();
    expect(api.received.slice(0, 4).map(describeRequest)).toEqual([
      'list rv=',
      'watch rv=10',
      'list rv=',
      'watch rv=20',
    ]);
  });

  it('relists at once when the watch request itself answers 410 Gone: no error, no back-off', async () => {
    let lists = 0;
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) answer(res, { metadata: { resourceVersion: String(++lists * 10) }, items: [pod('a', '5')] });
      else if (req.query.get('resourceVersion') === '10')
        answer(res, statusBody(410, 'Expired', 'too old resource version: 10 (12)'), 410);
      else stream(res, []);
    });
    const backoffs: number[] = [];
    const errors: unknown[] = [];
    informer = new Informer(
      api.client,
      { resource: R.pods, namespace: 'ns' },
      { onError: (e) => errors.push(e) },
      {
        backoffMs: (n) => {
          backoffs.push(n);
          return 10;
        },
      },
    );
    informer.start();
    await until(() => api!.received.length === 4, 'the second watch');
    expect(api.received.map(describeRequest)).toEqual(['list rv=', 'watch rv=10', 'list rv=', 'watch rv=20']);
    expect({ lists: informer.lists, backoffs, errors, error: informer.error }).toEqual({
      lists: 2,
      backoffs: [],
      errors: [],
      error: undefined,
    });
  });

  it('backs off a watch that ends at once with no event (200, empty body), as the reflector does; no relist', async () => {
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) answer(res, { metadata: { resourceVersion: '10' }, items: [pod('a', '5')] });
      else stream(res, [], true);
    });
    const backoffs: number[] = [];
    informer = recordingBackoffs(api, backoffs);
    informer.start();
    await until(() => backoffs.length >= 4, 'four short watches');
    // each short watch waits longer (attempts 0, 1, 2, …), and watches on from the same resourceVersion
    expect(backoffs.slice(0, 4)).toEqual([0, 1, 2, 3]);
    expect(informer.lists).toBe(1);
    expect(new Set(api.received.filter(isWatch).map((r) => r.query.get('resourceVersion')))).toEqual(new Set(['10']));
  });

  it("waits as client-go's reflector does: 800 ms doubling to 30 s, each with up to as long again of jitter", () => {
    const least = [0, 1, 2, 3, 4, 5, 6, 7, 40, 5000].map((n) => reflectorBackoff(n, () => 0));
    expect(least).toEqual([800, 1600, 3200, 6400, 12_800, 25_600, 30_000, 30_000, 30_000, 30_000]);
    expect([0, 6].map((n) => reflectorBackoff(n, () => 0.999_999))).toEqual([1600, 60_000]);
    for (let n = 0; n < 20; n++) {
      const ms = reflectorBackoff(n);
      expect(ms).toBeGreaterThanOrEqual(Math.min(800 * 2 ** n, 30_000));
      expect(ms).toBeLessThanOrEqual(2 * Math.min(800 * 2 ** n, 30_000));
    }
  });

  it('by default, a server that ends every watch at once sees the watches 0.8 s, then 1.6 s apart at least', async () => {
    const watchedAt: number[] = [];
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) answer(res, { metadata: { resourceVersion: '10' }, items: [pod('a', '5')] });
      else {
        watchedAt.push(performance.now());
        stream(res, [], true);
      }
    });
    informer = new Informer(api.client, { resource: R.pods, namespace: 'ns' });
    informer.start();
    // the third watch comes 2.4 to 4.8 s after the first
    for (let i = 0; watchedAt.length < 3; i++) {
      if (i > 100) throw new Error(`timed out waiting for three watches (${watchedAt.length} so far)`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const gaps = watchedAt.slice(1, 3).map((t, i) => t - watchedAt[i]!);
    expect(gaps[0]).toBeGreaterThanOrEqual(800);
    expect(gaps[1]).toBeGreaterThanOrEqual(1600);
    expect(informer.lists).toBe(1);
  });

  it('relists at once after a 410, and backs off when every relisted watch is gone again at once', async () => {
    let lists = 0;
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) answer(res, { metadata: { resourceVersion: String(++lists * 10) }, items: [pod('a', '5')] });
      else answer(res, statusBody(410, 'Expired', 'too old resource version'), 410);
    });
    const backoffs: number[] = [];
    informer = recordingBackoffs(api, backoffs);
    informer.start();
    await until(() => backoffs.length >= 3, 'three backed-off relists');
    // the first 410 relists at once; from the second in a row, each waits longer
    expect(backoffs.slice(0, 3)).toEqual([0, 1, 2]);
    expect(informer.lists).toBeGreaterThanOrEqual(4);
    expect(informer.error).toBeUndefined();
  });

  it('backs off by attempt after other errors, reports each, and clears the error on the next list', async () => {
    let lists = 0;
    let watches = 0;
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) {
        lists++;
        if (lists <= 2) return answer(res, statusBody(500, 'InternalError', 'etcdserver: request timed out'), 500);
        return answer(res, { metadata: { resourceVersion: String(lists * 10) }, items: [pod('a', '5')] });
      }
      watches++;
      if (watches === 1)
        stream(res, [{ type: 'ERROR', object: statusBody(500, 'InternalError', 'watch chan error') }], true);
      else if (watches === 2)
        stream(res, [], true); // the server's timeoutSeconds: a clean end
      else if (watches === 3)
        answer(res, statusBody(403, 'Forbidden', 'pods is forbidden: User "u" cannot watch resource "pods"'), 403);
      else stream(res, []);
    });
    const seen: { attempt: number; reason: unknown; kind: string; retryInMs: number; synced: boolean }[] = [];
    let attempt = -1;
    informer = new Informer(
      api.client,
      { resource: R.pods, namespace: 'ns' },
      {
        onError: (e, retryInMs) => {
          const err = e as ApiError;
          seen.push({
            attempt,
            reason: (err.body as { reason?: string }).reason,
            kind: err.kind,
            retryInMs,
            synced: informer!.synced,
          });
        },
      },
      {
        backoffMs: (n) => {
          attempt = n;
          return 5 + n;
        },
      },
    );
    informer.start();
    await until(() => watches === 4, 'the fourth watch');
    expect(seen).toEqual([
      { attempt: 0, reason: 'InternalError', kind: 'ServerError', retryInMs: 5, synced: false },
      { attempt: 1, reason: 'InternalError', kind: 'ServerError', retryInMs: 6, synced: false },
      // a list that succeeds is not enough: only a watch that ends cleanly resets the attempts
      { attempt: 2, reason: 'InternalError', kind: 'ServerError', retryInMs: 7, synced: true },
      { attempt: 0, reason: 'Forbidden', kind: 'Forbidden', retryInMs: 5, synced: true },
    ]);
    expect(api.received.map(describeRequest)).toEqual([
      'list rv=',
      'list rv=',
      'list rv=',
      'watch rv=30',
      'list rv=',
      'watch rv=40',
      'watch rv=40',
      'list rv=',
      'watch rv=50',
    ]);
    expect(informer.error).toBeUndefined();
    expect(informer.lists).toBe(3);
  });

  it('a relist notifies only the objects that changed or disappeared, after the whole list is in', async () => {
    let lists = 0;
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) {
        lists++;
        if (lists === 1)
          return answer(res, {
            metadata: { resourceVersion: '3' },
            items: [pod('a', '1'), pod('b', '2'), pod('c', '3')],
          });
        return answer(res, {
          metadata: { resourceVersion: '6' },
          items: [pod('a', '1'), pod('b', '5'), pod('d', '6')],
        });
      }
      if (req.query.get('resourceVersion') === '3')
        stream(res, [{ type: 'ERROR', object: statusBody(410, 'Expired', 'too old') }], true);
      else stream(res, []);
    });
    const notified: string[] = [];
    let changes = 0;
    let atSync = -1;
    informer = new Informer(
      api.client,
      { resource: R.pods, namespace: 'ns' },
      {
        onObject: (key, object) => notified.push(`${key} ${rvOf(object)} (cache has ${informer!.items().length})`),
        onChange: () => changes++,
      },
    );
    void informer.whenSynced.then(() => (atSync = notified.length));
    informer.start();
    await until(() => api!.received.length === 4, 'the watch after the relist');
    expect(notified).toEqual([
      'ns/a 1 (cache has 3)',
      'ns/b 2 (cache has 3)',
      'ns/c 3 (cache has 3)',
      'ns/b 5 (cache has 3)',
      'ns/d 6 (cache has 3)',
      'ns/c deleted (cache has 3)',
    ]);
    expect(atSync).toBe(3);
    expect(changes).toBe(2);
    expect(rvOf(informer.get('ns/b'))).toBe('5');
    expect(informer.get('ns/c')).toBeUndefined();
  });

  it('applies watch events per object, moves on with bookmarks, and resumes a closed watch without a relist', async () => {
    let watches = 0;
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) return answer(res, { metadata: { resourceVersion: '1' }, items: [pod('a', '1')] });
      if (++watches === 1) {
        stream(
          res,
          [
            { type: 'ADDED', object: pod('b', '2') },
            { type: 'MODIFIED', object: pod('a', '3') },
            { type: 'DELETED', object: pod('b', '4') },
            { type: 'BOOKMARK', object: { kind: 'Pod', metadata: { resourceVersion: '9' } } },
          ],
          true,
        );
      } else {
        stream(res, [{ type: 'ADDED', object: pod('c', '10') }]);
      }
    });
    const notified: string[] = [];
    informer = new Informer(
      api.client,
      { resource: R.pods, namespace: 'ns', labelSelector: 'app=web' },
      {
        onObject: (key, object) => notified.push(`${key} ${rvOf(object)}`),
      },
    );
    informer.start();
    await until(() => notified.length === 5, 'five notifications');
    expect(notified).toEqual(['ns/a 1', 'ns/b 2', 'ns/a 3', 'ns/b deleted', 'ns/c 10']);
    expect(
      informer
        .items()
        .map((p) => `${p.metadata.name} ${p.metadata.resourceVersion}`)
        .sort(),
    ).toEqual(['a 3', 'c 10']);
    expect(informer.lists).toBe(1);
    expect(api.received.map(describeRequest)).toEqual(['list rv=', 'watch rv=1', 'watch rv=9']);
    const watch = api.received[1]!.query;
    expect(Object.fromEntries(watch)).toEqual({
      watch: 'true',
      resourceVersion: '1',
      allowWatchBookmarks: 'true',
      labelSelector: 'app=web',
      timeoutSeconds: '300',
    });
    expect(api.received[0]!.query.get('labelSelector')).toBe('app=web');
  });

  it('stop() closes the open watch and sends nothing more', async () => {
    let watchClosed = false;
    api = await fakeApiServer((req, res) => {
      if (!isWatch(req)) return answer(res, { metadata: { resourceVersion: '1' }, items: [] });
      res.on('close', () => (watchClosed = true));
      stream(res, []);
    });
    informer = new Informer(api.client, { resource: R.pods, namespace: 'ns' }, {}, { backoffMs: () => 1 });
    informer.start();
    await until(() => api!.received.length === 2, 'the watch');
    informer.stop();
    await until(() => watchClosed, 'the watch connection to close');
    await new Promise((r) => setTimeout(r, 50));
    expect(api.received.map(describeRequest)).toEqual(['list rv=', 'watch rv=1']);
    expect(informer.error).toBeUndefined();
  });
});

describe('a kind a cluster serves at an older version (TLSRoute before Gateway API v1.5)', () => {
  const route = (name: string, rv: string, version: string) => ({
    apiVersion: `gateway.networking.k8s.io/${version}`,
    kind: 'TLSRoute',
    metadata: { name, namespace: 'ns', resourceVersion: rv },
  });
  // kube-apiserver answers a group version it does not serve with a plain 404, not a Status
  const notServed = (res: import('node:http').ServerResponse) => {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('404 page not found\n');
  };

  it('lists at v1, else at v1alpha2, and watches at the version that answered', async () => {
    api = await fakeApiServer((req, res) => {
      if (req.path.startsWith('/apis/gateway.networking.k8s.io/v1/')) return notServed(res);
      if (!isWatch(req))
        return answer(res, { metadata: { resourceVersion: '5' }, items: [route('a', '5', 'v1alpha2')] });
      stream(res, [{ type: 'ADDED', object: route('b', '6', 'v1alpha2') }]);
    });
    informer = new Informer(api.client, { resource: R.tlsroutes }, {}, { backoffMs: () => 10 });
    informer.start();
    await until(() => informer!.items().length === 2, 'two routes');
    expect(informer.error).toBeUndefined();
    expect(api.received.map((r) => `${isWatch(r) ? 'watch' : 'list'} ${r.path}`)).toEqual([
      'list /apis/gateway.networking.k8s.io/v1/tlsroutes',
      'list /apis/gateway.networking.k8s.io/v1alpha2/tlsroutes',
      'watch /apis/gateway.networking.k8s.io/v1alpha2/tlsroutes',
    ]);
  });

  it('asks once where v1 is served, and keeps NotFound when no version is (the kind is not installed)', async () => {
    api = await fakeApiServer((req, res) =>
      req.path.includes('/v1/') ? answer(res, { metadata: { resourceVersion: '1' }, items: [] }) : notServed(res),
    );
    expect(await fetchQuery(api.client, { resource: R.tlsroutes })).toEqual([]);
    expect(api.received.map((r) => r.path)).toEqual(['/apis/gateway.networking.k8s.io/v1/tlsroutes']);
    await api.close();
    api = await fakeApiServer((_req, res) => notServed(res));
    await expect(fetchQuery(api.client, { resource: R.tcproutes })).rejects.toMatchObject({ kind: 'NotFound' });
    expect(api.received.map((r) => r.path)).toEqual([
      '/apis/gateway.networking.k8s.io/v1/tcproutes',
      '/apis/gateway.networking.k8s.io/v1alpha2/tcproutes',
    ]);
  });
});
