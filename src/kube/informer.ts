import { HttpMethod } from '@kubernetes/client-node';
import { fetch } from 'undici';
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';
import type { KubeClient } from './client.ts';
import { apiErrorFromStatus, isApiError } from './errors.ts';
import { resourcePath } from './resources.ts';
import type { Query } from './snapshot.ts';
import type { KubeObject } from '../types/kube.ts';

export interface InformerOptions {
  /** delay before restarting after an error, by attempt number (injectable for tests) */
  backoffMs?: (attempt: number) => number;
  /** watch timeout the server should close the stream after (seconds) */
  timeoutSeconds?: number;
}

const defaultBackoff = (attempt: number) => Math.min(200 * 2 ** attempt, 5000);

/**
 * Keeps the objects of one query current: list, then watch from the list's resourceVersion with bookmarks.
 * A 410 Gone (the watch expired) or any error relists after a back-off, so an API server restart or a compacted
 * watch loses nothing: the relist brings the current state, and conditions carry their own transition times.
 */
export class Informer<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  private readonly abort = new AbortController();
  private resourceVersion = '';
  private attempt = 0;
  private started = false;
  /** last error, while the informer is retrying */
  error: unknown;
  synced = false;
  /** how many times the informer listed (1 + relists after 410 Gone or errors) */
  lists = 0;

  private readonly client: KubeClient;
  readonly query: Query;
  private readonly onChange: () => void;
  private readonly options: InformerOptions;

  constructor(client: KubeClient, query: Query, onChange: () => void, options: InformerOptions = {}) {
    this.client = client;
    this.query = query;
    this.onChange = onChange;
    this.options = options;
  }

  items(): T[] {
    return [...this.objects.values()];
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.loop();
  }

  stop(): void {
    this.abort.abort();
  }

  private key(obj: KubeObject): string {
    return obj.metadata.uid ?? `${obj.metadata.namespace}/${obj.metadata.name}`;
  }

  private async loop(): Promise<void> {
    while (!this.abort.signal.aborted) {
      try {
        if (!this.resourceVersion) await this.list();
        await this.watch();
        this.attempt = 0;
      } catch (err) {
        if (this.abort.signal.aborted) return;
        if (isApiError(err, 'Gone')) {
          this.resourceVersion = '';
          continue;
        }
        this.error = err;
        this.resourceVersion = '';
        this.onChange();
        await new Promise((r) => setTimeout(r, (this.options.backoffMs ?? defaultBackoff)(this.attempt++)));
      }
    }
  }

  private async list(): Promise<void> {
    const path = resourcePath(this.query.resource, { namespace: this.query.namespace });
    const target = { verb: 'list', resource: this.query.resource.display, namespace: this.query.namespace };
    const page = await this.client.request<{ metadata: { resourceVersion: string }; items: T[] }>('GET', path, target, {
      query: { labelSelector: this.query.labelSelector, fieldSelector: this.query.fieldSelector },
      signal: this.abort.signal,
    });
    this.lists++;
    this.objects.clear();
    for (const item of page.items) this.objects.set(this.key(item), item);
    this.resourceVersion = page.metadata.resourceVersion;
    this.error = undefined;
    this.synced = true;
    this.onChange();
  }

  private async watch(): Promise<void> {
    const path = resourcePath(this.query.resource, { namespace: this.query.namespace });
    const url = this.client.url(path, {
      watch: 1,
      allowWatchBookmarks: true,
      resourceVersion: this.resourceVersion,
      labelSelector: this.query.labelSelector,
      fieldSelector: this.query.fieldSelector,
      timeoutSeconds: this.options.timeoutSeconds ?? 300,
    });
    const { headers, dispatcher } = await this.client.authorize(url, HttpMethod.GET);
    this.client.requestCount++;
    const response = await fetch(url, { headers: { ...headers, accept: 'application/json' }, dispatcher, signal: this.abort.signal });
    if (!response.ok || !response.body) {
      const body = await response.text().catch(() => '');
      throw apiErrorFromStatus(response.status, safeJson(body), { verb: 'watch', resource: this.query.resource.display, namespace: this.query.namespace }, this.client.server);
    }
    const lines = createInterface({ input: Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), crlfDelay: Infinity });
    for await (const line of lines) {
      if (!line) continue;
      const event = safeJson(line) as { type: string; object: T & { code?: number } };
      if (event.type === 'ERROR') {
          throw apiErrorFromStatus(event.object.code ?? 500, event.object, { verb: 'watch', resource: this.query.resource.display }, this.client.server);
      }
      if (event.object?.metadata?.resourceVersion) this.resourceVersion = event.object.metadata.resourceVersion;
      if (event.type === 'BOOKMARK') continue;
      if (event.type === 'DELETED') this.objects.delete(this.key(event.object));
      else this.objects.set(this.key(event.object), event.object);
      this.onChange();
    }
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { message: text.slice(0, 200) };
  }
}
