import { describe, expect, it } from 'vitest';
import type { Obj } from '../../cluster/standins/common.ts';
import { checksumOf, renderConfig, routedPods } from '../../cluster/standins/haproxy-render.ts';
import { backendsFor, type RouteCaches, serverEnabled } from '../../cluster/standins/haptic-routes.ts';
import { templateConfig } from '../../cluster/standins/haptic-manifests.ts';
import { DEFAULT_CHART } from '../../cluster/standins/haptic-manifests.ts';

const GATE = 'haproxy-haptic.org/load-balancer-ready';

function pod(name: string, opts: { gated?: boolean; containersReady?: boolean; deleting?: boolean } = {}): Obj {
  return {
    metadata: { name, namespace: 'shop', ...(opts.deleting ? { deletionTimestamp: '2026-01-01T00:00:00Z' } : {}) },
    spec: { readinessGates: opts.gated ? [{ conditionType: GATE }] : [] },
    status: { conditions: [{ type: 'ContainersReady', status: opts.containersReady === false ? 'False' : 'True' }] },
  };
}
const endpoint = (name: string, ip: string, conditions: object) => ({
  addresses: [ip],
  conditions,
  targetRef: { kind: 'Pod', name, namespace: 'shop' },
});

describe('serverEnabled', () => {
  it.each([
    ['ready endpoint', { ready: true, serving: true, terminating: false }, pod('a'), GATE, true],
    ['nil conditions count as ready', {}, pod('a'), GATE, true],
    ['terminating', { ready: false, serving: true, terminating: true }, pod('a', { deleting: true }), GATE, false],
    ['not ready, not gated', { ready: false, serving: false }, pod('a'), GATE, false],
    [
      'not ready, gated, containers ready: routed',
      { ready: false, serving: false },
      pod('a', { gated: true }),
      GATE,
      true,
    ],
    [
      'gated but containers not ready',
      { ready: false },
      pod('a', { gated: true, containersReady: false }),
      GATE,
      false,
    ],
    ['gated, gate feature off', { ready: false }, pod('a', { gated: true }), undefined, false],
  ])('%s', (_, conditions, p, gate, expected) => {
    expect(serverEnabled({ conditions }, p, gate)).toBe(expected);
  });
});

