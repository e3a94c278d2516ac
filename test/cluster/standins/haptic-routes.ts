// Which Services HAPTIC renders backends for: those a route it watches references, by each generation's rules. Read
// in HAPTIC's repository (HAProxy-Template-IC/haproxy-template-ingress-controller); the dataplane generation at its
// HEAD (charts/haptic/libraries/*.yaml), the agent generation (module gitlab.com/haproxy-haptic/haptic, charts/haptic/
// charts/*/ of the same repository's later history) for the agent and gate shapes — the gate release builds on the
// agent generation:
// - Which routes: the chart merges the libraries' watchedResources into the template config, the Ingress watch with
//   fieldSelector `spec.ingressClassName=<ingressClass.name>`, the Gateway watch `spec.gatewayClassName=<gatewayClass.
//   name>` (dataplane templates/_helpers.tpl; agent chart `inject:` of watchedResources.*.fieldSelector);
//   pkg/k8s/indexer/fieldselector.go reads `path=value` as an exact match (a missing field never matches).
//   HTTPRoutes and GRPCRoutes have no selector, and every one watched gets backends whatever its parentRefs:
//   dataplane gateway.yaml backends-500-gateway renders resources.httproutes.List(); the agent's gateway/30-backends.yaml
//   renders each route, checking only BackendRefValid (gateway/21-route-helpers.yaml: a core Service that exists, and
//   a ReferenceGrant when it is in another namespace).
// - TLSRoutes (agent, gateway/22-ssl-passthrough.yaml PublishGatewayTLSSSLPassthrough; backends-501 in 30-backends.yaml):
//   a rule renders `gtw_tls_<ns>_<route>_<rule>` from its first backendRef (port 443 when none) when every backendRef
//   of the rule resolves and the route attaches: a parentRef to a watched Gateway (group and kind default), its
//   listeners filtered by the parentRef's sectionName and port, protocol TLS, tls.mode Passthrough or Terminate (none:
//   Terminate) and not on a port holding both, allowedRoutes.kinds (none: TLSRoute), allowedRoutes.namespaces (from
//   Same, the default; All; Selector by matchLabels, against the namespace's labels), and the route's hostnames —
//   required — intersecting the listener's hostname (21-route-helpers.yaml HostnameSinglePairIntersection).
// - TCPRoutes (agent, gateway/90-tcproute.yaml util-gateway-tcproute-analysis, backends-502): the same attachment on
//   TCP listeners (port > 0), no hostnames; a rule's valid backendRefs (a core Service that exists, a ReferenceGrant
//   across namespaces; port 80 when none) make `gtw_tcp_<ns>_<route>_<rule>`, the first alone or all of them pooled;
//   a listener port belongs to one (route, rule) across every Gateway: the oldest route (creationTimestamp, none
//   last, then namespace/name; within a route its first rule), and a rule that keeps no port is not rendered.
// - Default backends (agent only): nginx-ingress/17-default-backend.yaml and haptic-annotations/40-features.yaml read
//   `nginx.ingress.kubernetes.io/default-backend` and `haproxy-haptic.org/default-backend` (`<svc>` or `<ns>/<svc>`)
//   on the watched Ingresses: a Service that exists renders `<ingress ns>_<ingress>_default-backend_<svc>` from its
//   first port, when the template config runs that library (libraryRefs `<config>-<library>`, or the snippet
//   inline). The chart's `extraContext.defaultBackendService` {namespace, name, port} renders `default_backend`
//   (kubernetes-backends/library.yaml default-backend-100-kubernetes).
// - Backend names: Ingress `ing_<ns>_<ingress>_<service>_<port>` (dataplane ingress.yaml) or `<ns>_<ingress>_svc_
//   <service>_<port name, else number>` (agent ingress/library.yaml, util-backend-name-ingress); the agent also renders
//   spec.defaultBackend ("Default backend for"), the dataplane generation does not. HTTP/GRPC `gtw_<route ns>_<route>_
//   <service>_<port>` (port 80 when none).
// - By name (dataplane): base.yaml BackendServers reads `resources.endpoints.Fetch(serviceName)`, over the chart's
//   EndpointSlice index `metadata.labels.kubernetes\.io/service-name` (values.yaml, merged over the libraries last:
//   templates/_helpers.tpl), so every namespace's slices of that Service name (pkg/k8s/store/memory.go); a port name
//   comes from the Service in the first of them (namespace, then name). Its gateway.yaml reads only a backendRef's
//   name and port, its ingress.yaml only the Service's name: a backendRef to another namespace, or to a Service of the
//   same name in any namespace, renders the same servers.
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
  /** the cluster's Namespaces, for listeners that admit routes by namespace selector (none: no namespace matches) */
  namespaces?: Obj[];
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

