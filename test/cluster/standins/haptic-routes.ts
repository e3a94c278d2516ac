// Which Services HAPTIC renders backends for: those a route it watches references, by each generation's rules. Read
// in HAPTIC's repository (HAProxy-Template-IC/haproxy-template-ingress-controller); the dataplane generation at its
// HEAD (charts/haptic/libraries/*.yaml), the agent generation (module gitlab.com/haproxy-haptic/haptic, charts/haptic/
// charts/*/) for the agent and gate shapes — the gate release builds on the agent generation:
// - Which routes: the chart merges the libraries' watchedResources into the template config, the Ingress watch with
//   fieldSelector `spec.ingressClassName=<ingressClass.name>`, the Gateway watch `spec.gatewayClassName=<gatewayClass.
//   name>` (dataplane templates/_helpers.tpl; agent chart `inject:` of watchedResources.*.fieldSelector);
//   pkg/k8s/indexer/fieldselector.go reads `path=value` as an exact match (a missing field never matches).
//   HTTPRoutes and GRPCRoutes have no selector, and every one watched gets backends whatever its parentRefs:
//   dataplane gateway.yaml backends-500-gateway renders resources.httproutes.List(); the agent's gateway/30-backends.yaml
//   backenditems-500-gateway-http renders each route, checking only BackendRefValid (a Service that exists, and a
//   ReferenceGrant when it is in another namespace). TLSRoutes and TCPRoutes (agent only: gateway/22-ssl-passthrough.
//   yaml, gateway/90-tcproute.yaml) render when attached to a TLS (TCP) listener of a watched Gateway.
// - Backend names: Ingress `ing_<ns>_<ingress>_<service>_<port>` (dataplane ingress.yaml) or `<ns>_<ingress>_svc_
//   <service>_<port name, else number>` (agent ingress/library.yaml, util-backend-name-ingress); the agent also renders
//   spec.defaultBackend ("Default backend for"), the dataplane generation does not. HTTP/GRPC `gtw_<route ns>_<route>_
//   <service>_<port>` (port 80 when none); TLS `gtw_tls_<ns>_<route>_<rule>` from the rule's first backendRef (port
//   443 when none); TCP `gtw_tcp_<ns>_<route>_<rule>` from all of them (port 80). A backendRef to another namespace:
//   the agent renders the Service of that namespace when a ReferenceGrant there allows it, the dataplane generation
//   not at all ("not explicitly handled", docs/libraries/gateway.md).
// - Ports (dataplane base.yaml BackendServers; agent kubernetes-backends library.yaml ResolveServicePort and
//   BackendServersResult): the port's name is the reference's, else the name of the Service port of that number; with
//   a name, the slice port of that name (the agent skips slices without it; the dataplane falls back to the number);
//   without one, a slice's only port, else the number itself — so a number the Service lacks still renders servers.
//   An Ingress's port name the Service lacks: the dataplane generation takes port 80 and goes on; the agent's
//   ResolveServicePort fails the whole render (`fail("ResolveServicePort: Service … has no port named …")`).
// - Servers: the agent renders every endpoint, `disabled` when not ready or terminating (the gate release routes a
//   gated pod whose containers are ready: the seed's premise); the dataplane generation renders every address
//   `enabled` into a fixed pool of SRV_<n> slots, 10 by default, keeping a server's slot by its address:port across
//   renders (currentConfig) — see haproxy-render.ts.
// Pure: the template config and cached objects in, backends out.
import { findCondition, type Obj } from './common.ts';
import type { StatusShape } from './knobs.ts';

export type Server = { pod: string; ip: string; port: number; enabled: boolean };
/** A rendered backend: `namespace` is the Service's (a backendRef may cross namespaces); `mode tcp` for TLS and TCP. */
export type Backend = {
  name: string;
  namespace: string;
  service: string;
  hosts: string[];
  servers: Server[];
  tcp?: boolean;
};

export type RouteCaches = {
  ingresses: Obj[];
  gateways: Obj[];
  httpRoutes: Obj[];
  grpcRoutes: Obj[];
  tlsRoutes?: Obj[];
  tcpRoutes?: Obj[];
  referenceGrants?: Obj[];
};

/** The agent generation's whole render failed (ResolveServicePort on a port name the Service lacks). */
export class RenderFailure extends Error {}

type FieldSelector = { path: string[]; value: string };

