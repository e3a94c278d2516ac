import type { KubeClient } from './client.ts';
import { badResponse, isApiError, type ApiError } from './errors.ts';
import { conform } from './conform.ts';
import { listPaged } from './pager.ts';
import { atServedVersions, resourcePath, type ResourceType } from './resources.ts';
import type { KubeObject } from '../types/kube.ts';

/** One list or get. `optional` queries record a failure instead of failing the whole snapshot. */
export interface Query {
  resource: ResourceType;
  namespace?: string | undefined;
  /** get one object; a missing object yields no items rather than an error */
  name?: string | undefined;
  labelSelector?: string | undefined;
  fieldSelector?: string | undefined;
  optional?: boolean;
  /** what to keep of each object, applied as it arrives (list pages, watch events); see trim.ts (a method: a trimmer of pods is one of objects) */
  trim?(item: KubeObject): KubeObject;
}

export type Fetched<T> = { items: T[]; error?: undefined } | { items: T[]; error: ApiError };

/** Lists or gets what one query names. Not found on a get means "no such object", not an error. */
export async function fetchQuery<T extends KubeObject>(client: KubeClient, query: Query): Promise<T[]> {
  const path = resourcePath(query.resource, { namespace: query.namespace, name: query.name });
  const target = {
    verb: query.name ? 'get' : 'list',
    resource: query.resource.display,
    namespace: query.namespace,
    name: query.name,
  };
  if (query.name) {
    try {
      const object = conform<T>(
        await client.request<T>('GET', path, target, { expect: 'object' }),
        query.resource.kind,
      );
      if (!object) throw badResponse(client.server, target, 'an object without metadata.name');
      return [(query.trim ? query.trim(object) : object) as T];
    } catch (err) {
      if (isApiError(err, 'NotFound')) return [];
      throw err;
    }
  }
  // pages of client.pageSize objects: one request per list up to that many, one more per page beyond
  const { list } = await servedVersions(query.resource, (resource) =>
    listPaged(client, resourcePath(resource, { namespace: query.namespace }), target, query, {
      trim: query.trim as ((item: KubeObject) => T) | undefined,
      kind: query.resource.kind,
    }),
  );
  return list.items;
}

/**
 * A list at the first version the cluster serves the kind at: `version`, else each older one in turn while the one
 * before answers NotFound (a version not served is a 404, as a kind not installed is). The last NotFound stands
 * when none is served. With the resource type the list came from, for a watch to follow at the same version.
 */
export async function servedVersions<L>(
  resource: ResourceType,
  list: (resource: ResourceType) => Promise<L>,
): Promise<{ list: L; resource: ResourceType }> {
  const versions = atServedVersions(resource);
  for (const [i, at] of versions.entries()) {
    try {
      return { list: await list(at), resource: at };
    } catch (err) {
      if (i === versions.length - 1 || !isApiError(err, 'NotFound')) throw err;
    }
  }
  throw new Error('unreachable: a resource type has at least one version');
}

/**
 * Fetches every query in one parallel round. Required queries reject the whole snapshot with their typed error;
 * optional ones (e.g. cluster-wide reads a namespaced user may not have) keep theirs beside an empty list.
 */
export async function fetchAll<K extends string>(
  client: KubeClient,
  queries: Record<K, Query>,
): Promise<Record<K, Fetched<KubeObject>>> {
  const entries = Object.entries(queries) as [K, Query][];
  const results = await Promise.all(
    entries.map(async ([key, query]): Promise<[K, Fetched<KubeObject>]> => {
      try {
        return [key, { items: await fetchQuery(client, query) }];
      } catch (err) {
        if (query.optional && isApiError(err) && err.kind !== 'Unreachable') return [key, { items: [], error: err }];
        throw err;
      }
    }),
  );
  return Object.fromEntries(results) as Record<K, Fetched<KubeObject>>;
}