/**
 * A route's reference to a Service: its backend name, the port as written and the hosts that lead to it. `byName`:
 * the dataplane generation's, from every namespace's EndpointSlices of the Service's name.
 */
type Reference = {
  backend: string;
  namespace: string;
  service: string;
  port: { number?: number; name?: string };
  hosts: string[];
  tcp?: boolean;
  byName?: boolean;
};

const agentShape = (shape: StatusShape) => shape !== 'dataplane';
const GATEWAY_GROUP = 'gateway.networking.k8s.io';
const serviceOf = (services: Obj[], namespace: string, name: string) =>
  services.find((s) => s.metadata.namespace === namespace && s.metadata.name === name);

/** The agent's port identifier in an Ingress backend name: the port's name, the Service port's name, or the number. */
function portIdentifier(port: { number?: number; name?: string }, service: Obj | undefined): string {
  if (port.name) return port.name;
  const named = (service?.spec?.ports ?? []).find((p: { port?: number }) => p.port === port.number)?.name;
  return named || String(port.number ?? '');
}

/** The annotations naming an Ingress's default backend, their library and the snippet that renders them. */
const DEFAULT_BACKEND_ANNOTATIONS = [
  ['nginx.ingress.kubernetes.io/default-backend', 'nginx-ingress', 'backends-510-nginx-ingress-default-backend'],
  ['haproxy-haptic.org/default-backend', 'haptic-annotations', 'backends-850-haptic-default-backend'],
] as const;

/** Whether the template config runs a library: a libraryRef `<config>-<library>`, or its snippet inline. */
function runsLibrary(templateConfig: Obj | undefined, library: string, snippet: string): boolean {
  const refs: unknown[] = templateConfig?.spec?.libraryRefs ?? [];
  const name = `${templateConfig?.metadata?.name}-${library}`;
  if (refs.some((r: any) => r?.name === name)) return true;
  const snippets = templateConfig?.spec?.templateSnippets;
  return !!snippets && typeof snippets === 'object' && snippet in snippets;
}

function ingressReferences(
  ingresses: Obj[],
  watch: Obj | undefined,
  services: Obj[],
  shape: StatusShape,
  templateConfig: Obj | undefined,
): Reference[] {
  if (!watch) return [];
  const selector = parseFieldSelector(watch.fieldSelector);
  const refs = new Map<string, Reference>();
  const annotations = agentShape(shape)
    ? DEFAULT_BACKEND_ANNOTATIONS.filter(([, library, snippet]) => runsLibrary(templateConfig, library, snippet))
    : [];
  for (const ingress of ingresses) {
    if (!selects(selector, ingress) || !labelsMatch(watch.labelSelector, ingress)) continue;
    const { namespace = '', name } = ingress.metadata;
    const add = (svc: any, host: string | undefined) => {
      if (!svc?.name) return;
      const port = svc.port?.name ? { name: svc.port.name } : { number: svc.port?.number ?? 80 };
      const service = serviceOf(services, namespace, svc.name);
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
      const ref: Reference = refs.get(backend) ?? {
        backend,
        namespace,
        service: svc.name,
        port,
        hosts: [],
        ...(agentShape(shape) ? {} : { byName: true }),
      };
      if (host && !ref.hosts.includes(host)) ref.hosts.push(host);
      refs.set(backend, ref);
    };
    for (const rule of ingress.spec?.rules ?? []) {
      for (const path of rule?.http?.paths ?? []) add(path?.backend?.service, rule.host);
    }
    if (agentShape(shape)) add(ingress.spec?.defaultBackend?.service, undefined);
    // a default backend named by annotation: a Service that exists, at its first port (no ReferenceGrant asked for)
    for (const [annotation] of annotations) {
      const value = ingress.metadata.annotations?.[annotation];
      if (typeof value !== 'string' || !value) continue;
      const parts = value.split('/');
      const [svcNs, svcName] = value.includes('/') ? [parts[0] ?? '', parts[1] ?? ''] : [namespace, value];
      const first = serviceOf(services, svcNs, svcName)?.spec?.ports?.[0];
      if (!first || !(first.port > 0)) continue;
      const backend = `${namespace}_${name}_default-backend_${svcName}`;
      if (refs.has(backend)) continue;
      const hosts = (ingress.spec?.rules ?? []).map((r: any) => r?.host).filter((h: unknown) => typeof h === 'string');
      refs.set(backend, {
        backend,
        namespace: svcNs,
        service: svcName,
        port: first.name ? { name: first.name, number: first.port } : { number: first.port },
        hosts: [...new Set<string>(hosts)],
      });
    }
  }
  return [...refs.values()];
}

