import { describe, expect, it } from 'vitest';
import type { Obj } from '../../cluster/standins/common.ts';
import { checksumOf, renderConfig, routedAddresses } from '../../cluster/standins/haproxy-render.ts';
import { backendsFor, RenderFailure, type RouteCaches, serverEnabled } from '../../cluster/standins/haptic-routes.ts';
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
    // the agent's util-backend-name-ingress: <ns>_<ingress>_svc_<service>_<port name, the Service port's for a number>
    expect(backends).toEqual([
      {
        name: 'shop_web_svc_web_http',
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
        'backend shop_web_svc_web_http',
        '    balance roundrobin',
        '    server web-a 10.244.1.2:8080 weight 100 guid srv:shop_web_svc_web_http:web-a check  # Pod: web-a',
        '    server web-b 10.244.2.3:8080 weight 100 guid srv:shop_web_svc_web_http:web-b check  # Pod: web-b',
        '    server web-c 10.244.1.4:8080 weight 100 guid srv:shop_web_svc_web_http:web-c check disabled  # Pod: web-c',
        '',
      ].join('\n'),
    );
  });

  it('puts the comment on the line before when asked (the podComment knob)', () => {
    const before = renderConfig('haptic/haptic-config', backends, { shape: 'gate', podComment: 'before' });
    expect(backendOf(before).split('\n').slice(2, 4)).toEqual([
      '    # Pod: web-a',
      '    server web-a 10.244.1.2:8080 weight 100 guid srv:shop_web_svc_web_http:web-a check',
    ]);
    expect([...routedAddresses(before)].sort()).toEqual(['web-a@10.244.1.2', 'web-b@10.244.2.3']);
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
    expect([...routedAddresses(dataplane)].sort()).toEqual([
      'web-a@10.244.1.2',
      'web-b@10.244.2.3',
      'web-c@10.244.1.4',
    ]);
  });

  it('keeps a dataplane server in its SRV_<n> slot across renders, a new pod takes a freed one, and caps at 10', () => {
    const server = (pod: string, ip: string) => ({ pod, ip, port: 8080, enabled: true });
    const backend = (servers: ReturnType<typeof server>[]) => [
      { name: 'ing_shop_web_web_80', namespace: 'shop', service: 'web', hosts: [], servers },
    ];
    const style = { shape: 'dataplane' as const, podComment: 'end' as const };
    const first = renderConfig('h', backend([server('web-a', '10.0.0.1'), server('web-b', '10.0.0.2')]), style);
    // web-a goes, web-c comes (sorted first by name): web-b keeps SRV_2, web-c takes the freed SRV_1
    const second = renderConfig('h', backend([server('web-b', '10.0.0.2'), server('web-c', '10.0.0.3')]), style, first);
    expect(backendOf(second).split('\n').slice(2, 4)).toEqual([
      '    server SRV_1 10.0.0.3:8080 enabled  # Pod: web-c',
      '    server SRV_2 10.0.0.2:8080 enabled  # Pod: web-b',
    ]);
    const twelve = Array.from({ length: 12 }, (_, i) => server(`web-${i}`, `10.0.1.${i}`));
    const capped = backendOf(renderConfig('h', backend(twelve), style)).split('\n');
    expect(capped.filter((l) => l.includes(' server SRV_'))).toHaveLength(10);
    expect(capped.some((l) => l.includes('10.0.1.11'))).toBe(false);
  });

  it("leads the route's host to its backend", () => {
    expect(content).toContain('    use_backend shop_web_svc_web_http if { hdr(host) -i web.example }');
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

  it('finds the Service port by number or name; a number the Service lacks renders servers at the slice port', () => {
    expect(
      only({
        ingresses: [ingress('a', 'haproxy', 'web', { name: 'http' }), ingress('b', 'haproxy', 'web', { number: 8080 })],
      }),
    ).toEqual([
      ['shop_a_svc_web_http', 3],
      ['shop_b_svc_web_8080', 3],
    ]);
    expect(only({ ingresses: [ingress('b', 'haproxy', 'web', { number: 8080 })] }, 'dataplane')).toEqual([
      ['ing_shop_b_web_8080', 3],
    ]);
  });

  it("a port name the Service lacks: the agent's whole render fails, the dataplane generation falls back to 80", () => {
    const typo = { ingresses: [ingress('a', 'haproxy', 'web', { name: 'htp' })] };
    expect(() => only(typo)).toThrow(RenderFailure);
    expect(() => only(typo)).toThrow(
      "ResolveServicePort: Service shop/web has no port named 'htp' (available: [http])",
    );
    expect(only(typo, 'dataplane')).toEqual([['ing_shop_a_web_htp', 3]]);
  });

  it('renders spec.defaultBackend in the agent generation, not in the dataplane one', () => {
    const fallback: Obj = {
      metadata: { name: 'fallback', namespace: 'shop' },
      spec: { ingressClassName: 'haproxy', defaultBackend: { service: { name: 'web', port: { number: 80 } } } },
    };
    expect(only({ ingresses: [fallback] })).toEqual([['shop_fallback_svc_web_http', 3]]);
    expect(only({ ingresses: [fallback] }, 'dataplane')).toEqual([]);
  });

  const gateway = (name: string, cls: string): Obj => ({
    metadata: { name, namespace: 'shop' },
    spec: { gatewayClassName: cls },
  });
  const httpRoute = (name: string, parent: string, ref: object = { name: 'web', port: 80 }): Obj => ({
    metadata: { name, namespace: 'shop' },
    spec: { parentRefs: [{ name: parent }], hostnames: ['web.example'], rules: [{ backendRefs: [ref] }] },
  });

  it('renders every HTTPRoute whatever its parents; to another namespace only by a ReferenceGrant (agent)', () => {
    const gateways = [gateway('public', 'haproxy'), gateway('other', 'nginx')];
    const elsewhere = {
      metadata: { name: 'elsewhere', namespace: 'front' },
      spec: { rules: [{ backendRefs: [{ name: 'web', namespace: 'shop', port: 80 }] }] },
    };
    const httpRoutes = [
      httpRoute('on-ours', 'public'),
      httpRoute('on-other', 'other'),
      httpRoute('no-gateway', 'gone'),
      elsewhere,
    ];
    expect(only({ gateways, httpRoutes })).toEqual([
      ['gtw_shop_no-gateway_web_80', 3],
      ['gtw_shop_on-other_web_80', 3],
      ['gtw_shop_on-ours_web_80', 3],
    ]);
    // the dataplane generation renders a backendRef by the Service's name, whatever its namespace (base.yaml)
    expect(only({ gateways, httpRoutes }, 'dataplane')).toEqual([
      ['gtw_front_elsewhere_web_80', 3],
      ['gtw_shop_no-gateway_web_80', 3],
      ['gtw_shop_on-other_web_80', 3],
      ['gtw_shop_on-ours_web_80', 3],
    ]);
    const grant: Obj = {
      metadata: { name: 'front', namespace: 'shop' },
      spec: {
        from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'front' }],
        to: [{ group: '', kind: 'Service' }],
      },
    };
    expect(only({ httpRoutes: [elsewhere], referenceGrants: [grant] })).toEqual([['gtw_front_elsewhere_web_80', 3]]);
    expect(only({ httpRoutes: [elsewhere] })).toEqual([]);
    expect(only({ gateways, grpcRoutes: [httpRoute('grpc', 'public', { name: 'web' })] })).toEqual([
      ['gtw_shop_grpc_web_80', 3],
    ]);
  });

  it('renders a TLSRoute on a TLS listener of its Gateway as a tcp backend, not in the dataplane generation', () => {
    const tls: Obj = {
      ...gateway('public', 'haproxy'),
      spec: { gatewayClassName: 'haproxy', listeners: [{ name: 'tls', protocol: 'TLS', port: 443 }] },
    };
    const secure: Obj = {
      metadata: { name: 'secure', namespace: 'shop' },
      spec: {
        parentRefs: [{ name: 'public' }],
        hostnames: ['secure.example.com'],
        rules: [{ backendRefs: [{ name: 'web', port: 80 }] }],
      },
    };
    expect(only({ gateways: [tls], tlsRoutes: [secure] })).toEqual([['gtw_tls_shop_secure_0', 3]]);
    expect(only({ gateways: [gateway('public', 'haproxy')], tlsRoutes: [secure] })).toEqual([]);
    expect(only({ gateways: [tls], tlsRoutes: [secure] }, 'dataplane')).toEqual([]);
  });

  it('reads the routed pods back from the text, by name and address', () => {
    expect([...routedAddresses(content)].sort()).toEqual(['web-a@10.244.1.2', 'web-b@10.244.2.3']);
  });

  it('checksums as HAPTIC does: 16 hex characters, the first 8 bytes of the SHA-256', () => {
    expect(checksumOf('x')).toBe('2d711642b726b044');
  });
});
