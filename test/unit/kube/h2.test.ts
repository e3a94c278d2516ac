// HTTP/2 to the API server (src/kube/h2.ts) against a local node:http2 server: every request on one connection,
// a new connection once the server sends GOAWAY, refused streams sent again, HTTP/1.1 servers told apart by ALPN,
// and cancelled or aborted streams that let the process exit.
import {
  constants,
  createSecureServer,
  type Http2SecureServer,
  type Http2Session,
  type ServerHttp2Stream,
} from 'node:http2';
import { createServer as createHttpsServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { H2Origin, type Answer } from '../../../src/kube/h2.ts';
import { testPki } from '../../hostile/server.ts';

const servers: (Http2SecureServer | Server)[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

async function listen<S extends Http2SecureServer | Server>(server: S): Promise<URL> {
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return new URL(`https://127.0.0.1:${(server.address() as AddressInfo).port}`);
}

const tls = () => ({ ca: Buffer.from(testPki().caCert), rejectUnauthorized: true });
const exchange = (signal = new AbortController().signal) => ({
  method: 'GET',
  headers: [
    ['Accept', 'application/json'],
    ['Impersonate-Group', 'a'],
    ['Impersonate-Group', 'b'],
  ] as [string, string][],
  signal,
});

async function text(answer: Answer): Promise<string> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of answer.body) chunks.push(chunk);
  return Buffer.concat(chunks).toString();
}

