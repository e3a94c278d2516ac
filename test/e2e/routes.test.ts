// The commonest way to stall a gated rollout: a Service that HAPTIC does not route. On the real control plane, with
// the HAPTIC stand-in rendering only what HAPTIC renders (routes of its class), enable-gate refuses each near miss
// and names it, and why-stalled names it first once the gate is forced on; the same Deployment with a route HAPTIC
// renders rolls out.
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

const httpRoute = (ns: string): Obj => ({
  apiVersion: 'gateway.networking.k8s.io/v1',
  kind: 'HTTPRoute',
  metadata: { name: 'web', namespace: ns },
  spec: { parentRefs: [{ name: 'public' }], rules: [{ backendRefs: [{ name: 'web', port: 80 }] }] },
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

const NEAR_MISSES: [string, (ns: string) => Obj[], string][] = [
  ['no route at all', () => [], 'service/web: no Ingress, HTTPRoute or GRPCRoute names it'],
  ['an Ingress of another class', (ns) => [ingress(ns, 'nginx')], 'has ingressClassName nginx; HAPTIC haptic/'],
  ['an Ingress without a class', (ns) => [ingress(ns, null)], 'has no ingressClassName; HAPTIC haptic/'],
  [
    'an Ingress of class haproxy to a port the Service lacks',
    (ns) => [ingress(ns, 'haproxy', { number: 8080 })],
    'service/web has no port 8080 (its ports: http 80), so HAPTIC renders no server for it',
  ],
  [
    'an HTTPRoute on a Gateway of another GatewayClass',
    (ns) => [gateway(ns, 'other'), httpRoute(ns)],
    'its parent gateway NS/public has gatewayClassName other; HAPTIC haptic/',
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
      await waitFor(() => api().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' }), {
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
      const why = await runPlugin(['why-stalled', 'web', '-n', ns, '-o', 'json']);
      expect(why.code, why.stderr).toBe(1);
      const [result] = JSON.parse(why.stdout).items;
      expect(result.findings[0]).toMatchObject({ id: 'HS113', severity: 'error' });
      expect(result.findings[0].evidence.join('\n')).toContain(expected);
      const status = await runPlugin(['status', 'web', '-n', ns]);
      expect(status.stdout).toMatch(/✗ not routed \(no route of class haproxy (references|reaches) service\/web\)/);
    },
  );

  it('with an Ingress of class haproxy, enable-gate names the route and the rollout completes through the gate', async () => {
    const ns = await newNamespace('routes');
    await served(ns, [ingress(ns, 'haproxy', { name: 'http' })]);
    const run = await runPlugin(['enable-gate', 'web', '-n', ns, '--wait', '--timeout', '2m']);
    expect(run.code, run.stdout + run.stderr).toBe(0);
    expect(run.stdout).toContain(`✓ [HG118] HAPTIC routes service/web`);
    expect(run.stdout).toContain(`ingress ${ns}/web → service/web:http`);
    const pods = await api().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' });
    expect(
      pods
        .filter((p) => !p.metadata?.deletionTimestamp)
        .map((p) => p.status.conditions.find((c: { type: string }) => c.type === GATE)?.status),
    ).toEqual(['True']);
  });
});
