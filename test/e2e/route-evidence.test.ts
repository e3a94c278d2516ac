// HAPTIC's live config proves a pod routed only for the Service whose backend holds its server. On the real control
// plane, with the HAPTIC stand-in rendering what HAPTIC renders (test/cluster/standins/haptic-routes.ts): a gated
// rollout whose new template leaves the routed Service (service/web-stable selects track=stable; the new pods say
// track=canary, and only service/web-all, which no route names, selects them) stalls, and why-stalled names HS113
// for the new pods while the old pods' servers stay in the live config; enable-gate on a second workload whose
// template no routed Service selects is refused, though HAPTIC routes its running pods through another Service.
import { describe, expect, it } from 'vitest';
import {
  adminApi,
  gatedDeployment,
  ingress,
  newNamespace,
  runPlugin,
  service,
  waitFor,
  type KubeObject,
} from './support.ts';

type Obj = KubeObject & { spec?: any; status?: any };
const api = () => adminApi();

const liveConfig = () =>
  api().get<Obj>('haproxy-haptic.org/v1alpha1', 'HAProxyCfg', 'haptic-config-haproxycfg', 'haptic');

/** A Deployment selecting app=NAME whose pods also carry track=TRACK. */
function tracked(name: string, ns: string, track: string, gates?: string[]): Obj {
  const d = gatedDeployment({ name, namespace: ns, replicas: 1, maxSurge: 1, maxUnavailable: 0, gates }) as Obj;
  d.spec.selector = { matchLabels: { app: name } };
  d.spec.template.metadata.labels = { app: name, track };
  return d;
}

/** The Deployment's pods, and the live config once it has a server for each of them at its IP. */
async function servedPods(ns: string, app: string): Promise<Obj[]> {
  const pods = await waitFor(() => api().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: `app=${app}` }), {
    what: `${app}'s pod with an IP`,
    timeoutMs: 60_000,
    until: (ps) => ps.length === 1 && !!ps[0]!.status?.podIP,
  });
  await waitFor(liveConfig, {
    what: `HAPTIC's live config with a server for ${pods[0]!.metadata?.name}`,
    timeoutMs: 60_000,
    until: (cfg) => !!cfg.spec?.content?.includes(`${pods[0]!.status.podIP}:`),
  });
  return pods;
}

describe('route evidence per pod and per Service, on the real control plane', () => {
  it('a new template that leaves the routed Service gets HS113 for the new pods while the old pods stay served', async () => {
    const ns = await newNamespace('route-evidence');
    await api().apply([
      tracked('web', ns, 'stable'),
      service({ name: 'web-stable', namespace: ns, selector: { app: 'web', track: 'stable' } }),
      ingress({ name: 'web-stable', namespace: ns }),
      service({ name: 'web-all', namespace: ns, selector: { app: 'web' } }),
    ]);
    const done = await runPlugin(['status', 'web', '-n', ns, '--wait', '--timeout', '2m']);
    expect(done.code, done.stdout + done.stderr).toBe(0);
    const [old] = await servedPods(ns, 'web');

    await api().patch('apps/v1', 'Deployment', 'web', ns, {
      spec: { template: { metadata: { labels: { app: 'web', track: 'canary' } } } },
    });
    const fresh = await waitFor(
      () => api().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web,track=canary' }),
      {
        what: 'the new pod with ready containers',
        timeoutMs: 60_000,
        until: (ps) =>
          ps.some((p) =>
            p.status?.conditions?.some(
              (c: { type: string; status: string }) => c.type === 'ContainersReady' && c.status === 'True',
            ),
          ),
      },
    );
    const newPod = fresh[0]!.metadata!.name!;
    const why = await runPlugin(['why-stalled', 'web', '-n', ns, '-o', 'json']);
    expect(why.code, why.stderr).toBe(1);
    const [result] = JSON.parse(why.stdout).items;
    expect(result.findings[0]).toMatchObject({ id: 'HS113', severity: 'error' });
    expect(result.findings[0].title).toContain(`${newPod}: no route that HAPTIC renders reaches service/web-all`);
    const evidence: string[] = result.findings[0].evidence;
    expect(evidence).toContain('service/web-all: no Ingress, HTTPRoute, GRPCRoute, TLSRoute or TCPRoute names it');
    // the old pod is still served, through the Service its backend renders, and that is said as evidence only
    expect(
      evidence.some((e) => e.includes(`→ pod ${old!.metadata!.name} (service/web-stable, not the Services above)`)),
    ).toBe(true);
    expect((await liveConfig()).spec.content).toContain(`${old!.status.podIP}:`);
    const status = await runPlugin(['status', 'web', '-n', ns]);
    expect(status.stdout).toMatch(/✗ not routed \(no route of class haproxy references service\/web-all\)/);
  });

  it('enable-gate refuses a template no routed Service selects, though HAPTIC routes its running pods through another', async () => {
    const ns = await newNamespace('route-evidence');
    // api's running pods (track=stable) are routed through service/api-stable; its template now says track=canary,
    // which only service/api-all selects, and no route names api-all
    await api().apply([
      tracked('api', ns, 'stable', []),
      service({ name: 'api-stable', namespace: ns, selector: { app: 'api', track: 'stable' } }),
      ingress({ name: 'api-stable', namespace: ns }),
      service({ name: 'api-all', namespace: ns, selector: { app: 'api' } }),
    ]);
    const [running] = await servedPods(ns, 'api');
    // the template changes while the running pod stays (a paused Deployment: no new ReplicaSet is made)
    await api().patch('apps/v1', 'Deployment', 'api', ns, {
      spec: { paused: true, template: { metadata: { labels: { app: 'api', track: 'canary' } } } },
    });
    const refused = await runPlugin(['enable-gate', 'api', '-n', ns]);
    expect(refused.code, refused.stdout + refused.stderr).toBe(1);
    expect(refused.stdout).toContain('✗ [HG116] No route that HAPTIC renders reaches service/api-all');
    expect(refused.stdout).toContain(`→ pod ${running!.metadata!.name} (service/api-stable, not the Services above)`);
    const d = await api().get<Obj>('apps/v1', 'Deployment', 'api', ns);
    expect(d.spec.template.spec.readinessGates ?? []).toEqual([]);
  });
});
