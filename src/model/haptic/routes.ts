import type { Read } from '../../types/snapshot.ts';
import type { HAProxyTemplateConfig, WatchedResource } from '../../types/haptic.ts';
import type { KubeObject, Service } from '../../types/kube.ts';
import type {
  BackendReference,
  Gateway,
  GatewayListener,
  GatewayRoute,
  Ingress,
  ParentReference,
  ReferenceGrant,
} from '../../types/routes.ts';
import { servicesSelecting } from '../services.ts';
import { servedPod, type RenderedServerOf } from './rendered.ts';

// Which routes HAPTIC renders, and so which Services' pods it can route at all. HAPTIC renders backends only for
// Services a route it watches references. Its rules, per generation, as its sources write them
// (HAProxy-Template-IC/haproxy-template-ingress-controller; the dataplane generation at its HEAD, charts/haptic/
// libraries/*.yaml; the agent generation, module gitlab.com/haproxy-haptic/haptic, charts/haptic/charts/*/ of the
// same repository's later history — the gate release builds on the agent generation, so its rules are the agent's,
// the newest readable source):
// - Ingresses: the ingress library watches them through a field selector the chart sets from ingressClass.name
//   (`spec.ingressClassName=haproxy`; an Ingress without ingressClassName does not match, the class annotation is
//   not read). One backend per (Ingress, Service, port) of spec.rules[].http.paths[]: dataplane `ing_<ns>_<ingress>_
//   <service>_<port>` (libraries/ingress.yaml, GenerateIngressBackends), agent `<ns>_<ingress>_svc_<service>_<port>`
//   (charts/ingress/library.yaml, util-backend-name-ingress). spec.defaultBackend: the agent renders it the same way
//   ("Default backend for"), the dataplane generation does not read it.
// - Default backends (agent only; the dataplane libraries have none): an Ingress annotation
//   `nginx.ingress.kubernetes.io/default-backend` (nginx-ingress/17-default-backend.yaml) or `haproxy-haptic.org/
//   default-backend` (haptic-annotations/40-features.yaml), `<service>` or `<namespace>/<service>`, on an Ingress the
//   ingress watch admits, renders `<ingress ns>_<ingress>_default-backend_<service>` from the Service's first port
//   when the Service exists (no ReferenceGrant is asked for) — when the installation runs that library (its template
//   config's libraryRefs `<config>-nginx-ingress` / `<config>-haptic-annotations`, or the snippets inline). The
//   chart's `extraContext.defaultBackendService` {namespace, name, port} renders `default_backend` (kubernetes-
//   backends/library.yaml, default-backend-100-kubernetes).
// - Ports: a number the Service lacks still renders servers, at the slice's only port, else the number (dataplane
//   base.yaml BackendServers; agent kubernetes-backends BackendServersResult). A name the Service lacks: the dataplane
//   generation falls back to port 80 and the same lookup; the agent's ResolveServicePort fails the whole render
//   (kubernetes-backends/library.yaml): a refused render of the installation, not this route's miss.
// - HTTPRoutes and GRPCRoutes: every one the gateway library watches gets backends, whatever its parentRefs (a parent
//   Gateway of another class, or none): dataplane backends-500-gateway renders resources.httproutes.List(); the
//   agent's backends-500-gateway renders every route (gateway/30-backends.yaml). Named `gtw_<route ns>_<route>_
//   <service>_<port>`, port 80 when the backendRef has none. A backendRef to another namespace: the agent renders it
//   when a ReferenceGrant of that namespace allows it (util-reference-grant-permitted).
// - By name (dataplane only): its BackendServers fetches `resources.endpoints.Fetch(serviceName)` over the chart's
//   EndpointSlice index `metadata.labels.kubernetes\.io/service-name` (values.yaml, merged last over the libraries:
//   templates/_helpers.tpl) — every namespace's slices of that Service name (pkg/k8s/store/memory.go) — and reads
//   neither a backendRef's namespace, group and kind nor the Ingress's namespace. So any route it renders that names
//   a Service `web`, in any namespace, reaches the pods of every namespace's Service `web`.
// - TLSRoutes (agent only, gateway/22-ssl-passthrough.yaml, backends-501 in gateway/30-backends.yaml): a rule is
//   rendered, `gtw_tls_<ns>_<route>_<rule index>` from its first backendRef (port 443 when none), when the route
//   attaches to a listener and every backendRef of the rule resolves (a core Service that exists, a ReferenceGrant
//   across namespaces). Attaching: a parentRef to a Gateway the installation watches; its listeners filtered by the
//   parentRef's sectionName and port; protocol TLS with tls.mode Passthrough or Terminate (none: Terminate), not on a
//   port that has both; allowedRoutes.kinds (none: TLSRoute) and allowedRoutes.namespaces (from Same, the default,
//   All, or Selector by matchLabels only); and the route's hostnames, required, intersecting the listener's
//   hostname as the Gateway API defines (21-route-helpers.yaml HostnameSinglePairIntersection; none: any).
// - TCPRoutes (agent only, gateway/90-tcproute.yaml): the same attachment on TCP listeners, without hostnames; a
//   rule's valid backendRefs (a core Service that exists, a ReferenceGrant across namespaces) pool into
//   `gtw_tcp_<ns>_<route>_<rule index>` (port 80 when none); a listener port belongs to one (route, rule) across
//   every Gateway, the oldest route's (creationTimestamp, none last, then namespace/name), a route's first rule
//   before its others. A rule that claims no port is not rendered.
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
  /** the chart's default backend, `extraContext.defaultBackendService` (the agent's kubernetes-backends library) */
  defaultBackend?: { namespace: string; name: string; port: string } | undefined;
  /** the Ingress annotations naming a default backend that its libraries render (agent: nginx-ingress, haptic-annotations) */
  annotationDefaultBackends?: string[] | undefined;
}