/** HAPTIC's `path=value` field selector (pkg/k8s/indexer/fieldselector.go); undefined when there is none. */
function parseFieldSelector(text: unknown): FieldSelector | undefined {
  if (typeof text !== 'string' || !text.includes('=')) return undefined;
  const at = text.indexOf('=');
  return { path: text.slice(0, at).trim().split('.'), value: text.slice(at + 1).trim() };
}

function selects(selector: FieldSelector | undefined, object: Obj): boolean {
  if (!selector) return true;
  let value: any = object;
  for (const key of selector.path) value = value && typeof value === 'object' ? value[key] : undefined;
  return value !== undefined && value !== null && String(value) === selector.value;
}

function labelsMatch(text: unknown, object: Obj): boolean {
  if (typeof text !== 'string' || !text.trim()) return true;
  return text.split(',').every((pair) => {
    const [k, v] = pair.split('=');
    return object.metadata.labels?.[k!.trim()] === v?.trim();
  });
}

/** What an installation's template config watches: its watchedResources, keyed by resource plural. */
export type Watches = {
  ingresses?: Obj;
  gateways?: Obj;
  httproutes?: Obj;
  grpcroutes?: Obj;
  tlsroutes?: Obj;
  tcproutes?: Obj;
  referencegrants?: Obj;
};

export function watchesOf(templateConfig: Obj | undefined): Watches {
  const out: Record<string, Obj> = {};
  for (const watch of Object.values<any>(templateConfig?.spec?.watchedResources ?? {})) {
    if (watch && typeof watch.resources === 'string') out[watch.resources] = watch;
  }
  return out as Watches;
}

/** A route's reference to a Service: its backend name, the port as written and the hosts that lead to it. */
type Reference = {
  backend: string;
  namespace: string;
  service: string;
  port: { number?: number; name?: string };
  hosts: string[];
  tcp?: boolean;
};

const agentShape = (shape: StatusShape) => shape !== 'dataplane';

/** The agent's port identifier in an Ingress backend name: the port's name, the Service port's name, or the number. */
function portIdentifier(port: { number?: number; name?: string }, service: Obj | undefined): string {
  if (port.name) return port.name;
  const named = (service?.spec?.ports ?? []).find((p: { port?: number }) => p.port === port.number)?.name;
  return named || String(port.number ?? '');
}

function ingressReferences(ingresses: Obj[], watch: Obj | undefined, services: Obj[], shape: StatusShape): Reference[] {
  if (!watch) return [];
  const selector = parseFieldSelector(watch.fieldSelector);
  const refs = new Map<string, Reference>();
  for (const ingress of ingresses) {
    if (!selects(selector, ingress) || !labelsMatch(watch.labelSelector, ingress)) continue;
    const { namespace = '', name } = ingress.metadata;
    const add = (svc: any, host: string | undefined) => {
      if (!svc?.name) return;
      const port = svc.port?.name ? { name: svc.port.name } : { number: svc.port?.number ?? 80 };
      const service = services.find((s) => s.metadata.namespace === namespace && s.metadata.name === svc.name);
      if (
        agentShape(shape) &&
        port.name &&
        service &&
        !(service.spec?.ports ?? []).some((p: any) => p.name === port.name)
      )
        throw new RenderFailure(
          `ResolveServicePort: Service ${namespace}/${svc.name} has no port named '${port.name}' (available: [${(service.spec?.ports ?? []).map((p: any) => p.name || p.port).join(' ')}])`,
        );
      const backend = agentShape(shape)
        ? `${namespace}_${name}_svc_${svc.name}_${portIdentifier(port, service)}`
        : `ing_${namespace}_${name}_${svc.name}_${svc.port?.name || (svc.port?.number ?? '')}`;
      const ref: Reference = refs.get(backend) ?? { backend, namespace, service: svc.name, port, hosts: [] };
      if (host && !ref.hosts.includes(host)) ref.hosts.push(host);
      refs.set(backend, ref);
    };
    for (const rule of ingress.spec?.rules ?? []) {
      for (const path of rule?.http?.paths ?? []) add(path?.backend?.service, rule.host);
    }
    if (agentShape(shape)) add(ingress.spec?.defaultBackend?.service, undefined);
  }
  return [...refs.values()];
}

/** Whether a ReferenceGrant of the Service's namespace lets routes of `kind` in `from` reach the Service. */
function granted(grants: Obj[], kind: string, from: string, to: { namespace: string; name: string }): boolean {
  return grants.some(
    (g) =>
      g.metadata.namespace === to.namespace &&
      (g.spec?.from ?? []).some(
        (f: any) => f?.group === 'gateway.networking.k8s.io' && f.kind === kind && f.namespace === from,
      ) &&
      (g.spec?.to ?? []).some(
        (t: any) => (t?.group ?? '') === '' && t.kind === 'Service' && (!t.name || t.name === to.name),
      ),
  );
}

