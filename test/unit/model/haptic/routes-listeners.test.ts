// The route model's rules beyond HTTP and Ingress backends, each as HAPTIC's sources write it: TLSRoutes and TCPRoutes
// attaching to listeners (agent gateway/22-ssl-passthrough.yaml, gateway/90-tcproute.yaml), the hostname intersection
// (gateway/21-route-helpers.yaml), the dataplane generation's backends by Service name (libraries/base.yaml), and the
// agent generation's default backends (nginx-ingress/17-default-backend.yaml, haptic-annotations/40-features.yaml,
// kubernetes-backends/library.yaml).
import { describe, expect, it } from 'vitest';
import {
  hostnameIntersection,
  routeAdmission,
  routingOf,
  unroutedReason,
  type RouteGeneration,
  type RouteInstallation,
  type RouteLists,
} from '../../../../src/model/haptic/routes.ts';
import type { HAProxyTemplateConfig, WatchedResource } from '../../../../src/types/haptic.ts';
import type { KubeObject, Service } from '../../../../src/types/kube.ts';
import type { Gateway, GatewayListener, GatewayRoute, Ingress, ReferenceGrant } from '../../../../src/types/routes.ts';
import { CHART_WATCHED_RESOURCES, ingress, service } from '../../fixtures/rollout.ts';

const WATCHING_ALL: Record<string, WatchedResource> = {
  ...CHART_WATCHED_RESOURCES,
  tlsroutes: { resources: 'tlsroutes' },
  tcproutes: { resources: 'tcproutes' },
  referencegrants: { resources: 'referencegrants' },
};
const htc = (spec: Record<string, unknown> = {}): HAProxyTemplateConfig => ({
  metadata: { name: 'haptic-config', namespace: 'haptic' },
  spec: { watchedResources: WATCHING_ALL, ...spec } as HAProxyTemplateConfig['spec'],
});
const at = (generation: RouteGeneration, config = htc()): RouteInstallation[] => [
  { id: 'haptic/haptic-config', admission: routeAdmission(config), generation },
];
const agent = at('agent');
const dataplane = at('dataplane');

const lists = (
  o: Partial<{ [K in keyof RouteLists]: RouteLists[K] extends { items: (infer T)[] } | undefined ? T[] : never }> = {},
): RouteLists => ({
  ingresses: { items: (o.ingresses ?? []) as Ingress[] },
  httpRoutes: { items: (o.httpRoutes ?? []) as GatewayRoute[] },
  grpcRoutes: { items: [] },
  tlsRoutes: { items: (o.tlsRoutes ?? []) as GatewayRoute[] },
  tcpRoutes: { items: (o.tcpRoutes ?? []) as GatewayRoute[] },
  gateways: { items: (o.gateways ?? []) as Gateway[] },
  referenceGrants: { items: (o.referenceGrants ?? []) as ReferenceGrant[] },
  ...(o.namespaces ? { namespaces: { items: o.namespaces as KubeObject[] } } : {}),
  ...(o.services ? { services: { items: o.services as Service[] } } : {}),
});
const gateway = (listeners: GatewayListener[], name = 'public', namespace = 'shop', cls = 'haproxy'): Gateway => ({
  metadata: { name, namespace },
  spec: { gatewayClassName: cls, listeners },
});
const TLS: GatewayListener = { name: 'tls', protocol: 'TLS', port: 443, tls: { mode: 'Passthrough' } };
const TCP: GatewayListener = { name: 'db', protocol: 'TCP', port: 5432 };
const tlsRoute = (
  o: {
    name?: string;
    namespace?: string;
    hostnames?: string[];
    parent?: { name: string; namespace?: string; sectionName?: string; port?: number };
    refs?: { name: string; namespace?: string; port?: number; kind?: string }[];
    created?: string;
  } = {},
): GatewayRoute => ({
  metadata: {
    name: o.name ?? 'secure',
    namespace: o.namespace ?? 'shop',
    ...(o.created ? { creationTimestamp: o.created } : {}),
  },
  spec: {
    parentRefs: [o.parent ?? { name: 'public', namespace: 'shop' }],
    ...(o.hostnames ? { hostnames: o.hostnames } : {}),
    rules: [{ backendRefs: o.refs ?? [{ name: 'web', namespace: 'shop', port: 8443 }] }],
  },
});
const web = service();
const judgedTls = (o: Parameters<typeof lists>[0], insts = agent) =>
  routingOf([web], lists(o), insts).services[0]!.routes.find((r) => r.kind === 'TLSRoute')!;

