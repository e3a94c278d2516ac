// A small raw REST client for the stand-ins: plain JSON in and out, auth and TLS from client-node's KubeConfig
// (resolved once: the stand-ins talk to the API server constantly), undici fetch, and a streaming watch.
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { fetch, type Dispatcher } from 'undici';
import type { Obj } from './common.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly reason: string | undefined;
  constructor(method: string, path: string, status: number, body: any) {
    super(`${method} ${path}: HTTP ${status}: ${body?.message ?? String(body).slice(0, 200)}`);
    this.status = status;
    this.reason = body?.reason;
  }
}

export type PatchKind = 'merge' | 'strategic';
const PATCH_TYPES: Record<PatchKind, string> = {
  merge: 'application/merge-patch+json',
  strategic: 'application/strategic-merge-patch+json',
};

export type WatchEvent = { type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR'; object: any };

// Resource names of the kinds the stand-ins write; cluster-scoped kinds have no namespace segment.
const RESOURCES: Record<string, string> = {
  Namespace: 'namespaces', Node: 'nodes', Pod: 'pods', Service: 'services', ServiceAccount: 'serviceaccounts',
  ConfigMap: 'configmaps', Event: 'events', Lease: 'leases', Deployment: 'deployments',
  ClusterRole: 'clusterroles', ClusterRoleBinding: 'clusterrolebindings', Role: 'roles', RoleBinding: 'rolebindings',
  CustomResourceDefinition: 'customresourcedefinitions',
  HAProxyTemplateConfig: 'haproxytemplateconfigs', HAProxyCfg: 'haproxycfgs',
};
const CLUSTER_SCOPED = new Set(['Namespace', 'Node', 'ClusterRole', 'ClusterRoleBinding', 'CustomResourceDefinition']);

/** The REST path of an object (or of its collection when name is omitted). */
export function pathOf(apiVersion: string, kind: string, namespace?: string, name?: string): string {
  const resource = RESOURCES[kind];
  if (!resource) throw new Error(`pathOf: unknown kind ${kind}`);
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  const ns = CLUSTER_SCOPED.has(kind) || !namespace ? '' : `/namespaces/${namespace}`;
  return `${base}${ns}/${resource}${name === undefined ? '' : `/${name}`}`;
}

function objectPath(obj: Obj): string {
  return pathOf(obj.apiVersion!, obj.kind!, obj.metadata.namespace, obj.metadata.name);
}

export class Api {
  private readonly server: string;
  private readonly headers: Record<string, string>;
  private readonly dispatcher: Dispatcher | undefined;

  private constructor(server: string, headers: Record<string, string>, dispatcher: Dispatcher | undefined) {
    this.server = server;
    this.headers = headers;
    this.dispatcher = dispatcher;
  }

  static async connect(kubeconfigPath: string): Promise<Api> {
    const config = new KubeConfig();
    config.loadFromFile(kubeconfigPath);
    const server = config.getCurrentCluster()?.server;
    if (!server) throw new Error(`${kubeconfigPath}: no current cluster`);
    const context = new RequestContext(server, HttpMethod.GET);
    await config.applySecurityAuthentication(context);
    return new Api(server, context.getHeaders(), context.getDispatcher() as Dispatcher | undefined);
  }

  async request(method: string, path: string, body?: unknown, contentType = 'application/json'): Promise<any> {
    const response = await this.fetch(method, path, body, contentType);
    const text = await response.text();
    let parsed: any = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // not JSON: keep the text for the error message
    }
    if (!response.ok) throw new ApiError(method, path, response.status, parsed);
    return parsed;
  }

  get(path: string): Promise<any> {
    return this.request('GET', path);
  }

  async tryGet(path: string): Promise<any | undefined> {
    try {
      return await this.get(path);
    } catch (error) {
      if (error instanceof ApiError && error.status === 404) return undefined;
      throw error;
    }
  }

  patch(path: string, body: unknown, kind: PatchKind = 'merge'): Promise<any> {
    return this.request('PATCH', path, body, PATCH_TYPES[kind]);
  }

  /** Server-side apply (create or update), forcing ownership of the fields it sets. */
  apply(obj: Obj, fieldManager: string, subresource = ''): Promise<any> {
    const query = `?fieldManager=${fieldManager}&force=true`;
    return this.request('PATCH', `${objectPath(obj)}${subresource}${query}`, obj, 'application/apply-patch+yaml');
  }

  /** Deletes; false when already gone. */
  async delete(path: string, options: { gracePeriodSeconds?: number; uid?: string } = {}): Promise<boolean> {
    const body: Record<string, unknown> = { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: 'Background' };
    if (options.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = options.gracePeriodSeconds;
    if (options.uid) body.preconditions = { uid: options.uid };
    try {
      await this.request('DELETE', path, body);
      return true;
    } catch (error) {
      if (error instanceof ApiError && (error.status === 404 || error.status === 409)) return false;
      throw error;
    }
  }

  /** A watch stream from resourceVersion; ends when the server closes it or the signal aborts. */
  async *watch(path: string, query: URLSearchParams, signal: AbortSignal): AsyncGenerator<WatchEvent> {
    const params = new URLSearchParams(query);
    params.set('watch', '1');
    params.set('allowWatchBookmarks', 'true');
    params.set('timeoutSeconds', String(240 + Math.floor(Math.random() * 60)));
    const response = await this.fetch('GET', `${path}?${params}`, undefined, '', signal);
    if (!response.ok) throw new ApiError('WATCH', path, response.status, await response.text());
    if (!response.body) return;
    const decoder = new TextDecoder();
    let buffer = '';
    try {
      for await (const chunk of response.body) {
        buffer += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, newline).trim();
          buffer = buffer.slice(newline + 1);
          if (line) yield JSON.parse(line) as WatchEvent;
        }
      }
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  }

  private fetch(method: string, path: string, body: unknown, contentType: string, signal?: AbortSignal) {
    const headers: Record<string, string> = { ...this.headers, accept: 'application/json' };
    if (body !== undefined) headers['content-type'] = contentType;
    return fetch(this.server + path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      ...(signal ? { signal } : {}),
      ...(this.dispatcher ? { dispatcher: this.dispatcher } : {}),
    });
  }
}