/** The chart's default backend, `extraContext.defaultBackendService` (agent: kubernetes-backends/library.yaml). */
function defaultBackendReference(templateConfig: Obj | undefined, services: Obj[], shape: StatusShape): Reference[] {
  const db = templateConfig?.spec?.templatingSettings?.extraContext?.defaultBackendService;
  if (!agentShape(shape) || !db || typeof db.name !== 'string' || typeof db.namespace !== 'string') return [];
  const raw = db.port;
  const port =
    raw && typeof raw === 'object' && raw.name
      ? { name: String(raw.name) }
      : { number: typeof raw === 'number' ? raw : Number(raw?.number ?? 0) };
  const service = serviceOf(services, db.namespace, db.name);
  if (port.name && service && !(service.spec?.ports ?? []).some((p: any) => p.name === port.name))
    throw new RenderFailure(`ResolveServicePort: Service ${db.namespace}/${db.name} has no port named '${port.name}'`);
  return [{ backend: 'default_backend', namespace: db.namespace, service: db.name, port, hosts: [] }];
}

/** Whether a ReferenceGrant of the Service's namespace lets routes of `kind` in `from` reach the Service. */
function granted(grants: Obj[], kind: string, from: string, to: { namespace: string; name: string }): boolean {
  return grants.some(
    (g) =>
      g.metadata.namespace === to.namespace &&
      (g.spec?.from ?? []).some((f: any) => f?.group === GATEWAY_GROUP && f.kind === kind && f.namespace === from) &&
      (g.spec?.to ?? []).some(
        (t: any) => (t?.group ?? '') === '' && t.kind === 'Service' && (!t.name || t.name === to.name),
      ),
  );
}

const coreService = (ref: any) =>
  !!ref?.name && (!ref.group || ref.group === 'core') && (ref.kind || 'Service') === 'Service';

/** The Service an agent backendRef reaches, or undefined when it does not resolve (BackendRefValid). */
function agentTarget(
  ref: any,
  kind: string,
  routeNamespace: string,
  caches: RouteCaches,
  services: Obj[],
): { namespace: string; name: string } | undefined {
  if (!coreService(ref)) return undefined;
  const target = { namespace: ref.namespace || routeNamespace, name: ref.name as string };
  if (target.namespace !== routeNamespace && !granted(caches.referenceGrants ?? [], kind, routeNamespace, target))
    return undefined;
  return serviceOf(services, target.namespace, target.name) ? target : undefined;
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
        if (!ref?.name) continue;
        // the dataplane generation reads only a backendRef's name and port (gateway.yaml GenerateGatewayBackends)
        const target = agentShape(shape)
          ? agentTarget(ref, routeKind, namespace, caches, services)
          : { namespace: ref.namespace || namespace, name: ref.name };
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
            ...(agentShape(shape) ? {} : { byName: true }),
          });
      }
    }
  }
  return [...refs.values()];
}

/** The Gateway API's hostname intersection (21-route-helpers.yaml HostnameSinglePairIntersection), '' for none. */
export function hostnameIntersection(listener: string, route: string): string {
  const wild = (h: string) => h.startsWith('*.');
  if (listener === route) return listener;
  if (wild(listener) && !wild(route)) {
    const base = `.${listener.slice(2)}`;
    return route.endsWith(base) && route.length > base.length ? route : '';
  }
  if (!wild(listener) && wild(route)) {
    const base = `.${route.slice(2)}`;
    return listener.endsWith(base) && listener.length > base.length ? listener : '';
  }
  if (wild(listener) && wild(route)) {
    const l = listener.slice(2);
    const r = route.slice(2);
    if (l === r || l.endsWith(`.${r}`)) return listener;
    if (r.endsWith(`.${l}`)) return route;
  }
  return '';
}

