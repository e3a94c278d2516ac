// A hostile API server for tests: a small local HTTP or HTTPS server (throwaway CA) whose every answer the test
// decides — status codes, headers, bodies, delays, bodies that stall or trickle, huge bodies, redirects, escape
// sequences — plus a fake cluster that answers the plugin's reads of one Deployment, and a CONNECT proxy.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
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
import type { Duplex } from 'node:stream';
import { frame, frameReader } from '../cluster/standins/lab/kubelet-exec.ts';

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
  /** the WebSocket upgrades of pods/exec it was asked for (path and query), in order */
  execs: ExecCall[];
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
  options: { tls?: boolean; h2?: boolean; exec?: Exec | undefined } = {},
): Promise<HostileServer> {
  const received: Received[] = [];
  const execs: ExecCall[] = [];
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
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => upgrade(req, socket, execs, options.exec));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `${options.tls || options.h2 ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    received,
    count: (path) => received.filter((r) => (typeof path === 'string' ? r.path === path : path.test(r.path))).length,
    connections: () => accepted,
    execs,
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

/** The API server's answer for a named object it does not hold. */
export const notFound = (message: string): Reply => ({
  status: 404,
  json: { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message },
});

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
    if (named) return notFound(`${segments.at(-2)} "${segments.at(-1)}" not found`);
    return { json: emptyList(req) };
  };
}

// ---------------------------------------------------------------------------------------------------------------
// pods/exec over a real WebSocket (v5.channel.k8s.io), answered by a scriptable HAProxy master CLI

export interface ExecCall {
  path: string;
  query: URLSearchParams;
}

/** What an exec's talk can do: send on a channel, send raw bytes, end with a Status on channel 3. */
export interface ExecIo {
  send(channel: number, data: string | Buffer): void;
  /** one binary message of `bytes` bytes of 'a' on `channel`, streamed as it is read (never held whole) */
  sendHuge(channel: number, bytes: number): void;
  end(status?: object): void;
  socket: Duplex;
}

/** Called with each stdin message of the exec (text), and the io to answer with. */
export type ExecTalk = (stdin: string, io: ExecIo) => void;
/** The talk of an exec, by its call; undefined refuses the upgrade (404). */
export type Exec = (call: ExecCall) => ExecTalk | undefined;

const WS_GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';

function upgrade(req: IncomingMessage, socket: Duplex, execs: ExecCall[], exec: Exec | undefined): void {
  socket.on('error', () => {});
  const url = new URL(req.url ?? '/', 'http://x');
  const call = { path: url.pathname, query: url.searchParams };
  execs.push(call);
  const talk = /^\/api\/v1\/namespaces\/[^/]+\/pods\/[^/]+\/exec$/.test(url.pathname) ? exec?.(call) : undefined;
  if (!talk) {
    socket.end('HTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}');
    return;
  }
  const accept = createHash('sha1').update(`${req.headers['sec-websocket-key']}${WS_GUID}`).digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n`,
  );
  const live = () => !socket.writableEnded && !socket.destroyed;
  const io: ExecIo = {
    socket,
    send: (channel, data) => {
      if (live()) socket.write(frame(0x2, Buffer.concat([Buffer.from([channel]), Buffer.from(data)])));
    },
    sendHuge: (channel, bytes) => {
      const head = Buffer.alloc(11);
      head[0] = 0x82;
      head[1] = 127;
      head.writeBigUInt64BE(BigInt(bytes + 1), 2);
      head[10] = channel;
      const block = Buffer.alloc(1024 * 1024, 'a');
      let left = bytes;
      const pump = () => {
        while (left > 0 && live()) {
          const piece = left >= block.length ? block : block.subarray(0, left);
          left -= piece.length;
          if (!socket.write(piece)) return void socket.once('drain', pump);
        }
      };
      if (live()) socket.write(head);
      pump();
    },
    end: (status = { status: 'Success' }) => {
      io.send(3, JSON.stringify({ metadata: {}, ...status }));
      if (live()) socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
    },
  };
  socket.on(
    'data',
    frameReader((opcode, payload) => {
      if (opcode === 0x2 && payload[0] === 0) talk(payload.subarray(1).toString(), io);
      if (opcode === 0x8) socket.end();
    }),
  );
}

export const PROMPT = 'master> ';

