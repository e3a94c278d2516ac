// A hostile API server for tests: a small local HTTP or HTTPS server (throwaway CA) whose every answer the test
// decides — status codes, headers, bodies, delays, bodies that stall or trickle, huge bodies, redirects, escape
// sequences — plus a fake cluster that answers the plugin's reads of one Deployment, and a CONNECT proxy.
import { execFileSync } from 'node:child_process';
import { mkdirSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  createServer as createHttpServer,
  request as httpRequest,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createSecureServer as createHttp2Server } from 'node:http2';
import { connect as netConnect, type AddressInfo, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  /** the HTTP version the request came in: '1.1' or '2.0' */
  httpVersion: string;
}

/** One answer. Without `status` it is 200; `json` is sent as JSON, `body` as it is. */
export interface Reply {
  status?: number;
  headers?: Record<string, string>;
  json?: unknown;
  body?: string | Buffer;
  /** wait this long before the status line */
  delayMs?: number;
  /** never answer (the request hangs until the client gives up) */
  hang?: boolean;
  /** send the status line, headers and `body` (if any), then stall: no more bytes, never the end */
  stallAfterHeaders?: boolean;
  /** send `body` in pieces of this size, one every `trickle.everyMs` */
  trickle?: { bytes: number; everyMs: number };
  /** stream this many bytes of a JSON string after `{"items":[],"x":"` (no content-length), as fast as the client reads */
  hugeBytes?: number;
  /** close the connection without answering */
  destroy?: boolean;
}

/** `n` counts the requests this server received, this one included; `received` holds them all. */
export type Route = (req: Received, n: number, received: Received[]) => Reply | Promise<Reply>;

export interface HostileServer {
  url: string;
  received: Received[];
  /** requests whose path matched, for assertions */
  count(path: string | RegExp): number;
  /** TCP connections accepted */
  connections(): number;
  close(): Promise<void>;
}

/** A throwaway PKI: a CA, and a server certificate for 127.0.0.1/localhost signed by it (made once per process). */
export interface Pki {
  dir: string;
  caCert: string;
  serverCert: string;
  serverKey: string;
  /** a second CA that signed nothing the server uses */
  otherCaCert: string;
  /** a client certificate and key signed by the CA (the server does not check them) */
  clientCert: string;
  clientKey: string;
}

const OPENSSL_CONFIG = `[req]
distinguished_name = dn
[dn]
[ca]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign, digitalSignature
[server]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost, DNS:hostile.example
[client]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
`;

let pki: Pki | undefined;

