import { connect as tlsConnect } from 'node:tls';
import type { Dispatcher } from 'undici';
import { setLongTimeout, timeoutSignal } from '../lib/timers.ts';
import type { Connection, TlsSettings } from './config.ts';
import { H2Origin, type Answer } from './h2.ts';
import {
  ApiError,
  apiErrorFromStatus,
  badResponse,
  CredentialError,
  KubeConfigError,
  readTimedOut,
  requestTimedOut,
  unreachable,
  type RequestTarget,
} from './errors.ts';
import { setTimeout as delay } from 'node:timers/promises';

/**
 * Objects per list response: kubectl get's `--chunk-size` default and client-go's pager's `defaultPageSize`
 * (k8s.io/client-go/tools/pager/pager.go), so no single answer holds a whole namespace of pods.
 */
export const PAGE_SIZE = 500;

export type Method = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';
export type QueryParams = Record<string, string | number | boolean | undefined>;

/** Body types the API server accepts; for PATCH the type decides how the server merges the body into the object. */
export const ContentType = {
  json: 'application/json',
  jsonPatch: 'application/json-patch+json',
  mergePatch: 'application/merge-patch+json',
  strategicMergePatch: 'application/strategic-merge-patch+json',
  /** server-side apply; JSON is YAML, so an object is sent as JSON */
  applyPatch: 'application/apply-patch+yaml',
} as const;

export interface RequestOptions {
  query?: QueryParams;
  /** an object is sent as JSON, a string as it is; DELETE takes a DeleteOptions body (preconditions, grace period) */
  body?: unknown;
  /** default application/json */
  contentType?: string;
  signal?: AbortSignal;
  /**
   * What a 2xx answer must be: `object` (a JSON object with metadata.name), `list` (a JSON object with an `items`
   * array of such objects), or `any` (JSON, else the text, as for /readyz; the default).
   */
  expect?: 'object' | 'list' | 'any';
}

/** One event of a watch stream. The server's ERROR events are thrown as ApiError instead (code 410: kind Gone). */
export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

/** The largest answer read: a bigger one is refused instead of filling memory (docs/kubeconfig.md, "Limits"). */
export const MAX_BODY_BYTES = 256 * 1024 * 1024;
/** client-go retries a 429 or 5xx answer that carries Retry-After at most this often... */
export const MAX_RETRIES = 10;
/** ...and this plugin waits at most this long per retry, whatever Retry-After says. */
export const MAX_RETRY_WAIT_MS = 10_000;

/** Why a request was cut short by this client (the reason of an internal AbortController). */
class Cut extends Error {
  readonly what: 'headers' | 'body' | 'size';
  readonly ms: number;
  constructor(what: 'headers' | 'body' | 'size', ms = 0) {
    super(what);
    this.what = what;
    this.ms = ms;
  }
}

type HeaderList = [string, string][];

/** How requests with one set of TLS settings travel: HTTP/2 to an https:// server, else (or when it has no h2) HTTP/1.1. */
interface Route {
  h2?: H2Origin | undefined;
  http1?: Dispatcher | undefined;
}

/**
 * The only code that sends HTTP to the API server. Plain JSON in and out (no generated model classes), so the
 * model and fast-json-patch see exactly what the server sent. Every failure becomes a typed ApiError: the
 * --request-timeout deadline covers credentials, connecting, the answer and its body, and retries; without it, a
 * server that sends nothing for 60 s, or stalls a body for 30 s, times out; redirects are refused, not followed;
 * bodies above 256 MiB are refused while being read.
 */
export class KubeClient {
  readonly connection: Connection;
  private readonly routes = new WeakMap<TlsSettings, Route>();
  /** Requests sent (a watch counts once; a retry counts again), for benchmarks and tests of a command's request count. */
  requestCount = 0;
  /** Bytes of answers read (bodies and watch streams), for the same benchmarks. */
  bytesReceived = 0;
  /** Objects per list response (listPaged in pager.ts); tests set a small one to see several pages. */
  pageSize = PAGE_SIZE;

  constructor(connection: Connection) {
    this.connection = connection;
  }

  get server(): string {
    return this.connection.server;
  }