/** `show proc` of a master with one current worker and one leaving one, as HAProxy 2.6 writes it. */
export function showProc(current = 13333, leaving = 13313): string {
  return [
    '#<PID>          <type>          <reloads>       <uptime>        <version>      ',
    '13310           master          1 [failed: 0]   0d00h00m02s     2.6.12-1+deb12u4',
    '# workers',
    `${current}           worker          0               0d00h00m01s     2.6.12-1+deb12u4`,
    '# old workers',
    `${leaving}           worker          1               0d00h00m02s     2.6.12-1+deb12u4`,
    '# programs',
    '',
    '',
  ].join('\n');
}

const STAT_HEADER =
  '# pxname,svname,qcur,qmax,scur,smax,slim,stot,bin,bout,dreq,dresp,ereq,econ,eresp,wretr,wredis,status,weight,act,bck,chkfail,chkdown,lastchg,downtime,qlimit,pid,iid,sid,throttle,lbtot,tracked,type,rate,rate_lim,rate_max,check_status,check_code,check_duration,hrsp_1xx,hrsp_2xx,hrsp_3xx,hrsp_4xx,hrsp_5xx,hrsp_other,hanafail,req_rate,req_rate_max,req_tot,cli_abrt,srv_abrt,comp_in,comp_out,comp_byp,comp_rsp,lastsess,last_chk,last_agt,qtime,ctime,rtime,ttime,addr';

/** One server row of `show stat -1 4 -1` (the columns of STAT_HEADER): its backend, name, address and scur. */
export function statRow(backend: string, server: string, addr: string, scur: string | number): string {
  const f = Array.from({ length: 64 }, () => '0');
  const set = (name: string, v: string) => (f[STAT_HEADER.slice(2).split(',').indexOf(name)] = v);
  set('pxname', backend);
  set('svname', server);
  set('scur', String(scur));
  set('status', 'UP');
  set('type', '2');
  set('addr', addr);
  return f.join(',');
}

/** A whole `show stat` answer: the header, the rows, the blank line HAProxy ends it with. */
export const showStat = (...rows: string[]) => `${STAT_HEADER}\n${rows.join('\n')}\n\n`;

/** A `show stat` answer cut to one proxy's rows (`-1`: all of it), or HAProxy's answer when it has none. */
function ofProxy(answer: string, proxy: string): string {
  if (proxy === '-1') return answer;
  const lines = answer.split('\n');
  const rows = lines.filter((l) => l && !l.startsWith('#') && l.split(',')[0] === proxy);
  return rows.length ? showStat(...rows) : 'No such proxy.\n';
}

/**
 * A HAProxy master CLI behind `socat stdio unix-connect:…`, in interactive mode: `prompt` + `show proc` answered
 * with `proc`, then each stat command with `stat(pid)` followed by the prompt, then the end (Success): `show stat -1
 * 4 -1` with all of it, `show stat <backend> 4 -1` with that backend's rows, or `No such proxy.` when it has none (as
 * HAProxy's stats.c answers a proxy its worker does not have). `answer` replaces the stat part: it is given the stat
 * commands' text and the io, and does what it will.
 */
export function masterCli(
  options: { proc?: string; stat?: (pid: number) => string; answer?: (stdin: string, io: ExecIo) => void } = {},
): ExecTalk {
  return (stdin, io) => {
    if (stdin.startsWith('prompt\n')) return io.send(1, `${PROMPT}${options.proc ?? showProc()}${PROMPT}`);
    if (options.answer) return options.answer(stdin, io);
    const asked = [...stdin.matchAll(/^@!(\d+) show stat (\S+) 4 -1$/gm)];
    io.send(
      1,
      asked.map(([, pid, proxy]) => `${ofProxy(options.stat?.(Number(pid)) ?? showStat(), proxy!)}${PROMPT}`).join(''),
    );
    io.end();
  };
}

// ---------------------------------------------------------------------------------------------------------------
// A fake cluster of whole objects: HAPTIC's installation, a rollout it routes, answered as an API server would

const PLURALS: Record<string, string> = {
  Deployment: 'deployments',
  ReplicaSet: 'replicasets',
  Pod: 'pods',
  Service: 'services',
  Ingress: 'ingresses',
  EndpointSlice: 'endpointslices',
  HAProxyTemplateConfig: 'haproxytemplateconfigs',
  HAProxyCfg: 'haproxycfgs',
  Lease: 'leases',
  ClusterRole: 'clusterroles',
  ClusterRoleBinding: 'clusterrolebindings',
  Gateway: 'gateways',
  HTTPRoute: 'httproutes',
  Namespace: 'namespaces',
};

type Obj = {
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
};

