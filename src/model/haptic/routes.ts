import type { Read } from '../../types/snapshot.ts';
import type { HAProxyTemplateConfig, WatchedResource } from '../../types/haptic.ts';
import type { Service } from '../../types/kube.ts';
import type {
  BackendReference,
  Gateway,
  GatewayRoute,
  Ingress,
  ParentReference,
  ReferenceGrant,
} from '../../types/routes.ts';
import { servicesSelecting } from '../services.ts';
import type { RenderedServerOf } from './rendered.ts';

// Which routes HAPTIC renders, and so which Services' pods it can route at all. HAPTIC renders backends only for
// Services a route it watches references. Its rules, per generation, as its sources write them
// (HAProxy-Template-IC/haproxy-template-ingress-controller; the dataplane generation at its HEAD, charts/haptic/
// libraries/*.yaml; the agent generation, module gitlab.com/haproxy-haptic/haptic, charts/haptic/charts/*/ — the gate
// release builds on the agent generation, so its rules are the agent's, the newest readable source):
// - Ingresses: the ingress library watches them through a field selector the chart sets from ingressClass.name
//   (`spec.ingressClassName=haproxy`; an Ingress without ingressClassName does not match, the class annotation is
//   not read). One backend per (Ingress, Service, port) of spec.rules[].http.paths[]: dataplane `ing_<ns>_<ingress>_
//   <service>_<port>` (libraries/ingress.yaml, GenerateIngressBackends), agent `<ns>_<ingress>_svc_<service>_<port>`
//   (charts/ingress/library.yaml, util-backend-name-ingress). spec.defaultBackend: the agent renders it the same way
//   ("Default backend for"), the dataplane generation does not read it.
// - Ports: a number the Service lacks still renders servers, at the slice's only port, else the number (dataplane
//   base.yaml BackendServers; agent kubernetes-backends BackendServersResult). A name the Service lacks: the dataplane
//   generation falls back to port 80 and the same lookup; the agent's ResolveServicePort fails the whole render
//   (kubernetes-backends/library.yaml): a refused render of the installation, not this route's miss.
// - HTTPRoutes and GRPCRoutes: every one the gateway library watches gets backends, whatever its parentRefs (a parent
//   Gateway of another class, or none): dataplane backends-500-gateway renders resources.httproutes.List(); the
//   agent's backenditems-500-gateway-http renders every route, checking only its backendRefs (BackendRefValid).
//   Named `gtw_<route ns>_<route>_<service>_<port>`, port 80 when the backendRef has none. A backendRef to another
//   namespace: the agent renders it when a ReferenceGrant of that namespace allows it (util-reference-grant-
//   permitted); the dataplane generation does not ("not explicitly handled", docs/libraries/gateway.md).
// - TLSRoutes and TCPRoutes (agent only: gateway/22-ssl-passthrough.yaml, gateway/90-tcproute.yaml): rendered when
//   attached to a TLS (TCP) listener of a Gateway the installation watches, one backend per rule,
//   `gtw_tls_<ns>_<route>_<rule index>` from the rule's first backendRef (port 443 when none), `gtw_tcp_<ns>_<route>_
//   <rule index>` from all of them (port 80 when none).
// The field and label selectors are HAPTIC's own (pkg/k8s/indexer/fieldselector.go: `path=value`, an exact match of
// the value at a JSONPath; a missing field never matches).

/** A `path=value` field selector of a watched resource, as HAPTIC's indexer reads it. */
export interface FieldSelector {
  text: string;
  path: string[];
  value: string;
}

/** What one installation renders routes from: its template config's watchedResources. */
export interface RouteAdmission {
  /** the ingress library's watch, when it is on */
  ingresses?: { fieldSelector?: string | undefined; labelSelector?: Record<string, string> | undefined } | undefined;
  /** the gateway library's watch of Gateways, when it is on */
  gateways?: { fieldSelector?: string | undefined } | undefined;
  httpRoutes: boolean;
  grpcRoutes: boolean;
  tlsRoutes?: boolean | undefined;
  tcpRoutes?: boolean | undefined;
  /** why what it renders cannot be told (no watchedResources, a selector HAPTIC would refuse) */
  unknown?: string | undefined;
}

