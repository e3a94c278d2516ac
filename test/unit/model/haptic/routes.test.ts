// The route model: which routes HAPTIC renders (its template config's watched resources, its field and label
// selectors, each generation's libraries), the backend names it gives them, and what can and cannot be concluded
// from what was read.
import { describe, expect, it } from 'vitest';
import {
  fieldSelectorMatches,
  parseFieldSelector,
  routeAdmission,
  routingOf,
  ELSEWHERE_SHOWN,
  unroutedReason,
  type RouteGeneration,
  type RouteInstallation,
  type RouteLists,
} from '../../../../src/model/haptic/routes.ts';
import type { HAProxyTemplateConfig, WatchedResource } from '../../../../src/types/haptic.ts';
import type { Gateway, GatewayRoute, Ingress, ReferenceGrant } from '../../../../src/types/routes.ts';
import { CHART_WATCHED_RESOURCES, ingress, service } from '../../fixtures/rollout.ts';

const htc = (watchedResources?: Record<string, WatchedResource>): HAProxyTemplateConfig => ({
  metadata: { name: 'haptic-config', namespace: 'haptic' },
  spec: watchedResources ? { watchedResources } : {},
});
const WATCHING_ALL: Record<string, WatchedResource> = {
  ...CHART_WATCHED_RESOURCES,
  tlsroutes: { resources: 'tlsroutes' },
  tcproutes: { resources: 'tcproutes' },
  referencegrants: { resources: 'referencegrants' },
};
const at = (generation: RouteGeneration, admission = routeAdmission(htc(WATCHING_ALL))): RouteInstallation[] => [
  { id: 'haptic/haptic-config', admission, generation },
];
const installations = at('agent');
const dataplane = at('dataplane');
const lists = (
  o: {
    ingresses?: Ingress[];
    httpRoutes?: GatewayRoute[];
    grpcRoutes?: GatewayRoute[];
    tlsRoutes?: GatewayRoute[];
    gateways?: Gateway[];
    referenceGrants?: ReferenceGrant[];
  } = {},
): RouteLists => ({
  ingresses: { items: o.ingresses ?? [] },
  httpRoutes: { items: o.httpRoutes ?? [] },
  grpcRoutes: { items: o.grpcRoutes ?? [] },
  tlsRoutes: { items: o.tlsRoutes ?? [] },
  tcpRoutes: { items: [] },
  gateways: { items: o.gateways ?? [] },
  referenceGrants: { items: o.referenceGrants ?? [] },
});
const route = (
  name: string,
  parents: { name: string; namespace?: string }[],
  backends: { name: string; port?: number; namespace?: string }[],
  namespace = 'shop',
): GatewayRoute => ({
  metadata: { name, namespace },
  spec: { parentRefs: parents, rules: [{ backendRefs: backends }] },
});
const gateway = (name: string, cls: string, namespace = 'shop', listeners: Gateway['spec'] = {}): Gateway => ({
  metadata: { name, namespace },
  spec: { gatewayClassName: cls, ...listeners },
});
const routed = (r: ReturnType<typeof routingOf>) => r.services[0]!.routed;

describe('field selectors, as HAPTIC reads them (pkg/k8s/indexer/fieldselector.go)', () => {
  it.each([
    ['spec.ingressClassName=haproxy', ['spec', 'ingressClassName'], 'haproxy'],
    [' spec.ingressClassName = internal ', ['spec', 'ingressClassName'], 'internal'],
    ['{.spec.gatewayClassName}=haproxy', ['spec', 'gatewayClassName'], 'haproxy'],
    ["metadata.labels['team.example.com/tier']=front", ['metadata', 'labels', 'team.example.com/tier'], 'front'],
    ['spec.x=a=b', ['spec', 'x'], 'a=b'],
  ])('%s', (text, path, value) => expect(parseFieldSelector(text)).toMatchObject({ path, value }));

  it('is no selector without `=` or a path', () => {
    expect(parseFieldSelector('spec.ingressClassName')).toBeUndefined();
    expect(parseFieldSelector('=haproxy')).toBeUndefined();
  });

  it('matches the value at its path exactly; a missing field never matches', () => {
    const s = 'spec.ingressClassName=haproxy';
    expect(fieldSelectorMatches(s, ingress('a', 'haproxy'))).toBe(true);
    expect(fieldSelectorMatches(s, ingress('a', 'haproxy-internal'))).toBe(false);
    expect(fieldSelectorMatches(s, ingress('a', null))).toBe(false);
    expect(fieldSelectorMatches('spec=x', ingress('a'))).toBe(false);
  });
});

