import type { Read } from '../../types/snapshot.ts';
import type { HAProxyTemplateConfig, WatchedResource } from '../../types/haptic.ts';
import type { Service } from '../../types/kube.ts';
import type { BackendReference, Gateway, GatewayRoute, Ingress } from '../../types/routes.ts';
import { servicesSelecting } from '../services.ts';

// Which routes HAPTIC renders, and so which Services' pods it can route at all. HAPTIC renders backends only for
// Services a route of its own references (HAProxy-Template-IC/haproxy-template-ingress-controller,
// charts/haptic/libraries/ingress.yaml and gateway.yaml, merged into the template config's watchedResources by
// charts/haptic/templates/_helpers.tpl):
// - its ingress library watches Ingresses through a field selector the chart sets from ingressClass.name
//   (`spec.ingressClassName=haproxy`; an Ingress without ingressClassName does not match), and renders one backend
//   per path of spec.rules[].http.paths[] (spec.defaultBackend is not read), named
//   `ing_<namespace>_<ingress>_<service>_<port name or number>`;
// - its gateway library watches Gateways through `spec.gatewayClassName=haproxy`, and HTTPRoutes and GRPCRoutes
//   attached to them by parentRefs (docs/libraries/gateway.md), one backend per backendRef, named
//   `gtw_<namespace>_<route>_<service>_<port>` (port 80 when the backendRef has none); cross-namespace backendRefs
//   are not rendered (the same page: "Not explicitly handled").
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
  /** why what it renders cannot be told (no watchedResources, a selector HAPTIC would refuse) */
  unknown?: string | undefined;
}

export type RouteKind = 'Ingress' | 'HTTPRoute' | 'GRPCRoute';

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
}

export interface ServiceRouting {
  service: string;
  /** routes of the Service's own, rendered or near misses */
  routes: RouteReference[];
  routed: boolean;
}

export interface Routing {
  services: ServiceRouting[];
  /** routes in other namespaces that name a Service of the same name (they reach their own namespace's) */
  elsewhere: RouteReference[];
  /** route kinds the cluster does not serve, or that could not be read: said, never taken as empty */
  unread: { kind: string; reason: string; absent: boolean }[];
  /** installations whose admission is unknown */
  unknownInstallations: { id: string; reason: string }[];
  /** whether "no route reaches the pods" can be concluded: nothing that might route them went unread */
  conclusive: boolean;
}

export interface RouteLists {
  ingresses: Read<Ingress>;
  httpRoutes: Read<GatewayRoute>;
  grpcRoutes: Read<GatewayRoute>;
  gateways: Read<Gateway>;
}

/** An installation as the route model needs it: its id (namespace/template config) and what it admits. */
export interface RouteInstallation {
  id: string;
  admission: RouteAdmission;
}

/** The installations of the HAPTIC model as the route model reads them. */
export const routeInstallations = (
  installations: { namespace: string; templateConfig: string; routes: RouteAdmission }[],
): RouteInstallation[] => installations.map((i) => ({ id: `${i.namespace}/${i.templateConfig}`, admission: i.routes }));

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

/** Why an installation does not render this HTTPRoute or GRPCRoute, or undefined when it does. */
function gatewayRouteMiss(
  kind: RouteKind,
  route: GatewayRoute,
  gateways: Read<Gateway>,
  inst: RouteInstallation,
): string | undefined {
  const watches = kind === 'HTTPRoute' ? inst.admission.httpRoutes : inst.admission.grpcRoutes;
  if (!watches || !inst.admission.gateways)
    return `HAPTIC ${inst.id} does not watch ${kind}s (its gateway library is off)`;
  const parents = (route.spec?.parentRefs ?? []).filter(
    (p) =>
      (p.group ?? 'gateway.networking.k8s.io') === 'gateway.networking.k8s.io' && (p.kind ?? 'Gateway') === 'Gateway',
  );
  if (!parents.length) return 'has no parentRefs to a Gateway';
  const misses: string[] = [];
  for (const parent of parents) {
    const where = `${parent.namespace ?? ns(route)}/${parent.name}`;
    const gateway = gateways.items.find(
      (g) => ns(g) === (parent.namespace ?? ns(route)) && g.metadata.name === parent.name,
    );
    if (!gateway) {
      misses.push(
        gateways.error ? `its parent gateway ${where} could not be read` : `its parent gateway ${where} does not exist`,
      );
      continue;
    }
    const selector = inst.admission.gateways.fieldSelector;
    if (!selector || fieldSelectorMatches(selector, gateway)) return undefined;
    misses.push(
      `its parent gateway ${where} has ${gateway.spec?.gatewayClassName ? `gatewayClassName ${gateway.spec.gatewayClassName}` : 'no gatewayClassName'}; HAPTIC ${inst.id} watches Gateways with ${selector}`,
    );
  }
  return misses.join('; ');
}

/** Why the Service's ports make a route's port miss, or undefined when the Service has it. */
function portMiss(service: Service, port: string): string | undefined {
  const ports = service.spec.ports ?? [];
  const found = /^\d+$/.test(port) ? ports.some((p) => String(p.port) === port) : ports.some((p) => p.name === port);
  if (found) return undefined;
  const listed = ports.map((p) => (p.name ? `${p.name} ${p.port}` : String(p.port))).join(', ') || 'none';
  return `service/${service.metadata.name} has no port ${port} (its ports: ${listed}), so HAPTIC renders no server for it`;
}