/** As test/cluster/cluster.ts makes its PKI: EC P-256 keys, one `openssl req -x509` per certificate. */
export function testPki(): Pki {
  if (pki) return pki;
  const dir = join(tmpdir(), `kh-hostile-pki-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  if (!existsSync(join(dir, 'client.key'))) {
    writeFileSync(join(dir, 'openssl.cnf'), OPENSSL_CONFIG);
    const openssl = (...args: string[]) =>
      execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] });
    const newKey = [
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '30',
      '-config',
      'openssl.cnf',
    ];
    openssl(
      'req',
      '-x509',
      ...newKey,
      '-extensions',
      'ca',
      '-subj',
      '/CN=hostile-ca',
      '-keyout',
      'ca.key',
      '-out',
      'ca.crt',
    );
    openssl(
      'req',
      '-x509',
      ...newKey,
      '-extensions',
      'ca',
      '-subj',
      '/CN=other-ca',
      '-keyout',
      'other.key',
      '-out',
      'other.crt',
    );
    const issue = (file: string, subject: string, extensions: string) =>
      openssl(
        'req',
        '-x509',
        ...newKey,
        '-CA',
        'ca.crt',
        '-CAkey',
        'ca.key',
        '-extensions',
        extensions,
        '-subj',
        subject,
        '-keyout',
        `${file}.key`,
        '-out',
        `${file}.crt`,
      );
    issue('server', '/CN=hostile-server', 'server');
    issue('client', '/CN=hostile-client', 'client');
  }
  const read = (f: string) => readFileSync(join(dir, f), 'utf8');
  pki = {
    dir,
    caCert: read('ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    otherCaCert: read('other.crt'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
  };
  return pki;
}

/**
 * Starts a server on 127.0.0.1 that answers each request with what `route` returns. `h2`: TLS offering HTTP/2 by
 * ALPN (and HTTP/1.1 to clients that do not ask for h2), as a kube-apiserver does; `tls`: HTTPS with HTTP/1.1 only.
 */
export async function hostileServer(
  route: Route,
  options: { tls?: boolean; h2?: boolean } = {},
): Promise<HostileServer> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const r: Received = {
        method: req.method ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        httpVersion: req.httpVersion,
      };
      received.push(r);
      Promise.resolve(route(r, received.length, received))
        .then((reply) => answer(res, reply))
        .catch((err: unknown) => {
          res.writeHead(500, { 'content-type': 'text/plain' });
          res.end(`test route failed: ${String(err)}`);
        });
    });
  };
  const certificate = () => ({ cert: testPki().serverCert, key: testPki().serverKey });
  // the HTTP/2 compatibility API hands the same request and response methods to `handle`
  const server = (
    options.h2
      ? createHttp2Server({ ...certificate(), allowHTTP1: true }, handle as never)
      : options.tls
        ? createHttpsServer(certificate(), handle)
        : createHttpServer(handle)
  ) as Server;
  let accepted = 0;
  server.on('connection', (s: Socket) => {
    accepted++;
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  server.on('secureConnection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  // a TLS client that gives up, or a plain-HTTP client, must not crash the test process
  server.on('tlsClientError', () => {});
  server.on('clientError', (_err, socket: Socket) => socket.destroy());
  server.on('sessionError', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${options.tls || options.h2 ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    count: (path) => received.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path))).length,
    connections: () => accepted,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

async function answer(res: ServerResponse, reply: Reply): Promise<void> {
  if (reply.hang) return;
  if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
  if (reply.destroy) {
    res.socket?.destroy();
    return;
  }
  const body = reply.json !== undefined ? JSON.stringify(reply.json) : reply.body;
  const headers: Record<string, string> = {
    'content-type': reply.json !== undefined ? 'application/json' : 'text/plain',
    ...reply.headers,
  };
  if (reply.hugeBytes !== undefined) {
    res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
    res.write('{"items":[],"x":"');
    const block = Buffer.alloc(1024 * 1024, 'a');
    let left = reply.hugeBytes;
    const pump = () => {
      while (left > 0) {
        const piece = left >= block.length ? block : block.subarray(0, left);
        left -= piece.length;
        if (!res.write(piece)) return void res.once('drain', pump);
      }
      res.end('"}');
    };
    res.on('error', () => {});
    pump();
    return;
  }
  if (reply.stallAfterHeaders) {
    res.writeHead(reply.status ?? 200, headers);
    // HTTP/2's compatibility response sends its headers with writeHead and has no flushHeaders
    if (typeof res.flushHeaders === 'function') res.flushHeaders();
    if (body) res.write(body);
    return;
  }
  if (reply.trickle && body !== undefined) {
    res.writeHead(reply.status ?? 200, headers);
    const data = Buffer.from(body);
    let at = 0;
    const next = () => {
      if (res.destroyed || (res as { stream?: { destroyed: boolean } }).stream?.destroyed) return;
      if (at >= data.length) return void res.end();
      res.write(data.subarray(at, at + (reply.trickle as { bytes: number }).bytes));
      at += (reply.trickle as { bytes: number }).bytes;
      setTimeout(next, (reply.trickle as { everyMs: number }).everyMs);
    };
    next();
    return;
  }
  res.writeHead(reply.status ?? 200, headers);
  res.end(body);
}

/** An HTTP proxy that tunnels CONNECT requests and records their targets. */
export async function connectProxy(): Promise<{ url: string; targets: string[]; close(): Promise<void> }> {
  const targets: string[] = [];
  const sockets = new Set<Socket>();
  // plain requests are forwarded too (a proxy may get `GET http://host:port/path` for an http:// server)
  const server = createHttpServer((req, res) => {
    targets.push(`${req.method} ${req.url}`);
    const to = new URL(req.url ?? '/');
    const upstream = httpRequest(
      {
        host: '127.0.0.1',
        port: to.port,
        path: `${to.pathname}${to.search}`,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    targets.push(`CONNECT ${req.url}`);
    // every target is this machine: test host names need not resolve
    const port = (req.url ?? '').split(':').at(-1);
    const upstream = netConnect(Number(port), '127.0.0.1', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on('error', () => {});
      s.on('close', () => sockets.delete(s));
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    targets,
    close: () => {
      for (const s of sockets) s.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

// ---------------------------------------------------------------------------------------------------------------
// A fake cluster holding one complete rollout of Deployment `web` in namespace `ns`

export const NS = 'ns';

export function deployment(extra: { env?: unknown[]; name?: string } = {}) {
  const name = extra.name ?? 'web';
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      resourceVersion: '10',
      generation: 1,
      annotations: { 'deployment.kubernetes.io/revision': '1' },
    },
    spec: {
      replicas: 1,
      selector: { matchLabels: { app: name } },
      strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
      template: {
        metadata: { labels: { app: name } },
        spec: { containers: [{ name: 'app', image: 'example/app:1', ...(extra.env ? { env: extra.env } : {}) }] },
      },
    },
    status: {
      observedGeneration: 1,
      replicas: 1,
      updatedReplicas: 1,
      readyReplicas: 1,
      availableReplicas: 1,
      conditions: [
        {
          type: 'Progressing',
          status: 'True',
          reason: 'NewReplicaSetAvailable',
          message: 'ReplicaSet "web-1" has successfully progressed.',
        },
      ],
    },
  };
}

/** The list the plugin asked for, empty (a complete rollout with no pods is enough for the paths under test). */
export function emptyList(_req?: Received) {
  return { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '10' }, items: [] as unknown[] };
}

/**
 * Answers like an API server holding Deployment `web` (complete) and nothing else: GET of the Deployment, lists
 * (empty), watches (held open with a bookmark), 404 for anything else named. `override` answers first when it
 * returns a reply.
 */
export function fakeCluster(
  override: (req: Received, n: number, received: Received[]) => Reply | undefined = () => undefined,
  web = deployment(),
): Route {
  return (req, n, received) => {
    const replied = override(req, n, received);
    if (replied) return replied;
    if (req.query.get('watch') === 'true')
      return {
        stallAfterHeaders: true,
        headers: { 'content-type': 'application/json' },
        body: `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Deployment', apiVersion: 'apps/v1', metadata: { resourceVersion: '10' } } })}\n`,
      };
    if (req.path === `/apis/apps/v1/namespaces/${NS}/deployments/${web.metadata.name}`) return { json: web };
    if (req.path === `/api/v1/namespaces/${NS}`)
      return { json: { kind: 'Namespace', apiVersion: 'v1', metadata: { name: NS } } };
    if (
      req.path === `/apis/apps/v1/namespaces/${NS}/deployments` &&
      req.query.get('fieldSelector') === `metadata.name=${web.metadata.name}`
    )
      return { json: { ...emptyList(req), items: [web] } };
    const segments = req.path.split('/').filter(Boolean);
    const named = segments.length % 2 === (segments[0] === 'api' ? 0 : 1);
    if (named)
      return {
        status: 404,
        json: {
          kind: 'Status',
          apiVersion: 'v1',
          status: 'Failure',
          reason: 'NotFound',
          code: 404,
          message: `${segments.at(-2)} "${segments.at(-1)}" not found`,
        },
      };
    return { json: emptyList(req) };
  };
}
