// The commonest way to stall a gated rollout: a Service that HAPTIC does not route. On the real control plane, with
// the HAPTIC stand-in rendering what HAPTIC renders (its route rules, test/cluster/standins/haptic-routes.ts),
// enable-gate refuses each near miss and names it, and why-stalled names it first once the gate is forced on. Where
// HAPTIC does route — an Ingress of its class, an HTTPRoute whatever its parents, a port number the Service lacks —
// enable-gate cites the live config's servers for the running pods, and the gated rollout completes.
import { describe, expect, it } from 'vitest';
import {
  adminApi,
  gatedDeployment,
  GATE,
  newNamespace,
  runPlugin,
  service,
  waitFor,
  type KubeObject,
} from './support.ts';

type Obj = KubeObject & { spec?: any; status?: any };
const api = () => adminApi();

/** An Ingress to service web port `port`, of class `cls` (none when null). */
const ingress = (ns: string, cls: string | null, port: { number?: number; name?: string } = { number: 80 }): Obj => ({
  apiVersion: 'networking.k8s.io/v1',
  kind: 'Ingress',
  metadata: { name: 'web', namespace: ns },
  spec: {
    ...(cls ? { ingressClassName: cls } : {}),
    rules: [
      {
        host: `web.${ns}.example`,
        http: { paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: 'web', port } } }] },
      },
    ],
  },
});

const gateway = (ns: string, cls: string): Obj => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'Gateway',
  metadata: { name: 'public', namespace: ns },
  spec: { gatewayClassName: cls, listeners: [{ name: 'http', protocol: 'HTTP', port: 80 }] },
});

const httpRoute = (ns: string, parents: { name: string }[] = [{ name: 'public' }]): Obj => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'web', namespace: ns },
  spec: { parentRefs: parents, rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
});

/** Web, ungated and available, its Service, and the routes of the case. */
async function served(ns: string, routes: Obj[]): Promise<void> {
  await api().apply([
    gatedDeployment({ name: 'web', namespace: ns, gates: [], replicas: 1, maxSurge: 1, maxUnavailable: 0 }),
    service({ name: 'web', namespace: ns, selector: { app: 'web' } }),
    ...routes,
  ]);
  await waitFor(() => api().get<Obj>('apps/v1', 'Deployment', 'web', ns), {
    what: 'web available',
    timeoutMs: 60_000,
    until: (d) => d.status?.availableReplicas === 1 && d.status?.updatedReplicas === 1,
  });
}

/** Waits for web's gated pod to have ready containers: it then waits for the gate alone. */
const gatedPodWaiting = (ns: string) =>
  waitFor(() => api().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' }), {
    what: 'the gated pod with ready containers',
    timeoutMs: 60_000,
    until: (pods) =>
      pods.some(
        (p) =>
          (p.spec.readinessGates ?? []).length > 0 &&
          p.status?.conditions?.some(
            (c: { type: string; status: string }) => c.type === 'ContainersReady' && c.status === 'True',
          ),
      ),
  });

const NEAR_MISSES: [string, (ns: string) => Obj[], string][] = [
  ['no route at all', () => [], 'service/web: no Ingress, HTTPRoute, GRPCRoute, TLSRoute or TCPRoute names it'],
  ['an Ingress of another class', (ns) => [ingress(ns, 'nginx')], 'has ingressClassName nginx; HAPTIC haptic/'],
  ['an Ingress without a class', (ns) => [ingress(ns, null)], 'has no ingressClassName; HAPTIC haptic/'],
];

/** Routes HAPTIC renders by its rules, though a class-only reading would say it does not. */
const ROUTED: [string, (ns: string) => Obj[], string][] = [
  [
    'an Ingress of class haproxy',
    (ns) => [ingress(ns, 'haproxy', { name: 'http' })],
    'ingress NS/web → service/web:http',
  ],
  [
    'an HTTPRoute on a Gateway of another GatewayClass',
    (ns) => [gateway(ns, 'other'), httpRoute(ns)],
    'httproute NS/web → service/web:80',
  ],
  ['an HTTPRoute without parents', (ns) => [httpRoute(ns, [])], 'httproute NS/web → service/web:80'],
  [
    'an Ingress of class haproxy to a port number the Service lacks',
    (ns) => [ingress(ns, 'haproxy', { number: 8080 })],
    'ingress NS/web → service/web:8080',
  ],
];

