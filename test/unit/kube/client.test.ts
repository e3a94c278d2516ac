import { afterEach, describe, expect, it } from 'vitest';
import { ContentType, MAX_RETRIES, type WatchEvent } from '../../../src/kube/client.ts';
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
    api = await fakeApiServer((_req, res) => answer(res, { kind: 'Pod', metadata: { name: 'a' } }));
    const c = api.client;
    await c.request('PATCH', '/api/v1/namespaces/ns/pods/a/status', target, {
      body: { status: { phase: 'Running' } },
      contentType: ContentType.strategicMergePatch,
    });
    await c.request('PATCH', '/api/v1/namespaces/ns/pods/a', target, {
      body: 'metadata:\n  name: a\n',
      contentType: ContentType.applyPatch,
      query: { fieldManager: 'm', force: true, dryRun: undefined },
    });
    await c.request('DELETE', '/api/v1/namespaces/ns/pods/a', target, {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', gracePeriodSeconds: 0, preconditions: { uid: 'u1' } },
    });
    await c.request('GET', '/api/v1/namespaces/ns/pods/a', target);
    expect(api.received.map((r) => [r.method, r.path, r.query.toString(), r.headers['content-type'], r.body])).toEqual([
      [
        'PATCH',
        '/api/v1/namespaces/ns/pods/a/status',
        '',
        'application/strategic-merge-patch+json',
        '{"status":{"phase":"Running"}}',
      ],
      [
        'PATCH',
        '/api/v1/namespaces/ns/pods/a',
        'fieldManager=m&force=true',
        'application/apply-patch+yaml',
        'metadata:\n  name: a\n',
      ],
      [
        'DELETE',
        '/api/v1/namespaces/ns/pods/a',
        '',
        'application/json',
        '{"kind":"DeleteOptions","apiVersion":"v1","gracePeriodSeconds":0,"preconditions":{"uid":"u1"}}',
      ],
      ['GET', '/api/v1/namespaces/ns/pods/a', '', undefined, ''],
    ]);
    expect(
      api.received.every((r) => r.headers.authorization === 'Bearer t' && r.headers.accept === 'application/json'),
    ).toBe(true);
    expect(c.requestCount).toBe(4);
  });

  it('returns a text answer as text, and throws the server Status as a typed ApiError with its body', async () => {
    api = await fakeApiServer((req, res) => {
      if (req.path === '/readyz') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.end('ok');
      } else {
        answer(
          res,
          statusBody(409, 'Conflict', 'Operation cannot be fulfilled on pods "a": the object has been modified'),
          409,
        );
      }
    });
    expect(await api.client.request('GET', '/readyz', { verb: 'get', resource: '/readyz' })).toBe('ok');
    const err = await api.client
      .request('PUT', '/api/v1/namespaces/ns/pods/a/status', target, { body: {} })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect(err).toMatchObject({ kind: 'Conflict', status: 409, body: { reason: 'Conflict', code: 409 } });
    expect((err as ApiError).message).toBe(
      'conflict: pods "a" in namespace "ns" was changed by someone else while this command ran (Operation cannot be fulfilled on pods "a": the object has been modified)',
    );
  });

  it('watch parses events split across chunks and throws an ERROR event as a typed error', async () => {
    api = await fakeApiServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const added = JSON.stringify({ type: 'ADDED', object: pod('a', '2') });
      res.write(added.slice(0, 20));
      setTimeout(() => {
        res.write(`${added.slice(20)}\n\n${JSON.stringify({ type: 'MODIFIED', object: pod('a', '3') })}\n`);
        res.end(
          `${JSON.stringify({ type: 'ERROR', object: statusBody(410, 'Expired', 'too old resource version: 1 (2)') })}\n`,
        );
      }, 20);
    });
    const events: WatchEvent<{ metadata: { resourceVersion: string } }>[] = [];
    const err = await (async () => {
      for await (const e of api!.client.watch<{ metadata: { resourceVersion: string } }>(
        '/api/v1/namespaces/ns/pods',
        { resourceVersion: '1' },
        new AbortController().signal,
      ))
        events.push(e);
    })().catch((e: unknown) => e);
    expect(events.map((e) => `${e.type} ${e.object.metadata.resourceVersion}`)).toEqual(['ADDED 2', 'MODIFIED 3']);
    expect(err).toMatchObject({ kind: 'Gone', status: 410, body: { reason: 'Expired' } });
    expect(Object.fromEntries(api.received[0]!.query)).toEqual({ resourceVersion: '1', watch: 'true' });
    expect(api.client.requestCount).toBe(1);
  });

  it('watch ends quietly when its signal aborts', async () => {
    api = await fakeApiServer((_req, res) => {
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

  it('checks the shape of answers: a list needs items, an object a name; `any` keeps text', async () => {
    const bodies: Record<string, string> = {
      '/list-empty-object': '{}',
      '/list-null': 'null',
      '/list-array': '[]',
      '/list-html': '<html>hi</html>',
      '/list-ok': '{"items":[]}',
      '/obj-nameless': '{"kind":"Pod"}',
      '/list-nameless-items': '{"items":[{"metadata":{}}]}',
    };
    api = await fakeApiServer((req, res) => {
      res.writeHead(200, { 'content-type': req.path.includes('html') ? 'text/html' : 'application/json' });
      res.end(bodies[req.path]);
    });
    const get = (path: string, expect: 'list' | 'object' | 'any') =>
      api!.client.request('GET', path, { verb: 'list', resource: 'pods' }, { expect }).catch((e: unknown) => e);
    expect(await get('/list-ok', 'list')).toEqual({ items: [] });
    for (const [path, what] of [
      ['/list-empty-object', 'a JSON object without an items list'],
      ['/list-null', 'JSON that is not an object (null)'],
      ['/list-array', 'JSON that is not an object (an array)'],
      ['/list-html', 'a body that is not JSON (content-type text/html, 15 bytes)'],
      ['/list-nameless-items', 'a list with items that have no metadata.name'],
    ]) {
      const err = (await get(path as string, 'list')) as ApiError;
      expect(err, path).toBeInstanceOf(ApiError);
      expect(err.kind).toBe('BadResponse');
      expect(err.message).toContain(what);
    }
    expect(((await get('/obj-nameless', 'object')) as ApiError).message).toContain(
      'a JSON object without metadata.name',
    );
    expect(await get('/list-html', 'any')).toBe('<html>hi</html>');
  });

  it('does not follow redirects', async () => {
    api = await fakeApiServer((_req, res) => {
      res.writeHead(302, { location: 'https://elsewhere.example/x?token=abc' });
      res.end();
    });
    const err = (await api.client
      .request('GET', '/api/v1/pods', { verb: 'list', resource: 'pods' })
      .catch((e: unknown) => e)) as ApiError;
    expect(err.kind).toBe('BadResponse');
    expect(err.message).toContain('a redirect (HTTP 302 to https://elsewhere.example/x), which is not followed');
    expect(api.received).toHaveLength(1);
  });

  it('retries 429 and 5xx with Retry-After like client-go, at most MAX_RETRIES times; not without it', async () => {
    let calls = 0;
    api = await fakeApiServer((req, res) => {
      calls++;
      if (req.path === '/busy') return void res.writeHead(429, { 'retry-after': '0' }).end('{"message":"slow"}');
      if (req.path === '/plain-503') return void res.writeHead(503).end('down');
      if (calls < 3) return void res.writeHead(503, { 'retry-after': '0' }).end('down');
      answer(res, { items: [] });
    });
    expect(
      await api.client.request(
        'POST',
        '/eventually',
        { verb: 'list', resource: 'pods' },
        { expect: 'list', body: { x: 1 } },
      ),
    ).toEqual({ items: [] });
    expect(api.received.filter((r) => r.path === '/eventually').every((r) => r.body === '{"x":1}')).toBe(true);
    expect(calls).toBe(3);
    const busy = (await api.client
      .request('GET', '/busy', { verb: 'list', resource: 'pods' })
      .catch((e: unknown) => e)) as ApiError;
    expect(busy.kind).toBe('TooManyRequests');
    expect(busy.message).toMatch(/HTTP 429 Too Many Requests \(slow\); try again later \(after 10 retries\)$/);
    expect(api.received.filter((r) => r.path === '/busy')).toHaveLength(MAX_RETRIES + 1);
    await api.client.request('GET', '/plain-503', { verb: 'list', resource: 'pods' }).catch(() => undefined);
    expect(api.received.filter((r) => r.path === '/plain-503')).toHaveLength(1);
  });

  it('without --request-timeout, gives up on a server that sends no headers, or stalls its body', async () => {
    api = await fakeApiServer(
      (req, res) => {
        if (req.path === '/stall') {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"items":[');
        }
      },
      { headersTimeoutMs: 300, bodyIdleTimeoutMs: 300 },
    );
    const t = { verb: 'list', resource: 'pods' };
    const silent = (await api.client.request('GET', '/silent', t).catch((e: unknown) => e)) as ApiError;
    expect([silent.kind, silent.message]).toEqual([
      'Timeout',
      `the API server at ${api.client.server} sent no answer to list pods for 0.3s (default read timeout; --request-timeout sets a limit for the whole request)`,
    ]);
    const stalled = (await api.client.request('GET', '/stall', t).catch((e: unknown) => e)) as ApiError;
    expect([stalled.kind, stalled.message]).toEqual([
      'Timeout',
      `the API server at ${api.client.server} stopped sending its answer to list pods for 0.3s (default read timeout; --request-timeout sets a limit for the whole request)`,
    ]);
  });

  it('--request-timeout covers the body too, and a declared body over 256 MiB is refused unread', async () => {
    api = await fakeApiServer(
      (req, res) => {
        if (req.path === '/huge')
          return void res.writeHead(200, { 'content-length': String(300 * 1024 * 1024) }).write('{');
        res.writeHead(200, { 'content-type': 'application/json' });
        const timer = setInterval(() => res.write(' '), 50);
        res.on('close', () => clearInterval(timer));
      },
      { requestTimeoutMs: 400 },
    );
    const t = { verb: 'list', resource: 'pods' };
    const slow = (await api.client.request('GET', '/trickle', t).catch((e: unknown) => e)) as ApiError;
    expect([slow.kind, slow.message]).toEqual([
      'Timeout',
      `the API server at ${api.client.server} did not answer list pods within 0.4s (--request-timeout)`,
    ]);
    const huge = (await api.client.request('GET', '/huge', t).catch((e: unknown) => e)) as ApiError;
    expect(huge.kind).toBe('BadResponse');
    expect(huge.message).toContain('with an answer larger than 256 MiB, which is refused');
  });

  it('a watch event without an object name is a protocol error, not a crash later', async () => {
    api = await fakeApiServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"type":"ADDED","object":{"kind":"Pod"}}\n');
    });
    const err = await (async () => {
      for await (const _ of api!.client.watch('/api/v1/pods', {}, new AbortController().signal)) void _;
    })().catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'BadResponse' });
  });
});