/** The Service a backendRef reaches, or undefined when the generation does not render it (BackendRefValid). */
function backendTarget(
  ref: any,
  kind: string,
  routeNamespace: string,
  caches: RouteCaches,
  services: Obj[],
  shape: StatusShape,
): { namespace: string; name: string } | undefined {
  if (!ref?.name || (ref.group ?? '') !== '' || (ref.kind ?? 'Service') !== 'Service') return undefined;
  const target = { namespace: ref.namespace ?? routeNamespace, name: ref.name as string };
  if (target.namespace !== routeNamespace) {
    if (!agentShape(shape) || !granted(caches.referenceGrants ?? [], kind, routeNamespace, target)) return undefined;
  }
  // the agent renders a backendRef to a Service that exists; the dataplane generation renders any
  const exists = services.some((s) => s.metadata.namespace === target.namespace && s.metadata.name === target.name);
  return !agentShape(shape) || exists ? target : undefined;
}

function gatewayReferences(
  caches: RouteCaches,
  services: Obj[],
  watches: Watches,
  kind: 'httproutes' | 'grpcroutes',
  shape: StatusShape,
): Reference[] {
  if (!watches[kind]) return [];
  const routeKind = kind === 'httproutes' ? 'HTTPRoute' : 'GRPCRoute';
  const refs = new Map<string, Reference>();
  for (const route of kind === 'httproutes' ? caches.httpRoutes : caches.grpcRoutes) {
    const { namespace = '', name } = route.metadata;
    for (const rule of route.spec?.rules ?? []) {
      for (const ref of rule?.backendRefs ?? []) {
        const target = backendTarget(ref, routeKind, namespace, caches, services, shape);
        if (!target) continue;
        const port = ref.port ?? 80;
        const backend = `gtw_${namespace}_${name}_${ref.name}_${port}`;
        const hosts = (route.spec?.hostnames ?? []).filter((h: unknown) => typeof h === 'string');
        if (!refs.has(backend))
          refs.set(backend, {
            backend,
            namespace: target.namespace,
            service: target.name,
            port: { number: port },
            hosts,
          });
      }
    }
  }
  return [...refs.values()];
}

/** TLSRoutes and TCPRoutes on a listener of their protocol of a Gateway the installation watches (agent only). */
function listenerReferences(caches: RouteCaches, services: Obj[], watches: Watches, shape: StatusShape): Reference[] {
  if (!agentShape(shape) || !watches.gateways) return [];
  const selector = parseFieldSelector(watches.gateways.fieldSelector);
  const refs: Reference[] = [];
  for (const [kind, plural, protocol, prefix, defaultPort] of [
    ['TLSRoute', 'tlsroutes', 'TLS', 'gtw_tls', 443],
    ['TCPRoute', 'tcproutes', 'TCP', 'gtw_tcp', 80],
  ] as const) {
    if (!watches[plural]) continue;
    for (const route of (kind === 'TLSRoute' ? caches.tlsRoutes : caches.tcpRoutes) ?? []) {
      const { namespace = '', name } = route.metadata;
      const attached = (route.spec?.parentRefs ?? []).some((p: any) => {
        if ((p?.group ?? 'gateway.networking.k8s.io') !== 'gateway.networking.k8s.io') return false;
        if ((p?.kind ?? 'Gateway') !== 'Gateway') return false;
        const gateway = caches.gateways.find(
          (g) => g.metadata.name === p.name && g.metadata.namespace === (p.namespace ?? namespace),
        );
        return (
          !!gateway &&
          selects(selector, gateway) &&
          (gateway.spec?.listeners ?? []).some(
            (l: any) => l?.protocol === protocol && (!p.sectionName || p.sectionName === l.name),
          )
        );
      });
      if (!attached) continue;
      (route.spec?.rules ?? []).forEach((rule: any, index: number) => {
        const backendRefs = (rule?.backendRefs ?? []).slice(0, kind === 'TLSRoute' ? 1 : undefined);
        for (const ref of backendRefs) {
          const target = backendTarget(ref, kind, namespace, caches, services, shape);
          if (!target) continue;
          refs.push({
            backend: `${prefix}_${namespace}_${name}_${index}`,
            namespace: target.namespace,
            service: target.name,
            port: { number: ref.port ?? defaultPort },
            hosts: [],
            tcp: true,
          });
        }
      });
    }
  }
  return refs;
}