describe('what an installation renders routes from', () => {
  it("the chart's merged libraries: Ingresses and Gateways by class, HTTPRoutes and GRPCRoutes", () => {
    expect(routeAdmission(htc(CHART_WATCHED_RESOURCES))).toMatchObject({
      ingresses: { fieldSelector: 'spec.ingressClassName=haproxy' },
      gateways: { fieldSelector: 'spec.gatewayClassName=haproxy' },
      httpRoutes: true,
      grpcRoutes: true,
    });
  });

  it('a template config that lists no watched resources cannot be judged, and makes "not routed" unknowable', () => {
    const unknown = at('agent', routeAdmission(htc()));
    expect(unknown[0]!.admission.unknown).toBe('haproxytemplateconfig haptic/haptic-config lists no watchedResources');
    const r = routingOf([service()], lists({ ingresses: [ingress()] }), unknown);
    expect(r.conclusive).toBe(false);
    expect(unroutedReason(r, ['web'], unknown)).toBeUndefined();
  });

  it('a label selector on the watched Ingresses', () => {
    const admission = routeAdmission(
      htc({
        ingresses: {
          resources: 'ingresses',
          fieldSelector: 'spec.ingressClassName=haproxy',
          labelSelector: 'expose=public',
        },
      }),
    );
    const insts = at('agent', admission);
    const labelled = { ...ingress(), metadata: { name: 'web', namespace: 'shop', labels: { expose: 'public' } } };
    expect(routingOf([service()], lists({ ingresses: [labelled] }), insts).services[0]!.routed).toBe(true);
    expect(routingOf([service()], lists({ ingresses: [ingress()] }), insts).services[0]!.routes[0]!.miss).toBe(
      "its labels do not match HAPTIC haptic/haptic-config's labelSelector expose=public",
    );
  });

  it('without the ingress library, an Ingress is not rendered', () => {
    const insts = at('agent', routeAdmission(htc({ services: { resources: 'services' } })));
    expect(routingOf([service()], lists({ ingresses: [ingress()] }), insts).services[0]!.routes[0]!.miss).toBe(
      'HAPTIC haptic/haptic-config does not watch Ingresses (its ingress library is off)',
    );
  });
});