describe('backendsFor + renderConfig', () => {
  const pods = new Map([
    ['shop/web-a', pod('web-a')],
    ['shop/web-b', pod('web-b', { gated: true })],
    ['shop/web-c', pod('web-c', { deleting: true })],
  ]);
  const services: Obj[] = [
    {
      metadata: { name: 'web', namespace: 'shop' },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] },
    },
    { metadata: { name: 'external', namespace: 'shop' }, spec: { ports: [{ name: 'http', port: 80 }] } },
    {
      metadata: { name: 'haptic', namespace: 'haptic' },
      spec: { selector: { app: 'x' }, ports: [{ name: 'http', port: 8080 }] },
    },
  ];
  const slices: Obj[] = [
    {
      metadata: { name: 'web-abcde', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      endpoints: [
        endpoint('web-c', '10.244.1.4', { ready: false, serving: true, terminating: true }),
        endpoint('web-a', '10.244.1.2', { ready: true, serving: true, terminating: false }),
        endpoint('web-b', '10.244.2.3', { ready: false, serving: false, terminating: false }),
      ],
    },
  ];
  const htc = templateConfig({ release: 'haptic', namespace: 'haptic' }, DEFAULT_CHART);
  const ingress = (name: string, cls: string | undefined, service: string, port: object, host?: string): Obj => ({
    metadata: { name, namespace: 'shop' },
    spec: {
      ...(cls ? { ingressClassName: cls } : {}),
      rules: [
        {
          ...(host ? { host } : {}),
          http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: service, port } } }] },
        },
      ],
    },
  });
  const routes: RouteCaches = {
    ingresses: [ingress('web', 'haproxy', 'web', { number: 80 }, 'web.example')],
    gateways: [],
    httpRoutes: [],
    grpcRoutes: [],
  };
  const backends = backendsFor(htc, routes, services, slices, (k) => pods.get(k), GATE);
  const content = renderConfig('haptic/haptic-config', backends);

  it('has one backend per route reference, named as the ingress library names it, servers sorted by pod', () => {
    expect(backends).toEqual([
      {
        name: 'ing_shop_web_web_80',
        namespace: 'shop',
        service: 'web',
        hosts: ['web.example'],
        servers: [
          { pod: 'web-a', ip: '10.244.1.2', port: 8080, enabled: true },
          { pod: 'web-b', ip: '10.244.2.3', port: 8080, enabled: true },
          { pod: 'web-c', ip: '10.244.1.4', port: 8080, enabled: false },
        ],
      },
    ]);
  });

  const backendOf = (text: string) => text.slice(text.indexOf('\nbackend ') + 1);

  it('renders server lines as the kubernetes-backends library does: weight, guid, disabled, the # Pod comment last', () => {
    expect(backendOf(content)).toBe(
      [
        'backend ing_shop_web_web_80',
        '    balance roundrobin',
        '    server web-a 10.244.1.2:8080 weight 100 guid srv:ing_shop_web_web_80:web-a check  # Pod: web-a',
        '    server web-b 10.244.2.3:8080 weight 100 guid srv:ing_shop_web_web_80:web-b check  # Pod: web-b',
        '    server web-c 10.244.1.4:8080 weight 100 guid srv:ing_shop_web_web_80:web-c check disabled  # Pod: web-c',
        '',
      ].join('\n'),
    );
  });

  it('puts the comment on the line before when asked (the podComment knob)', () => {
    const before = renderConfig('haptic/haptic-config', backends, { shape: 'gate', podComment: 'before' });
    expect(backendOf(before).split('\n').slice(2, 4)).toEqual([
      '    # Pod: web-a',
      '    server web-a 10.244.1.2:8080 weight 100 guid srv:ing_shop_web_web_80:web-a check',
    ]);
    expect([...routedPods(before)].sort()).toEqual(['shop/web-a', 'shop/web-b']);
  });

  it('renders the dataplane library: SRV_<n> slots, every address enabled, placeholders for empty slots', () => {
    const dataplane = renderConfig(
      'haptic/haptic-config',
      backendsFor(htc, routes, services, slices, (k) => pods.get(k), undefined, 'dataplane'),
      { shape: 'dataplane', podComment: 'end' },
    );
    const lines = backendOf(dataplane).split('\n');
    expect(lines.slice(2, 6)).toEqual([
      '    server SRV_1 10.244.1.2:8080 enabled  # Pod: web-a',
      '    server SRV_2 10.244.2.3:8080 enabled  # Pod: web-b',
      '    server SRV_3 10.244.1.4:8080 enabled  # Pod: web-c',
      '    server SRV_4 127.0.0.1:1 disabled  # Placeholder',
    ]);
    expect(lines.filter((l) => l.includes(' server SRV_'))).toHaveLength(10);
    expect([...routedPods(dataplane)].sort()).toEqual(['shop/web-a', 'shop/web-b', 'shop/web-c']);
  });

  it("leads the route's host to its backend", () => {
    expect(content).toContain('    use_backend ing_shop_web_web_80 if { hdr(host) -i web.example }');
  });

  const only = (r: Partial<RouteCaches>, shape: 'gate' | 'dataplane' = 'gate') =>
    backendsFor(
      htc,
      { ingresses: [], gateways: [], httpRoutes: [], grpcRoutes: [], ...r },
      services,
      slices,
      (k) => pods.get(k),
      GATE,
      shape,
    ).map((b) => [b.name, b.servers.length]);

  it('renders nothing for Ingresses the class field selector does not admit', () => {
    expect(
      only({
        ingresses: [ingress('a', 'nginx', 'web', { number: 80 }), ingress('b', undefined, 'web', { number: 80 })],
      }),
    ).toEqual([]);
  });

  it('finds the Service port by number or name; a port the Service lacks renders a backend without servers', () => {
    expect(
      only({
        ingresses: [ingress('a', 'haproxy', 'web', { name: 'http' }), ingress('b', 'haproxy', 'web', { number: 8080 })],
      }),
    ).toEqual([
      ['ing_shop_a_web_http', 3],
      ['ing_shop_b_web_8080', 0],
    ]);
  });

  it("follows the dataplane library's BackendServers: a slice's only port when the Service lacks the number", () => {
    expect(only({ ingresses: [ingress('b', 'haproxy', 'web', { number: 8080 })] }, 'dataplane')).toEqual([
      ['ing_shop_b_web_8080', 3],
    ]);
  });

  const gateway = (name: string, cls: string): Obj => ({
    metadata: { name, namespace: 'shop' },
    spec: { gatewayClassName: cls },
  });
  const httpRoute = (name: string, parent: string, ref: object = { name: 'web', port: 80 }): Obj => ({
    metadata: { name, namespace: 'shop' },
    spec: { parentRefs: [{ name: parent }], hostnames: ['web.example'], rules: [{ backendRefs: [ref] }] },
  });

  it('renders HTTPRoutes on a Gateway of its class; not on another class, a missing Gateway or to another namespace', () => {
    const gateways = [gateway('public', 'haproxy'), gateway('other', 'nginx')];
    const httpRoutes = [
      httpRoute('on-ours', 'public'),
      httpRoute('on-other', 'other'),
      httpRoute('no-gateway', 'gone'),
      httpRoute('elsewhere', 'public', { name: 'web', namespace: 'billing', port: 80 }),
    ];
    expect(only({ gateways, httpRoutes })).toEqual([['gtw_shop_on-ours_web_80', 3]]);
    expect(only({ gateways, grpcRoutes: [httpRoute('grpc', 'public', { name: 'web' })] })).toEqual([
      ['gtw_shop_grpc_web_80', 3],
    ]);
    // the dataplane generation's gateway library renders every route it watches, whatever its parents
    expect(only({ gateways, httpRoutes: [httpRoute('on-other', 'other')] }, 'dataplane')).toEqual([
      ['gtw_shop_on-other_web_80', 3],
    ]);
  });

  it('reads the routed pods back from the text', () => {
    expect([...routedPods(content)].sort()).toEqual(['shop/web-a', 'shop/web-b']);
  });

  it('checksums as HAPTIC does: 16 hex characters, the first 8 bytes of the SHA-256', () => {
    expect(checksumOf('x')).toBe('2d711642b726b044');
  });
});
