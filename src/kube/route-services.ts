import type { Service } from '../types/kube.ts';
import type { Ingress } from '../types/routes.ts';
import type { Read, RouteServices } from '../types/snapshot.ts';
import type { KubeClient } from './client.ts';
import { isApiError } from './errors.ts';
import { R } from './resources.ts';
import { fetchQuery } from './snapshot.ts';
import { trimObject } from './trim.ts';

/** Up to this many namespaces are listed one by one (a user allowed some namespaces only reads those); beyond, one cluster-wide list. */
const PER_NAMESPACE = 8;

/** The namespaces of Ingresses that name a Service port by name (an Ingress names Services of its own namespace). */
export function portNameNamespaces(ingresses: Ingress[]): string[] {
  const named = (port: { name?: string | undefined } | undefined) => !!port?.name;
  const namespaces = new Set<string>();
  for (const ingress of ingresses) {
    const backends = [
      ingress.spec?.defaultBackend?.service,
      ...(ingress.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((p) => p.backend?.service)),
    ];
    if (backends.some((b) => named(b?.port))) namespaces.add(ingress.metadata.namespace ?? '');
  }
  return [...namespaces].sort();
}

/**
 * The Services an Ingress may name by port name, for the agent generation's one render (model/haptic/frozen-render.ts):
 * nothing when no Ingress names a port by name; the few namespaces that hold such Ingresses one list each, each
 * failure kept beside the namespace; many, one cluster-wide list, whose failure leaves all of them unread.
 */
export async function loadRouteServices(
  client: KubeClient,
  ingresses: Read<Ingress>,
): Promise<RouteServices | undefined> {
  const wanted = portNameNamespaces(ingresses.items);
  if (!wanted.length) return undefined;
  const reason = (err: unknown) => {
    if (isApiError(err)) return err.message;
    throw err;
  };
  if (wanted.length > PER_NAMESPACE) {
    try {
      const items = await fetchQuery<Service>(client, { resource: R.services, trim: trimObject });
      return { items, namespaces: wanted, unread: [] };
    } catch (err) {
      const why = `Services cannot be listed cluster-wide: ${reason(err)}`;
      return { items: [], namespaces: [], unread: wanted.map((namespace) => ({ namespace, reason: why })) };
    }
  }
  const lists = await Promise.all(
    wanted.map((namespace) =>
      fetchQuery<Service>(client, { resource: R.services, namespace, trim: trimObject }).then(
        (items) => ({ namespace, items, reason: undefined }),
        (err: unknown) => ({ namespace, items: [] as Service[], reason: reason(err) }),
      ),
    ),
  );
  return {
    items: lists.flatMap((l) => l.items),
    namespaces: lists.filter((l) => l.reason === undefined).map((l) => l.namespace),
    unread: lists.flatMap((l) => (l.reason === undefined ? [] : [{ namespace: l.namespace, reason: l.reason }])),
  };
}