export type RouteKind = 'Ingress' | 'HTTPRoute' | 'GRPCRoute' | 'TLSRoute' | 'TCPRoute';

/** A route that names a Service, and whether HAPTIC renders it. */
export interface RouteReference {
  kind: RouteKind;
  namespace: string;
  name: string;
  /** the Service and port it names, the port as written (a name or a number) */
  service: { namespace: string; name: string; port: string };
  /** the backend HAPTIC renders for it, when an installation admits it */
  backend?: string | undefined;
  /** the installations that watch it (they render it, unless `miss` says why it reaches nothing) */
  admittedBy: string[];
  /** why no installation renders it (absent when one does) */
  miss?: string | undefined;
  /** what rendering it does besides (the agent generation fails the whole render on a port name the Service lacks) */
  warning?: string | undefined;
}

export interface ServiceRouting {
  service: string;
  /** routes of the Service's own, rendered or near misses */
  routes: RouteReference[];
  routed: boolean;
}

export interface Routing {
  services: ServiceRouting[];
  /** routes in other namespaces that name a Service of the same name (they reach their own namespace's): the first
   * ELSEWHERE_SHOWN, as many as are shown */
  elsewhere: RouteReference[];
  /** route kinds the cluster does not serve, or that could not be read: said, never taken as empty */
  unread: { kind: string; reason: string; absent: boolean }[];
  /** installations whose admission is unknown */
  unknownInstallations: { id: string; reason: string }[];
  /** whether "no route reaches the pods" can be concluded: nothing that might route them went unread */
  conclusive: boolean;
  /**
   * the servers HAPTIC's live configs have for the workload's pods (rendered.ts): when there is one, HAPTIC routes
   * the Services, whatever the route analysis says (it then only explains); absent when no pod was looked for
   */
  rendered?: RenderedServerOf[] | undefined;
}

export interface RouteLists {
  ingresses: Read<Ingress>;
  httpRoutes: Read<GatewayRoute>;
  grpcRoutes: Read<GatewayRoute>;
  tlsRoutes: Read<GatewayRoute>;
  tcpRoutes: Read<GatewayRoute>;
  gateways: Read<Gateway>;
  referenceGrants: Read<ReferenceGrant>;
}

/** Whose libraries an installation runs: the dataplane generation's, or the agent generation's (the gate release's). */
export type RouteGeneration = 'dataplane' | 'agent';

/** An installation as the route model needs it: its id (namespace/template config), what it admits, its libraries. */
export interface RouteInstallation {
  id: string;
  admission: RouteAdmission;
  generation: RouteGeneration;
}

/**
 * The installations of the HAPTIC model as the route model reads them. One whose generation cannot be told follows
 * the agent generation's rules: the newest, and the gate release's.
 */
export const routeInstallations = (
  installations: {
    namespace: string;
    templateConfig: string;
    routes: RouteAdmission;
    statusShape?: 'dataplane' | 'agent' | 'unknown';
  }[],
): RouteInstallation[] =>
  installations.map((i) => ({
    id: `${i.namespace}/${i.templateConfig}`,
    admission: i.routes,
    generation: i.statusShape === 'dataplane' ? 'dataplane' : 'agent',
  }));

/** The routing of the Services of a namespace that select these pod labels. */
export function routingFor(
  labels: Record<string, string> | undefined,
  services: Service[],
  lists: RouteLists,
  installations: RouteInstallation[],
): Routing {
  return routingOf(servicesSelecting(services, labels), lists, installations);
}

/**
 * A `path=value` field selector (HAPTIC's NewFieldSelectorMatcher: split at the first `=`, both sides trimmed; the
 * path a JSONPath of dotted names, `.a.b`, `{.a.b}`, or `a['b.c']` for names with dots).
 */
export function parseFieldSelector(text: string): FieldSelector | undefined {
  const at = text.indexOf('=');
  if (at < 0) return undefined;
  let expr = text.slice(0, at).trim();
  const value = text.slice(at + 1).trim();
  if (expr.startsWith('{') && expr.endsWith('}')) expr = expr.slice(1, -1);
  if (expr.startsWith('$')) expr = expr.slice(1);
  if (expr.startsWith('.')) expr = expr.slice(1);
  const path: string[] = [];
  const part = /([^.[\]]+)|\['([^']*)'\]|\["([^"]*)"\]/gy;
  let i = 0;
  while (i < expr.length) {
    part.lastIndex = i;
    const m = part.exec(expr);
    if (!m) return undefined;
    path.push(m[1] ?? m[2] ?? m[3] ?? '');
    i = part.lastIndex;
    if (expr[i] === '.') i++;
  }
  return path.length ? { text: text.trim(), path, value } : undefined;
}

