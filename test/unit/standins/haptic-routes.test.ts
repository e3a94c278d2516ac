// The HAPTIC stand-in's renderer, rule by rule as HAPTIC's sources write them (haptic-routes.ts names each file):
// TLS and TCP routes on listeners, the dataplane generation's backends by Service name, the agent's default backends.
import { describe, expect, it } from 'vitest';
import type { Obj } from '../../cluster/standins/common.ts';
import { backendsFor, hostnameIntersection, type RouteCaches } from '../../cluster/standins/haptic-routes.ts';
import { DEFAULT_CHART, templateConfig } from '../../cluster/standins/haptic-manifests.ts';

const svc = (name: string, namespace = 'shop', ports: object[] = [{ name: 'tls', port: 8443 }]): Obj => ({
  metadata: { name, namespace },
  spec: { ports },
});
const slice = (service: string, namespace: string, ip: string, port = { name: 'tls', port: 9443 }): Obj => ({
  metadata: { name: `${service}-x`, namespace, labels: { 'kubernetes.io/service-name': service } },
  ports: [port],
  endpoints: [{ addresses: [ip], conditions: { ready: true }, targetRef: { kind: 'Pod', name: `${service}-${ip}` } }],
});
const services = [svc('web'), svc('other'), svc('db', 'shop', [{ port: 5432 }])];
const slices = [
  slice('web', 'shop', '10.0.0.1'),
  slice('other', 'shop', '10.0.0.2'),
  slice('db', 'shop', '10.0.0.3', { name: '', port: 5432 }),
];
const htc = templateConfig({ release: 'haptic', namespace: 'haptic' }, DEFAULT_CHART);
const gateway = (listeners: object[], name = 'public', namespace = 'shop'): Obj => ({
  metadata: { name, namespace },
  spec: { gatewayClassName: 'haproxy', listeners },
});
const TLS = { name: 'tls', protocol: 'TLS', port: 443, tls: { mode: 'Passthrough' } };
const TCP = { name: 'db', protocol: 'TCP', port: 5432 };
const route = (
  name: string,
  o: {
    hostnames?: string[];
    parent?: object;
    refs?: object[];
    created?: string;
    namespace?: string;
    rules?: number;
  } = {},
): Obj => ({
  metadata: { name, namespace: o.namespace ?? 'shop', ...(o.created ? { creationTimestamp: o.created } : {}) },
  spec: {
    parentRefs: [o.parent ?? { name: 'public', namespace: 'shop' }],
    ...(o.hostnames ? { hostnames: o.hostnames } : {}),
    rules: Array.from({ length: o.rules ?? 1 }, () => ({ backendRefs: o.refs ?? [{ name: 'web', port: 8443 }] })),
  },
});
const render = (
  r: Partial<RouteCaches>,
  o: { config?: Obj; shape?: 'gate' | 'dataplane'; svcs?: Obj[]; sl?: Obj[] } = {},
) =>
  backendsFor(
    o.config ?? htc,
    { ingresses: [], gateways: [], httpRoutes: [], grpcRoutes: [], ...r },
    o.svcs ?? services,
    o.sl ?? slices,
    () => undefined,
    undefined,
    o.shape ?? 'gate',
  ).map((b) => [b.name, b.servers.map((s) => `${s.ip}:${s.port}`).join(' ')]);

