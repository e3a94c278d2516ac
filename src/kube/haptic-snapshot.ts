import { HAPTIC_PODS_SELECTOR } from '../haptic/names.ts';
import type { Lease } from '../types/kube.ts';
import type { HapticInputs } from '../types/snapshot.ts';
import type { KubeClient } from './client.ts';
import type { ApiError } from './errors.ts';
import { R } from './resources.ts';
import { loadRouteServices } from './route-services.ts';
import { fetchAll, fetchQuery, type Fetched } from './snapshot.ts';
import { trimHAProxyCfg, trimObject as trim } from './trim.ts';

/**
 * Everything about HAPTIC installations, cluster-wide: template configs, rendered configs, HAPTIC's pods, the
 * RBAC that says whether the gate feature is on, and the routes it may render (Ingresses, Gateways, HTTP, GRPC, TLS
 * and TCP routes, ReferenceGrants; a cluster without the Gateway API, or without its experimental kinds, answers
 * NotFound, kept as such) — one parallel round; the Leases of each installation namespace
 * are asked for as soon as the template configs are known, and the Services that Ingresses name by port name once the
 * Ingresses are (route-services.ts). A user who may not read some of it gets the rest.
 * Objects come without their managedFields (trimObject), which nothing reads.
 */
export async function loadHaptic(client: KubeClient): Promise<HapticInputs> {
  const templateConfigs = fetchAll(client, {
    templateConfigs: { resource: R.haproxytemplateconfigs, optional: true, trim },
  });
  const leases = templateConfigs.then(async ({ templateConfigs: htcs }): Promise<Fetched<Lease>> => {
    const namespaces = [...new Set(htcs.items.map((h) => h.metadata.namespace ?? ''))];
    try {
      const lists = await Promise.all(
        namespaces.map((namespace) => fetchQuery<Lease>(client, { resource: R.leases, namespace, trim })),
      );
      return { items: lists.flat() };
    } catch (err) {
      return { items: [], error: err as ApiError };
    }
  });
  const [first, rest, leaseList] = await Promise.all([
    templateConfigs,
    fetchAll(client, {
      haproxyCfgs: { resource: R.haproxycfgs, optional: true, trim: trimHAProxyCfg },
      pods: { resource: R.pods, labelSelector: HAPTIC_PODS_SELECTOR, optional: true, trim },
      clusterRoles: { resource: R.clusterroles, optional: true, trim },
      clusterRoleBindings: { resource: R.clusterrolebindings, optional: true, trim },
      ingresses: { resource: R.ingresses, optional: true, trim },
      gateways: { resource: R.gateways, optional: true, trim },
      httpRoutes: { resource: R.httproutes, optional: true, trim },
      grpcRoutes: { resource: R.grpcroutes, optional: true, trim },
      tlsRoutes: { resource: R.tlsroutes, optional: true, trim },
      tcpRoutes: { resource: R.tcproutes, optional: true, trim },
      referenceGrants: { resource: R.referencegrants, optional: true, trim },
    }),
    leases,
  ]);
  // the Services Ingresses name by port name, once the Ingresses are known (none asked for when none does)
  const routeServices = await loadRouteServices(client, rest.ingresses);
  return { ...first, ...rest, leases: leaseList, ...(routeServices ? { routeServices } : {}) } as HapticInputs;
}
