import type { KubeClient } from './client.ts';
import { isApiError, type RequestTarget } from './errors.ts';
import { listPaged } from './pager.ts';
import { resourcePath, type ResourceType } from './resources.ts';
import { type Query, servedVersions } from './snapshot.ts';
import { conform } from './conform.ts';
import type { KubeObject } from '../types/kube.ts';
import { setTimeout as delay } from 'node:timers/promises';

export interface InformerOptions {
  /** delay before relisting after an error, by attempt number (0 for the first error since the last success) */
  backoffMs?: (attempt: number) => number;
  /** watch timeout the server should close the stream after (seconds); the informer then watches on from where it was */
  timeoutSeconds?: number;
}

/** What an informer tells its owner; every callback is optional. */
export interface InformerHandlers<T> {
  /** After each list, watch event and error: anything items(), synced or error return may have changed. */
  onChange?: () => void;
  /** Per object added or changed (with it) or deleted (undefined), from a watch event or a relist. */
  onObject?: (key: string, object: T | undefined) => void;
  /** An error (list or watch refused, API server unreachable) the informer relists after, `retryInMs` later. */
  onError?: (error: unknown, retryInMs: number) => void;
}

/**
 * client-go's reflector back-off (k8s.io/client-go/tools/cache/reflector.go: `wait.NewExponentialBackoffManager(
 * 800*time.Millisecond, 30*time.Second, 2*time.Minute, 2.0, 1.0, …)`): 800 ms doubling to 30 s, each step waited up
 * to as long again at random (jitter 1.0, wait.Jitter), so informers that failed together do not retry together.
 */
export function reflectorBackoff(attempt: number, random: () => number = Math.random): number {
  const step = Math.min(800 * 2 ** Math.min(attempt, 16), 30_000);
  return Math.round(step * (1 + random()));
}
/** client-go's reflector: a watch that ends sooner than this with no event is a very short watch */
const SHORT_WATCH_MS = 1000;

/** `namespace/name`, or `name` for a cluster-scoped object: client-go's MetaNamespaceKeyFunc, the key of get(). */
export function objectKey(obj: KubeObject): string {
  return obj.metadata.namespace ? `${obj.metadata.namespace}/${obj.metadata.name}` : obj.metadata.name;
}

/**
 * Keeps the objects of one query current, as client-go's reflector does: list (in pages, pager.ts), then watch from the list's
 * resourceVersion with bookmarks (so a quiet watch still moves its resourceVersion on); when the server ends the
 * watch (its timeoutSeconds) watch on from the last resourceVersion seen. A 410 Gone — an HTTP 410 or an ERROR event
 * with code 410, the resourceVersion having left the watch cache — relists at once, and after a back-off when the
 * relist's own watch is gone again at once. A watch that ends within a second with no event (a server or proxy
 * that closes it at once) is watched again after a back-off too: client-go's reflector calls it a very short watch
 * and backs off the same way, instead of re-opening thousands of watches a second. Any other error (API server
 * unreachable or restarting, watch forbidden) relists after a back-off. A relist compares the new list with the
 * cache and notifies only the objects that changed (by resourceVersion) or disappeared, so nothing is lost and
 * nothing is reported twice.
 */
export class Informer<T extends KubeObject = KubeObject> {
  private readonly objects = new Map<string, T>();
  private readonly abort = new AbortController();
  private resourceVersion = '';
  private attempt = 0;
  private started = false;
  /** events the current watch delivered */
  private delivered = 0;
  private markSynced: () => void = () => {};
  /** last error, while the informer is retrying; cleared by the next successful list */
  error: unknown;
  /** listed successfully at least once */
  synced = false;
  /** resolves after the first complete list (never if the informer is stopped before) */
  readonly whenSynced = new Promise<void>((resolve) => (this.markSynced = resolve));
  /** how many times the informer listed (1 + relists after 410 Gone or errors) */
  lists = 0;

  /** failed attempts in a row since the last successful list */
  failures = 0;

  private readonly client: KubeClient;
  readonly query: Query;
  private readonly handlers: InformerHandlers<T>;
  private readonly options: InformerOptions;

  constructor(client: KubeClient, query: Query, handlers: InformerHandlers<T> = {}, options: InformerOptions = {}) {
    this.client = client;
    this.query = query;
    this.handlers = handlers;
    this.options = options;
  }

  items(): T[] {
    return [...this.objects.values()];
  }