/** Whether an object matches a field selector: the value at its path, as text, equals the selector's. */
export function fieldSelectorMatches(text: string, object: unknown): boolean {
  const selector = parseFieldSelector(text);
  if (!selector) return false;
  let at: unknown = object;
  for (const key of selector.path) {
    if (at === null || typeof at !== 'object') return false;
    at = (at as Record<string, unknown>)[key];
  }
  if (at === undefined || at === null || typeof at === 'object') return false;
  return String(at) === selector.value;
}

/** `k=v,k2=v2`, as HAPTIC's converter reads a watched resource's labelSelector (parseLabelSelector). */
function parseLabels(text: string | undefined): Record<string, string> | undefined {
  if (!text?.trim()) return undefined;
  const labels: Record<string, string> = {};
  for (const pair of text.split(',')) {
    const at = pair.indexOf('=');
    if (at > 0) labels[pair.slice(0, at).trim()] = pair.slice(at + 1).trim();
  }
  return labels;
}

const watched = (resources: Record<string, WatchedResource> | undefined, plural: string) =>
  Object.values(resources ?? {}).find((r) => r && typeof r === 'object' && r.resources === plural);

/** What an installation renders routes from, read from its template config. */
export function routeAdmission(htc: HAProxyTemplateConfig): RouteAdmission {
  const resources = htc.spec?.watchedResources;
  if (!resources || typeof resources !== 'object' || Object.keys(resources).length === 0) {
    return {
      httpRoutes: false,
      grpcRoutes: false,
      unknown: `haproxytemplateconfig ${htc.metadata.namespace}/${htc.metadata.name} lists no watchedResources`,
    };
  }
  const admission: RouteAdmission = {
    httpRoutes: !!watched(resources, 'httproutes'),
    grpcRoutes: !!watched(resources, 'grpcroutes'),
    tlsRoutes: !!watched(resources, 'tlsroutes'),
    tcpRoutes: !!watched(resources, 'tcproutes'),
  };
  const selectorOf = (r: WatchedResource) => {
    if (!r.fieldSelector) return undefined;
    const parsed = parseFieldSelector(r.fieldSelector);
    if (!parsed)
      admission.unknown = `watchedResources ${r.resources}: fieldSelector "${r.fieldSelector}" is not path=value`;
    return parsed?.text;
  };
  const ingresses = watched(resources, 'ingresses');
  if (ingresses)
    admission.ingresses = { fieldSelector: selectorOf(ingresses), labelSelector: parseLabels(ingresses.labelSelector) };
  const gateways = watched(resources, 'gateways');
  if (gateways) admission.gateways = { fieldSelector: selectorOf(gateways) };
  return admission;
}

const ns = (o: { metadata: { namespace?: string | undefined } }) => o.metadata.namespace ?? '';
const labelsMatch = (want: Record<string, string> | undefined, have: Record<string, string> | undefined) =>
  !want || Object.entries(want).every(([k, v]) => have?.[k] === v);

/** Why an installation does not watch this Ingress, or undefined when it does. */
function ingressMiss(ingress: Ingress, inst: RouteInstallation): string | undefined {
  const watch = inst.admission.ingresses;
  if (!watch) return `HAPTIC ${inst.id} does not watch Ingresses (its ingress library is off)`;
  const selector = watch.fieldSelector;
  if (selector && !fieldSelectorMatches(selector, ingress)) {
    const cls = ingress.spec?.ingressClassName;
    const annotation = ingress.metadata.annotations?.['kubernetes.io/ingress.class'];
    const has = cls
      ? `ingressClassName ${cls}`
      : `no ingressClassName${annotation ? ` (the kubernetes.io/ingress.class: ${annotation} annotation is not read)` : ''}`;
    return `has ${has}; HAPTIC ${inst.id} watches Ingresses with ${selector}`;
  }
  if (!labelsMatch(watch.labelSelector, ingress.metadata.labels)) {
    return `its labels do not match HAPTIC ${inst.id}'s labelSelector ${Object.entries(watch.labelSelector ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',')}`;
  }
  return undefined;
}