/** Whether labels match a label selector as the API server reads it: `k=v`, `k==v`, `k!=v`, `k`, `!k`, `k in (…)`. */
export function labelsMatch(selector: string, labels: Record<string, string> = {}): boolean {
  const terms = selector.match(/[^,(]+(?:\([^)]*\))?/g) ?? [];
  return terms.every((term) => {
    const t = term.trim();
    const set = /^(\S+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(t);
    if (set) {
      const values = set[3]!.split(',').map((v) => v.trim());
      const has = labels[set[1]!] !== undefined && values.includes(labels[set[1]!]!);
      return set[2] === 'in' ? has : !has;
    }
    const eq = /^([^!=]+)(==|=|!=)(.*)$/.exec(t);
    if (eq) return eq[2] === '!=' ? labels[eq[1]!] !== eq[3] : labels[eq[1]!] === eq[3];
    if (t.startsWith('!')) return labels[t.slice(1)] === undefined;
    return t === '' || labels[t] !== undefined;
  });
}

/**
 * Answers from `objects` (or what `objects()` gives at each request): GET of a named one, lists by namespace, label
 * and `metadata.name` field selector, watches held open, SelfSubjectAccessReviews allowed; `override` first.
 */
export function objectCluster(
  objects: Obj[] | (() => Obj[]),
  override: (req: Received, n: number, received: Received[]) => Reply | undefined = () => undefined,
): Route {
  return (req, n, received) => {
    const replied = override(req, n, received);
    if (replied) return replied;
    if (req.method === 'POST' && /selfsubject(access|rules)reviews$/.test(req.path)) {
      const review = JSON.parse(req.body || '{}') as object;
      return { status: 201, json: { ...review, status: { allowed: true } } };
    }
    if (req.query.get('watch') === 'true')
      return {
        stallAfterHeaders: true,
        headers: { 'content-type': 'application/json' },
        body: `${JSON.stringify({ type: 'BOOKMARK', object: { kind: 'Status', apiVersion: 'v1', metadata: { resourceVersion: '10' } } })}\n`,
      };
    const segments = req.path.split('/').filter(Boolean);
    const rest = segments.slice(segments[0] === 'api' ? 2 : 3);
    const namespace = rest[0] === 'namespaces' && rest.length > 2 ? rest[1] : undefined;
    const [resource, name, sub] = namespace !== undefined ? rest.slice(2) : rest;
    // a Lease with a holder and no renewTime is a live leader's: client-go's leader election renews it every
    // RetryPeriod (2 s), so read at any moment it was renewed just now; rows built at load would otherwise go stale
    const all = (typeof objects === 'function' ? objects() : objects).map((o) =>
      o.kind === 'Lease' &&
      (o.spec as { holderIdentity?: string; renewTime?: string } | undefined)?.holderIdentity &&
      !(o.spec as { renewTime?: string }).renewTime
        ? { ...o, spec: { ...(o.spec as object), renewTime: new Date().toISOString() } }
        : o,
    );
    const found = all.filter(
      (o) =>
        PLURALS[o.kind] === resource &&
        (namespace === undefined || o.metadata.namespace === namespace) &&
        (name === undefined || o.metadata.name === name),
    );
    if (name !== undefined) {
      if (found[0] && !sub) return { json: found[0] };
      return notFound(`${resource} "${name}" not found`);
    }
    const labels = req.query.get('labelSelector');
    const field = /^metadata\.name=(.*)$/.exec(req.query.get('fieldSelector') ?? '')?.[1];
    const items = found.filter(
      (o) => (!labels || labelsMatch(labels, o.metadata.labels)) && (field === undefined || o.metadata.name === field),
    );
    return { json: { kind: 'List', apiVersion: 'v1', metadata: { resourceVersion: '10' }, items } };
  };
}

export const HAPTIC_NS = 'haptic';

/** A HAProxyTemplateConfig selecting the HAProxy pods labelled loadbalancer, watching Ingresses of class haproxy. */
export function templateConfig(
  namespace = HAPTIC_NS,
  name = 'haptic-config',
  ingressSelector = 'spec.ingressClassName=haproxy',
) {
  return {
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyTemplateConfig',
    metadata: { name, namespace, uid: `htc-${namespace}-${name}`, generation: 1 },
    spec: {
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'loadbalancer' } },
      watchedResources: {
        ingresses: {
          apiVersion: 'networking.k8s.io/v1',
          resources: 'ingresses',
          indexBy: ['metadata.namespace', 'metadata.name'],
          fieldSelector: ingressSelector,
        },
        gateways: {
          apiVersion: 'gateway.networking.k8s.io/v1',
          resources: 'gateways',
          indexBy: ['metadata.namespace', 'metadata.name'],
          fieldSelector: 'spec.gatewayClassName=haproxy',
        },
        httproutes: {
          apiVersion: 'gateway.networking.k8s.io/v1',
          resources: 'httproutes',
          indexBy: ['metadata.namespace', 'metadata.name'],
        },
        services: { apiVersion: 'v1', resources: 'services', indexBy: ['metadata.namespace', 'metadata.name'] },
        endpoints: {
          apiVersion: 'discovery.k8s.io/v1',
          resources: 'endpointslices',
          indexBy: ['metadata.labels.kubernetes\\.io/service-name'],
        },
      },
    },
    status: {
      observedGeneration: 1,
      conditions: [{ type: 'Validated', status: 'True', reason: 'ValidationSucceeded' }],
      validationStatus: 'Valid',
    },
  };
}