interface Named {
  kind: RouteKind;
  namespace: string;
  name: string;
  service: { namespace: string; name: string; port: string };
  backend: string;
  /** why it cannot route whatever installation watches it (a port, a cross-namespace reference) */
  reach?: string | undefined;
  /** per installation: why it does not render the route */
  missOf: (inst: RouteInstallation) => string | undefined;
}

/** Every Service reference of every readable route, with its backend name as HAPTIC renders it. */
function references(lists: RouteLists): Named[] {
  const out: Named[] = [];
  for (const ingress of lists.ingresses.items) {
    const paths = (ingress.spec?.rules ?? []).flatMap((r) => r.http?.paths ?? []);
    const seen = new Set<string>();
    for (const path of paths) {
      const svc = path.backend?.service;
      if (!svc?.name) continue;
      const port = svc.port?.name || (svc.port?.number === undefined ? '' : String(svc.port.number));
      const backend = `ing_${ns(ingress)}_${ingress.metadata.name}_${svc.name}_${port}`;
      if (seen.has(backend)) continue;
      seen.add(backend);
      out.push({
        kind: 'Ingress',
        namespace: ns(ingress),
        name: ingress.metadata.name,
        service: { namespace: ns(ingress), name: svc.name, port },
        backend,
        missOf: (i) => ingressMiss(ingress, i),
      });
    }
    const fallback = ingress.spec?.defaultBackend?.service;
    if (fallback?.name && !paths.some((p) => p.backend?.service?.name === fallback.name)) {
      const port = fallback.port?.name || (fallback.port?.number === undefined ? '' : String(fallback.port.number));
      out.push({
        kind: 'Ingress',
        namespace: ns(ingress),
        name: ingress.metadata.name,
        service: { namespace: ns(ingress), name: fallback.name, port },
        backend: '',
        reach:
          "names it only as spec.defaultBackend, which HAPTIC's ingress library does not render (it renders spec.rules[].http.paths[])",
        missOf: (i) => ingressMiss(ingress, i),
      });
    }
  }
  for (const [kind, list] of [
    ['HTTPRoute', lists.httpRoutes],
    ['GRPCRoute', lists.grpcRoutes],
  ] as const) {
    for (const route of list.items) {
      const seen = new Set<string>();
      for (const ref of (route.spec?.rules ?? []).flatMap((r) => r.backendRefs ?? [])) {
        if (!isServiceRef(ref)) continue;
        const port = String(ref.port ?? 80);
        const backend = `gtw_${ns(route)}_${route.metadata.name}_${ref.name}_${port}`;
        const target = ref.namespace ?? ns(route);
        if (seen.has(`${target}/${backend}`)) continue;
        seen.add(`${target}/${backend}`);
        const reach =
          target === ns(route)
            ? undefined
            : `references it from namespace ${ns(route)}: HAPTIC's gateway library does not render cross-namespace backendRefs`;
        out.push({
          kind,
          namespace: ns(route),
          name: route.metadata.name,
          service: { namespace: target, name: ref.name, port },
          backend,
          reach,
          missOf: (i) => gatewayRouteMiss(kind, route, lists.gateways, i),
        });
      }
    }
  }
  return out;
}

const isServiceRef = (ref: BackendReference) =>
  (ref.group ?? '') === '' && (ref.kind ?? 'Service') === 'Service' && !!ref.name;

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
  say('gateways.gateway.networking.k8s.io', lists.gateways);
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
    const admittedBy = installations.filter((i) => !i.admission.unknown && !ref.missOf(i)).map((i) => i.id);
    const reach = ref.reach ?? (service && ref.service.port ? portMiss(service, ref.service.port) : undefined);
    const miss =
      reach ??
      (admittedBy.length
        ? undefined
        : installations.map(ref.missOf).filter(Boolean).join('; ') || 'no HAPTIC installation watches it');
    const { missOf: _, reach: __, ...plain } = ref;
    return { ...plain, backend: miss ? undefined : ref.backend, admittedBy, miss };
  };
  const own = services.map((svc) => {
    const routes = all
      .filter((r) => r.service.namespace === ns(svc) && r.service.name === svc.metadata.name)
      .map((r) => judge(r, svc));
    return { service: svc.metadata.name, routes, routed: routes.some((r) => !r.miss) };
  });
  const names = new Set(services.map((s) => s.metadata.name));
  const namespaces = new Set(services.map(ns));
  const elsewhere = all
    .filter((r) => names.has(r.service.name) && !namespaces.has(r.service.namespace))
    .map((r) => judge(r));
  // a kind the cluster does not serve holds no route; one that could not be read might
  const conclusive =
    unread.every(
      (u) =>
        u.absent ||
        (u.kind.startsWith('gateways') && lists.httpRoutes.items.length + lists.grpcRoutes.items.length === 0),
    ) && unknownInstallations.length === 0;
  return { services: own, elsewhere, unread, unknownInstallations, conclusive };
}

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
 * installation renders reaches any of them. Undefined when one does, or when it cannot be told.
 */
export function unroutedReason(
  routing: Routing,
  services: string[],
  installations: RouteInstallation[],
): string | undefined {
  if (!routing.conclusive || !installations.length || !services.length) return undefined;
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