describe('routes HAPTIC renders, on the real control plane', () => {
  it.each(NEAR_MISSES)(
    '%s: enable-gate refuses, and once forced, why-stalled names it first',
    async (_, routes, evidence) => {
      const ns = await newNamespace('routes');
      await served(ns, routes(ns));
      const expected = evidence.replace('NS', ns);

      const refused = await runPlugin(['enable-gate', 'web', '-n', ns]);
      expect(refused.code, refused.stderr).toBe(1);
      expect(refused.stdout).toContain('deployment.apps/web refused');
      expect(refused.stdout).toContain('✗ [HG116] No route that HAPTIC renders reaches service/web');
      expect(refused.stdout).toContain(expected);
      expect(refused.stdout).toContain(`kubectl -n ${ns} create ingress web --class=haproxy --rule='/*=web:http'`);
      expect(
        (await api().get<Obj>('apps/v1', 'Deployment', 'web', ns)).spec.template.spec.readinessGates ?? [],
      ).toEqual([]);

      const forced = await runPlugin(['enable-gate', 'web', '-n', ns, '--force']);
      expect(forced.code, forced.stdout).toBe(0);
      // the new pod's containers are ready and it waits for a gate nothing will set
      await gatedPodWaiting(ns);
      const why = await runPlugin(['why-stalled', 'web', '-n', ns, '-o', 'json']);
      expect(why.code, why.stderr).toBe(1);
      const [result] = JSON.parse(why.stdout).items;
      expect(result.findings[0]).toMatchObject({ id: 'HS113', severity: 'error' });
      expect(result.findings[0].evidence.join('\n')).toContain(expected);
      expect(result.findings[0].evidence).toContain(
        'no server for a pod of the workload in a backend of service/web in haproxycfg haptic/haptic-config-haproxycfg',
      );
      const status = await runPlugin(['status', 'web', '-n', ns]);
      expect(status.stdout).toMatch(/✗ not routed \(no route of class haproxy (references|reaches) service\/web\)/);
    },
  );

  it.each(ROUTED)(
    '%s: enable-gate cites the live config and the route, and the gated rollout completes',
    async (_, routes, route) => {
      const ns = await newNamespace('routes');
      await served(ns, routes(ns));
      // HAPTIC renders the running pod's server a moment after its endpoint is ready
      const running = (await api().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' }))[0]!;
      await waitFor(
        () => api().get<Obj>('haproxy-haptic.org/v1alpha1', 'HAProxyCfg', 'haptic-config-haproxycfg', 'haptic'),
        {
          what: `HAPTIC's live config with a server for ${running.metadata?.name}`,
          timeoutMs: 60_000,
          until: (cfg) => !!cfg.spec?.content?.includes(`${running.status.podIP}:`),
        },
      );
      const run = await runPlugin(['enable-gate', 'web', '-n', ns, '--wait', '--timeout', '2m']);
      expect(run.code, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain('✓ [HG118] HAPTIC routes service/web');
      // evidence first: the live config's server for the running (ungated) pod, then the route that renders it
      expect(run.stdout).toMatch(/haproxycfg haptic\/haptic-config-haproxycfg: backend \S+ server \S+ \S+ → pod web-/);
      expect(run.stdout).toContain(route.replace('NS', ns));
      const pods = await api().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' });
      expect(
        pods
          .filter((p) => !p.metadata?.deletionTimestamp)
          .map((p) => p.status.conditions.find((c: { type: string }) => c.type === GATE)?.status),
      ).toEqual(['True']);
      const why = await runPlugin(['why-stalled', 'web', '-n', ns]);
      expect(why.code, why.stdout + why.stderr).toBe(0);
    },
  );

  /** Web with no pod yet, its Service on 443, and a TLSRoute at v1 on a TLS listener for `*.<ns>.example`. */
  async function tlsOnly(ns: string, hostname: string): Promise<void> {
    const tlsGateway: Obj = {
      ...gateway(ns, 'haproxy'),
      spec: {
        gatewayClassName: 'haproxy',
        listeners: [
          { name: 'tls', protocol: 'TLS', port: 443, hostname: `*.${ns}.example`, tls: { mode: 'Passthrough' } },
        ],
      },
    };
    const tlsRoute: Obj = {
      apiVersion: 'gateway.networking.k8s.io/v1',
      kind: 'TLSRoute',
      metadata: { name: 'web', namespace: ns },
      spec: {
        parentRefs: [{ name: 'public', sectionName: 'tls' }],
        hostnames: [hostname],
        rules: [{ backendRefs: [{ name: 'web', port: 443 }] }],
      },
    };
    await api().apply([
      gatedDeployment({ name: 'web', namespace: ns, gates: [], replicas: 0, maxSurge: 1, maxUnavailable: 0 }),
      service({ name: 'web', namespace: ns, selector: { app: 'web' }, port: 443 }),
      tlsGateway,
      tlsRoute,
    ]);
  }

  it('a Service reached only by a TLSRoute at v1 (Gateway API v1.5 and later) on a TLS listener HAPTIC watches: enable-gate accepts it before any pod runs', async () => {
    const ns = await newNamespace('routes');
    // the route's hostname falls under the listener's wildcard (gateway/21-route-helpers.yaml)
    await tlsOnly(ns, `web.${ns}.example`);
    const run = await runPlugin(['enable-gate', 'web', '-n', ns, '--dry-run=server']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain('✓ [HG118] HAPTIC routes service/web');
    expect(run.stdout).toContain(`tlsroute ${ns}/web → service/web:443`);
    expect(run.stdout).not.toContain('HG116');
  });

  it('the same TLSRoute with a hostname the listener does not cover: enable-gate refuses it with the reason', async () => {
    const ns = await newNamespace('routes');
    await tlsOnly(ns, 'web.elsewhere.example');
    const run = await runPlugin(['enable-gate', 'web', '-n', ns]);
    expect(run.code, run.stdout + run.stderr).toBe(1);
    expect(run.stdout).toContain('✗ [HG116] No route that HAPTIC renders reaches service/web');
    expect(run.stdout).toContain(
      `tlsroute ${ns}/web → service/web:443: none of its hostnames (web.elsewhere.example) intersects the hostname *.${ns}.example of listener tls of gateway ${ns}/public`,
    );
    expect((await api().get<Obj>('apps/v1', 'Deployment', 'web', ns)).spec.template.spec.readinessGates ?? []).toEqual(
      [],
    );
  });

  it("an Ingress to a port name the Service lacks fails the agent generation's whole render: enable-gate refuses, why-stalled names it first, a fix lets the rollout finish", async () => {
    // (real HAPTIC's admission webhook refuses such an Ingress; a Service port renamed under one is the same render,
    // test/e2e/why-stalled.test.ts) HAPTIC writes nothing about it: the route analysis finds it
    const ns = await newNamespace('routes');
    const liveConfig = () =>
      api().get<Obj>('haproxy-haptic.org/v1alpha1', 'HAProxyCfg', 'haptic-config-haproxycfg', 'haptic');
    try {
      await served(ns, [ingress(ns, 'haproxy', { name: 'htp' })]);
      const refused = await runPlugin(['enable-gate', 'web', '-n', ns]);
      expect(refused.code, refused.stdout + refused.stderr).toBe(1);
      expect(refused.stdout).toContain(
        `✗ [HG124] HAPTIC haptic/haptic-config renders nothing new: ingress ${ns}/web names port htp of service/web, which has no port of that name`,
      );
      const forced = await runPlugin(['enable-gate', 'web', '-n', ns, '--force']);
      expect(forced.code, forced.stdout + forced.stderr).toBe(0);
      await gatedPodWaiting(ns);
      const why = await runPlugin(['why-stalled', 'web', '-n', ns, '-o', 'json']);
      expect(why.code, why.stderr).toBe(1);
      const [result] = JSON.parse(why.stdout).items;
      expect(result.findings[0]).toMatchObject({ id: 'HS115', severity: 'error' });
      expect(result.findings[0].title).toContain(`ingress ${ns}/web names port htp of service/web`);
    } finally {
      // the render is the installation's: fix the route whatever happened, and wait for HAPTIC to render it
      await api().apply([ingress(ns, 'haproxy', { name: 'http' })]);
      await waitFor(liveConfig, {
        what: "HAPTIC to render the fixed route's backend",
        timeoutMs: 60_000,
        until: (cfg) => !!cfg.spec?.content?.includes(`backend ${ns}_web_svc_web_http`),
      });
    }
    const done = await runPlugin(['status', 'web', '-n', ns, '--wait', '--timeout', '2m']);
    expect(done.code, done.stdout + done.stderr).toBe(0);
  });
});