/** The HAProxyCfg HAPTIC rendered from a template config: one server per pod (`# Pod:`), deployed to `runsOn`. */
export function haproxyCfg(namespace: string, htc: string, servers: { pod: string; ip: string }[], runsOn: string[]) {
  const backend = `ing_${NS}_web_web_80`;
  return {
    apiVersion: 'haproxy-haptic.org/v1alpha1',
    kind: 'HAProxyCfg',
    metadata: {
      name: `${htc}-haproxycfg`,
      namespace,
      uid: `cfg-${namespace}-${htc}`,
      generation: 1,
      labels: { 'haproxy-haptic.org/template-config': htc },
    },
    spec: {
      content: `backend ${backend}\n${servers.map((s) => `  server ${s.pod} ${s.ip}:8080 weight 100  # Pod: ${s.pod}`).join('\n')}`,
      checksum: `sum-${namespace}`,
      path: '/etc/haproxy/haproxy.cfg',
    },
    status: {
      deployedToPods: runsOn.map((pod) => ({
        podName: pod,
        podUID: `uid-${pod}`,
        checksum: `sum-${namespace}`,
        appliedPlanID: 'plan-1',
        runningPlanID: 'plan-1',
        mode: 'runtime',
        consecutiveErrors: 0,
      })),
      conditions: [{ type: 'ConfigValidated', status: 'True', reason: 'HAProxyAccepted' }],
    },
  };
}

const ready = (names: string[]) => ({
  phase: 'Running',
  conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: '2026-11-29T11:59:42Z' }],
  containerStatuses: names.map((name) => ({ name, ready: true, restartCount: 0, state: { running: {} } })),
});

/** A HAPTIC HAProxy pod (the chart's): haproxy with its `-S` master socket, and the dataplane agent. */
export function haproxyPod(name: string, ip: string, namespace = HAPTIC_NS) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      labels: {
        'app.kubernetes.io/name': 'haptic',
        'app.kubernetes.io/instance': 'haptic',
        'app.kubernetes.io/component': 'loadbalancer',
      },
    },
    spec: {
      containers: [
        {
          name: 'haproxy',
          command: ['/bin/sh', '-c'],
          args: ['exec haproxy -W -db -f /etc/haproxy/haproxy.cfg -S "/etc/haproxy/haproxy-master.sock,level,admin"'],
        },
        { name: 'dataplane', ports: [{ containerPort: 5555 }] },
      ],
      serviceAccountName: 'haptic',
    },
    status: { ...ready(['haproxy', 'dataplane']), podIP: ip },
  };
}

/** HAPTIC's controller pod. */
export function controllerPod(namespace = HAPTIC_NS) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: 'haptic-controller-1',
      namespace,
      uid: `uid-controller-${namespace}`,
      labels: {
        'app.kubernetes.io/name': 'haptic',
        'app.kubernetes.io/instance': 'haptic',
        'app.kubernetes.io/component': 'controller',
      },
    },
    spec: { containers: [{ name: 'controller' }], serviceAccountName: 'haptic' },
    status: ready(['controller']),
  };
}

/**
 * Deployment `web` in NS mid-rollout, gated: old pod web-old-1 (10.0.0.1) ready, new pod web-new-1 (10.0.0.3)
 * waiting for HAPTIC's condition; Service web selects them; the Ingress of class haproxy routes it (unless `ingress`
 * is false). `terminating`: web-old-1 was deleted long ago and is still there (past its grace period: HS208).
 */