  url(path: string, query: QueryParams = {}): URL {
    const base = this.connection.serverUrl;
    const url = new URL(`${base.origin}${base.pathname.replace(/\/+$/, '')}${path}`);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  /**
   * One route per TLS settings (they change only when an exec plugin hands out a new client certificate): HTTP/2 on
   * one connection to an https:// server reached directly, as kubectl; through a proxy, to an http:// server (kubectl
   * proxy) or to a server that does not offer h2, undici's HTTP/1.1 pool.
   */
  private route(tls: TlsSettings): Route {
    let route = this.routes.get(tls);
    if (!route) {
      const direct = this.connection.serverUrl.protocol === 'https:' && !this.connection.proxy;
      route = { h2: direct ? new H2Origin(this.connection.serverUrl, tls) : undefined };
      this.routes.set(tls, route);
    }
    return route;
  }

  /** undici's HTTP/1.1 pool for a route (undici is loaded only when one is needed). */
  private async http1(route: Route, tls: TlsSettings): Promise<Dispatcher> {
    if (route.http1) return route.http1;
    const { Agent, ProxyAgent } = await import('undici');
    let pool: Dispatcher;
    const connect = {
      ...(tls.ca ? { ca: tls.ca } : {}),
      ...(tls.cert ? { cert: tls.cert, key: tls.key } : {}),
      ...(tls.servername ? { servername: tls.servername } : {}),
      rejectUnauthorized: tls.rejectUnauthorized,
    };
    // timeouts are this client's own (the deadline, the read timeouts): a watch may be quiet for minutes. A WebSocket
    // message (an exec's frame) is accepted up to what an exec keeps, not undici's 128 MiB: a larger one ends the
    // stream (close 1009), and what it held is unknown
    const timeouts = { headersTimeout: 0, bodyTimeout: 0, webSocket: { maxPayloadSize: WS_MAX_MESSAGE } };
    const proxy = this.connection.proxy;
    if (!proxy) pool = new Agent({ connect, ...timeouts });
    else if (proxy.startsWith('socks5:'))
      pool = new Agent({ connect: socksConnector(proxy, connect) as never, ...timeouts });
    else pool = new ProxyAgent({ uri: proxy, requestTls: connect, ...timeouts });
    route.http1 = pool;
    return pool;
  }

  /** The deadline of one request (with its retries): --request-timeout, and the caller's signal. */
  private deadline(signal: AbortSignal | undefined): AbortSignal | undefined {
    const ms = this.connection.requestTimeoutMs;
    const signals = [signal, ms > 0 ? timeoutSignal(ms) : undefined].filter((s): s is AbortSignal => s !== undefined);
    return signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  }

  /** Maps whatever a request threw to a typed error (an abort by the caller stays an AbortError). */
  private failure(
    err: unknown,
    target: RequestTarget,
    signal: AbortSignal | undefined,
    caller: AbortSignal | undefined,
  ): unknown {
    if (err instanceof ApiError || err instanceof KubeConfigError) return err;
    if (err instanceof CredentialError) return err;
    if (caller?.aborted) return caller.reason instanceof Error ? caller.reason : err;
    if (signal?.aborted) return requestTimedOut(this.server, target, this.connection.requestTimeoutMs, err);
    if (err instanceof Cut) {
      if (err.what === 'size')
        return badResponse(
          this.server,
          target,
          `an answer larger than ${MAX_BODY_BYTES / 1024 / 1024} MiB, which is refused`,
        );
      return readTimedOut(this.server, target, err.what, err.ms);
    }
    const cut = findCut(err);
    if (cut) return this.failure(cut, target, signal, caller);
    return unreachable(this.server, target, err);
  }

  /** Sends one request and reads its whole answer (at most MAX_BODY_BYTES), retrying 429/5xx with Retry-After. */
  private async exchange(method: Method, url: URL, options: RequestOptions, signal: AbortSignal | undefined) {
    for (let attempt = 0; ; attempt++) {
      const { headers, tls } = await this.authorize(signal);
      if (options.body !== undefined) headers.push(['content-type', options.contentType ?? ContentType.json]);
      this.requestCount++;
      const response = await this.send(url, {
        method,
        headers,
        body:
          options.body === undefined
            ? undefined
            : typeof options.body === 'string'
              ? options.body
              : JSON.stringify(options.body),
        tls,
        signal,
      });
      const wait = retryAfterMs(response.status, response.header('retry-after'));
      if (wait !== undefined && attempt < MAX_RETRIES) {
        response.cancel();
        await sleep(wait, signal);
        continue;
      }
      const text = await readBody(
        response,
        this.connection.requestTimeoutMs > 0 ? 0 : this.connection.bodyIdleTimeoutMs,
        (n) => (this.bytesReceived += n),
      );
      return { response, text, retries: attempt };
    }
  }

  /** Headers (fresh credentials each time: an exec plugin's may expire) and the credentials' TLS settings. */
  private async authorize(signal: AbortSignal | undefined): Promise<{ headers: HeaderList; tls: TlsSettings }> {
    const credentials = await this.connection.credentials(signal);
    const headers: HeaderList = [
      ['accept', 'application/json'],
      ['user-agent', 'kubectl-haptic'],
      ...credentials.headers,
    ];
    return { headers, tls: credentials.tls };
  }

  /**
   * Sends one request on the route of its TLS settings, without following redirects, and with a limit on the wait
   * for the answer's headers unless a deadline is set.
   */
  private async send(
    url: URL,
    init: {
      method: string;
      headers: HeaderList;
      body?: string | undefined;
      tls: TlsSettings;
      signal?: AbortSignal | undefined;
    },
    watch = false,
  ): Promise<Answer> {
    // a watch has no --request-timeout: the wait for its headers is always bounded
    const headersMs = this.connection.requestTimeoutMs > 0 && !watch ? 0 : this.connection.headersTimeoutMs;
    const waiting = new AbortController();
    const timer =
      headersMs > 0 ? setLongTimeout(() => waiting.abort(new Cut('headers', headersMs)), headersMs) : undefined;
    const signal = init.signal ? AbortSignal.any([init.signal, waiting.signal]) : waiting.signal;
    try {
      const route = this.route(init.tls);
      if (route.h2 && !route.h2.http1) {
        const answer = await route.h2.request(url, {
          method: init.method,
          headers: init.headers,
          body: init.body,
          signal,
        });
        if (answer) return answer;
      }
      const dispatcher = await this.http1(route, init.tls);
      const { fetch } = await import('undici');
      const response = await fetch(url, {
        method: init.method,
        headers: init.headers,
        body: init.body,
        dispatcher,
        redirect: 'manual',
        signal,
      });
      return {
        status: response.status,
        header: (name) => response.headers.get(name),
        body: response.body ?? noBody(),
        cancel: () => void response.body?.cancel().catch(() => {}),
      };
    } catch (err) {
      if (waiting.signal.aborted) throw waiting.signal.reason;
      throw err;
    } finally {
      timer?.clear();
    }
  }

  /**
   * Opens a WebSocket to the API server (a pod's exec), with the request's credentials and TLS settings, over
   * undici's HTTP/1.1 pool (an upgrade needs HTTP/1.1). `query` may repeat a name (exec's `command`).
   */
  async webSocket(
    path: string,
    query: [string, string][],
    protocols: string[],
    signal?: AbortSignal,
  ): Promise<import('undici').WebSocket> {
    const url = this.url(path);
    for (const [k, v] of query) url.searchParams.append(k, v);
    url.protocol = url.protocol === 'http:' ? 'ws:' : 'wss:';
    const { headers, tls } = await this.authorize(signal);
    const dispatcher = await this.http1(this.route(tls), tls);
    const { WebSocket } = await import('undici');
    this.requestCount++;
    return new WebSocket(url, {
      protocols,
      dispatcher,
      headers: headers.filter(([name]) => name !== 'accept'),
    });
  }

  /** One request; resolves to the parsed JSON answer (see RequestOptions.expect). */
  async request<T>(method: Method, path: string, target: RequestTarget, options: RequestOptions = {}): Promise<T> {
    const url = this.url(path, options.query);
    const signal = this.deadline(options.signal);
    const { response, text, retries } = await this.exchange(method, url, options, signal).catch((err: unknown) => {
      throw this.failure(err, target, signal, options.signal);
    });
    const status = response.status;
    if (status >= 300 && status < 400)
      throw badResponse(
        this.server,
        target,
        `a redirect (HTTP ${status}${redirectTarget(response.header('location'), url)}), which is not followed`,
        status,
      );
    if (status < 200 || status > 299) {
      const err = apiErrorFromStatus(status, parseAnswer(text), target, this.server, this.connection.anonymous);
      if (retries > 0) (err as { message: string }).message += ` (after ${retries} retries)`;
      throw err;
    }
    return checkAnswer(text, options.expect ?? 'any', response.header('content-type'), (what) =>
      badResponse(this.server, target, what, status),
    ) as T;
  }

  /**
   * Watches a collection: `path` is its list path, `query` carries resourceVersion, selectors, allowWatchBookmarks
   * and timeoutSeconds. Yields the events of the newline-delimited JSON stream until the server closes it (its
   * timeoutSeconds) or `signal` aborts, which ends the stream quietly. A refused watch, an ERROR event (the server's
   * Status; code 410 when the resourceVersion is too old) or a broken stream throws a typed ApiError. No
   * --request-timeout applies: a watch is meant to stay open; but a stream silent for 30 s longer than the
   * timeoutSeconds the server was asked for is dead, and one line may not exceed the body cap.
   */
  async *watch<T = unknown>(
    path: string,
    query: QueryParams,
    signal: AbortSignal,
    target: RequestTarget = { verb: 'watch', resource: path },
  ): AsyncGenerator<WatchEvent<T>> {
    const url = this.url(path, { ...query, watch: true });
    let response: Answer;
    try {
      const { headers, tls } = await this.authorize(signal);
      this.requestCount++;
      response = await this.send(url, { method: 'GET', headers, tls, signal }, true);
    } catch (err) {
      if (signal.aborted) return;
      throw this.failure(err, target, undefined, signal);
    }
    if (response.status >= 300 && response.status < 400)
      throw badResponse(
        this.server,
        target,
        `a redirect (HTTP ${response.status}${redirectTarget(response.header('location'), url)}), which is not followed`,
        response.status,
      );
    if (response.status < 200 || response.status > 299) {
      const text = await readBody(response, this.connection.bodyIdleTimeoutMs).catch(() => '');
      throw apiErrorFromStatus(response.status, parseAnswer(text), target, this.server, this.connection.anonymous);
    }
    const idleMs = (Number(query.timeoutSeconds) || 300) * 1000 + 30_000;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of idleGuard(response.body, idleMs)) {
        this.bytesReceived += chunk.byteLength;
        buffer += decoder.decode(chunk, { stream: true });
        for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line) yield this.watchEvent<T>(line, target);
        }
        if (buffer.length > MAX_BODY_BYTES) throw new Cut('size');
      }
    } catch (err) {
      if (signal.aborted) return;
      throw this.failure(err, target, undefined, signal);
    }
  }

  private watchEvent<T>(line: string, target: RequestTarget): WatchEvent<T> {
    const event = parseAnswer(line) as { type?: string; object?: { code?: number; metadata?: unknown } } | string;
    if (typeof event !== 'object' || event === null || !isObject(event.object)) {
      throw badResponse(
        this.server,
        target,
        'a malformed watch event (not a JSON event with an object)',
        undefined,
        line,
      );
    }
    if (event.type === 'ERROR')
      throw apiErrorFromStatus(event.object.code ?? 500, event.object, target, this.server, this.connection.anonymous);
    if (
      !['ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK'].includes(event.type ?? '') ||
      !isObject(event.object.metadata) ||
      (event.type !== 'BOOKMARK' && !hasName(event.object))
    ) {
      throw badResponse(
        this.server,
        target,
        `a malformed watch event (type ${JSON.stringify(event.type ?? null)}, or an object without metadata.name)`,
        undefined,
        line,
      );
    }
    return event as WatchEvent<T>;
  }
}