  /** The object of a key (see objectKey), if the informer has it. */
  get(key: string): T | undefined {
    return this.objects.get(key);
  }

  start(): void {
    if (this.started) return;
    this.started = true;
    void this.loop();
  }

  stop(): void {
    this.abort.abort();
  }

  /** the resource type at the version the cluster served the last list at (see servedVersions) */
  private served: ResourceType | undefined;

  private get path(): string {
    return resourcePath(this.served ?? this.query.resource, { namespace: this.query.namespace });
  }

  private target(verb: string): RequestTarget {
    return { verb, resource: this.query.resource.display, namespace: this.query.namespace };
  }

  private async loop(): Promise<void> {
    const signal = this.abort.signal;
    const backoff = this.options.backoffMs ?? reflectorBackoff;
    /** watches in a row that were short and empty, or gone at once: each waits longer before the next */
    let quick = 0;
    while (!signal.aborted) {
      const started = Date.now();
      this.delivered = 0;
      const worked = () => this.delivered > 0 || Date.now() - started >= SHORT_WATCH_MS;
      try {
        if (!this.resourceVersion) await this.list();
        await this.watch();
        this.attempt = 0;
        if (worked()) quick = 0;
        else await sleep(backoff(quick++), signal);
      } catch (err) {
        if (signal.aborted) return;
        this.resourceVersion = '';
        if (isApiError(err, 'Gone')) {
          if (worked()) quick = 0;
          else if (quick++ > 0) await sleep(backoff(quick - 2), signal);
          continue;
        }
        const delay = backoff(this.attempt++);
        this.error = err;
        this.failures++;
        this.handlers.onError?.(err, delay);
        this.handlers.onChange?.();
        await sleep(delay, signal);
      }
    }
  }

  private async list(): Promise<void> {
    // a relist asks at every version again: the cluster may have moved the kind to another since
    const { list, resource } = await servedVersions(this.query.resource, (at) =>
      listPaged<T>(
        this.client,
        resourcePath(at, { namespace: this.query.namespace }),
        this.target('list'),
        this.query,
        {
          signal: this.abort.signal,
          trim: this.query.trim as ((item: KubeObject) => T) | undefined,
          kind: this.query.resource.kind,
        },
      ),
    );
    this.served = resource;
    this.lists++;
    const seen = new Set<string>();
    const changed: [string, T | undefined][] = [];
    for (const item of list.items) {
      const key = objectKey(item);
      seen.add(key);
      const cached = this.objects.get(key);
      this.objects.set(key, item);
      if (!cached || cached.metadata.resourceVersion !== item.metadata.resourceVersion) changed.push([key, item]);
    }
    for (const key of this.objects.keys()) {
      if (seen.has(key)) continue;
      this.objects.delete(key);
      changed.push([key, undefined]);
    }
    this.resourceVersion = list.resourceVersion;
    this.error = undefined;
    this.failures = 0;
    this.synced = true;
    for (const [key, object] of changed) this.handlers.onObject?.(key, object);
    this.handlers.onChange?.();
    this.markSynced();
  }

  /** Watches until the server ends the watch, counting the events it delivers in `delivered`. */
  private async watch(): Promise<void> {
    const query = {
      resourceVersion: this.resourceVersion,
      allowWatchBookmarks: true,
      labelSelector: this.query.labelSelector,
      fieldSelector: this.query.fieldSelector,
      timeoutSeconds: this.options.timeoutSeconds ?? 300,
    };
    const trim = this.query.trim as ((item: KubeObject) => T) | undefined;
    for await (const event of this.client.watch<T>(this.path, query, this.abort.signal, this.target('watch'))) {
      this.delivered++;
      const version = (event.object as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
      if (typeof version === 'string' && version) this.resourceVersion = version;
      if (event.type === 'BOOKMARK') continue;
      // an event whose object is not one of its kind with a name changes nothing the model can read
      const conformed = conform<T>(event.object, this.query.resource.kind);
      if (!conformed) continue;
      const key = objectKey(conformed);
      const object = trim ? trim(conformed) : conformed;
      if (event.type === 'DELETED') this.objects.delete(key);
      else this.objects.set(key, object);
      this.handlers.onObject?.(key, event.type === 'DELETED' ? undefined : object);
      this.handlers.onChange?.();
    }
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (so stop() does not leave a timer holding the process). */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return delay(ms, undefined, { signal }).catch(() => undefined);
}
