// The route model: which routes HAPTIC renders (its template config's watched resources, its field and label
// selectors), the backend names it gives them, and what can and cannot be concluded from what was read.
import { describe, expect, it } from 'vitest';
import {
  fieldSelectorMatches,
  parseFieldSelector,
  routeAdmission,
  routingOf,
  unroutedReason,
  type RouteLists,
} from '../../../../src/model/haptic/routes.ts';
import type { HAProxyTemplateConfig, WatchedResource } from '../../../../src/types/haptic.ts';
import type { Gateway, GatewayRoute, Ingress } from '../../../../src/types/routes.ts';
import { CHART_WATCHED_RESOURCES, ingress, service } from '../../fixtures/rollout.ts';

const htc = (watchedResources?: Record<string, WatchedResource>): HAProxyTemplateConfig => ({
  metadata: { name: 'haptic-config', namespace: 'haptic' },
  spec: watchedResources ? { watchedResources } : {},
});
const installations = [{ id: 'haptic/haptic-config', admission: routeAdmission(htc(CHART_WATCHED_RESOURCES)) }];
const lists = (
  o: { ingresses?: Ingress[]; httpRoutes?: GatewayRoute[]; grpcRoutes?: GatewayRoute[]; gateways?: Gateway[] } = {},
): RouteLists => ({
  ingresses: { items: o.ingresses ?? [] },
  httpRoutes: { items: o.httpRoutes ?? [] },
  grpcRoutes: { items: o.grpcRoutes ?? [] },
  gateways: { items: o.gateways ?? [] },
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
const gateway = (name: string, cls: string, namespace = 'shop'): Gateway => ({
  metadata: { name, namespace },
  spec: { gatewayClassName: cls },
});

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
    const unknown = [{ id: 'haptic/haptic-config', admission: routeAdmission(htc()) }];
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
    const insts = [{ id: 'haptic/haptic-config', admission }];
    const labelled = { ...ingress(), metadata: { name: 'web', namespace: 'shop', labels: { expose: 'public' } } };
    expect(routingOf([service()], lists({ ingresses: [labelled] }), insts).services[0]!.routed).toBe(true);
    expect(routingOf([service()], lists({ ingresses: [ingress()] }), insts).services[0]!.routes[0]!.miss).toBe(
      "its labels do not match HAPTIC haptic/haptic-config's labelSelector expose=public",
    );
  });

  it('without the ingress library, an Ingress is not rendered', () => {
    const insts = [
      { id: 'haptic/haptic-config', admission: routeAdmission(htc({ services: { resources: 'services' } })) },
    ];
    expect(routingOf([service()], lists({ ingresses: [ingress()] }), insts).services[0]!.routes[0]!.miss).toBe(
      'HAPTIC haptic/haptic-config does not watch Ingresses (its ingress library is off)',
    );
  });
});

describe('routes to the Services that select the pods', () => {
  it('names each rendered route by the backend HAPTIC gives it, once per Service port', () => {
    const twoPaths: Ingress = {
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
    const r = routingOf(
      [service()],
      lists({
        ingresses: [twoPaths],
        gateways: [gateway('public', 'haproxy')],
        httpRoutes: [route('web', [{ name: 'public' }], [{ name: 'web' }])],
      }),
      installations,
    );
    expect(r.services[0]!.routes.map((x) => [x.kind, x.backend, x.admittedBy])).toEqual([
      ['Ingress', 'ing_shop_shop-front_web_80', ['haptic/haptic-config']],
      ['HTTPRoute', 'gtw_shop_web_web_80', ['haptic/haptic-config']],
    ]);
    expect(r.conclusive).toBe(true);
  });

  it('a port by name renders under its name', () => {
    const named = { ...service(), spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] } };
    const r = routingOf(
      [named],
      lists({ ingresses: [ingress('web', 'haproxy', 'web', { name: 'http' })] }),
      installations,
    );
    expect(r.services[0]!.routes[0]).toMatchObject({ backend: 'ing_shop_web_web_http', service: { port: 'http' } });
  });

  it("spec.defaultBackend is not rendered by HAPTIC's ingress library", () => {
    const fallback: Ingress = {
      metadata: { name: 'web', namespace: 'shop' },
      spec: { ingressClassName: 'haproxy', defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    };
    const r = routingOf([service()], lists({ ingresses: [fallback] }), installations);
    expect(r.services[0]!.routed).toBe(false);
    expect(r.services[0]!.routes[0]!.miss).toMatch(/only as spec.defaultBackend/);
  });

  it('a cross-namespace backendRef is not rendered; a parent Gateway in another namespace is', () => {
    const across = route(
      'web',
      [{ name: 'public', namespace: 'edge' }],
      [{ name: 'web', namespace: 'shop' }],
      'frontends',
    );
    const r1 = routingOf(
      [service()],
      lists({ gateways: [gateway('public', 'haproxy', 'edge')], httpRoutes: [across] }),
      installations,
    );
    expect(r1.services[0]!.routes[0]!.miss).toBe(
      "references it from namespace frontends: HAPTIC's gateway library does not render cross-namespace backendRefs",
    );
    const sameNamespace = route('web', [{ name: 'public', namespace: 'edge' }], [{ name: 'web' }]);
    expect(
      routingOf(
        [service()],
        lists({ gateways: [gateway('public', 'haproxy', 'edge')], httpRoutes: [sameNamespace] }),
        installations,
      ).services[0]!.routed,
    ).toBe(true);
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
      routingOf([service()], { ...lists(), httpRoutes: absent, grpcRoutes: absent, gateways: absent }, installations)
        .conclusive,
    ).toBe(true);
    // Gateways unread matter only when some HTTPRoute or GRPCRoute may hang off them
    expect(routingOf([service()], { ...lists(), gateways: forbidden }, installations).conclusive).toBe(true);
    expect(
      routingOf(
        [service()],
        { ...lists({ httpRoutes: [route('web', [{ name: 'public' }], [{ name: 'web' }])] }), gateways: forbidden },
        installations,
      ).conclusive,
    ).toBe(false);
  });

  it('says why in the words status shows', () => {
    const none = routingOf([service()], lists(), installations);
    expect(unroutedReason(none, ['web'], installations)).toBe('no route of class haproxy references service/web');
    const missed = routingOf([service()], lists({ ingresses: [ingress('web', 'nginx')] }), installations);
    expect(unroutedReason(missed, ['web'], installations)).toBe('no route of class haproxy references service/web');
    const wrongPort = routingOf(
      [service()],
      lists({ ingresses: [ingress('web', 'haproxy', 'web', { number: 8080 })] }),
      installations,
    );
    expect(unroutedReason(wrongPort, ['web'], installations)).toBe('no route of class haproxy reaches service/web');
    const routed = routingOf([service()], lists({ ingresses: [ingress()] }), installations);
    expect(unroutedReason(routed, ['web'], installations)).toBeUndefined();
  });
});