/** The largest WebSocket message accepted: what an exec keeps of its output (exec.ts MAX_OUTPUT) and a channel byte. */
const WS_MAX_MESSAGE = 4 * 1024 * 1024 + 1;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const hasName = (v: unknown) => isObject(v) && isObject(v.metadata) && typeof v.metadata.name === 'string';

/** JSON when the answer is JSON, else its text; undefined when empty. */
function parseAnswer(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A 2xx answer checked against what the request expects: a list without items is a broken server, not "none". */
function checkAnswer(
  text: string,
  expect: 'object' | 'list' | 'any',
  contentType: string | null,
  bad: (what: string) => ApiError,
): unknown {
  if (expect === 'any') return parseAnswer(text);
  if (!text.trim()) raise(bad('an empty body instead of JSON'));
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    raise(
      bad(
        `a body that is not JSON (${contentType ? `content-type ${contentType.split(';')[0]}, ` : ''}${text.length} bytes)`,
      ),
    );
  }
  if (!isObject(data))
    raise(
      bad(`JSON that is not an object (${data === null ? 'null' : Array.isArray(data) ? 'an array' : typeof data})`),
    );
  if (expect === 'object') {
    if (!hasName(data)) raise(bad('a JSON object without metadata.name, not a Kubernetes object'));
    return data;
  }
  if (!Array.isArray(data.items)) raise(bad('a JSON object without an items list, not a Kubernetes list'));
  if (data.metadata !== undefined && !isObject(data.metadata)) raise(bad('a list whose metadata is not an object'));
  const items = data.items as unknown[];
  if (!items.every(hasName)) raise(bad('a list with items that have no metadata.name'));
  return data;
}

