import type { KubeClient } from './client.ts';
import { badResponse, isApiError, type RequestTarget } from './errors.ts';
import type { KubeObject, List } from '../types/kube.ts';
import { conform } from './conform.ts';

export interface ListQuery {
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
}

export interface PagedOptions<T> {
  signal?: AbortSignal | undefined;
  /** applied to each object as its page arrives, so what it drops is never held beyond one page */
  trim?: ((item: KubeObject) => T) | undefined;
  /** the items' kind, whose shape they are conformed to (conform.ts); items that are not objects are left out */
  kind?: string | undefined;
}

export interface PagedList<T> {
  items: T[];
  /** the list's resourceVersion (every page of one list carries the first page's), to watch from */
  resourceVersion: string;
  /** requests sent: one per page (plus the full list after an expired continue token) */
  pages: number;
}

/** The API server's answer to a continue token whose resourceVersion was compacted away: 410 with reason Expired. */
export function isExpired(err: unknown): boolean {
  return (
    isApiError(err, 'Gone') &&
    typeof err.body === 'object' &&
    err.body !== null &&
    (err.body as { reason?: unknown }).reason === 'Expired'
  );
}

/**
 * Lists a collection in pages of `client.pageSize` objects, following `continue` tokens, as kubectl and client-go
 * do. Every page but the first carries only the token (the API server refuses a resourceVersion beside it), and all
 * pages read the same consistent snapshot.
 *
 * A continue token expires when etcd compacts past the snapshot's revision while the pages are being read (410,
 * reason Expired). Then, like client-go's ListPager with FullListIfExpired (its default; pager.go, `list`: "the
 * list expired while we were processing, fall back to a full list"), the pages read so far are dropped and the
 * collection is listed once more without a limit. An expired first page, or any other error, is thrown.
 */
export async function listPaged<T extends KubeObject = KubeObject>(
  client: KubeClient,
  path: string,
  target: RequestTarget,
  query: ListQuery,
  options: PagedOptions<T> = {},
): Promise<PagedList<T>> {
  const trimmed = options.trim ?? ((item: KubeObject) => item as T);
  const items: T[] = [];
  const add = (raw: unknown) => {
    const item = conform(raw, options.kind);
    if (item) items.push(trimmed(item));
  };
  const selectors = {
    labelSelector: query.labelSelector || undefined,
    fieldSelector: query.fieldSelector || undefined,
  };
  const seenTokens = new Set<string>();
  let token: string | undefined;
  for (let pages = 1; ; pages++) {
    let page: List<KubeObject>;
    try {
      page = await client.request<List<KubeObject>>('GET', path, target, {
        query: { ...selectors, limit: client.pageSize, continue: token },
        signal: options.signal,
        expect: 'list',
      });
    } catch (err) {
      if (token === undefined || !isExpired(err)) throw err;
      const full = await client.request<List<KubeObject>>('GET', path, target, {
        query: selectors,
        signal: options.signal,
        expect: 'list',
      });
      items.length = 0;
      for (const item of full.items) add(item);
      return { items, resourceVersion: full.metadata?.resourceVersion ?? '', pages: pages + 1 };
    }
    for (const item of page.items) add(item);
    const next = page.metadata?.continue || undefined;
    if (next === undefined) return { items, resourceVersion: page.metadata?.resourceVersion ?? '', pages };
    // a server that hands out a token it already gave would page forever
    if (seenTokens.has(next))
      throw badResponse(
        client.server,
        target,
        'a list whose continue token repeats an earlier one, which would never end',
      );
    seenTokens.add(next);
    token = next;
  }
}