describe('H2Origin', () => {
  it('sends every request as a stream of one connection, with repeated headers kept', async () => {
    const sessions = new Set<Http2Session>();
    const server = createSecureServer({ cert: testPki().serverCert, key: testPki().serverKey }, (req, res) => {
      sessions.add(req.stream.session!);
      res.writeHead(200, { 'content-type': 'application/json', 'x-path': req.url });
      // as sent: two impersonate-group fields, as kubectl --as-group twice sends them
      const groups = req.rawHeaders.filter((_, i, all) => i % 2 === 1 && all[i - 1] === 'impersonate-group');
      res.end(JSON.stringify({ groups, accept: req.headers.accept }));
    });
    const origin = await listen(server);
    const h2 = new H2Origin(origin, tls());
    const answers = await Promise.all(
      ['/a', '/b?x=1', '/c'].map((path) => h2.request(new URL(path, origin), exchange())),
    );
    expect(answers.map((a) => a?.header('X-Path'))).toEqual(['/a', '/b?x=1', '/c']);
    const bodies = await Promise.all(answers.map((a) => text(a!)));
    expect(JSON.parse(bodies[0]!)).toEqual({ groups: ['a', 'b'], accept: 'application/json' });
    expect(answers.map((a) => a?.status)).toEqual([200, 200, 200]);
    expect(sessions.size).toBe(1);
    h2.close();
  });

  it('opens a new connection after the server sent GOAWAY', async () => {
    const sessions = new Set<Http2Session>();
    const server = createSecureServer({ cert: testPki().serverCert, key: testPki().serverKey }, (req, res) => {
      sessions.add(req.stream.session!);
      res.end('ok');
    });
    const origin = await listen(server);
    const h2 = new H2Origin(origin, tls());
    expect(await text((await h2.request(new URL('/1', origin), exchange()))!)).toBe('ok');
    const [first] = sessions;
    await new Promise<void>((resolve) => {
      first!.goaway();
      setTimeout(resolve, 50);
    });
    expect(await text((await h2.request(new URL('/2', origin), exchange()))!)).toBe('ok');
    expect(sessions.size).toBe(2);
    h2.close();
  });

  it('sends refused streams again on a new connection, as kube-apiserver refuses them when it drops a client it could not authenticate', async () => {
    // kube-apiserver: the first stream of a connection gets its 401, the connection a GOAWAY, every other stream
    // REFUSED_STREAM (not processed: safe to send again, RFC 9113 §8.7)
    const sessions = new Set<Http2Session>();
    const server = createSecureServer({ cert: testPki().serverCert, key: testPki().serverKey });
    server.on('stream', (stream: ServerHttp2Stream, headers) => {
      stream.on('error', () => {}); // the refusal, as the server's side sees it
      const session = stream.session!;
      if (sessions.has(session)) {
        stream.close(constants.NGHTTP2_REFUSED_STREAM);
        return;
      }
      sessions.add(session);
      stream.respond({ ':status': 401, 'x-path': headers[':path'] });
      stream.end('{"kind":"Status","code":401}');
      session.goaway(constants.NGHTTP2_NO_ERROR, stream.id);
    });
    const origin = await listen(server);
    const h2 = new H2Origin(origin, tls());
    // each body read as it arrives, as the client reads it
    const answers = await Promise.all(
      ['/a', '/b', '/c'].map(async (path) => {
        const answer = (await h2.request(new URL(path, origin), exchange()))!;
        return [answer.status, answer.header('x-path'), await text(answer)];
      }),
    );
    const status = '{"kind":"Status","code":401}';
    expect(answers).toEqual([
      [401, '/a', status],
      [401, '/b', status],
      [401, '/c', status],
    ]);
    expect(sessions.size).toBe(3);
    h2.close();
  });

  it('gives up on a server that refuses every stream after three sends, with the refusal', async () => {
    let streams = 0;
    const server = createSecureServer({ cert: testPki().serverCert, key: testPki().serverKey });
    server.on('stream', (stream) => {
      stream.on('error', () => {});
      streams++;
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
    });
    const origin = await listen(server);
    const h2 = new H2Origin(origin, tls());
    await expect(h2.request(new URL('/', origin), exchange())).rejects.toMatchObject({
      code: 'ERR_HTTP2_STREAM_ERROR',
    });
    expect(streams).toBe(3);
    h2.close();
  });

  it('answers undefined for a server whose ALPN answer is not h2, and sends it nothing', async () => {
    let requests = 0;
    const server = createHttpsServer({ cert: testPki().serverCert, key: testPki().serverKey }, (_req, res) => {
      requests++;
      res.end('http/1.1');
    });
    const origin = await listen(server);
    const h2 = new H2Origin(origin, tls());
    expect(await h2.request(new URL('/', origin), exchange())).toBeUndefined();
    expect(h2.http1).toBe(true);
    expect(requests).toBe(0);
  });

  it('rejects with the reason of an abort, and fails TLS verification with its code', async () => {
    const server = createSecureServer({ cert: testPki().serverCert, key: testPki().serverKey }, () => {
      // never answers
    });
    const origin = await listen(server);
    const h2 = new H2Origin(origin, tls());
    const controller = new AbortController();
    const pending = h2.request(new URL('/hang', origin), exchange(controller.signal));
    setTimeout(() => controller.abort(new Error('deadline')), 50);
    await expect(pending).rejects.toThrow('deadline');
    const stranger = new H2Origin(origin, { ca: Buffer.from(testPki().otherCaCert), rejectUnauthorized: true });
    await expect(stranger.request(new URL('/', origin), exchange())).rejects.toMatchObject({
      code: expect.stringMatching(/^[A-Z_]+$/),
    });
    h2.close();
  });

  it('cancels a body it will not read, also one the server has ended already', async () => {
    const server = createSecureServer({ cert: testPki().serverCert, key: testPki().serverKey }, (_req, res) => {
      res.writeHead(429, { 'retry-after': '1' });
      res.end('{"kind":"Status"}');
    });
    const origin = await listen(server);
    const h2 = new H2Origin(origin, tls());
    const answer = (await h2.request(new URL('/', origin), exchange()))!;
    await new Promise((resolve) => setTimeout(resolve, 50));
    const closed = new Promise((resolve) =>
      (answer.body as NodeJS.ReadableStream & { once(e: 'close', f: () => void): void }).once('close', () =>
        resolve(true),
      ),
    );
    answer.cancel();
    await expect(closed).resolves.toBe(true);
    h2.close();
  });
});
