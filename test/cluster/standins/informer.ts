// List+watch cache for one resource collection: lists, watches from the list's resourceVersion, re-watches when
// the server ends the stream, and re-lists on 410 Gone or any watch error (with a short back-off).
import { type Api, ApiError } from './client.ts';
import { errorText, keyOf, log, type Obj, sleep } from './common.ts';

export type Informer = {
  get(key: string): Obj | undefined;
  list(): Obj[];
  /** Resolves after the first complete list. */
  synced: Promise<void>;
};

export type InformerOptions = { labelSelector?: string; fieldSelector?: string; name: string };

class Gone extends Error {}

export function startInformer(
  api: Api,
  path: string,
  options: InformerOptions,
  onChange: (key: string, obj: Obj | undefined) => void,
  signal: AbortSignal,
): Informer {
  const cache = new Map<string, Obj>();
  let markSynced: () => void = () => {};
  const synced = new Promise<void>((resolve) => (markSynced = resolve));
  const query = new URLSearchParams();
  if (options.labelSelector) query.set('labelSelector', options.labelSelector);
  if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);

  const relist = async (): Promise<string> => {
    const list = await api.get(query.size ? `${path}?${query}` : path);
    const seen = new Set<string>();
    for (const item of list.items as Obj[]) {
      const key = keyOf(item);
      seen.add(key);
      if (cache.get(key)?.metadata.resourceVersion === item.metadata.resourceVersion) continue;
      cache.set(key, item);
      onChange(key, item);
    }
    for (const key of [...cache.keys()].filter((k) => !seen.has(k))) {
      cache.delete(key);
      onChange(key, undefined);
    }
    markSynced();
    return list.metadata.resourceVersion;
  };

  const watchFrom = async (resourceVersion: string): Promise<string> => {
    let rv = resourceVersion;
    for await (const event of api.watch(path, new URLSearchParams([...query, ['resourceVersion', rv]]), signal)) {
      if (event.type === 'ERROR') {
        if (event.object?.code === 410) throw new Gone('410 Gone');
        throw new Error(`watch error: ${event.object?.message ?? JSON.stringify(event.object)}`);
      }
      const obj = event.object as Obj;
      rv = obj.metadata.resourceVersion ?? rv;
      if (event.type === 'BOOKMARK') continue;
      const key = keyOf(obj);
      if (event.type === 'DELETED') cache.delete(key);
      else cache.set(key, obj);
      onChange(key, event.type === 'DELETED' ? undefined : obj);
    }
    return rv;
  };

  (async () => {
    let backoff = 250;
    while (!signal.aborted) {
      try {
        let rv = await relist();
        backoff = 250;
        while (!signal.aborted) rv = await watchFrom(rv);
      } catch (error) {
        if (signal.aborted) break;
        if (!(error instanceof Gone)) {
          const status = error instanceof ApiError ? ` (HTTP ${error.status})` : '';
          log('informer', `${options.name}: ${errorText(error)}${status}; re-listing in ${backoff} ms`);
          await sleep(backoff, signal);
          backoff = Math.min(backoff * 2, 4000);
        }
      }
    }
  })();

  return { get: (key) => cache.get(key), list: () => [...cache.values()], synced };
}
