import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import { fetch, type Dispatcher } from 'undici';
import type { Connection } from './config.ts';
import { ApiError, apiErrorFromStatus, requestTimedOut, unreachable, type RequestTarget } from './errors.ts';

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
}

/** One event of a watch stream. The server's ERROR events are thrown as ApiError instead (code 410: kind Gone). */
export interface WatchEvent<T> {
  type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK';
  object: T;
}

/**
 * The only code that sends HTTP to the API server. Plain JSON in and out (no generated model classes), so the
 * model and fast-json-patch see exactly what the server sent. Every failure becomes a typed ApiError.
 */
export class KubeClient {
  readonly connection: Connection;
  private dispatcher: Dispatcher | undefined;
  private dispatcherReady = false;
  /** Requests sent (a watch counts once), for benchmarks and tests that prove a command's request count. */
  requestCount = 0;

  constructor(connection: Connection) {
    this.connection = connection;
  }

  get server(): string {
    return this.connection.server;
  }

  url(path: string, query: QueryParams = {}): URL {
    const url = new URL(this.server.replace(/\/+$/, '') + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  /** Headers (fresh credentials each time, e.g. exec plugins) and one shared connection pool. */
  private async authorize(url: URL, method: Method): Promise<{ headers: Record<string, string>; dispatcher: Dispatcher | undefined }> {
    const ctx = new RequestContext(url.toString(), method as HttpMethod);
    await this.connection.kubeConfig.applySecurityAuthentication(ctx);
    if (!this.dispatcherReady) {
      this.dispatcher = ctx.getDispatcher() as Dispatcher | undefined;
      this.dispatcherReady = true;
    }
    return { headers: ctx.getHeaders() as unknown as Record<string, string>, dispatcher: this.dispatcher };
  }

  /** One request; resolves to the parsed JSON answer (the text when it is not JSON, as for /readyz). */
  async request<T>(method: Method, path: string, target: RequestTarget, options: RequestOptions = {}): Promise<T> {
    const url = this.url(path, options.query);
    const timeoutMs = this.connection.requestTimeoutMs;
    const signals = [options.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
    let status: number;
    let text: string;
    try {
      const { headers, dispatcher } = await this.authorize(url, method);
      const requestHeaders: Record<string, string> = { ...headers, accept: 'application/json' };
      if (options.body !== undefined) requestHeaders['content-type'] = options.contentType ?? ContentType.json;
      this.requestCount++;
      const response = await fetch(url, {
        method,
        headers: requestHeaders,
        body: options.body === undefined ? undefined : typeof options.body === 'string' ? options.body : JSON.stringify(options.body),
        dispatcher,
        signal: signals.length ? AbortSignal.any(signals) : undefined,
      });
      status = response.status;
      text = await response.text();
    } catch (err) {
      if (err instanceof Error && err.name === 'TimeoutError') throw requestTimedOut(this.server, target, timeoutMs, err);
      if (err instanceof Error && err.name === 'AbortError') throw err;
      throw unreachable(this.server, target, err);
    }
    const body = parseAnswer(text);
    if (status < 200 || status > 299) throw apiErrorFromStatus(status, body, target, this.server);
    return body as T;
  }

  /**
   * Watches a collection: `path` is its list path, `query` carries resourceVersion, selectors, allowWatchBookmarks
   * and timeoutSeconds. Yields the events of the newline-delimited JSON stream until the server closes it (its
   * timeoutSeconds) or `signal` aborts, which ends the stream quietly. A refused watch, an ERROR event (the server's
   * Status; code 410 when the resourceVersion is too old) or a broken stream throws a typed ApiError. Unlike request,
   * no --request-timeout applies: a watch is meant to stay open.
   */
  async *watch<T = unknown>(path: string, query: QueryParams, signal: AbortSignal, target: RequestTarget = { verb: 'watch', resource: path }): AsyncGenerator<WatchEvent<T>> {
    const url = this.url(path, { ...query, watch: true });
    let response;
    try {
      const { headers, dispatcher } = await this.authorize(url, 'GET');
      this.requestCount++;
      response = await fetch(url, { headers: { ...headers, accept: 'application/json' }, dispatcher, signal });
    } catch (err) {
      if (signal.aborted) return;
      throw unreachable(this.server, target, err);
    }
    if (!response.ok || !response.body) {
      const text = await response.text().catch(() => '');
      throw apiErrorFromStatus(response.status, parseAnswer(text), target, this.server);
    }
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        for (let newline = buffer.indexOf('\n'); newline >= 0; newline = buffer.indexOf('\n')) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line) yield this.watchEvent<T>(line, target);
        }
      }
    } catch (err) {
      if (signal.aborted) return;
      if (err instanceof ApiError) throw err;
      throw unreachable(this.server, target, err);
    }
  }

  private watchEvent<T>(line: string, target: RequestTarget): WatchEvent<T> {
    const event = parseAnswer(line) as { type?: string; object?: { code?: number } } | string;
    if (typeof event !== 'object' || event === null || !event.object) {
      throw new ApiError('ServerError', `${target.verb} ${target.resource}: the API server sent a malformed watch event: ${line.slice(0, 200)}`, target, undefined, undefined, line);
    }
    if (event.type === 'ERROR') throw apiErrorFromStatus(event.object.code ?? 500, event.object, target, this.server);
    return event as WatchEvent<T>;
  }
}

/** JSON when the answer is JSON, else its text; undefined when empty. */
function parseAnswer(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