describe('hostnames intersect as the Gateway API defines (21-route-helpers.yaml HostnameSinglePairIntersection)', () => {
  it.each([
    ['a.example.com', 'a.example.com', 'a.example.com'],
    ['*.example.com', 'a.example.com', 'a.example.com'],
    ['*.example.com', 'a.b.example.com', 'a.b.example.com'],
    ['*.example.com', 'example.com', ''],
    ['a.example.com', '*.example.com', 'a.example.com'],
    ['*.example.com', '*.example.com', '*.example.com'],
    ['*.a.example.com', '*.example.com', '*.a.example.com'],
    ['*.example.com', '*.a.example.com', '*.a.example.com'],
    ['a.example.com', 'b.example.com', ''],
    ['*.example.com', 'a.example.org', ''],
  ])('listener %s, route %s: %s', (l, r, want) => expect(hostnameIntersection(l, r)).toBe(want));
});

describe('a TLSRoute attaches to a TLS listener (agent gateway/22-ssl-passthrough.yaml)', () => {
  it('needs hostnames, and one that intersects the listener’s', () => {
    const listener = { ...TLS, hostname: '*.example.com' };
    expect(
      judgedTls({ gateways: [gateway([listener])], tlsRoutes: [tlsRoute({ hostnames: ['secure.example.com'] })] }),
    ).toMatchObject({
      backend: 'gtw_tls_shop_secure_0',
      miss: undefined,
    });
    expect(judgedTls({ gateways: [gateway([listener])], tlsRoutes: [tlsRoute()] }).miss).toBe(
      'has no spec.hostnames: HAPTIC attaches a TLSRoute by SNI only, so to no listener',
    );
    expect(
      judgedTls({ gateways: [gateway([listener])], tlsRoutes: [tlsRoute({ hostnames: ['secure.example.org'] })] }).miss,
    ).toBe(
      'none of its hostnames (secure.example.org) intersects the hostname *.example.com of listener tls of gateway shop/public',
    );
    // a listener without a hostname takes any
    expect(
      judgedTls({ gateways: [gateway([TLS])], tlsRoutes: [tlsRoute({ hostnames: ['x.example.org'] })] }).miss,
    ).toBeUndefined();
  });

  it('follows the parentRef’s sectionName and port, tls.mode, and a port holding both modes', () => {
    const secure = (parent: NonNullable<Parameters<typeof tlsRoute>[0]>['parent']) =>
      tlsRoute({ hostnames: ['s.example.com'], parent });
    const two = gateway([TLS, { ...TLS, name: 'tls-alt', port: 8443 }]);
    expect(
      judgedTls({ gateways: [two], tlsRoutes: [secure({ name: 'public', sectionName: 'tls-alt' })] }).miss,
    ).toBeUndefined();
    expect(judgedTls({ gateways: [two], tlsRoutes: [secure({ name: 'public', sectionName: 'other' })] }).miss).toBe(
      'its parent gateway shop/public has no TLS listener named other',
    );
    expect(judgedTls({ gateways: [two], tlsRoutes: [secure({ name: 'public', port: 9443 })] }).miss).toBe(
      'its parent gateway shop/public has no TLS listener on port 9443',
    );
    const terminate = { ...TLS, tls: {} };
    expect(judgedTls({ gateways: [gateway([terminate])], tlsRoutes: [secure(undefined)] }).miss).toBeUndefined();
    const odd = { ...TLS, tls: { mode: 'Mirror' } };
    expect(judgedTls({ gateways: [gateway([odd])], tlsRoutes: [secure(undefined)] }).miss).toBe(
      'listener tls of gateway shop/public has tls.mode Mirror, neither Passthrough nor Terminate',
    );
    const conflict = gateway([TLS, { ...TLS, name: 'tls-term', tls: { mode: 'Terminate' } }]);
    expect(judgedTls({ gateways: [conflict], tlsRoutes: [secure(undefined)] }).miss).toMatch(
      /shares port 443 with a TLS listener of the other tls.mode: no route attaches/,
    );
  });

  it('follows allowedRoutes.kinds and allowedRoutes.namespaces (Same by default, All, Selector by matchLabels)', () => {
    const front = (listener: GatewayListener, o: Parameters<typeof lists>[0] = {}) =>
      judgedTls({
        gateways: [gateway([listener], 'public', 'edge')],
        tlsRoutes: [tlsRoute({ hostnames: ['s.example.com'], parent: { name: 'public', namespace: 'edge' } })],
        ...o,
      });
    expect(front({ ...TLS, allowedRoutes: { kinds: [{ kind: 'TCPRoute' }] } }).miss).toBe(
      'listener tls of gateway edge/public admits only TCPRoute (allowedRoutes.kinds), not TLSRoute',
    );
    expect(front(TLS).miss).toBe(
      'listener tls of gateway edge/public admits routes of its own namespace edge only (allowedRoutes.namespaces.from Same, the default)',
    );
    expect(
      front({ ...TLS, allowedRoutes: { namespaces: { from: 'All' }, kinds: [{ kind: 'TLSRoute' }] } }).miss,
    ).toBeUndefined();
    const selector: GatewayListener = {
      ...TLS,
      allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { edge: 'yes' } } } },
    };
    const shop = (labels: Record<string, string>) => [{ metadata: { name: 'shop', labels } }];
    expect(front(selector, { namespaces: shop({ edge: 'yes' }) }).miss).toBeUndefined();
    expect(front(selector, { namespaces: shop({ edge: 'no' }) }).miss).toBe(
      "listener tls of gateway edge/public selects namespaces by edge=yes, which namespace shop's labels do not match",
    );
    // without the namespaces' labels, whether it attaches cannot be told: never "not routed"
    const unknown = routingOf(
      [web],
      lists({
        gateways: [gateway([selector], 'public', 'edge')],
        tlsRoutes: [tlsRoute({ hostnames: ['s.example.com'], parent: { name: 'public', namespace: 'edge' } })],
      }),
      agent,
    );
    expect(unknown.services[0]!.routes[0]!.miss).toMatch(
      /^cannot tell whether it attaches: namespaces could not be read/,
    );
    expect(unknown.conclusive).toBe(false);
    expect(unknown.unread.map((u) => u.reason)).toContain(
      'namespaces could not be read: listener tls admits routes by namespace selector edge=yes',
    );
    expect(unroutedReason(unknown, ['web'], agent)).toBeUndefined();
  });

  it('renders a rule only when every backendRef resolves, and from the first one', () => {
    const refs = [
      { name: 'web', namespace: 'shop', port: 8443 },
      { name: 'other', namespace: 'shop' },
    ];
    const route = tlsRoute({ hostnames: ['s.example.com'], refs });
    const base = { gateways: [gateway([TLS])], tlsRoutes: [route] };
    expect(judgedTls({ ...base, services: [web, service({}, 'other')] }).miss).toBeUndefined();
    expect(judgedTls({ ...base, services: [web] }).miss).toBe(
      'rule 0: service shop/other does not exist, so HAPTIC renders nothing for the rule',
    );
    const unread = routingOf([web], lists(base), agent);
    expect(unread.conclusive).toBe(false);
    const second = routingOf([service({ app: 'other' }, 'other')], lists({ ...base, services: [web] }), agent);
    expect(second.services[0]!.routes[0]!.miss).toBe(
      "is backendRef 1 of rule 0; HAPTIC's TLS backend is the rule's first backendRef only",
    );
    const kind = tlsRoute({
      hostnames: ['s.example.com'],
      refs: [
        { name: 'web', namespace: 'shop' },
        { name: 'x', kind: 'Backend' },
      ],
    });
    expect(judgedTls({ gateways: [gateway([TLS])], tlsRoutes: [kind] }).miss).toBe(
      'rule 0: Backend x (group core) is not a Service, so HAPTIC renders nothing for the rule',
    );
  });

  it('the dataplane generation does not watch TLSRoutes', () => {
    expect(
      judgedTls({ gateways: [gateway([TLS])], tlsRoutes: [tlsRoute({ hostnames: ['s.example.com'] })] }, dataplane)
        .miss,
    ).toBe('HAPTIC haptic/haptic-config does not watch TLSRoutes');
  });
});