/** The kind of what names a Service: a route, or the template config's own default backend. */
export type RouteKind = 'Ingress' | 'HTTPRoute' | 'GRPCRoute' | 'TLSRoute' | 'TCPRoute' | 'HAProxyTemplateConfig';

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
  /** how it names the Service when not as a route's backend: an annotation, the chart's default backend, by name */
  via?: string | undefined;
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
   * the servers HAPTIC's live configs have for the workload's pods (rendered.ts): a server proves its pod routed and
   * the Service of its backend, whatever the route analysis says (it then only explains), never another Service's
   * pods; absent when no pod was looked for
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
  /** the cluster's Namespaces, for listeners that admit routes by namespace selector; absent when not read */
  namespaces?: Read<KubeObject> | undefined;
  /** the cluster's Services, for whether a TLS or TCP rule's other backendRefs exist; absent when not read */
  services?: Read<Service> | undefined;
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
  const defaultBackend = chartDefaultBackend(htc);
  if (defaultBackend) admission.defaultBackend = defaultBackend;
  const annotations = annotationDefaultBackends(htc);
  if (annotations.length) admission.annotationDefaultBackends = annotations;
  return admission;
}

/** The spec fields the route model reads beyond the typed ones, as any template config may carry them. */
type LibrarySpec = {
  templatingSettings?: { extraContext?: Record<string, unknown> };
  templateSnippets?: Record<string, unknown>;
};
const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * The chart's default backend: `extraContext.defaultBackendService` {namespace, name, port}, where port is a number
 * or {number} or {name} (kubernetes-backends/library.yaml default-backend-100-kubernetes, ResolveServicePort).
 */
function chartDefaultBackend(htc: HAProxyTemplateConfig): RouteAdmission['defaultBackend'] {
  const context = (htc.spec as LibrarySpec | undefined)?.templatingSettings?.extraContext;
  const service = isRecord(context) ? context.defaultBackendService : undefined;
  if (!isRecord(service) || typeof service.name !== 'string' || typeof service.namespace !== 'string') return undefined;
  if (!service.name || !service.namespace) return undefined;
  const port = service.port;
  const named = isRecord(port) && typeof port.name === 'string' && port.name ? port.name : undefined;
  const number = typeof port === 'number' ? port : isRecord(port) && typeof port.number === 'number' ? port.number : 0;
  return { namespace: service.namespace, name: service.name, port: named ?? (number > 0 ? String(number) : '') };
}

/** The default-backend annotations of the libraries each render them, and the snippet that does. */
export const DEFAULT_BACKEND_ANNOTATIONS = [
  {
    annotation: 'nginx.ingress.kubernetes.io/default-backend',
    library: 'nginx-ingress',
    snippet: 'backends-510-nginx-ingress-default-backend',
  },
  {
    annotation: 'haproxy-haptic.org/default-backend',
    library: 'haptic-annotations',
    snippet: 'backends-850-haptic-default-backend',
  },
] as const;

/**
 * The annotations whose default backends a template config renders: its library is one of its libraryRefs
 * (`<config>-<library>`, one HAProxyTemplateLibrary per library) or its snippet is inline in spec.templateSnippets.
 */