function raise(err: Error): never {
  throw err;
}

/** Where a redirect pointed, without its query (it may carry a token). */
function redirectTarget(location: string | null, from: URL): string {
  if (!location) return '';
  try {
    const to = new URL(location, from);
    return ` to ${to.protocol}//${to.host}${to.pathname}`;
  } catch {
    return ' to an invalid location';
  }
}

/** client-go's checkWait: a 429 or any 5xx with `Retry-After: <seconds>` is retried after that long (capped here). */
function retryAfterMs(status: number, header: string | null): number | undefined {
  if (status !== 429 && status < 500) return undefined;
  if (header === null || !/^\s*\d+\s*$/.test(header)) return undefined;
  return Math.min(Number(header) * 1000, MAX_RETRY_WAIT_MS);
}

/** Resolves after `ms`, or rejects with the signal's reason when it aborts. */
function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => {
    throw signal?.reason;
  });
}

async function* noBody(): AsyncGenerator<Uint8Array> {}

/** Yields the chunks of a body; throws Cut('body') when none comes for `idleMs` (0: no limit). */
async function* idleGuard(body: AsyncIterable<Uint8Array>, idleMs: number): AsyncGenerator<Uint8Array> {
  const reader = body[Symbol.asyncIterator]();
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const next = reader.next();
      const result =
        idleMs > 0
          ? await Promise.race([
              next,
              new Promise<never>(
                (_, reject) =>
                  (timer = setTimeout(() => reject(new Cut('body', idleMs)), Math.min(idleMs, 2 ** 31 - 1))),
              ),
            ]).finally(() => clearTimeout(timer))
          : await next;
      if (result.done) return;
      yield result.value;
    }
  } finally {
    reader.return?.()?.catch(() => {});
  }
}

