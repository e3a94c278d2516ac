// The harness's client for the test cluster, used by the e2e tests, the stand-ins, the benchmarks and the demo:
// plain objects in and out, named by apiVersion and kind. HTTP, credentials, TLS, typed errors and watch streams
// are the product's KubeClient (src/kube/client.ts); this class adds paths found through API discovery (so custom
// resources work too), a few verbs, and informers (src/kube/informer.ts) on the same client.
import { ContentType, KubeClient, type Method, type QueryParams } from '../../src/kube/client.ts';
import { connect } from '../../src/kube/config.ts';
import { isApiError, type RequestTarget } from '../../src/kube/errors.ts';
import { Informer, type InformerHandlers, type InformerOptions } from '../../src/kube/informer.ts';
import { resourceType, type ResourceType } from '../../src/kube/resources.ts';
import type { KubeObject as ListedObject } from '../../src/types/kube.ts';

// Tests catch this name and read `.status` (the HTTP code) and `.body` (the server's Status).
export { ApiError as KubeApiError } from '../../src/kube/errors.ts';

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
  [key: string]: any;
};

export type PatchType = 'json' | 'merge' | 'strategic';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: ContentType.jsonPatch,
  merge: ContentType.mergePatch,
  strategic: ContentType.strategicMergePatch,
};

export class Kube {
  readonly client: KubeClient;
  private readonly discovery = new Map<string, Promise<Map<string, ResourceType>>>();

  // Credentials are resolved per request, as in the plugin (an exec plugin's token may expire), also for the
  // stand-ins, which send the most requests: against resolving them once, 2,000 GETs of a Namespace on the test
  // cluster took 0.1–0.3 ms more each (≈6–17 %, ≈0.1 ms of it CPU), too little to warrant a cache.
  constructor(kubeconfigPath: string) {
    this.client = new KubeClient(connect({ kubeconfig: kubeconfigPath }));
  }

  get server(): string {
    return this.client.server;
  }

  /**
   * One HTTP request (the path may carry a query string); returns the parsed JSON answer, or its text when it is not
   * JSON (e.g. /readyz). A non-2xx answer throws KubeApiError.
   */
  request(method: Method, path: string, body?: unknown, contentType: string = ContentType.json): Promise<any> {
    return this.send(method, path, { body, contentType });
  }

  async get<T = KubeObject>(apiVersion: string, kind: string, name: string, namespace?: string): Promise<T> {
    return this.send('GET', await this.path(apiVersion, kind, namespace, name));
  }

  /** Like get, but undefined when the object does not exist. */
  async tryGet<T = KubeObject>(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
  ): Promise<T | undefined> {
    try {
      return await this.get<T>(apiVersion, kind, name, namespace);
    } catch (error) {
      if (isApiError(error, 'NotFound')) return undefined;
      throw error;
    }
  }

  async list<T = KubeObject>(
    apiVersion: string,
    kind: string,
    options: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
  ): Promise<T[]> {
    const path = await this.path(apiVersion, kind, options.namespace, undefined, true);
    const list = await this.send('GET', path, {
      query: { labelSelector: options.labelSelector, fieldSelector: options.fieldSelector },
    });
    return list.items;
  }

  async create<T = KubeObject>(object: KubeObject): Promise<T> {
    const { apiVersion, kind, namespace } = identify(object);
    return this.send('POST', await this.path(apiVersion, kind, namespace), { body: object });
  }

  async patch<T = KubeObject>(
    apiVersion: string,
    kind: string,
    name: string,
    namespace: string | undefined,
    patch: unknown,
    options: { type?: PatchType; subresource?: string } = {},
  ): Promise<T> {
    let path = await this.path(apiVersion, kind, namespace, name);
    if (options.subresource) path += `/${options.subresource}`;
    return this.send('PATCH', path, { body: patch, contentType: PATCH_CONTENT_TYPES[options.type ?? 'merge'] });
  }

  /**
   * Deletes an object; false when it did not exist. With `uid`, only that incarnation of the object is deleted (a
   * DeleteOptions precondition): the API server answers 409 Conflict when the name now holds another object or
   * none, which also counts as gone.
   */
  async delete(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
    options: { gracePeriodSeconds?: number; uid?: string } = {},
  ): Promise<boolean> {
    const path = await this.path(apiVersion, kind, namespace, name);
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1' };
    if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
    if (options.uid) body.preconditions = { uid: options.uid };
    try {
      await this.send('DELETE', path, { body });
      return true;
    } catch (error) {
      if (isApiError(error, 'NotFound') || (options.uid && isApiError(error, 'Conflict'))) return false;
      throw error;
    }
  }