export function serverEnabled(
  endpoint: any,
  pod: Obj | undefined,
  gate: string | undefined,
  shape: StatusShape = 'gate',
): boolean {
  if (shape === 'dataplane') return true;
  if (endpoint.conditions?.terminating === true) return false;
  if (endpoint.conditions?.ready !== false) return true;
  if (!gate || !pod || pod.metadata.deletionTimestamp) return false;
  const gated = (pod.spec.readinessGates ?? []).some((g: { conditionType: string }) => g.conditionType === gate);
  return gated && findCondition(pod.status?.conditions, 'ContainersReady')?.status === 'True';
}

/** The EndpointSlice port a reference reaches, per generation (the header says which library each follows). */
function slicePort(
  service: Obj | undefined,
  slice: Obj,
  port: Reference['port'],
  shape: StatusShape,
): number | undefined {
  const ports: { name?: string; port?: number }[] = service?.spec?.ports ?? [];
  const slicePorts: { name?: string; port?: number }[] = slice.ports ?? [];
  if (!agentShape(shape)) {
    // an Ingress's named port is `port.number | fallback(80)` to the dataplane generation
    const number = port.number ?? 80;
    const name = ports.find((p) => p.port === number)?.name ?? '';
    if (name) return slicePorts.find((p) => (p.name ?? '') === name)?.port ?? number;
    return slicePorts.length === 1 ? slicePorts[0]!.port : number;
  }
  const name = port.name ?? ports.find((p) => p.port === port.number)?.name ?? '';
  // the agent skips a slice without the named port ("never fall back to the Service port")
  if (name) return slicePorts.find((p) => (p.name ?? '') === name)?.port;
  return slicePorts.length === 1 ? slicePorts[0]!.port : port.number;
}

/**
 * The backends one installation renders: for each Service reference of a route it watches, the endpoints of the
 * Service's slices at the referenced port. `gate` is the condition type when the readiness gate feature is on
 * (gated pods with ready containers are routed), undefined when it is off. Throws RenderFailure when the agent
 * generation's render fails as a whole.
 */
export function backendsFor(
  templateConfig: Obj | undefined,
  routes: RouteCaches,
  services: Obj[],
  slices: Obj[],
  pods: (key: string) => Obj | undefined,
  gate: string | undefined,
  shape: StatusShape = 'gate',
): Backend[] {
  const watches = watchesOf(templateConfig);
  const references = [
    ...ingressReferences(routes.ingresses, watches.ingresses, services, shape),
    ...gatewayReferences(routes, services, watches, 'httproutes', shape),
    ...gatewayReferences(routes, services, watches, 'grpcroutes', shape),
    ...listenerReferences(routes, services, watches, shape),
  ];
  const backends: Backend[] = [];
  for (const ref of references) {
    const svc = services.find((s) => s.metadata.namespace === ref.namespace && s.metadata.name === ref.service);
    const servers = new Map<string, Server>();
    const own = slices.filter(
      (s) =>
        s.metadata.namespace === ref.namespace && s.metadata.labels?.['kubernetes.io/service-name'] === ref.service,
    );
    for (const slice of own) {
      const port = slicePort(svc, slice, ref.port, shape);
      if (!port) continue;
      for (const endpoint of slice.endpoints ?? []) {
        const target = endpoint.targetRef;
        if (target?.kind !== 'Pod' || servers.has(target.name) || !endpoint.addresses?.[0]) continue;
        const enabled = serverEnabled(endpoint, pods(`${ref.namespace}/${target.name}`), gate, shape);
        servers.set(target.name, { pod: target.name, ip: endpoint.addresses[0], port, enabled });
      }
    }
    const sorted = [...servers.values()].sort((a, b) => a.pod.localeCompare(b.pod));
    backends.push({
      name: ref.backend,
      namespace: ref.namespace,
      service: ref.service,
      hosts: ref.hosts,
      servers: sorted,
      ...(ref.tcp ? { tcp: true } : {}),
    });
  }
  // a TCPRoute rule's backendRefs pool into one backend
  const merged = new Map<string, Backend>();
  for (const b of backends) {
    const had = merged.get(b.name);
    if (had) had.servers.push(...b.servers.filter((s) => !had.servers.some((x) => x.pod === s.pod)));
    else merged.set(b.name, b);
  }
  return [...merged.values()].sort((a, b) => a.name.localeCompare(b.name));
}
