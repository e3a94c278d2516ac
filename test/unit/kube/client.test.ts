import { afterEach, describe, expect, it } from 'vitest';
import { ContentType, type WatchEvent } from '../../../src/kube/client.ts';
import { ApiError } from '../../../src/kube/errors.ts';
import { answer, fakeApiServer, pod, statusBody, type FakeApiServer } from './api-server.ts';

let api: FakeApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const target = { verb: 'patch', resource: 'pods', namespace: 'ns', name: 'a' };

describe('KubeClient', () => {
  it('sends each body with its content type, query parameters, and DELETE with DeleteOptions', async () => {
    api = await fakeApiServer((req, res) => answer(res, { kind: 'Pod', metadata: { name: 'a' } }));
    const c = api.client;
    await c.request('PATCH', '/api/v1/namespaces/ns/pods/a/status', target, { body: { status: { phase: 'Running' } }, contentType: ContentType.strategicMergePatch });
    await c.request('PATCH', '/api/v1/namespaces/ns/pods/a', target, { body: 'metadata:\n  name: a\n', contentType: ContentType.applyPatch, query: { fieldManager: 'm', force: true, dryRun: undefined } });
    await c.request('DELETE', '/api/v1/namespaces/ns/pods/a', target, { body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: 'u1' } } });
    await c.request('GET', '/api/v1/namespaces/ns/pods/a', target);
    expect(api.received.map((r) => [r.method, r.path, r.query.toString(), r.headers['content-type'], r.body])).toEqual([
      ['PATCH', '/api/v1/namespaces/ns/pods/a/status', '', 'application/strategic-merge-patch+json', '{"status":{"phase":"Running"}}'],
      ['PATCH', '/api/v1/namespaces/ns/pods/a', 'fieldManager=m&force=true', 'application/apply-patch+yaml', 'metadata:\n  name: a\n'],
      ['DELETE', '/api/v1/namespaces/ns/pods/a', '', 'application/json', '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"uid":"u1"}}'],
      ['GET', '/api/v1/namespaces/ns/pods/a', '', undefined, ''],
    ]);
    expect(api.received.every((r) => r.headers.authorization === 'Bearer t' && r.headers.accept === 'application/json')).toBe(true);
    expect(c.requestCount).toBe(4);
  });

  it('returns a text answer as text, and throws the server Status as a typed ApiError with its body', async () => {
    api = await fakeApiServer((req, res) => {
      if (req.path === '/readyz') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      } else {
        answer(res, statusBody(409, 'Conflict', 'Operation cannot be fulfilled on pods "a": the object has been modified'), 409);
      }
    });
    expect(await api.client.request('GET', '/readyz', { verb: 'get', resource: '/readyz' })).toBe('ok');
    const err = await api.client.request('PUT', '/api/v1/namespaces/ns/pods/a/status', target, { body: {} }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ kind: 'Conflict', status: 409, body: { reason: 'Conflict', code: 409 } });
    expect((err as ApiError).message).toBe('conflict: pods "a" in namespace "ns" was changed by someone else while this command ran (Operation cannot be fulfilled on pods "a": the object has been modified)');
  });

  it('watch parses events split across chunks and throws an ERROR event as a typed error', async () => {
    api = await fakeApiServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const added = JSON.stringify({ type: 'ADDED', object: pod('a', '2') });
      res.write(added.slice(0, 20));
      setTimeout(() => {
        res.write(`${added.slice(20)}\n\n${JSON.stringify({ type: 'MODIFIED', object: pod('a', '3') })}\n`);
        res.end(`${JSON.stringify({ type: 'ERROR', object: statusBody(410, 'Expired', 'too old resource version: 1 (2)') })}\n`);
      }, 20);
    });
    const events: WatchEvent<{ metadata: { resourceVersion: string } }>[] = [];
    const err = await (async () => {
      for await (const e of api!.client.watch<{ metadata: { resourceVersion: string } }>('/api/v1/namespaces/ns/pods', { resourceVersion: '1' }, new AbortController().signal)) events.push(e);
    })().catch((e: unknown) => e);
    expect(events.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`)).toEqual(['ADDED 2', 'MODIFIED 3']);
    expect(err).toMatchObject({ kind: 'Gone', status: 410, body: { reason: 'Expired' } });
    expect(Object.fromEntries(api.received[0]!.query)).toEqual({ resourceVersion: '1', watch: 'true' });
    expect(api.client.requestCount).toBe(1);
  });

  it('watch ends quietly when its signal aborts', async () => {
    api = await fakeApiServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(`${JSON.stringify({ type: 'ADDED', object: pod('a', '2') })}\n`);
    });
    const abort = new AbortController();
    const seen: string[] = [];
    for await (const e of api.client.watch<{ metadata: { name: string } }>('/api/v1/pods', {}, abort.signal)) {
      seen.push(e.object.metadata.name);
      abort.abort();
    }
    expect(seen).toEqual(['a']);
  });
});