describe('TLSRoutes (agent gateway/22-ssl-passthrough.yaml)', () => {
  it('intersect hostnames as the Gateway API defines', () => {
    expect(hostnameIntersection('*.example.com', 'a.example.com')).toBe('a.example.com');
    expect(hostnameIntersection('*.example.com', 'example.com')).toBe('');
    expect(hostnameIntersection('a.example.com', '*.example.com')).toBe('a.example.com');
    expect(hostnameIntersection('*.a.example.com', '*.example.com')).toBe('*.a.example.com');
  });

  it('attach by hostname, required and intersecting the listener’s', () => {
    const listener = { ...TLS, hostname: '*.example.com' };
    const gateways = [gateway([listener])];
    expect(render({ gateways, tlsRoutes: [route('s', { hostnames: ['s.example.com'] })] })).toEqual([
      ['gtw_tls_shop_s_0', '10.0.0.1:9443'],
    ]);
    expect(render({ gateways, tlsRoutes: [route('s')] })).toEqual([]);
    expect(render({ gateways, tlsRoutes: [route('s', { hostnames: ['s.example.org'] })] })).toEqual([]);
  });

  it('follow sectionName, port, tls.mode, a port holding both modes, and allowedRoutes.kinds', () => {
    const s = (parent: object) => route('s', { hostnames: ['s.example.com'], parent });
    const two = [gateway([TLS, { ...TLS, name: 'alt', port: 8443 }])];
    expect(render({ gateways: two, tlsRoutes: [s({ name: 'public', sectionName: 'alt' })] })).toHaveLength(1);
    expect(render({ gateways: two, tlsRoutes: [s({ name: 'public', sectionName: 'none' })] })).toEqual([]);
    expect(render({ gateways: two, tlsRoutes: [s({ name: 'public', port: 9000 })] })).toEqual([]);
    const conflict = [gateway([TLS, { ...TLS, name: 'term', tls: { mode: 'Terminate' } }])];
    expect(render({ gateways: conflict, tlsRoutes: [s({ name: 'public' })] })).toEqual([]);
    const kinds = [gateway([{ ...TLS, allowedRoutes: { kinds: [{ kind: 'TCPRoute' }] } }])];
    expect(render({ gateways: kinds, tlsRoutes: [s({ name: 'public' })] })).toEqual([]);
  });

  it('follow allowedRoutes.namespaces: Same by default, All, Selector by the namespace’s labels', () => {
    const edge = (listener: object, namespaces?: Obj[]) =>
      render({
        gateways: [gateway([listener], 'public', 'edge')],
        tlsRoutes: [route('s', { hostnames: ['s.example.com'], parent: { name: 'public', namespace: 'edge' } })],
        ...(namespaces ? { namespaces } : {}),
      });
    expect(edge(TLS)).toEqual([]);
    expect(edge({ ...TLS, allowedRoutes: { namespaces: { from: 'All' } } })).toHaveLength(1);
    const selector = {
      ...TLS,
      allowedRoutes: { namespaces: { from: 'Selector', selector: { matchLabels: { edge: 'yes' } } } },
    };
    expect(edge(selector, [{ metadata: { name: 'shop', labels: { edge: 'yes' } } }])).toHaveLength(1);
    expect(edge(selector, [{ metadata: { name: 'shop', labels: { edge: 'no' } } }])).toEqual([]);
    expect(edge(selector)).toEqual([]);
  });

  it('render a rule only when every backendRef resolves, from the first', () => {
    const gateways = [gateway([TLS])];
    const both = route('s', { hostnames: ['s.example.com'], refs: [{ name: 'other' }, { name: 'web' }] });
    expect(render({ gateways, tlsRoutes: [both] })).toEqual([['gtw_tls_shop_s_0', '10.0.0.2:9443']]);
    const missing = route('s', { hostnames: ['s.example.com'], refs: [{ name: 'web' }, { name: 'gone' }] });
    expect(render({ gateways, tlsRoutes: [missing] })).toEqual([]);
    expect(render({ gateways, tlsRoutes: [both] }, { shape: 'dataplane' })).toEqual([]);
  });
});