describe('a TCPRoute keeps a listener port, the oldest route first (agent gateway/90-tcproute.yaml)', () => {
  const tcpRoute = (name: string, created: string | undefined, refs = [{ name: 'web', port: 5432 }], rules = 1) => ({
    metadata: { name, namespace: 'shop', ...(created ? { creationTimestamp: created } : {}) },
    spec: {
      parentRefs: [{ name: 'public' }],
      rules: Array.from({ length: rules }, () => ({ backendRefs: refs })),
    },
  });
  const judged = (routes: GatewayRoute[], services?: Service[], gateways = [gateway([TCP])]) =>
    routingOf([web], lists({ gateways, tcpRoutes: routes, ...(services ? { services } : {}) }), agent).services[0]!
      .routes;

  it('renders the rule that keeps the port; a newer route on the same port is a near miss naming the older', () => {
    const older = tcpRoute('older', '2026-01-01T00:00:00Z');
    const newer = tcpRoute('a-newer', '2026-02-01T00:00:00Z');
    const routes = judged([newer, older]);
    expect(routes.find((r) => r.name === 'older')).toMatchObject({ backend: 'gtw_tcp_shop_older_0', miss: undefined });
    expect(routes.find((r) => r.name === 'a-newer')!.miss).toBe(
      'HAPTIC forwards a listener port to one (route, rule), the oldest: port 5432 belongs to tcproute shop/older rule 0 (created 2026-01-01T00:00:00Z, before it)',
    );
    // a route without a creationTimestamp loses; the same timestamp goes by namespace/name
    expect(judged([tcpRoute('untimed', undefined), older]).find((r) => r.name === 'untimed')!.miss).toMatch(
      /shop\/older rule 0/,
    );
    const same = judged([tcpRoute('b', '2026-01-01T00:00:00Z'), tcpRoute('a', '2026-01-01T00:00:00Z')]);
    expect(same.find((r) => r.name === 'a')!.miss).toBeUndefined();
    expect(same.find((r) => r.name === 'b')!.miss).toMatch(/shop\/a rule 0/);
  });

  it("a route's first rule keeps the port before its others", () => {
    const routes = judged([tcpRoute('db', undefined, [{ name: 'web', port: 5432 }], 2)]);
    expect(routes.map((r) => [r.backend, r.miss])).toEqual([
      ['gtw_tcp_shop_db_0', undefined],
      [
        undefined,
        'HAPTIC forwards a listener port to one (route, rule), the oldest: port 5432 belongs to tcproute shop/db rule 0',
      ],
    ]);
  });

  it('a rule without a valid backendRef claims nothing; one whose Services were not read cannot be ruled out', () => {
    const older = tcpRoute('older', '2026-01-01T00:00:00Z', [{ name: 'gone', port: 5432 }]);
    const newer = tcpRoute('newer', '2026-02-01T00:00:00Z');
    expect(judged([older, newer], [web]).find((r) => r.name === 'newer')!.miss).toBeUndefined();
    const unread = routingOf([web], lists({ gateways: [gateway([TCP])], tcpRoutes: [older, newer] }), agent);
    expect(unread.services[0]!.routes[0]!.miss).toBe('cannot tell which rule keeps its listener port');
    expect(unread.conclusive).toBe(false);
  });

  it('ports are one space across Gateways; a route attaches to every TCP listener unless its parentRef narrows it', () => {
    const other = gateway([TCP], 'other');
    const older = {
      ...tcpRoute('older', '2026-01-01T00:00:00Z'),
      spec: { ...tcpRoute('x', undefined).spec, parentRefs: [{ name: 'other' }] },
    };
    const newer = tcpRoute('newer', '2026-02-01T00:00:00Z');
    expect(judged([older, newer], undefined, [gateway([TCP]), other]).find((r) => r.name === 'newer')!.miss).toMatch(
      /port 5432 belongs to tcproute shop\/older rule 0/,
    );
    const wide = gateway([TCP, { name: 'db2', protocol: 'TCP', port: 5433 }]);
    expect(judged([older, newer], undefined, [wide, other]).find((r) => r.name === 'newer')!.miss).toBeUndefined();
    expect(judged([tcpRoute('x', undefined)], undefined, [gateway([TLS])])[0]!.miss).toBe(
      'its parent gateway shop/public has no TCP listener',
    );
  });
});