  /** Server-side apply of each object, in order (create or update), forcing ownership; returns them as stored. */
  async apply<T = KubeObject>(objects: KubeObject[], fieldManager = 'haptic-test'): Promise<T[]> {
    const applied: T[] = [];
    for (const object of objects) {
      const { apiVersion, kind, namespace, name } = identify(object);
      if (!name) throw new Error(`apply: ${kind} without metadata.name`);
      const path = await this.path(apiVersion, kind, namespace, name);
      applied.push(
        await this.send('PATCH', path, {
          body: object,
          contentType: ContentType.applyPatch,
          query: { fieldManager, force: true },
        }),
      );
    }
    return applied;
  }

  /**
   * A started informer (list + watch, relist on 410 Gone, back-off on errors) on this client for one kind, across
   * namespaces unless `query.namespace`; it stops when `signal` aborts.
   */
  async informer<T extends ListedObject>(
    apiVersion: string,
    kind: string,
    query: { namespace?: string; labelSelector?: string; fieldSelector?: string },
    handlers: InformerHandlers<T>,
    signal: AbortSignal,
    options: InformerOptions = {},
  ): Promise<Informer<T>> {
    const informer = new Informer<T>(
      this.client,
      { ...query, resource: await this.resource(apiVersion, kind) },
      handlers,
      options,
    );
    signal.addEventListener('abort', () => informer.stop(), { once: true });
    if (!signal.aborted) informer.start();
    return informer;
  }

  /** The REST path of a resource (collection when name is undefined), found through discovery. */
  async path(
    apiVersion: string,
    kind: string,
    namespace?: string,
    name?: string,
    allNamespaces = false,
  ): Promise<string> {
    const resource = await this.resource(apiVersion, kind);
    if (resource.namespaced && !namespace && !(allNamespaces && name === undefined)) {
      throw new Error(`${kind} is namespaced: a namespace is needed`);
    }
    const scope = resource.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${groupPath(apiVersion)}${scope}/${resource.plural}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  }

  /** Where a kind lives in the API (plural, scope), from discovery. */
  async resource(apiVersion: string, kind: string): Promise<ResourceType> {
    // A cached answer misses kinds added since (custom resources): on a miss, ask once more.
    for (const fresh of [false, true]) {
      if (fresh || !this.discovery.has(apiVersion)) {
        const answer = this.discover(apiVersion);
        this.discovery.set(apiVersion, answer);
        answer.catch(() => this.discovery.delete(apiVersion));
      }
      const found = (await this.discovery.get(apiVersion))?.get(kind);
      if (found) return found;
    }
    throw new Error(`the API server does not serve kind ${kind} in ${apiVersion}`);
  }

  private async discover(apiVersion: string): Promise<Map<string, ResourceType>> {
    let list: { resources: { name: string; kind: string; namespaced: boolean }[] };
    try {
      list = await this.send('GET', groupPath(apiVersion));
    } catch (error) {
      if (isApiError(error, 'NotFound')) return new Map(); // group not served (yet)
      throw error;
    }
    const [group, version] = apiVersion.includes('/') ? (apiVersion.split('/') as [string, string]) : ['', apiVersion];
    const byKind = new Map<string, ResourceType>();
    for (const r of list.resources) {
      if (!r.name.includes('/')) byKind.set(r.kind, resourceType(group, version, r.name, r.kind, r.namespaced));
    }
    return byKind;
  }

  private send(
    method: Method,
    path: string,
    options: { body?: unknown; contentType?: string; query?: QueryParams } = {},
  ): Promise<any> {
    return this.client.request(method, path, targetOf(method, path), options);
  }
}

const VERBS: Record<Method, string> = { GET: 'get', POST: 'create', PUT: 'update', PATCH: 'patch', DELETE: 'delete' };

/** What a request acts on, read back from its REST path, so a KubeApiError's message names it like the plugin's do. */
function targetOf(method: Method, path: string): RequestTarget {
  const pathname = path.split('?')[0] ?? path;
  const parts = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  const group = parts[0] === 'apis' ? parts[1] : '';
  let rest = parts[0] === 'api' ? parts.slice(2) : parts[0] === 'apis' ? parts.slice(3) : [];
  let namespace: string | undefined;
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    namespace = rest[1];
    rest = rest.slice(2);
  }
  const [plural, name, subresource] = rest;
  if (!plural) return { verb: VERBS[method], resource: pathname }; // /readyz, /version, discovery
  const resource = `${group ? `${plural}.${group}` : plural}${subresource ? `/${subresource}` : ''}`;
  return { verb: method === 'GET' && !name ? 'list' : VERBS[method], resource, namespace, name };
}

function groupPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

function identify(object: KubeObject): { apiVersion: string; kind: string; namespace?: string; name?: string } {
  const { apiVersion, kind, metadata } = object;
  if (!apiVersion || !kind) throw new Error('object without apiVersion/kind');
  return { apiVersion, kind, namespace: metadata?.namespace, name: metadata?.name };
}