describe('TCPRoutes (agent gateway/90-tcproute.yaml)', () => {
  const tcp = (name: string, created?: string, o: { refs?: object[]; rules?: number; parent?: object } = {}) =>
    route(name, { created, refs: o.refs ?? [{ name: 'db', port: 5432 }], ...o });

  it('one (route, rule) keeps a listener port: the oldest route, a route’s first rule', () => {
    const gateways = [gateway([TCP])];
    expect(
      render({ gateways, tcpRoutes: [tcp('a-new', '2026-02-01T00:00:00Z'), tcp('old', '2026-01-01T00:00:00Z')] }),
    ).toEqual([['gtw_tcp_shop_old_0', '10.0.0.3:5432']]);
    expect(render({ gateways, tcpRoutes: [tcp('untimed'), tcp('old', '2026-01-01T00:00:00Z')] })).toEqual([
      ['gtw_tcp_shop_old_0', '10.0.0.3:5432'],
    ]);
    expect(render({ gateways, tcpRoutes: [tcp('b', 'T'), tcp('a', 'T')] }).map(([b]) => b)).toEqual([
      'gtw_tcp_shop_a_0',
    ]);
    expect(render({ gateways, tcpRoutes: [tcp('db', undefined, { rules: 2 })] }).map(([b]) => b)).toEqual([
      'gtw_tcp_shop_db_0',
    ]);
  });

  it('a rule without a valid backendRef claims nothing; valid ones pool; ports are one space across Gateways', () => {
    const gateways = [gateway([TCP]), gateway([TCP], 'other')];
    const older = tcp('old', '2026-01-01T00:00:00Z', { refs: [{ name: 'gone' }] });
    expect(render({ gateways, tcpRoutes: [older, tcp('new', '2026-02-01T00:00:00Z')] }).map(([b]) => b)).toEqual([
      'gtw_tcp_shop_new_0',
    ]);
    const pooled = tcp('pool', undefined, {
      refs: [{ name: 'db', port: 5432 }, { name: 'gone' }, { name: 'web', port: 8443 }],
    });
    expect(render({ gateways, tcpRoutes: [pooled] })).toEqual([['gtw_tcp_shop_pool_0', '10.0.0.3:5432 10.0.0.1:9443']]);
    const elsewhere = tcp('other-old', '2026-01-01T00:00:00Z', { parent: { name: 'other' } });
    expect(render({ gateways, tcpRoutes: [elsewhere, tcp('new', '2026-02-01T00:00:00Z')] }).map(([b]) => b)).toEqual([
      'gtw_tcp_shop_other-old_0',
    ]);
  });
});

describe('the dataplane generation renders by Service name, from every namespace (libraries/base.yaml)', () => {
  it('a route of another namespace reaches the Service of the same name in each', () => {
    const front: Obj = {
      metadata: { name: 'web', namespace: 'front' },
      spec: { rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
    };
    const svcs = [svc('web', 'shop', [{ name: 'http', port: 80 }]), svc('web', 'team', [{ name: 'other', port: 80 }])];
    const sl = [
      slice('web', 'shop', '10.0.0.1', { name: 'http', port: 8080 }),
      slice('web', 'team', '10.0.0.9', { name: 'http', port: 7070 }),
    ];
    // the port's name is the first slice's namespace's Service's (shop: http), looked up in every slice
    expect(render({ httpRoutes: [front] }, { shape: 'dataplane', svcs, sl })).toEqual([
      ['gtw_front_web_web_80', '10.0.0.1:8080 10.0.0.9:7070'],
    ]);
    expect(render({ httpRoutes: [front] }, { svcs, sl })).toEqual([]);
  });
});

describe('default backends (agent generation)', () => {
  const annotated = (annotation: string, value: string): Obj => ({
    metadata: { name: 'errors', namespace: 'front', annotations: { [annotation]: value } },
    spec: { ingressClassName: 'haproxy', rules: [{ host: 'errors.example.com' }] },
  });
  const withSpec = (spec: object): Obj => ({ ...htc, spec: { ...htc.spec, ...spec } });

  it('an Ingress annotation, when the template config runs its library: the Service’s first port', () => {
    const ing = annotated('nginx.ingress.kubernetes.io/default-backend', 'shop/web');
    const nginx = withSpec({ libraryRefs: [{ name: `${htc.metadata.name}-nginx-ingress` }] });
    expect(render({ ingresses: [ing] }, { config: nginx })).toEqual([
      ['front_errors_default-backend_web', '10.0.0.1:9443'],
    ]);
    expect(render({ ingresses: [ing] })).toEqual([]);
    expect(
      render({ ingresses: [annotated('nginx.ingress.kubernetes.io/default-backend', 'shop/gone')] }, { config: nginx }),
    ).toEqual([]);
    const inline = withSpec({ templateSnippets: { 'backends-850-haptic-default-backend': {} } });
    expect(
      render({ ingresses: [annotated('haproxy-haptic.org/default-backend', 'shop/web')] }, { config: inline }),
    ).toHaveLength(1);
    expect(render({ ingresses: [ing] }, { config: nginx, shape: 'dataplane' })).toEqual([]);
  });

  it("the chart's extraContext.defaultBackendService: default_backend", () => {
    const config = withSpec({
      templatingSettings: {
        extraContext: { defaultBackendService: { namespace: 'shop', name: 'web', port: { name: 'tls' } } },
      },
    });
    expect(render({}, { config })).toEqual([['default_backend', '10.0.0.1:9443']]);
    expect(render({}, { config, shape: 'dataplane' })).toEqual([]);
  });
});