describe('the dataplane generation renders by Service name, from every namespace (libraries/base.yaml)', () => {
  it("a route of another namespace naming a Service of the same name reaches this one's pods", () => {
    const front: GatewayRoute = {
      metadata: { name: 'web', namespace: 'front' },
      spec: { rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
    };
    const frontIngress = { ...ingress(), metadata: { name: 'web', namespace: 'front' } };
    const on = (insts: RouteInstallation[]) =>
      routingOf([web], lists({ httpRoutes: [front], ingresses: [frontIngress] }), insts);
    const dp = on(dataplane);
    expect(dp.services[0]!.routed).toBe(true);
    expect(dp.services[0]!.routes.map((r) => [r.kind, r.namespace, r.backend])).toEqual([
      ['Ingress', 'front', 'ing_front_web_web_80'],
      ['HTTPRoute', 'front', 'gtw_front_web_web_80'],
    ]);
    expect(dp.services[0]!.routes[0]!.via).toBe(
      "names service front/web; HAPTIC haptic/haptic-config (dataplane generation) renders a backend from every namespace's EndpointSlices of that Service name",
    );
    expect(dp.elsewhere).toEqual([]);
    // the agent generation renders a namespace's own Service
    const ag = on(agent);
    expect(ag.services[0]!.routed).toBe(false);
    expect(ag.elsewhere.map((r) => r.namespace)).toEqual(['front', 'front']);
  });
});

describe('default backends (agent generation)', () => {
  const annotated = (value: string, namespace = 'front', cls = 'haproxy'): Ingress => ({
    ...ingress('errors', cls, 'errors-page'),
    metadata: { name: 'errors', namespace, annotations: { 'nginx.ingress.kubernetes.io/default-backend': value } },
  });
  const withLibrary = at('agent', htc({ libraryRefs: [{ name: 'haptic-config-nginx-ingress' }] }));

  it('an Ingress annotation names one, rendered when the installation runs its library', () => {
    const route = (insts: RouteInstallation[], ing: Ingress) =>
      routingOf([web], lists({ ingresses: [ing] }), insts).services[0]!.routes[0];
    expect(route(withLibrary, annotated('shop/web'))).toMatchObject({
      kind: 'Ingress',
      namespace: 'front',
      backend: 'front_errors_default-backend_web',
      via: 'annotation nginx.ingress.kubernetes.io/default-backend: shop/web',
      miss: undefined,
    });
    expect(route(withLibrary, annotated('web', 'shop'))!.miss).toBeUndefined();
    expect(route(agent, annotated('shop/web'))!.miss).toBe(
      "HAPTIC haptic/haptic-config does not run the nginx-ingress library that reads the nginx.ingress.kubernetes.io/default-backend annotation (its template config's libraryRefs have no nginx-ingress)",
    );
    expect(route(withLibrary, annotated('shop/web', 'front', 'nginx'))!.miss).toMatch(/has ingressClassName nginx/);
    const inline = at('agent', htc({ templateSnippets: { 'backends-850-haptic-default-backend': {} } }));
    const haptic = {
      ...annotated('shop/web'),
      metadata: { name: 'e', namespace: 'front', annotations: { 'haproxy-haptic.org/default-backend': 'shop/web' } },
    };
    expect(route(inline, haptic)).toMatchObject({ backend: 'front_e_default-backend_web', miss: undefined });
    expect(
      route(at('dataplane', htc({ libraryRefs: [{ name: 'haptic-config-nginx-ingress' }] })), annotated('shop/web'))!
        .miss,
    ).toMatch(/dataplane generation\) has no library/);
  });

  it("the chart's extraContext.defaultBackendService renders default_backend", () => {
    const config = (port: unknown) =>
      htc({
        templatingSettings: { extraContext: { defaultBackendService: { namespace: 'shop', name: 'web', port } } },
      });
    const judged = (insts: RouteInstallation[]) => routingOf([web], lists(), insts).services[0]!;
    expect(judged(at('agent', config(80)))).toMatchObject({
      routed: true,
      routes: [
        {
          kind: 'HAProxyTemplateConfig',
          namespace: 'haptic',
          name: 'haptic-config',
          backend: 'default_backend',
          service: { namespace: 'shop', name: 'web', port: '80' },
          via: 'templatingSettings.extraContext.defaultBackendService',
        },
      ],
    });
    expect(judged(at('dataplane', config(80))).routes[0]!.miss).toBe(
      'HAPTIC haptic/haptic-config (dataplane generation) renders no default backend Service',
    );
    expect(judged(at('agent', config({ name: 'grpc' }))).routes[0]!.warning).toMatch(
      /service\/web has no port named grpc .* fails its whole render on it/,
    );
  });
});