const GATEWAY_GROUP = 'gateway.networking.k8s.io';
const toGateway = (p: ParentReference) =>
  (p.group ?? GATEWAY_GROUP) === GATEWAY_GROUP && (p.kind ?? 'Gateway') === 'Gateway';

/** Why an installation does not render this HTTPRoute or GRPCRoute: only when it does not watch the kind. */
function httpRouteMiss(kind: RouteKind, inst: RouteInstallation): string | undefined {
  const watches = kind === 'HTTPRoute' ? inst.admission.httpRoutes : inst.admission.grpcRoutes;
  return watches ? undefined : `HAPTIC ${inst.id} does not watch ${kind}s (its gateway library is off)`;
}

/**
 * Why an installation does not render this TLSRoute or TCPRoute: the agent generation renders one attached to a
 * listener of that protocol on a Gateway it watches (the parent's sectionName, when set, names the listener).
 */
function listenerRouteMiss(
  kind: 'TLSRoute' | 'TCPRoute',
  route: GatewayRoute,
  gateways: Indexed,
  inst: RouteInstallation,
): string | undefined {
  const watches = kind === 'TLSRoute' ? inst.admission.tlsRoutes : inst.admission.tcpRoutes;
  if (inst.generation === 'dataplane' || !watches || !inst.admission.gateways)
    return `HAPTIC ${inst.id} does not watch ${kind}s`;
  const protocol = kind === 'TLSRoute' ? 'TLS' : 'TCP';
  const parents = (route.spec?.parentRefs ?? []).filter(toGateway);
  if (!parents.length) return `has no parentRefs to a Gateway (HAPTIC renders a ${kind} on a ${protocol} listener)`;
  const misses: string[] = [];
  for (const parent of parents) {
    const where = `${parent.namespace ?? ns(route)}/${parent.name}`;
    const gateway = gateways.gateways.get(where);
    if (!gateway) {
      misses.push(`its parent gateway ${where} ${gateways.gatewaysUnread ? 'could not be read' : 'does not exist'}`);
      continue;
    }
    const selector = inst.admission.gateways.fieldSelector;
    if (selector && !fieldSelectorMatches(selector, gateway)) {
      misses.push(
        `its parent gateway ${where} has ${gateway.spec?.gatewayClassName ? `gatewayClassName ${gateway.spec.gatewayClassName}` : 'no gatewayClassName'}; HAPTIC ${inst.id} watches Gateways with ${selector}`,
      );
      continue;
    }
    const listener = (gateway.spec?.listeners ?? []).some(
      (l) => l.protocol === protocol && (!parent.sectionName || parent.sectionName === l.name),
    );
    if (listener) return undefined;
    misses.push(
      `its parent gateway ${where} has no ${protocol} listener${parent.sectionName ? ` named ${parent.sectionName}` : ''}`,
    );
  }
  return misses.join('; ');
}

/** A Service reference of a route, with what decides whether each installation renders it. */
interface Named {
  kind: RouteKind;
  namespace: string;
  name: string;
  service: { namespace: string; name: string; port: string };
  /** the backend each generation names it (the agent names an Ingress's port by the Service port's name) */
  backend: (generation: RouteGeneration, service?: Service) => string;
  /** per installation: why it does not watch the route (its class, parents, libraries) */
  missOf: (inst: RouteInstallation) => string | undefined;
  /** per installation that watches it: why it still renders nothing for it (its generation's rules) */
  reachOf?: ((inst: RouteInstallation) => string | undefined) | undefined;
}

const portOf = (port: { name?: string | undefined; number?: number | undefined } | undefined) =>
  port?.name || (port?.number === undefined ? '' : String(port.number));

/** Whether a ReferenceGrant of the Service's namespace lets this route kind of `from` reach the Service. */
function granted(grants: Indexed, kind: RouteKind, from: string, to: { namespace: string; name: string }) {
  return (grants.grants.get(to.namespace) ?? []).some(
    (g) =>
      (g.spec?.from ?? []).some((f) => (f.group ?? '') === GATEWAY_GROUP && f.kind === kind && f.namespace === from) &&
      (g.spec?.to ?? []).some((t) => (t.group ?? '') === '' && t.kind === 'Service' && (!t.name || t.name === to.name)),
  );
}

