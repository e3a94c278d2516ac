// A tiny raw JSON client for the test cluster: plain objects in, plain objects out. Authentication and TLS come
// from client-node's KubeConfig (RequestContext gives headers and an undici dispatcher); requests go through
// undici's fetch. Resource paths are found through API discovery, so custom resources work too.
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { fetch, type Dispatcher } from 'undici';

export type KubeObject = {
  apiVersion?: string;
  kind?: string;
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
  [key: string]: any;
};

export type PatchType = 'json' | 'merge' | 'strategic';

const PATCH_CONTENT_TYPES: Record<PatchType, string> = {
  json: 'application/json-patch+json',
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export class KubeApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(method: string, path: string, status: number, body: unknown) {
    const message = typeof body === 'object' && body !== null && 'message' in body ? String(body.message) : String(body);
    super(`${method} ${path}: HTTP ${status}: ${message}`);
    this.status = status;
    this.body = body;
  }
}

type Resource = { plural: string; namespaced: boolean };

export class Kube {
  readonly kubeconfig: KubeConfig;
  readonly server: string;
  private readonly discovery = new Map<string, Promise<Map<string, Resource>>>();

  constructor(kubeconfigPath: string) {
    this.kubeconfig = new KubeConfig();
    this.kubeconfig.loadFromFile(kubeconfigPath);
    const cluster = this.kubeconfig.getCurrentCluster();
    if (!cluster) throw new Error(`${kubeconfigPath}: no current cluster`);
    this.server = cluster.server;
  }

  /** One HTTP request; returns the parsed JSON body (or text), throws KubeApiError on a non-2xx status. */
  async request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<any> {
    const context = new RequestContext(this.server + path, method as HttpMethod);
    await this.kubeconfig.applySecurityAuthentication(context);
    const headers: Record<string, string> = { ...context.getHeaders(), accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = contentType;
    const dispatcher = context.getDispatcher() as Dispatcher | undefined;
    const response = await fetch(this.server + path, {
      method,
      headers,
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
      ...(dispatcher ? { dispatcher } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON (e.g. /readyz): keep the text
    }
    if (!response.ok) throw new KubeApiError(method, path, response.status, parsed);
    return parsed;
  }

  async get<T = KubeObject>(apiVersion: string, kind: string, name: string, namespace?: string): Promise<T> {
    return this.request('GET', await this.path(apiVersion, kind, namespace, name));
  }

  /** Like get, but undefined when the object does not exist. */
  async tryGet<T = KubeObject>(apiVersion: string, kind: string, name: string, namespace?: string): Promise<T | undefined> {
    try {
      return await this.get<T>(apiVersion, kind, name, namespace);
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  async list<T = KubeObject>(
    apiVersion: string,
    kind: string,
    options: { namespace?: string; labelSelector?: string; fieldSelector?: string } = {},
  ): Promise<T[]> {
    const query = new URLSearchParams();
    if (options.labelSelector) query.set('labelSelector', options.labelSelector);
    if (options.fieldSelector) query.set('fieldSelector', options.fieldSelector);
    const path = await this.path(apiVersion, kind, options.namespace, undefined, true);
    const list = await this.request('GET', query.size ? `${path}?${query}` : path);
    return list.items;
  }

  async create<T = KubeObject>(object: KubeObject): Promise<T> {
    const { apiVersion, kind, namespace } = identify(object);
    return this.request('POST', await this.path(apiVersion, kind, namespace), object);
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
    return this.request('PATCH', path, patch, PATCH_CONTENT_TYPES[options.type ?? 'merge']);
  }

  /** Deletes an object; false when it did not exist. */
  async delete(
    apiVersion: string,
    kind: string,
    name: string,
    namespace?: string,
    options: { gracePeriodSeconds?: number } = {},
  ): Promise<boolean> {
    let path = await this.path(apiVersion, kind, namespace, name);
    if (options.gracePeriodSeconds !== undefined) path += `?gracePeriodSeconds=${options.gracePeriodSeconds}`;
    try {
      await this.request('DELETE', path);
      return true;
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return false;
      throw error;
    }
  }

  /** Server-side apply of each object, in order (create or update); returns the objects as stored. */
  async apply<T = KubeObject>(objects: KubeObject[], fieldManager = 'haptic-test'): Promise<T[]> {
    const applied: T[] = [];
    for (const object of objects) {
      const { apiVersion, kind, namespace, name } = identify(object);
      if (!name) throw new Error(`apply: ${kind} without metadata.name`);
      const path = await this.path(apiVersion, kind, namespace, name);
      const query = `?fieldManager=${encodeURIComponent(fieldManager)}&force=true`;
      applied.push(await this.request('PATCH', path + query, object, 'application/apply-patch+yaml'));
    }
    return applied;
  }

  /** The REST path of a resource (collection when name is undefined), found through discovery. */
  async path(apiVersion: string, kind: string, namespace?: string, name?: string, allNamespaces = false): Promise<string> {
    const resource = await this.resource(apiVersion, kind);
    if (resource.namespaced && !namespace && !(allNamespaces && name === undefined)) {
      throw new Error(`${kind} is namespaced: a namespace is needed`);
    }
    const scope = resource.namespaced && namespace ? `/namespaces/${encodeURIComponent(namespace)}` : '';
    return `${groupPath(apiVersion)}${scope}/${resource.plural}${name === undefined ? '' : `/${encodeURIComponent(name)}`}`;
  }

  private async resource(apiVersion: string, kind: string): Promise<Resource> {
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

  private async discover(apiVersion: string): Promise<Map<string, Resource>> {
    let list: { resources: { name: string; kind: string; namespaced: boolean }[] };
    try {
      list = await this.request('GET', groupPath(apiVersion));
    } catch (error) {
      if (error instanceof KubeApiError && error.status === 404) return new Map(); // group not served (yet)
      throw error;
    }
    const byKind = new Map<string, Resource>();
    for (const r of list.resources) {
      if (!r.name.includes('/')) byKind.set(r.kind, { plural: r.name, namespaced: r.namespaced });
    }
    return byKind;
  }
}

function groupPath(apiVersion: string): string {
  return apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
}

function identify(object: KubeObject): { apiVersion: string; kind: string; namespace?: string; name?: string } {
  const { apiVersion, kind, metadata } = object;
  if (!apiVersion || !kind) throw new Error('object without apiVersion/kind');
  return { apiVersion, kind, namespace: metadata?.namespace, name: metadata?.name };
}
