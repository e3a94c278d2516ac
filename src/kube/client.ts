import { HttpMethod, RequestContext } from '@kubernetes/client-node';
import { fetch, type Dispatcher } from 'undici';
import type { Connection } from './config.ts';
import { apiErrorFromStatus, requestTimedOut, unreachable, type RequestTarget } from './errors.ts';

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  signal?: AbortSignal;
}

/**
 * The only code that sends HTTP to the API server. Plain JSON in and out (no generated model classes), so the
 * model and fast-json-patch see exactly what the server sent. Every failure becomes a typed ApiError.
 */
export class KubeClient {
  readonly connection: Connection;
  private dispatcher: Dispatcher | undefined;
  private dispatcherReady = false;
  /** Requests sent, for benchmarks and tests that prove a command's request count. */
  requestCount = 0;

  constructor(connection: Connection) {
    this.connection = connection;
  }

  get server(): string {
    return this.connection.server;
  }

  url(path: string, query: RequestOptions['query'] = {}): URL {
    const url = new URL(this.server.replace(/\/+$/, '') + path);
    for (const [key, value] of Object.entries(query)) if (value !== undefined) url.searchParams.set(key, String(value));
    return url;
  }

  /** Headers (fresh credentials each time, e.g. exec plugins) and one shared connection pool. */
  async authorize(url: URL, method: HttpMethod): Promise<{ headers: Record<string, string>; dispatcher: Dispatcher | undefined }> {
    const ctx = new RequestContext(url.toString(), method);
    await this.connection.kubeConfig.applySecurityAuthentication(ctx);
    if (!this.dispatcherReady) {
      this.dispatcher = ctx.getDispatcher() as Dispatcher | undefined;
      this.dispatcherReady = true;
    }
    return { headers: ctx.getHeaders() as unknown as Record<string, string>, dispatcher: this.dispatcher };
  }

  async request<T>(method: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE', path: string, target: RequestTarget, options: RequestOptions = {}): Promise<T> {
    const url = this.url(path, options.query);
    const timeoutMs = this.connection.requestTimeoutMs;
    const signals = [options.signal, timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined].filter((s): s is AbortSignal => s !== undefined);
    let response;
    try {
      const { headers, dispatcher } = await this.authorize(url, method as HttpMethod);
      const requestHeaders: Record<string, string> = { ...headers, accept: 'application/json' };
      if (options.body !== undefined) requestHeaders['content-type'] = options.contentType ?? 'application/json';
      this.requestCount++;
      response = await fetch(url, {
        method,
        headers: requestHeaders,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        dispatcher,
        signal: signals.length ? AbortSignal.any(signals) : undefined,
      });
    } catch (err) {
      if (err instanceof Error && err.name === 'TimeoutError') throw requestTimedOut(this.server, target, timeoutMs, err);
      if (err instanceof Error && err.name === 'AbortError') throw err;
      throw unreachable(this.server, target, err);
    }
    const text = await response.text();
    let body: unknown = undefined;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = { message: text.slice(0, 200) };
    }
    if (!response.ok) throw apiErrorFromStatus(response.status, body, target, this.server);
    return body as T;
  }
}