/** Why a backendRef to another namespace is not rendered by an installation, or undefined when it is. */
function crossNamespaceMiss(
  lists: RouteLists,
  index: Indexed,
  kind: RouteKind,
  from: string,
  to: { namespace: string; name: string },
  inst: RouteInstallation,
): string | undefined {
  if (to.namespace === from) return undefined;
  if (inst.generation === 'dataplane')
    return `references it from namespace ${from}: HAPTIC ${inst.id} (dataplane generation) does not render backendRefs to another namespace`;
  if (granted(index, kind, from, to)) return undefined;
  return lists.referenceGrants.error && !lists.referenceGrants.items.length
    ? `references it from namespace ${from}; the ReferenceGrants that could allow it could not be read`
    : `references it from namespace ${from}, and no ReferenceGrant in ${to.namespace} lets ${kind}s of ${from} reach it`;
}

/**
 * Gateways by namespace/name and ReferenceGrants by namespace, built once: a route's parentRefs and backendRefs are
 * looked up, not searched for in cluster-wide lists (routes × parents × Gateways was quadratic).
 */
interface Indexed {
  gateways: Map<string, Gateway>;
  gatewaysUnread: boolean;
  grants: Map<string, ReferenceGrant[]>;
}

function indexed(lists: RouteLists): Indexed {
  const gateways = new Map<string, Gateway>();
  for (const g of lists.gateways.items) gateways.set(`${ns(g)}/${g.metadata.name}`, g);
  const grants = new Map<string, ReferenceGrant[]>();
  for (const g of lists.referenceGrants.items) {
    const list = grants.get(ns(g));
    if (list) list.push(g);
    else grants.set(ns(g), [g]);
  }
  return { gateways, gatewaysUnread: !!lists.gateways.error, grants };
}

/** Every Service reference of every readable route. */
function references(lists: RouteLists): Named[] {
  const out: Named[] = [];
  const lookup = indexed(lists);
  for (const ingress of lists.ingresses.items) {
    const where = ns(ingress);
    const name = ingress.metadata.name;
    // the agent names the port by its name, the Service port's name when the Ingress gives a number
    const ingressBackend = (svc: string, port: string) => (g: RouteGeneration, service?: Service) =>
      g === 'dataplane'
        ? `ing_${where}_${name}_${svc}_${port}`
        : `${where}_${name}_svc_${svc}_${(service?.spec.ports ?? []).find((p) => String(p.port) === port)?.name || port}`;
    const seen = new Set<string>();
    const paths = (ingress.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []);
    for (const path of paths) {
      const svc = path.backend?.service;
      if (!svc?.name) continue;
      const port = portOf(svc.port);
      if (seen.has(`${svc.name}_${port}`)) continue;
      seen.add(`${svc.name}_${port}`);
      out.push({
        kind: 'Ingress',
        namespace: where,
        name,
        service: { namespace: where, name: svc.name, port },
        backend: ingressBackend(svc.name, port),
        missOf: (i) => ingressMiss(ingress, i),
      });
    }
    const fallback = ingress.spec?.defaultBackend?.service;
    const port = portOf(fallback?.port);
    if (fallback?.name && !seen.has(`${fallback.name}_${port}`)) {
      out.push({
        kind: 'Ingress',
        namespace: where,
        name,
        service: { namespace: where, name: fallback.name, port },
        backend: ingressBackend(fallback.name, port),
        missOf: (i) => ingressMiss(ingress, i),
        reachOf: (i) =>
          i.generation === 'dataplane'
            ? `names it only as spec.defaultBackend, which the ingress library of HAPTIC ${i.id} (dataplane generation) does not render`
            : undefined,
      });
    }
  }
  for (const [kind, list] of [
    ['HTTPRoute', lists.httpRoutes],
    ['GRPCRoute', lists.grpcRoutes],
  ] as const) {
    for (const route of list.items) {
      const where = ns(route);
      const seen = new Set<string>();
      for (const ref of (route.spec?.rules ?? []).flatMap((r) => r.backendRefs ?? [])) {
        if (!isServiceRef(ref)) continue;
        const port = String(ref.port ?? 80);
        const target = { namespace: ref.namespace ?? where, name: ref.name };
        const backend = `gtw_${where}_${route.metadata.name}_${ref.name}_${port}`;
        if (seen.has(`${target.namespace}/${backend}`)) continue;
        seen.add(`${target.namespace}/${backend}`);
        out.push({
          kind,
          namespace: where,
          name: route.metadata.name,
          service: { ...target, port },
          backend: () => backend,
          missOf: (i) => httpRouteMiss(kind, i),
          reachOf: (i) => crossNamespaceMiss(lists, lookup, kind, where, target, i),
        });
      }
    }
  }
  for (const [kind, list] of [
    ['TLSRoute', lists.tlsRoutes],
    ['TCPRoute', lists.tcpRoutes],
  ] as const) {
    for (const route of list.items) {
      const where = ns(route);
      (route.spec?.rules ?? []).forEach((rule, index) => {
        // a TLSRoute rule's backend is its first backendRef; a TCPRoute rule pools all of them
        const refs = (rule.backendRefs ?? []).slice(0, kind === 'TLSRoute' ? 1 : undefined);
        const backend = `gtw_${kind === 'TLSRoute' ? 'tls' : 'tcp'}_${where}_${route.metadata.name}_${index}`;
        for (const ref of refs) {
          if (!isServiceRef(ref)) continue;
          const target = { namespace: ref.namespace ?? where, name: ref.name };
          out.push({
            kind,
            namespace: where,
            name: route.metadata.name,
            service: { ...target, port: String(ref.port ?? (kind === 'TLSRoute' ? 443 : 80)) },
            backend: () => backend,
            missOf: (i) => listenerRouteMiss(kind, route, lookup, i),
            reachOf: (i) => crossNamespaceMiss(lists, lookup, kind, where, target, i),
          });
        }
      });
    }
  }
  return out;
}