describe('routes to the Services that select the pods', () => {
  const shopFront: Ingress = {
    metadata: { name: 'shop-front', namespace: 'shop' },
    spec: {
      ingressClassName: 'haproxy',
      rules: [
        {
          http: {
            paths: [
              { path: '/', backend: { service: { name: 'web', port: { number: 80 } } } },
              { path: '/api', backend: { service: { name: 'web', port: { number: 80 } } } },
            ],
          },
        },
      ],
    },
  };

  it('names each rendered route by the backend each generation gives it, once per Service port', () => {
    const routes = lists({
      ingresses: [shopFront],
      gateways: [gateway('public', 'haproxy')],
      httpRoutes: [route('web', [{ name: 'public' }], [{ name: 'web' }])],
    });
    const names = (insts: RouteInstallation[]) =>
      routingOf([service()], routes, insts).services[0]!.routes.map((x) => [x.kind, x.backend, x.admittedBy]);
    expect(names(dataplane)).toEqual([
      ['Ingress', 'ing_shop_shop-front_web_80', ['haptic/haptic-config']],
      ['HTTPRoute', 'gtw_shop_web_web_80', ['haptic/haptic-config']],
    ]);
    // the agent's util-backend-name-ingress: <ns>_<ingress>_svc_<service>_<port>
    expect(names(installations)).toEqual([
      ['Ingress', 'shop_shop-front_svc_web_80', ['haptic/haptic-config']],
      ['HTTPRoute', 'gtw_shop_web_web_80', ['haptic/haptic-config']],
    ]);
    expect(routingOf([service()], routes, installations).conclusive).toBe(true);
  });

  it("a port by name renders under its name; the agent names a number by the Service port's name", () => {
    const named = { ...service(), spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] } };
    const byName = lists({ ingresses: [ingress('web', 'haproxy', 'web', { name: 'http' })] });
    expect(routingOf([named], byName, dataplane).services[0]!.routes[0]).toMatchObject({
      backend: 'ing_shop_web_web_http',
      service: { port: 'http' },
    });
    expect(routingOf([named], lists({ ingresses: [ingress()] }), installations).services[0]!.routes[0]!.backend).toBe(
      'shop_web_svc_web_http',
    );
  });

  it('spec.defaultBackend: the agent generation renders it, the dataplane generation does not', () => {
    const fallback: Ingress = {
      metadata: { name: 'web', namespace: 'shop' },
      spec: { ingressClassName: 'haproxy', defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    };
    const agent = routingOf([service()], lists({ ingresses: [fallback] }), installations);
    expect(agent.services[0]!.routes[0]).toMatchObject({ backend: 'shop_web_svc_web_80', miss: undefined });
    const dp = routingOf([service()], lists({ ingresses: [fallback] }), dataplane);
    expect(routed(dp)).toBe(false);
    expect(dp.services[0]!.routes[0]!.miss).toMatch(/only as spec.defaultBackend/);
    // watched, yet reaching nothing: "reaches", not "references"
    expect(unroutedReason(dp, ['web'], dataplane)).toBe('no route of class haproxy reaches service/web');
  });

  it('an HTTPRoute is rendered whatever its parents: a Gateway of another class, or none', () => {
    for (const insts of [installations, dataplane]) {
      const otherClass = lists({
        gateways: [gateway('public', 'nginx')],
        httpRoutes: [route('web', [{ name: 'public' }], [{ name: 'web' }])],
      });
      expect(routed(routingOf([service()], otherClass, insts))).toBe(true);
      const orphan = lists({ httpRoutes: [route('web', [], [{ name: 'web' }])] });
      expect(routingOf([service()], orphan, insts).services[0]!.routes[0]).toMatchObject({
        backend: 'gtw_shop_web_web_80',
        miss: undefined,
      });
    }
  });

  it('a port number the Service lacks still renders servers; a missing port name fails the agent’s whole render', () => {
    const wrongNumber = lists({ ingresses: [ingress('web', 'haproxy', 'web', { number: 8080 })] });
    for (const insts of [installations, dataplane]) {
      const r = routingOf([service()], wrongNumber, insts);
      expect(routed(r)).toBe(true);
      expect(r.services[0]!.routes[0]!.warning).toBeUndefined();
    }
    const wrongName = lists({ ingresses: [ingress('web', 'haproxy', 'web', { name: 'http' })] });
    expect(routingOf([service()], wrongName, installations).services[0]!.routes[0]).toMatchObject({
      miss: undefined,
      warning:
        'service/web has no port named http (its ports: 80): HAPTIC haptic/haptic-config fails its whole render on it, not only this route',
    });
    expect(routingOf([service()], wrongName, dataplane).services[0]!.routes[0]!.warning).toBeUndefined();
  });

  it('a cross-namespace backendRef: the agent renders it when a ReferenceGrant allows it, the dataplane never', () => {
    const across = route('web', [{ name: 'public', namespace: 'edge' }], [{ name: 'web', namespace: 'shop' }], 'front');
    const grant = (kind: string, from: string, name?: string): ReferenceGrant => ({
      metadata: { name: 'from-front', namespace: 'shop' },
      spec: {
        from: [{ group: 'gateway.networking.k8s.io', kind, namespace: from }],
        to: [{ group: '', kind: 'Service', ...(name ? { name } : {}) }],
      },
    });
    const judged = (insts: RouteInstallation[], grants: ReferenceGrant[]) =>
      routingOf([service()], lists({ httpRoutes: [across], referenceGrants: grants }), insts).services[0]!.routes[0]!;
    expect(judged(installations, []).miss).toBe(
      'references it from namespace front, and no ReferenceGrant in shop lets HTTPRoutes of front reach it',
    );
    expect(judged(installations, [grant('GRPCRoute', 'front')]).miss).toBeDefined();
    expect(judged(installations, [grant('HTTPRoute', 'front', 'other')]).miss).toBeDefined();
    expect(judged(installations, [grant('HTTPRoute', 'front')])).toMatchObject({
      miss: undefined,
      backend: 'gtw_front_web_web_80',
    });
    expect(judged(installations, [grant('HTTPRoute', 'front', 'web')]).miss).toBeUndefined();
    // the dataplane generation renders it by the Service's name, grant or not (base.yaml BackendServers)
    expect(judged(dataplane, [])).toMatchObject({ miss: undefined, backend: 'gtw_front_web_web_80' });
  });

  it('a TLSRoute: the agent renders it on a TLS listener of a Gateway it watches, one backend per rule', () => {
    const plain = route('secure', [{ name: 'public' }], [{ name: 'web', port: 8443 }]);
    const secure = { ...plain, spec: { ...plain.spec, hostnames: ['secure.example.com'] } };
    const tls = gateway('public', 'haproxy', 'shop', { listeners: [{ name: 'tls', protocol: 'TLS', port: 443 }] });
    const http = gateway('public', 'haproxy', 'shop', { listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] });
    const judged = (g: Gateway, insts = installations) =>
      routingOf([service()], lists({ gateways: [g], tlsRoutes: [secure] }), insts).services[0]!.routes[0]!;
    expect(judged(tls)).toMatchObject({ kind: 'TLSRoute', backend: 'gtw_tls_shop_secure_0', miss: undefined });
    expect(judged(http).miss).toBe('its parent gateway shop/public has no TLS listener');
    expect(judged(gateway('public', 'nginx', 'shop', { listeners: [{ name: 'tls', protocol: 'TLS' }] })).miss).toMatch(
      /has gatewayClassName nginx; HAPTIC haptic\/haptic-config watches Gateways with spec.gatewayClassName=haproxy/,
    );
    expect(judged(tls, dataplane).miss).toBe('HAPTIC haptic/haptic-config does not watch TLSRoutes');
  });

  it("another tenant's 10,000 TLSRoutes with 32 parentRefs each, over 10,000 Gateways: looked up, and only the shown judged", () => {
    const parents = Array.from({ length: 32 }, (_, i) => ({ name: `gw-${i}-missing` }));
    const tlsRoutes = Array.from({ length: 10_000 }, (_, i) => route(`r${i}`, parents, [{ name: 'web' }], 'tenant'));
    const gateways = Array.from({ length: 10_000 }, (_, i) =>
      gateway(`gw-${i}`, 'haproxy', 'tenant', { listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] }),
    );
    const r = routingOf([service()], lists({ tlsRoutes, gateways }), installations);
    expect(r.elsewhere).toHaveLength(ELSEWHERE_SHOWN);
    expect(r.elsewhere[0]!.miss).toMatch(/^its parent gateway tenant\/gw-0-missing does not exist; /);
  });

  it('a GRPCRoute counts like an HTTPRoute', () => {
    const r = routingOf(
      [service()],
      lists({
        gateways: [gateway('public', 'haproxy')],
        grpcRoutes: [route('grpc', [{ name: 'public' }], [{ name: 'web', port: 80 }])],
      }),
      installations,
    );
    expect(r.services[0]!.routes[0]).toMatchObject({ kind: 'GRPCRoute', backend: 'gtw_shop_grpc_web_80' });
  });

  it('routes that could not be read make the answer unknown; kinds the cluster does not serve do not', () => {
    const forbidden = { items: [], error: { kind: 'Forbidden', message: 'forbidden' } };
    const absent = { items: [], error: { kind: 'NotFound', message: 'not found' } };
    expect(routingOf([service()], { ...lists(), ingresses: forbidden }, installations).conclusive).toBe(false);
    expect(
      routingOf(
        [service()],
        { ...lists(), httpRoutes: absent, grpcRoutes: absent, tlsRoutes: absent, tcpRoutes: absent, gateways: absent },
        installations,
      ).conclusive,
    ).toBe(true);
    // Gateways unread matter only when a TLS or TCP route may hang off them; ReferenceGrants only across namespaces
    expect(routingOf([service()], { ...lists(), gateways: forbidden }, installations).conclusive).toBe(true);
    expect(
      routingOf(
        [service()],
        { ...lists({ tlsRoutes: [route('secure', [{ name: 'public' }], [{ name: 'web' }])] }), gateways: forbidden },
        installations,
      ).conclusive,
    ).toBe(false);
    expect(routingOf([service()], { ...lists(), referenceGrants: forbidden }, installations).conclusive).toBe(true);
    const across = route('web', [], [{ name: 'web', namespace: 'shop' }], 'front');
    expect(
      routingOf([service()], { ...lists({ httpRoutes: [across] }), referenceGrants: forbidden }, installations)
        .conclusive,
    ).toBe(false);
  });

  it('says why in the words status shows; a live config with a server for a pod of the workload settles it', () => {
    const none = routingOf([service()], lists(), installations);
    expect(unroutedReason(none, ['web'], installations)).toBe('no route of class haproxy references service/web');
    const missed = routingOf([service()], lists({ ingresses: [ingress('web', 'nginx')] }), installations);
    expect(unroutedReason(missed, ['web'], installations)).toBe('no route of class haproxy references service/web');
    const routedOne = routingOf([service()], lists({ ingresses: [ingress()] }), installations);
    expect(unroutedReason(routedOne, ['web'], installations)).toBeUndefined();
    const server = {
      installation: 'haptic/haptic-config',
      config: 'haptic/haptic-config-haproxycfg',
      pod: 'web-1',
      backend: 'custom',
      server: 'web-1',
      address: '10.0.0.1:8080',
      disabled: false,
      services: ['web'],
    };
    expect(unroutedReason({ ...none, rendered: [server] }, ['web'], installations)).toBeUndefined();
    expect(unroutedReason({ ...none, rendered: [] }, ['web'], installations)).toBeDefined();
    // per pod: its own server, or one in a backend of a Service that selects it, proves it routed; an old pod's
    // server in another Service's backend does not
    expect(unroutedReason({ ...none, rendered: [server] }, ['web'], installations, 'web-2')).toBeUndefined();
    const stable = { ...server, services: ['web-stable'] };
    expect(unroutedReason({ ...none, rendered: [stable] }, ['web'], installations, 'web-2')).toBeDefined();
    expect(unroutedReason({ ...none, rendered: [stable] }, ['web'], installations, 'web-1')).toBeUndefined();
  });
});