/** The listener ports a TLS or TCP route attaches to (the templates' listener-attachment filters). */
function attachedPorts(
  kind: 'TLSRoute' | 'TCPRoute',
  route: Obj,
  caches: RouteCaches,
  selector: FieldSelector | undefined,
): number[] {
  const protocol = kind === 'TLSRoute' ? 'TLS' : 'TCP';
  const routeNs = route.metadata.namespace ?? '';
  const hostnames: string[] = (route.spec?.hostnames ?? []).filter((h: unknown) => typeof h === 'string');
  const ports: number[] = [];
  for (const parent of route.spec?.parentRefs ?? []) {
    if ((parent?.group || GATEWAY_GROUP) !== GATEWAY_GROUP || (parent?.kind || 'Gateway') !== 'Gateway') continue;
    const gatewayNs = parent.namespace || routeNs;
    const gateway = caches.gateways.find((g) => g.metadata.name === parent.name && g.metadata.namespace === gatewayNs);
    if (!gateway || !selects(selector, gateway)) continue;
    const listeners: any[] = (gateway.spec?.listeners ?? []).filter((l: unknown) => l && typeof l === 'object');
    const modes = new Map<number, Set<string>>();
    for (const l of listeners.filter((l) => l.protocol === 'TLS')) {
      const set = modes.get(Number(l.port) || 0) ?? new Set<string>();
      set.add(l.tls?.mode || 'Terminate');
      modes.set(Number(l.port) || 0, set);
    }
    for (const l of listeners) {
      const port = Number(l.port) || 0;
      if (l.protocol !== protocol || (protocol === 'TCP' && port <= 0)) continue;
      if (parent.sectionName && parent.sectionName !== l.name) continue;
      if (parent.port && Number(parent.port) !== port) continue;
      if (protocol === 'TLS') {
        const mode = l.tls?.mode || 'Terminate';
        if (mode !== 'Passthrough' && mode !== 'Terminate') continue;
        const set = modes.get(port);
        if (set?.has('Passthrough') && set.has('Terminate')) continue;
      }
      const kinds: any[] = l.allowedRoutes?.kinds ?? [];
      if (kinds.length && !kinds.some((k) => (k?.group || GATEWAY_GROUP) === GATEWAY_GROUP && k?.kind === kind))
        continue;
      if (!namespaceAdmitted(l, routeNs, gatewayNs, caches.namespaces ?? [])) continue;
      if (protocol === 'TLS') {
        if (!hostnames.length) continue;
        const host = typeof l.hostname === 'string' ? l.hostname : '';
        if (host && !hostnames.some((h) => hostnameIntersection(host, h))) continue;
      }
      ports.push(port);
    }
  }
  return ports;
}

/** allowedRoutes.namespaces: from Same (the default), All, or Selector by matchLabels against the route's namespace. */
function namespaceAdmitted(listener: any, routeNs: string, gatewayNs: string, namespaces: Obj[]): boolean {
  const from = listener.allowedRoutes?.namespaces?.from || 'Same';
  if (from === 'Same') return routeNs === gatewayNs;
  if (from === 'All') return true;
  if (from !== 'Selector') return false;
  const match = listener.allowedRoutes?.namespaces?.selector?.matchLabels;
  if (!match || typeof match !== 'object') return false;
  const namespace = namespaces.find((n) => n.metadata.name === routeNs);
  return !!namespace && Object.entries(match).every(([k, v]) => namespace.metadata.labels?.[k] === v);
}

/** TLSRoute rules attached to a TLS listener whose backendRefs all resolve: one backend from the first (agent). */
function tlsReferences(caches: RouteCaches, services: Obj[], watches: Watches): Reference[] {
  if (!watches.tlsroutes || !watches.gateways) return [];
  const selector = parseFieldSelector(watches.gateways.fieldSelector);
  const refs: Reference[] = [];
  for (const route of caches.tlsRoutes ?? []) {
    const { namespace = '', name } = route.metadata;
    if (!attachedPorts('TLSRoute', route, caches, selector).length) continue;
    (route.spec?.rules ?? []).forEach((rule: any, index: number) => {
      const backendRefs: any[] = rule?.backendRefs ?? [];
      const resolved = backendRefs.map((ref) => agentTarget(ref, 'TLSRoute', namespace, caches, services));
      const first = resolved[0];
      if (!first || resolved.some((t) => !t)) return;
      refs.push({
        backend: `gtw_tls_${namespace}_${name}_${index}`,
        namespace: first.namespace,
        service: first.name,
        port: { number: backendRefs[0].port ?? 443 },
        hosts: [],
        tcp: true,
      });
    });
  }
  return refs;
}