const isServiceRef = (ref: BackendReference) =>
  (ref.group ?? '') === '' && (ref.kind ?? 'Service') === 'Service' && !!ref.name;

/**
 * What rendering a reference does besides: the agent generation's ResolveServicePort fails the whole render on a
 * port name the Service lacks (kubernetes-backends/library.yaml); a number it lacks, or a name in the dataplane
 * generation (which falls back to port 80), still renders servers.
 */
function portWarning(service: Service, ref: Named, admitting: RouteInstallation[]): string | undefined {
  const port = ref.service.port;
  if (ref.kind !== 'Ingress' || !port || /^\d+$/.test(port)) return undefined;
  if ((service.spec.ports ?? []).some((p) => p.name === port)) return undefined;
  const agents = admitting.filter((i) => i.generation === 'agent');
  if (!agents.length) return undefined;
  const listed = (service.spec.ports ?? []).map((p) => (p.name ? `${p.name} ${p.port}` : String(p.port))).join(', ');
  return `service/${service.metadata.name} has no port named ${port} (its ports: ${listed || 'none'}): HAPTIC ${agents
    .map((i) => i.id)
    .join(', ')} fails its whole render on it, not only this route`;
}

/** Route kinds that may carry a route to the Service but were not read. */
function unreadKinds(lists: RouteLists): Routing['unread'] {
  const unread: Routing['unread'] = [];
  const say = (kind: string, read: Read<unknown>) => {
    if (!read.error) return;
    const absent = read.error.kind === 'NotFound';
    unread.push({
      kind,
      absent,
      reason: absent
        ? `the cluster serves no ${kind} (no such API)`
        : `${kind} could not be read: ${read.error.message}`,
    });
  };
  say('ingresses.networking.k8s.io', lists.ingresses);
  say('httproutes.gateway.networking.k8s.io', lists.httpRoutes);
  say('grpcroutes.gateway.networking.k8s.io', lists.grpcRoutes);
  say('tlsroutes.gateway.networking.k8s.io', lists.tlsRoutes);
  say('tcproutes.gateway.networking.k8s.io', lists.tcpRoutes);
  say('gateways.gateway.networking.k8s.io', lists.gateways);
  say('referencegrants.gateway.networking.k8s.io', lists.referenceGrants);
  return unread;
}