export function gatedRollout(options: { ingress?: boolean; terminating?: boolean } = {}): Obj[] {
  const gate = [{ conditionType: 'haproxy-haptic.org/load-balancer-ready' }];
  const rs = (name: string, hash: string, revision: string, replicas: number) => ({
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      annotations: { 'deployment.kubernetes.io/revision': revision },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: 'uid-web', controller: true }],
      labels: { app: 'web', 'pod-template-hash': hash },
    },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web', 'pod-template-hash': hash } },
      template: {
        metadata: { labels: { app: 'web', 'pod-template-hash': hash } },
        spec: { containers: [{ name: 'app', image: `web:${revision}` }], readinessGates: gate },
      },
    },
    status: { replicas, readyReplicas: hash === 'h1' ? 1 : 0, availableReplicas: hash === 'h1' ? 1 : 0 },
  });
  const pod = (name: string, hash: string, ip: string, isReady: boolean) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: NS,
      uid: `uid-${name}`,
      creationTimestamp: '2026-11-29T11:59:30Z',
      ...(options.terminating && hash === 'h1'
        ? { deletionTimestamp: '2026-11-29T12:00:30Z', deletionGracePeriodSeconds: 30 }
        : {}),
      labels: { app: 'web', 'pod-template-hash': hash },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: `web-${hash}`, uid: `uid-web-${hash}`, controller: true },
      ],
    },
    spec: { containers: [{ name: 'app', ports: [{ containerPort: 8080 }] }], nodeName: 'node-1', readinessGates: gate },
    status: {
      phase: 'Running',
      podIP: ip,
      conditions: [
        { type: 'ContainersReady', status: 'True', lastTransitionTime: '2026-11-29T11:59:40Z' },
        { type: 'Ready', status: isReady ? 'True' : 'False', lastTransitionTime: '2026-11-29T11:59:40Z' },
        ...(isReady ? [{ type: gate[0]!.conditionType, status: 'True' }] : []),
      ],
      containerStatuses: [{ name: 'app', ready: true, restartCount: 0, state: { running: {} } }],
    },
  });
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: {
        name: 'web',
        namespace: NS,
        uid: 'uid-web',
        generation: 2,
        resourceVersion: '10',
        annotations: { 'deployment.kubernetes.io/revision': '2' },
      },
      spec: {
        replicas: 1,
        selector: { matchLabels: { app: 'web' } },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: {
          metadata: { labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'web:2' }], readinessGates: gate },
        },
      },
      status: { observedGeneration: 2, replicas: 2, updatedReplicas: 1, readyReplicas: 1, availableReplicas: 1 },
    },
    rs('web-h1', 'h1', '1', 1),
    rs('web-h2', 'h2', '2', 1),
    pod('web-old-1', 'h1', '10.0.0.1', true),
    pod('web-new-1', 'h2', '10.0.0.3', false),
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: NS },
      spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
    },
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-abc', namespace: NS, labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [
        ['web-old-1', '10.0.0.1', true],
        ['web-new-1', '10.0.0.3', false],
      ].map(([name, ip, r]) => ({
        addresses: [ip],
        conditions: { ready: r, serving: r, terminating: false },
        targetRef: { kind: 'Pod', name, namespace: NS, uid: `uid-${name}` },
      })),
    },
    ...(options.ingress === false
      ? []
      : [
          {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'Ingress',
            metadata: { name: 'web', namespace: NS },
            spec: {
              ingressClassName: 'haproxy',
              rules: [
                {
                  host: 'web.example.com',
                  http: {
                    paths: [
                      { path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port: { number: 80 } } } },
                    ],
                  },
                },
              ],
            },
          },
        ]),
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
  ] as Obj[];
}

/**
 * HAPTIC in namespace `haptic` routing the gated rollout: its template config, the config it rendered (servers for
 * both web pods) deployed to `haproxy` (HAProxy pods at 10.1.0.11, .12, …), its controller pod holding the Lease
 * (renewed now), and the RBAC that lets it patch pods/status.
 */
export function hapticInstallation(haproxy: string[] = ['haptic-haproxy-a'], namespace = HAPTIC_NS): Obj[] {
  return [
    templateConfig(namespace),
    haproxyCfg(
      namespace,
      'haptic-config',
      [
        { pod: 'web-old-1', ip: '10.0.0.1' },
        { pod: 'web-new-1', ip: '10.0.0.3' },
      ],
      haproxy,
    ),
    controllerPod(namespace),
    {
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: 'haptic', namespace },
      // no renewTime: objectCluster answers the leader's renewal as of the read (see there)
      spec: { holderIdentity: 'haptic-controller-1', leaseDurationSeconds: 15 },
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRole',
      metadata: { name: `haptic-${namespace}` },
      rules: [{ apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] }],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name: `haptic-${namespace}` },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `haptic-${namespace}` },
      subjects: [{ kind: 'ServiceAccount', name: 'haptic', namespace }],
    },
    ...haproxy.map((name, i) => haproxyPod(name, `10.1.0.${11 + i}`, namespace)),
  ] as Obj[];
}