/** Reads a whole body as text, refusing more than MAX_BODY_BYTES (by Content-Length at once, else while counting). */
async function readBody(response: Answer, idleMs: number, count: (bytes: number) => void = () => {}): Promise<string> {
  const declared = Number(response.header('content-length'));
  if (declared > MAX_BODY_BYTES) {
    response.cancel();
    throw new Cut('size');
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of idleGuard(response.body, idleMs)) {
    size += chunk.byteLength;
    count(chunk.byteLength);
    if (size > MAX_BODY_BYTES) throw new Cut('size');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** A Cut wrapped by fetch (as the cause of its TypeError, or an abort reason). */
function findCut(err: unknown): Cut | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && e instanceof Error; depth++) {
    if (e instanceof Cut) return e;
    e = e.cause;
  }
  return undefined;
}

/** A socks5 proxy-url: connections tunnel through it (the `socks` package, loaded only for such a kubeconfig). */
function socksConnector(proxy: string, tls: Record<string, unknown>) {
  const parsed = new URL(proxy);
  return (
    options: { hostname: string; port: string; protocol: string; servername?: string | null },
    callback: (err: Error | null, socket: unknown) => void,
  ) => {
    import('socks')
      .then(({ SocksClient }) =>
        SocksClient.createConnection({
          proxy: {
            host: parsed.hostname,
            port: Number(parsed.port) || 1080,
            type: 5,
            ...(parsed.username
              ? { userId: decodeURIComponent(parsed.username), password: decodeURIComponent(parsed.password) }
              : {}),
          },
          command: 'connect',
          destination: {
            host: options.hostname,
            port: Number(options.port) || (options.protocol === 'https:' ? 443 : 80),
          },
        }),
      )
      .then(({ socket }) => {
        if (options.protocol !== 'https:') return callback(null, socket);
        const secure = tlsConnect({
          ...tls,
          socket,
          servername: (tls.servername as string | undefined) ?? options.servername ?? options.hostname,
        });
        secure.once('secureConnect', () => callback(null, secure));
        secure.once('error', (err) => callback(err, null));
      })
      .catch((err: Error) => callback(err, null));
  };
}