/**
 * For each Service that selects the pods: the routes that name it and whether an installation renders them with a
 * port the Service has; the routes of other namespaces that name a Service of the same name; what could not be read.
 */
export function routingOf(services: Service[], lists: RouteLists, installations: RouteInstallation[]): Routing {
  const all = references(lists);
  const unread = unreadKinds(lists);
  const unknownInstallations = installations
    .filter((i) => i.admission.unknown)
    .map((i) => ({ id: i.id, reason: i.admission.unknown! }));
  const judge = (ref: Named, service?: Service): RouteReference => {
    const watching = installations.filter((i) => !i.admission.unknown && !ref.missOf(i));
    const rendering = watching.filter((i) => !ref.reachOf?.(i));
    const miss = rendering.length
      ? undefined
      : watching.length
        ? watching.map((i) => ref.reachOf!(i)).join('; ')
        : installations.map(ref.missOf).filter(Boolean).join('; ') || 'no HAPTIC installation watches it';
    const { missOf: _, reachOf: __, backend, ...plain } = ref;
    return {
      ...plain,
      backend: rendering[0] && backend(rendering[0].generation, service),
      admittedBy: watching.map((i) => i.id),
      miss,
      warning: service && portWarning(service, ref, rendering),
    };
  };
  const own = services.map((svc) => {
    const routes = all
      .filter((r) => r.service.namespace === ns(svc) && r.service.name === svc.metadata.name)
      .map((r) => judge(r, svc));
    return { service: svc.metadata.name, routes, routed: routes.some((r) => !r.miss) };
  });
  const names = new Set(services.map((s) => s.metadata.name));
  const namespaces = new Set(services.map(ns));
  // judged only as many as are shown: other tenants' routes are not worked through whole
  const elsewhere = all
    .filter((r) => names.has(r.service.name) && !namespaces.has(r.service.namespace))
    .slice(0, ELSEWHERE_SHOWN)
    .map((r) => judge(r));
  // a kind the cluster does not serve holds no route; one that could not be read might. Gateways matter only to
  // TLS and TCP routes, ReferenceGrants only to routes across namespaces.
  const crossing = all.some((r) => r.kind !== 'Ingress' && r.namespace !== r.service.namespace);
  const listenerRoutes = lists.tlsRoutes.items.length + lists.tcpRoutes.items.length;
  const conclusive =
    unread.every(
      (u) =>
        u.absent ||
        (u.kind.startsWith('gateways') && listenerRoutes === 0) ||
        (u.kind.startsWith('referencegrants') && !crossing),
    ) && unknownInstallations.length === 0;
  return { services: own, elsewhere, unread, unknownInstallations, conclusive };
}

/** How many routes of other namespaces naming a Service of the same name are judged and shown. */
export const ELSEWHERE_SHOWN = 5;

/** The classes the installations' routes must have: the values of their Ingress and Gateway field selectors. */
export function routeClasses(installations: RouteInstallation[]): string[] {
  const selectors = installations.flatMap((i) => [
    i.admission.ingresses?.fieldSelector,
    i.admission.gateways?.fieldSelector,
  ]);
  const values = selectors.map((s) => (s ? parseFieldSelector(s)?.value : undefined));
  return [...new Set(values.filter((v): v is string => !!v))];
}

/**
 * Why a pod selected by these Services cannot be routed by HAPTIC, when that can be concluded: no route an
 * installation renders reaches any of them, and no live config has a server for a pod of the workload. Undefined
 * when one does, or when it cannot be told.
 */
export function unroutedReason(
  routing: Routing,
  services: string[],
  installations: RouteInstallation[],
): string | undefined {
  if (!routing.conclusive || !installations.length || !services.length || routing.rendered?.length) return undefined;
  const judged = services.map((s) => routing.services.find((r) => r.service === s));
  if (judged.some((r) => !r || r.routed)) return undefined;
  const classes = routeClasses(installations);
  const of = classes.length ? ` of class ${classes.join(' or ')}` : '';
  const named = services.map((s) => `service/${s}`).join(', ');
  // a route HAPTIC watches that reaches nothing (a port the Service lacks, spec.defaultBackend only) is not one
  // "of its class" that is missing
  return judged.some((r) => r!.routes.some((x) => x.admittedBy.length))
    ? `no route${of} reaches ${named}`
    : `no route${of} references ${named}`;
}
