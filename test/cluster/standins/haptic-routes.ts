// Which Services HAPTIC renders backends for: those a route it watches references. Read in HAPTIC's repository
// (HAProxy-Template-IC/haproxy-template-ingress-controller):
// - charts/haptic/templates/_helpers.tpl merges the libraries' watchedResources into the template config and sets
//   the Ingress watch's fieldSelector to `spec.ingressClassName=<ingressClass.name>` and the Gateway watch's to
//   `spec.gatewayClassName=<gatewayClass.name>` (both `haproxy` in values.yaml); pkg/k8s/indexer/fieldselector.go
//   reads `path=value` as an exact match of the value at that path (a missing field never matches).
// - charts/haptic/libraries/ingress.yaml (GenerateIngressBackends): one backend per distinct (Ingress, Service,
//   port) of spec.rules[].http.paths[], named `ing_<ns>_<ingress>_<service>_<port name or number>`; spec.defaultBackend
//   is not rendered.
// - charts/haptic/libraries/gateway.yaml (GenerateGatewayBackends): one backend per distinct (route, Service, port)
//   of spec.rules[].backendRefs[], named `gtw_<ns>_<route>_<service>_<port>`, port 80 when none. Which routes count:
//   docs/libraries/gateway.md lists `parentRefs[].name` as the Gateway reference; the gate and agent generations
//   render a route when one parent is a Gateway the installation watches; the dataplane generation's library (HEAD)
//   renders every route it watches without looking at parents. backendRefs to another namespace are "not explicitly
//   handled" (the same page): not rendered.
// - Servers (charts/haptic/libraries/base.yaml, BackendServers, for the dataplane generation): the Service port is
//   the route's number (an Ingress's named port falls back to 80), its name is looked up on the Service to pick the
//   EndpointSlice port by name, else a slice's only port, else the number itself. The gate and agent generations'
//   kubernetes-backends library renders the endpoints of the Service port the route names (by number or name); a port
//   the Service lacks renders a backend without servers.
// Pure: the template config and cached objects in, backends out.
import { findCondition, type Obj } from './common.ts';
import type { StatusShape } from './knobs.ts';

export type Server = { pod: string; ip: string; port: number; enabled: boolean };
export type Backend = { name: string; namespace: string; service: string; hosts: string[]; servers: Server[] };

export type RouteCaches = { ingresses: Obj[]; gateways: Obj[]; httpRoutes: Obj[]; grpcRoutes: Obj[] };

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
export type Watches = { ingresses?: Obj; gateways?: Obj; httproutes?: Obj; grpcroutes?: Obj };

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
};

function ingressReferences(ingresses: Obj[], watch: Obj | undefined): Reference[] {
  if (!watch) return [];
  const selector = parseFieldSelector(watch.fieldSelector);
  const refs = new Map<string, Reference>();
  for (const ingress of ingresses) {
    if (!selects(selector, ingress) || !labelsMatch(watch.labelSelector, ingress)) continue;
    const { namespace = '', name } = ingress.metadata;
    for (const rule of ingress.spec?.rules ?? []) {
      for (const path of rule?.http?.paths ?? []) {
        const svc = path?.backend?.service;
        if (!svc?.name) continue;
        const portId = svc.port?.name || (svc.port?.number ?? '');
        const backend = `ing_${namespace}_${name}_${svc.name}_${portId}`;
        const ref: Reference = refs.get(backend) ?? {
          backend,
          namespace,
          service: svc.name,
          port: svc.port?.name ? { name: svc.port.name } : { number: svc.port?.number ?? 80 },
          hosts: [],
        };
        if (rule.host && !ref.hosts.includes(rule.host)) ref.hosts.push(rule.host);
        refs.set(backend, ref);
      }
    }
  }
  return [...refs.values()];
}

function gatewayReferences(
  routes: Obj[],
  gateways: Obj[],
  watches: Watches,
  kind: 'httproutes' | 'grpcroutes',
  shape: StatusShape,
): Reference[] {
  if (!watches[kind] || !watches.gateways) return [];
  const selector = parseFieldSelector(watches.gateways.fieldSelector);
  const watched = gateways.filter((g) => selects(selector, g));
  const refs = new Map<string, Reference>();
  for (const route of routes) {
    const { namespace = '', name } = route.metadata;
    const attached = (route.spec?.parentRefs ?? []).some(
      (p: any) =>
        (p?.group ?? 'gateway.networking.k8s.io') === 'gateway.networking.k8s.io' &&
        (p?.kind ?? 'Gateway') === 'Gateway' &&
        watched.some((g) => g.metadata.name === p.name && g.metadata.namespace === (p.namespace ?? namespace)),
    );
    if (shape !== 'dataplane' && !attached) continue;
    for (const rule of route.spec?.rules ?? []) {
      for (const ref of rule?.backendRefs ?? []) {
        if (!ref?.name || (ref.kind ?? 'Service') !== 'Service' || (ref.namespace ?? namespace) !== namespace) continue;
        const port = ref.port ?? 80;
        const backend = `gtw_${namespace}_${name}_${ref.name}_${port}`;
        const hosts = (route.spec?.hostnames ?? []).filter((h: unknown) => typeof h === 'string');
        if (!refs.has(backend))
          refs.set(backend, { backend, namespace, service: ref.name, port: { number: port }, hosts });
      }
    }
  }
  return [...refs.values()];
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
function slicePort(service: Obj, slice: Obj, port: Reference['port'], shape: StatusShape): number | undefined {
  const ports: { name?: string; port?: number }[] = service.spec?.ports ?? [];
  const slicePorts: { name?: string; port?: number }[] = slice.ports ?? [];
  if (shape === 'dataplane') {
    const number = port.number ?? 80;
    const name = ports.find((p) => p.port === number)?.name ?? '';
    if (name) return slicePorts.find((p) => (p.name ?? '') === name)?.port ?? number;
    return slicePorts.length === 1 ? slicePorts[0]!.port : number;
  }
  const servicePort =
    port.name !== undefined ? ports.find((p) => p.name === port.name) : ports.find((p) => p.port === port.number);
  if (!servicePort) return undefined;
  return slicePorts.find((p) => (p.name ?? '') === (servicePort.name ?? ''))?.port;
}

/**
 * The backends one installation renders: for each Service reference of a route it watches, the endpoints of the
 * Service's slices at the referenced port. `gate` is the condition type when the readiness gate feature is on
 * (gated pods with ready containers are routed), undefined when it is off.
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
    ...ingressReferences(routes.ingresses, watches.ingresses),
    ...gatewayReferences(routes.httpRoutes, routes.gateways, watches, 'httproutes', shape),
    ...gatewayReferences(routes.grpcRoutes, routes.gateways, watches, 'grpcroutes', shape),
  ];
  const backends: Backend[] = [];
  for (const ref of references) {
    const svc = services.find((s) => s.metadata.namespace === ref.namespace && s.metadata.name === ref.service);
    const servers = new Map<string, Server>();
    const own = svc
      ? slices.filter(
          (s) =>
            s.metadata.namespace === ref.namespace && s.metadata.labels?.['kubernetes.io/service-name'] === ref.service,
        )
      : [];
    for (const slice of own) {
      const port = slicePort(svc!, slice, ref.port, shape);
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
    });
  }
  return backends.sort((a, b) => a.name.localeCompare(b.name));
}