/** A claim of a TCP listener port by a route's rule, and the oldest-wins order (util-gateway-tcproute-analysis). */
type Claim = { route: string; rule: number; ts: string };
const claimsBefore = (a: Claim, b: Claim) => {
  if (a.ts === b.ts) return a.route === b.route ? a.rule < b.rule : a.route < b.route;
  if (a.ts === '') return false;
  return b.ts === '' || a.ts < b.ts;
};

/** TCPRoute rules keeping a listener port: their valid backendRefs, the first alone or all pooled (agent). */
function tcpReferences(caches: RouteCaches, services: Obj[], watches: Watches): Reference[] {
  if (!watches.tcproutes || !watches.gateways) return [];
  const selector = parseFieldSelector(watches.gateways.fieldSelector);
  const byPort = new Map<number, Claim & { refs: Reference[] }>();
  for (const route of caches.tcpRoutes ?? []) {
    const { namespace = '', name } = route.metadata;
    const ports = attachedPorts('TCPRoute', route, caches, selector);
    (route.spec?.rules ?? []).forEach((rule: any, index: number) => {
      const refs: Reference[] = [];
      for (const ref of rule?.backendRefs ?? []) {
        const target = agentTarget(ref, 'TCPRoute', namespace, caches, services);
        if (!target) continue;
        refs.push({
          backend: `gtw_tcp_${namespace}_${name}_${index}`,
          namespace: target.namespace,
          service: target.name,
          port: { number: ref.port ?? 80 },
          hosts: [],
          tcp: true,
        });
      }
      if (!refs.length) return;
      const ts = String(route.metadata.creationTimestamp ?? '');
      const claim = { route: `${namespace}/${name}`, rule: index, ts, refs };
      for (const port of ports) {
        const held = byPort.get(port);
        if (!held || claimsBefore(claim, held)) byPort.set(port, claim);
      }
    });
  }
  const seen = new Set<string>();
  const refs: Reference[] = [];
  for (const claim of byPort.values()) {
    const backend = claim.refs[0]!.backend;
    if (seen.has(backend)) continue;
    seen.add(backend);
    refs.push(...claim.refs);
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
  const agent = agentShape(shape);
  const references = [
    ...ingressReferences(routes.ingresses, watches.ingresses, services, shape, templateConfig),
    ...defaultBackendReference(templateConfig, services, shape),
    ...gatewayReferences(routes, services, watches, 'httproutes', shape),
    ...gatewayReferences(routes, services, watches, 'grpcroutes', shape),
    ...(agent ? tlsReferences(routes, services, watches) : []),
    ...(agent ? tcpReferences(routes, services, watches) : []),
  ];
  const byNamespaceName = (a: Obj, b: Obj) =>
    (a.metadata.namespace ?? '').localeCompare(b.metadata.namespace ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name);
  const backends: Backend[] = [];
  for (const ref of references) {
    const servers = new Map<string, Server>();
    const own = slices
      .filter(
        (s) =>
          (ref.byName || s.metadata.namespace === ref.namespace) &&
          s.metadata.labels?.['kubernetes.io/service-name'] === ref.service,
      )
      .sort(byNamespaceName);
    // by name, the port's name comes from the Service in the first slice's namespace (base.yaml BackendServers)
    const svcNamespace = ref.byName ? (own[0]?.metadata.namespace ?? ref.namespace) : ref.namespace;
    const svc = serviceOf(services, svcNamespace, ref.service);
    for (const slice of own) {
      const port = slicePort(svc, slice, ref.port, shape);
      if (!port) continue;
      for (const endpoint of slice.endpoints ?? []) {
        const target = endpoint.targetRef;
        if (target?.kind !== 'Pod' || servers.has(target.name) || !endpoint.addresses?.[0]) continue;
        const enabled = serverEnabled(endpoint, pods(`${slice.metadata.namespace}/${target.name}`), gate, shape);
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