function annotationDefaultBackends(htc: HAProxyTemplateConfig): string[] {
  const refs = new Set((htc.spec?.libraryRefs ?? []).map((r) => r?.name));
  const snippets = (htc.spec as LibrarySpec | undefined)?.templateSnippets;
  return DEFAULT_BACKEND_ANNOTATIONS.filter(
    (d) => refs.has(`${htc.metadata.name}-${d.library}`) || (isRecord(snippets) && d.snippet in snippets),
  ).map((d) => d.annotation);
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
// an empty group or kind is the default one (the templates' `if prGroup == "" { … }`)
const toGateway = (p: ParentReference) =>
  (p.group || GATEWAY_GROUP) === GATEWAY_GROUP && (p.kind || 'Gateway') === 'Gateway';
/** A core Service: group "" or "core", kind Service when none (BackendRefValid, 22-ssl-passthrough, 90-tcproute). */
const isServiceRef = (ref: BackendReference) =>
  (!ref.group || ref.group === 'core') && (ref.kind || 'Service') === 'Service' && !!ref.name;

/** Why an installation does not render this HTTPRoute or GRPCRoute: only when it does not watch the kind. */
function httpRouteMiss(kind: RouteKind, inst: RouteInstallation): string | undefined {
  const watches = kind === 'HTTPRoute' ? inst.admission.httpRoutes : inst.admission.grpcRoutes;
  return watches ? undefined : `HAPTIC ${inst.id} does not watch ${kind}s (its gateway library is off)`;
}

/**
 * The Gateway API's hostname intersection (gateway/21-route-helpers.yaml HostnameSinglePairIntersection): the more
 * specific of the two, or '' when they do not intersect. `*.example.com` matches any name ending in `.example.com`
 * with at least one label before it, not `example.com` itself.
 */
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

/** What is known of the cluster beyond the routes: the Services judged exist; others, when the lists were read. */
interface Judging {
  lists: RouteLists;
  lookup: Indexed;
  known: Set<string>;
  services?: Set<string> | undefined;
  namespaces?: Map<string, Record<string, string>> | undefined;
}

function judging(lists: RouteLists, known: Service[]): Judging {
  const key = (o: { metadata: { namespace?: string | undefined; name: string } }) => `${ns(o)}/${o.metadata.name}`;
  return {
    lists,
    lookup: indexed(lists),
    known: new Set(known.map(key)),
    services: lists.services && !lists.services.error ? new Set(lists.services.items.map(key)) : undefined,
    namespaces:
      lists.namespaces && !lists.namespaces.error
        ? new Map(lists.namespaces.items.map((n) => [n.metadata.name, n.metadata.labels ?? {}]))
        : undefined,
  };
}

/** Whether a Service exists: true, false, or undefined when the Services were not read. */
function exists(j: Judging, namespace: string, name: string): boolean | undefined {
  const key = `${namespace}/${name}`;
  if (j.known.has(key)) return true;
  return j.services ? j.services.has(key) : undefined;
}

type RouteVerdict = { miss?: string | undefined; unknown?: string[] | undefined };

const attachmentKey = (kind: RouteKind, route: GatewayRoute, inst: RouteInstallation) =>
  `${kind}\u0000${inst.id}\u0000${ns(route)}/${route.metadata.name}`;

/** One listener a TLS or TCP route attaches to, and whether that is certain (a namespace selector unread). */
interface Attached {
  gateway: string;
  listener: string;
  port: number;
  certain: boolean;
}

/**
 * The listeners a TLSRoute or TCPRoute attaches to for one installation (gateway/22-ssl-passthrough.yaml
 * PublishGatewayTLSSSLPassthrough, gateway/90-tcproute.yaml util-gateway-tcproute-analysis), with why the others
 * refuse it, and what could not be told.
 */
function attachments(
  kind: 'TLSRoute' | 'TCPRoute',
  route: GatewayRoute,
  j: Judging,
  inst: RouteInstallation,
): { attached: Attached[]; misses: string[]; unknown: string[] } {
  const protocol = kind === 'TLSRoute' ? 'TLS' : 'TCP';
  const where = ns(route);
  const attached: Attached[] = [];
  const misses: string[] = [];
  const unknown: string[] = [];
  const parents = (route.spec?.parentRefs ?? []).filter((p) => p && toGateway(p));
  if (!parents.length)
    misses.push(`has no parentRefs to a Gateway (HAPTIC renders a ${kind} on a ${protocol} listener)`);
  const hostnames = (route.spec?.hostnames ?? []).filter((h): h is string => typeof h === 'string');
  for (const parent of parents) {
    const gatewayNs = parent.namespace || where;
    const gw = `${gatewayNs}/${parent.name}`;
    const gateway = j.lookup.gateways.get(gw);
    if (!gateway) {
      misses.push(`its parent gateway ${gw} ${j.lookup.gatewaysUnread ? 'could not be read' : 'does not exist'}`);
      continue;
    }
    const selector = inst.admission.gateways?.fieldSelector;
    if (selector && !fieldSelectorMatches(selector, gateway)) {
      misses.push(
        `its parent gateway ${gw} has ${gateway.spec?.gatewayClassName ? `gatewayClassName ${gateway.spec.gatewayClassName}` : 'no gatewayClassName'}; HAPTIC ${inst.id} watches Gateways with ${selector}`,
      );
      continue;
    }
    const listeners = (gateway.spec?.listeners ?? []).filter((l): l is GatewayListener => !!l && typeof l === 'object');
    const portOfListener = (l: GatewayListener) => (typeof l.port === 'number' ? l.port : 0);
    // a TLS port with both a Passthrough and a Terminate listener is a protocol conflict: neither accepts routes
    const modes = new Map<number, Set<string>>();
    for (const l of listeners.filter((l) => l.protocol === 'TLS')) {
      const set = modes.get(portOfListener(l)) ?? new Set<string>();
      set.add(l.tls?.mode || 'Terminate');
      modes.set(portOfListener(l), set);
    }
    const candidates = listeners.filter(
      (l) =>
        l.protocol === protocol &&
        (protocol === 'TLS' || portOfListener(l) > 0) &&
        (!parent.sectionName || parent.sectionName === l.name) &&
        (!parent.port || parent.port === portOfListener(l)),
    );
    if (!candidates.length) {
      const named = parent.sectionName ? ` named ${parent.sectionName}` : '';
      const onPort = parent.port ? ` on port ${parent.port}` : '';
      misses.push(`its parent gateway ${gw} has no ${protocol} listener${named}${onPort}`);
      continue;
    }
    for (const l of candidates) {
      const at = `listener ${l.name} of gateway ${gw}`;
      if (protocol === 'TLS') {
        const mode = l.tls?.mode || 'Terminate';
        if (mode !== 'Passthrough' && mode !== 'Terminate') {
          misses.push(`${at} has tls.mode ${mode}, neither Passthrough nor Terminate`);
          continue;
        }
        const set = modes.get(portOfListener(l));
        if (set?.has('Passthrough') && set.has('Terminate')) {
          misses.push(
            `${at} shares port ${portOfListener(l)} with a TLS listener of the other tls.mode: no route attaches`,
          );
          continue;
        }
      }
      const kinds = (l.allowedRoutes?.kinds ?? []).filter((k) => k && typeof k === 'object');
      if (kinds.length && !kinds.some((k) => (k.group || GATEWAY_GROUP) === GATEWAY_GROUP && k.kind === kind)) {
        misses.push(`${at} admits only ${kinds.map((k) => k.kind).join(', ')} (allowedRoutes.kinds), not ${kind}`);
        continue;
      }
      const admitted = namespaceAdmitted(l, where, gatewayNs, j);
      if (admitted.miss) {
        misses.push(`${at} ${admitted.miss}`);
        continue;
      }
      if (protocol === 'TLS') {
        if (!hostnames.length) {
          misses.push(`has no spec.hostnames: HAPTIC attaches a TLSRoute by SNI only, so to no listener`);
          continue;
        }
        const host = typeof l.hostname === 'string' ? l.hostname : '';
        if (host && !hostnames.some((h) => hostnameIntersection(host, h))) {
          misses.push(`none of its hostnames (${hostnames.join(', ')}) intersects the hostname ${host} of ${at}`);
          continue;
        }
      }
      if (admitted.unknown) unknown.push(admitted.unknown);
      attached.push({ gateway: gw, listener: l.name, port: portOfListener(l), certain: !admitted.unknown });
    }
  }
  return { attached, misses: [...new Set(misses)], unknown };
}

/**
 * Whether a listener admits routes of the route's namespace (allowedRoutes.namespaces.from: Same, the default; All;
 * Selector by matchLabels only, against the namespace's labels; anything else admits none).
 */
function namespaceAdmitted(
  l: GatewayListener,
  routeNs: string,
  gatewayNs: string,
  j: Judging,
): { miss?: string; unknown?: string } {
  const from = l.allowedRoutes?.namespaces?.from || 'Same';
  if (from === 'All') return {};
  if (from === 'Same')
    return routeNs === gatewayNs
      ? {}
      : {
          miss: `admits routes of its own namespace ${gatewayNs} only (allowedRoutes.namespaces.from Same, the default)`,
        };
  if (from !== 'Selector') return { miss: `has allowedRoutes.namespaces.from ${from}, which admits no namespace` };
  const match = l.allowedRoutes?.namespaces?.selector?.matchLabels;
  if (!match || typeof match !== 'object')
    return { miss: 'selects namespaces without matchLabels (the only selector HAPTIC reads)' };
  const wanted = Object.entries(match)
    .map(([k, v]) => `${k}=${v}`)
    .join(',');
  if (!j.namespaces)
    return {
      unknown: `namespaces could not be read: listener ${l.name} admits routes by namespace selector ${wanted}`,
    };
  const labels = j.namespaces.get(routeNs);
  if (!labels) return { miss: `selects namespaces by ${wanted}, and namespace ${routeNs} does not exist` };
  return Object.entries(match).every(([k, v]) => labels[k] === v)
    ? {}
    : { miss: `selects namespaces by ${wanted}, which namespace ${routeNs}'s labels do not match` };
}

/** Why an installation does not render a TLSRoute or TCPRoute at all: its generation, its watches, the listeners. */
function listenerRouteMiss(
  kind: 'TLSRoute' | 'TCPRoute',
  route: GatewayRoute,
  j: Judging,
  inst: RouteInstallation,
  cache: Map<string, ReturnType<typeof attachments>>,
): RouteVerdict {
  const watches = kind === 'TLSRoute' ? inst.admission.tlsRoutes : inst.admission.tcpRoutes;
  if (inst.generation === 'dataplane' || !watches || !inst.admission.gateways)
    return { miss: `HAPTIC ${inst.id} does not watch ${kind}s` };
  const key = attachmentKey(kind, route, inst);
  const found = cache.get(key) ?? attachments(kind, route, j, inst);
  cache.set(key, found);
  if (found.attached.some((a) => a.certain)) return {};
  if (found.attached.length)
    return { miss: `cannot tell whether it attaches: ${found.unknown.join('; ')}`, unknown: found.unknown };
  return { miss: found.misses.join('; ') };
}

/** Why a backendRef of a TLS or TCP rule does not resolve (BackendRefValid's terms), undefined when it does. */
function refProblem(j: Judging, kind: RouteKind, from: string, ref: BackendReference): RouteVerdict | undefined {
  if (!isServiceRef(ref))
    return {
      miss: `${ref.kind || 'Service'} ${ref.name || '(unnamed)'} (group ${ref.group || 'core'}) is not a Service`,
    };
  const target = { namespace: ref.namespace || from, name: ref.name };
  const found = exists(j, target.namespace, target.name);
  if (found === false) return { miss: `service ${target.namespace}/${target.name} does not exist` };
  if (found === undefined)
    return {
      miss: `whether service ${target.namespace}/${target.name} exists cannot be told`,
      unknown: [`services could not be read: whether service ${target.namespace}/${target.name} exists decides it`],
    };
  if (target.namespace !== from && !granted(j.lookup, kind, from, target))
    return {
      miss: j.lists.referenceGrants.error
        ? `the ReferenceGrants that could let it reach service ${target.namespace}/${target.name} could not be read`
        : `no ReferenceGrant in ${target.namespace} lets ${kind}s of ${from} reach service ${target.namespace}/${target.name}`,
    };
  return undefined;
}

/** A claim of a listener port by a TCPRoute rule, in the order the oldest-wins rule sorts them. */
interface Claim {
  port: number;
  route: string;
  rule: number;
  ts: string;
  certain: boolean;
}

/**
 * Which claim keeps a contested TCP port (util-gateway-tcproute-analysis: the same creationTimestamp goes by
 * namespace/name, a route without one loses, else the older wins; a route's later rule never beats its first).
 */
const claimsBefore = (a: Claim, b: Claim) => {
  if (a.ts === b.ts) return a.route === b.route ? a.rule < b.rule : a.route < b.route;
  if (a.ts === '') return false;
  return b.ts === '' || a.ts < b.ts;
};

/** Every TCP listener port claimed, per installation: each port's claims, best first. */
function tcpClaims(j: Judging, inst: RouteInstallation, cache: Map<string, ReturnType<typeof attachments>>) {
  const byPort = new Map<number, Claim[]>();
  for (const route of j.lists.tcpRoutes.items) {
    listenerRouteMiss('TCPRoute', route, j, inst, cache);
    const found = cache.get(attachmentKey('TCPRoute', route, inst));
    if (!found?.attached.length) continue;
    const key = `${ns(route)}/${route.metadata.name}`;
    (route.spec?.rules ?? []).forEach((rule, index) => {
      const verdicts = (rule?.backendRefs ?? []).map((ref) => refProblem(j, 'TCPRoute', ns(route), ref));
      const valid = verdicts.some((v) => !v);
      if (!valid && !verdicts.some((v) => v?.unknown)) return;
      for (const a of found.attached) {
        const claim = {
          port: a.port,
          route: key,
          rule: index,
          ts: route.metadata.creationTimestamp ?? '',
          certain: valid && a.certain,
        };
        const list = byPort.get(a.port) ?? [];
        if (!list.some((c) => c.route === key && c.rule === index)) list.push(claim);
        byPort.set(a.port, list);
      }
    });
  }
  for (const list of byPort.values()) list.sort((a, b) => (claimsBefore(a, b) ? -1 : claimsBefore(b, a) ? 1 : 0));
  return byPort;
}

/** Whether a TCPRoute rule keeps a port: rendered, a miss naming the older claims, or undecided. */
function tcpRuleVerdict(route: GatewayRoute, rule: number, claims: Map<number, Claim[]>): RouteVerdict {
  const key = `${ns(route)}/${route.metadata.name}`;
  const lost: string[] = [];
  let undecided = false;
  for (const [port, list] of claims) {
    const mine = list.findIndex((c) => c.route === key && c.rule === rule);
    if (mine < 0) continue;
    const before = list.slice(0, mine);
    if (list[mine]!.certain && before.length === 0) return {};
    const winner = before.find((c) => c.certain);
    if (winner)
      lost.push(
        `port ${port} belongs to tcproute ${winner.route} rule ${winner.rule}${winner.route === key ? '' : ` (created ${winner.ts || 'at no recorded time'}, before it)`}`,
      );
    else undecided = true;
  }
  if (undecided)
    return {
      miss: 'cannot tell which rule keeps its listener port',
      unknown: ['whether an older TCPRoute claims the same listener port cannot be told'],
    };
  return {
    miss: lost.length
      ? `HAPTIC forwards a listener port to one (route, rule), the oldest: ${lost.join('; ')}`
      : 'claims no listener port',
  };
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
  via?: string | undefined;
}

/** Per reference, what could not be told for an installation (a namespace selector, a Service unread). */
const UNDECIDED = new WeakMap<Named, (inst: RouteInstallation) => string[]>();

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

/**
 * Why a backendRef to another namespace is not rendered by an installation, or undefined when it is. The dataplane
 * generation renders it by the Service's name, whatever the namespace (base.yaml BackendServers).
 */
function crossNamespaceMiss(
  lists: RouteLists,
  index: Indexed,
  kind: RouteKind,
  from: string,
  to: { namespace: string; name: string },
  inst: RouteInstallation,
): string | undefined {
  if (to.namespace === from || inst.generation === 'dataplane') return undefined;
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

/** The agent's default backends an Ingress names by annotation (nginx-ingress/17-default-backend.yaml and kin). */
function annotationReferences(ingress: Ingress, j: Judging, out: Named[]) {
  const where = ns(ingress);
  const name = ingress.metadata.name;
  for (const d of DEFAULT_BACKEND_ANNOTATIONS) {
    const value = ingress.metadata.annotations?.[d.annotation];
    if (!value) continue;
    // `<service>` or `<namespace>/<service>` (the template splits at "/" and takes the first two parts)
    const parts = value.split('/');
    const target = value.includes('/')
      ? { namespace: parts[0] ?? '', name: parts[1] ?? '' }
      : { namespace: where, name: value };
    const backend = `${where}_${name}_default-backend_${target.name}`;
    out.push({
      kind: 'Ingress',
      namespace: where,
      name,
      service: { ...target, port: '' },
      backend: () => backend,
      via: `annotation ${d.annotation}: ${value}`,
      missOf: (i) => {
        if (i.generation === 'dataplane')
          return `HAPTIC ${i.id} (dataplane generation) has no library that reads the ${d.annotation} annotation`;
        if (!i.admission.annotationDefaultBackends?.includes(d.annotation))
          return `HAPTIC ${i.id} does not run the ${d.library} library that reads the ${d.annotation} annotation (its template config's libraryRefs have no ${d.library})`;
        return ingressMiss(ingress, i);
      },
      // the Service must exist and have a port (its first one is taken); the judged Services exist
      reachOf: () =>
        exists(j, target.namespace, target.name) === false
          ? `names service ${target.namespace}/${target.name}, which does not exist`
          : undefined,
    });
  }
}

/** Every Service reference of every readable route (and of the installations' own default backends). */
function references(lists: RouteLists, known: Service[] = [], installations: RouteInstallation[] = []): Named[] {
  const out: Named[] = [];
  const j = judging(lists, known);
  const lookup = j.lookup;
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
    annotationReferences(ingress, j, out);
  }
  for (const [kind, list] of [
    ['HTTPRoute', lists.httpRoutes],
    ['GRPCRoute', lists.grpcRoutes],
  ] as const) {
    for (const route of list.items) {
      const where = ns(route);
      const seen = new Set<string>();
      for (const ref of (route.spec?.rules ?? []).flatMap((r) => r?.backendRefs ?? [])) {
        if (!ref?.name) continue;
        const port = String(ref.port ?? 80);
        const target = { namespace: ref.namespace || where, name: ref.name };
        const backend = `gtw_${where}_${route.metadata.name}_${ref.name}_${port}`;
        if (seen.has(`${target.namespace}/${backend}`)) continue;
        seen.add(`${target.namespace}/${backend}`);
        const service = isServiceRef(ref);
        out.push({
          kind,
          namespace: where,
          name: route.metadata.name,
          service: { ...target, port },
          backend: () => backend,
          missOf: (i) => httpRouteMiss(kind, i),
          // the dataplane generation reads only the backendRef's name and port (gateway.yaml GenerateGatewayBackends);
          // the agent skips what is not a core Service (30-backends.yaml)
          reachOf: (i) =>
            !service && i.generation === 'agent'
              ? `its backendRef ${ref.name} is a ${ref.kind || 'Service'} of group ${ref.group || 'core'}, not a Service, which HAPTIC ${i.id} does not render`
              : crossNamespaceMiss(lists, lookup, kind, where, target, i),
        });
      }
    }
  }
  const attached = new Map<string, ReturnType<typeof attachments>>();
  const claims = new Map<string, Map<number, Claim[]>>();
  const claimsOf = (i: RouteInstallation) => {
    const found = claims.get(i.id) ?? tcpClaims(j, i, attached);
    claims.set(i.id, found);
    return found;
  };
  for (const [kind, list] of [
    ['TLSRoute', lists.tlsRoutes],
    ['TCPRoute', lists.tcpRoutes],
  ] as const) {
    for (const route of list.items) {
      const where = ns(route);
      (route.spec?.rules ?? []).forEach((rule, index) => {
        const refs = (rule?.backendRefs ?? []).filter((r) => r && typeof r === 'object');
        const backend = `gtw_${kind === 'TLSRoute' ? 'tls' : 'tcp'}_${where}_${route.metadata.name}_${index}`;
        refs.forEach((ref, position) => {
          if (!isServiceRef(ref)) return;
          const target = { namespace: ref.namespace || where, name: ref.name };
          const reach = (i: RouteInstallation): RouteVerdict => {
            if (kind === 'TLSRoute') {
              // every backendRef of the rule resolves, or none is rendered (ruleResolved); the first is the backend
              for (const other of refs) {
                const problem = refProblem(j, kind, where, other);
                if (problem)
                  return { ...problem, miss: `rule ${index}: ${problem.miss}, so HAPTIC renders nothing for the rule` };
              }
              if (position > 0)
                return {
                  miss: `is backendRef ${position} of rule ${index}; HAPTIC's TLS backend is the rule's first backendRef only`,
                };
              return {};
            }
            const own = refProblem(j, kind, where, ref);
            if (own) return own;
            return tcpRuleVerdict(route, index, claimsOf(i));
          };
          const named: Named = {
            kind,
            namespace: where,
            name: route.metadata.name,
            service: { ...target, port: String(ref.port ?? (kind === 'TLSRoute' ? 443 : 80)) },
            backend: () => backend,
            missOf: (i) => listenerRouteMiss(kind, route, j, i, attached).miss,
            reachOf: (i) => reach(i).miss,
          };
          UNDECIDED.set(named, (i) => {
            const listener = listenerRouteMiss(kind, route, j, i, attached);
            return listener.miss ? (listener.unknown ?? []) : (reach(i).unknown ?? []);
          });
          out.push(named);
        });
      });
    }
  }
  // the chart's default backend (the agent's kubernetes-backends library): `default_backend`, the template config's
  for (const inst of installations) {
    const db = inst.admission.defaultBackend;
    if (!db) continue;
    const [namespace = '', name = ''] = inst.id.split('/');
    out.push({
      kind: 'HAProxyTemplateConfig',
      namespace,
      name,
      service: { namespace: db.namespace, name: db.name, port: db.port },
      backend: () => 'default_backend',
      via: 'templatingSettings.extraContext.defaultBackendService',
      missOf: (i) =>
        i.id !== inst.id
          ? `it is HAPTIC ${inst.id}'s default backend, not HAPTIC ${i.id}'s`
          : i.generation === 'dataplane'
            ? `HAPTIC ${i.id} (dataplane generation) renders no default backend Service`
            : undefined,
    });
  }
  return out;
}

/**
 * What rendering a reference does besides: the agent generation's ResolveServicePort fails the whole render on a
 * port name the Service lacks (kubernetes-backends/library.yaml), for an Ingress's backend and the chart's default
 * backend alike; a number it lacks, or a name in the dataplane generation (which falls back to port 80), still
 * renders servers.
 */
function portWarning(service: Service, ref: Named, admitting: RouteInstallation[]): string | undefined {
  const port = ref.service.port;
  if (ref.kind !== 'Ingress' && ref.kind !== 'HAProxyTemplateConfig') return undefined;
  if (!port || /^\d+$/.test(port)) return undefined;
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
 * port the Service has — with, for the dataplane generation, the routes of other namespaces naming a Service of the
 * same name, which it renders by name; the routes of other namespaces that name a Service of the same name; what
 * could not be read or told.
 */
export function routingOf(services: Service[], lists: RouteLists, installations: RouteInstallation[]): Routing {
  const all = references(lists, services, installations);
  const unread = unreadKinds(lists);
  const unknownInstallations = installations
    .filter((i) => i.admission.unknown)
    .map((i) => ({ id: i.id, reason: i.admission.unknown! }));
  const undecided = new Set<string>();
  const judge = (ref: Named, service?: Service, insts = installations, collect = false): RouteReference => {
    const watching = insts.filter((i) => !i.admission.unknown && !ref.missOf(i));
    const rendering = watching.filter((i) => !ref.reachOf?.(i));
    const miss = rendering.length
      ? undefined
      : watching.length
        ? watching.map((i) => ref.reachOf!(i)).join('; ')
        : insts.map(ref.missOf).filter(Boolean).join('; ') || 'no HAPTIC installation watches it';
    if (collect && miss)
      for (const i of insts) for (const reason of UNDECIDED.get(ref)?.(i) ?? []) undecided.add(reason);
    const { missOf: _, reachOf: __, backend, via, ...plain } = ref;
    return {
      ...plain,
      backend: rendering[0] && backend(rendering[0].generation, service),
      admittedBy: watching.map((i) => i.id),
      miss,
      warning: service && portWarning(service, ref, rendering),
      ...(via ? { via } : {}),
    };
  };
  const dataplanes = installations.filter((i) => i.generation === 'dataplane' && !i.admission.unknown);
  const byName = new Set<Named>();
  const own = services.map((svc) => {
    const routes = all
      .filter((r) => r.service.namespace === ns(svc) && r.service.name === svc.metadata.name)
      .map((r) => judge(r, svc, installations, true));
    // the dataplane generation reaches this Service from a route of any namespace that names a Service of its name
    if (dataplanes.length) {
      for (const r of all) {
        if (r.service.name !== svc.metadata.name || r.service.namespace === ns(svc)) continue;
        const judged = judge(r, svc, dataplanes);
        if (judged.miss) continue;
        byName.add(r);
        routes.push({
          ...judged,
          via: `names service ${r.service.namespace}/${r.service.name}; HAPTIC ${judged.admittedBy.join(', ')} (dataplane generation) renders a backend from every namespace's EndpointSlices of that Service name`,
        });
      }
    }
    return { service: svc.metadata.name, routes, routed: routes.some((r) => !r.miss) };
  });
  const names = new Set(services.map((s) => s.metadata.name));
  const namespaces = new Set(services.map(ns));
  // judged only as many as are shown: other tenants' routes are not worked through whole
  const elsewhere = all
    .filter((r) => names.has(r.service.name) && !namespaces.has(r.service.namespace) && !byName.has(r))
    .slice(0, ELSEWHERE_SHOWN)
    .map((r) => judge(r));
  for (const reason of undecided) unread.push({ kind: 'undecided', reason, absent: false });
  // a kind the cluster does not serve holds no route; one that could not be read might. Gateways matter only to
  // TLS and TCP routes, ReferenceGrants only to routes across namespaces.
  const crossing = all.some(
    (r) => r.kind !== 'Ingress' && r.kind !== 'HAProxyTemplateConfig' && r.namespace !== r.service.namespace,
  );
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
 * installation renders reaches any of them, and no live config has a server for the pod or in the backend of one of
 * these Services (rendered.ts servedPod: another pod's server in another Service's backend proves nothing for this
 * one). Undefined when one does, or when it cannot be told.
 */
export function unroutedReason(
  routing: Routing,
  services: string[],
  installations: RouteInstallation[],
  pod?: string,
): string | undefined {
  if (!routing.conclusive || !installations.length || !services.length) return undefined;
  if (routing.rendered && (pod === undefined ? routing.rendered.length : servedPod(routing.rendered, pod, services)))
    return undefined;
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

/**
 * Every Service reference of every readable route one installation renders (it watches the route, and its
 * generation's rules reach the Service), in every namespace: what its one render is made of. The agent generation
 * renders them all in one template run, so a reference that fails there (a port name the Service lacks,
 * kubernetes-backends/library.yaml ResolveServicePort) fails the render of every workload (frozen-render.ts).
 */
export function renderedReferences(lists: RouteLists, inst: RouteInstallation): RouteReference[] {
  if (inst.admission.unknown) return [];
  return references(lists)
    .filter((r) => !r.missOf(inst) && !r.reachOf?.(inst))
    .map(({ missOf: _, reachOf: __, backend, ...plain }) => ({
      ...plain,
      backend: backend(inst.generation),
      admittedBy: [inst.id],
    }));
}
