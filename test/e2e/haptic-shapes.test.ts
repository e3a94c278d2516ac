// The plugin on every released shape of HAPTIC, on the real control plane: the HAPTIC stand-in writes what the
// gate release, the released agent generation and the dataplane-API generation write (statusShape knob; the CRDs
// carry each generation's schema, so a field HAPTIC could not write is pruned). Per shape: a healthy rollout with
// no finding above info, and the HAPTIC causes that apply to that shape, each proven by why-stalled's first finding.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetKnobs, setKnobs, type Knobs } from '../cluster/standins/knobs.ts';
import {
  adminApi,
  cluster,
  GATE,
  gatedDeployment,
  type KubeObject,
  newNamespace,
  type PluginResult,
  routedService,
  runPlugin,
  waitFor,
} from './support.ts';

const kubeconfig = () => cluster().adminKubeconfig;
const api = () => adminApi();
type Shape = Knobs['statusShape'];
const SHAPES: Shape[] = ['gate', 'agent', 'dataplane'];

const ids = (text: string) => [...text.matchAll(/\[(HS\d{3})\]/g)].map((m) => m[1]);
const why = (ns: string, name: string, args: string[] = []) => runPlugin(['why-stalled', name, '-n', ns, ...args]);
const whyUntil = (ns: string, name: string, first: string, timeoutMs = 45_000) =>
  waitFor(() => why(ns, name), {
    what: `why-stalled ${name} to report ${first} first`,
    timeoutMs,
    intervalMs: 1000,
    until: (r) => ids(r.stdout)[0] === first,
  });

const created: { ns: string; name: string }[] = [];
/** A Deployment of one replica behind a Service (unless told); gated unless told (only the gate release sets it). */
async function deploy(
  ns: string,
  name: string,
  gated: boolean,
  o: { withService?: boolean; podAnnotations?: Record<string, string> } = {},
): Promise<void> {
  const d = gatedDeployment({
    name,
    namespace: ns,
    replicas: 1,
    maxSurge: 1,
    maxUnavailable: 0,
    terminationGracePeriodSeconds: 2,
    gates: gated ? [GATE] : [],
    podAnnotations: o.podAnnotations,
  });
  await api().apply([
    d,
    ...(o.withService === false ? [] : routedService({ name, namespace: ns, selector: { app: name } })),
  ]);
  created.push({ ns, name });
}
const restart = (ns: string, name: string) =>
  api().patch('apps/v1', 'Deployment', name, ns, {
    spec: { template: { metadata: { annotations: { 'example.com/restartedAt': new Date().toISOString() } } } },
  });

type HAProxyCfg = KubeObject & {
  spec: { checksum: string; compressed?: boolean };
  status?: {
    deployedToPods?: Record<string, unknown>[];
    retainedConfigs?: { name: string; checksum: string }[];
    conditions?: unknown[];
  };
};
const liveCfg = () =>
  api().get<HAProxyCfg>('haproxy-haptic.org/v1alpha1', 'HAProxyCfg', 'haptic-config-haproxycfg', 'haptic');
const haproxyPods = async () =>
  (
    await api().list<KubeObject>('v1', 'Pod', {
      namespace: 'haptic',
      labelSelector: 'app.kubernetes.io/component=loadbalancer',
    })
  )
    .map((p) => p.metadata!.name!)
    .sort();

/** Every run of why-stalled while the rollout goes: findings no worse than info, until it reports HS902. */
async function healthyRollout(ns: string, name: string): Promise<PluginResult> {
  const seen: string[] = [];
  const done = await waitFor(
    async () => {
      const r = await why(ns, name, ['-o', 'json']);
      const findings = JSON.parse(r.stdout).items[0].findings as { id: string; severity: string; title: string }[];
      for (const f of findings)
        if (!['info', 'ok'].includes(f.severity)) seen.push(`${f.id} ${f.severity}: ${f.title}`);
      return { r, findings };
    },
    {
      what: `${name} rolled out with no finding above info`,
      timeoutMs: 60_000,
      intervalMs: 500,
      until: ({ findings }) => findings.some((f) => f.id === 'HS902'),
    },
  );
  expect(seen).toEqual([]);
  expect(done.r.code).toBe(0);
  return done.r;
}

describe.each(SHAPES)('HAPTIC shape %s on the real control plane', (shape) => {
  beforeAll(() => setKnobs(kubeconfig(), { statusShape: shape }));
  afterEach(async () => {
    await setKnobs(kubeconfig(), {
      statusShape: shape,
      leader: 'true',
      failDeployTo: '',
      refuseRender: 'false',
      leaderElection: 'on',
      compressed: 'false',
      podComment: 'end',
    });
    await Promise.all(created.splice(0).map(({ ns, name }) => api().delete('apps/v1', 'Deployment', name, ns)));
    // knobs applied is not the fleet healed: a HAProxy pod whose deploys failed keeps its lastError until HAPTIC's
    // next deploy to it succeeds, and the next test's rollout would rightly be told so (HS106)
    await waitFor(liveCfg, {
      what: 'every HAProxy pod deployed to without an error',
      timeoutMs: 60_000,
      until: (cfg) => {
        const entries = cfg.status?.deployedToPods ?? [];
        return entries.length > 0 && entries.every((e) => !e.lastError && e.mode !== 'rejected');
      },
    });
  });
  afterAll(() => resetKnobs(kubeconfig()));

  it(`writes the ${shape} generation's fields, and nothing it could not write`, async () => {
    const ns = await newNamespace(`shape-${shape}`);
    await deploy(ns, 'probe', false);
    const cfg = await waitFor(liveCfg, {
      what: 'every HAProxy pod deployed in this shape',
      until: (c) =>
        (c.status?.deployedToPods ?? []).length === 2 &&
        c.status!.deployedToPods!.every(
          (e) => (shape === 'dataplane' ? 'deployedAt' in e : 'podUID' in e) && e.checksum === c.spec.checksum,
        ),
    });
    // the dataplane generation's released tags write a SHA-256 of the config; the agent generation 16 hex characters
    expect(cfg.spec.checksum).toMatch(shape === 'dataplane' ? /^[0-9a-f]{64}$/ : /^[0-9a-f]{16}$/);
    for (const entry of cfg.status!.deployedToPods!) {
      expect(entry).not.toHaveProperty('observedGeneration');
      if (shape === 'dataplane') expect(Object.keys(entry)).not.toContain('podUID');
      else
        expect(Object.keys(entry)).toEqual(
          expect.arrayContaining(['podName', 'podUID', 'podRuntimeID', 'appliedPlanID', 'runningPlanID', 'mode']),
        );
    }
    expect((cfg.status?.conditions ?? []).length > 0).toBe(shape === 'gate');
  });

  it('a healthy rollout: no finding above info while it goes, complete at the end', async () => {
    const ns = await newNamespace(`healthy-${shape}`);
    // only the gate release sets the condition: earlier releases serve ungated Deployments
    await deploy(ns, 'web', shape === 'gate');
    await healthyRollout(ns, 'web');
    await restart(ns, 'web');
    const r = await healthyRollout(ns, 'web');
    expect(r.stdout).toContain('"id": "HS902"');
    // the last config change (the old pod's server removed) reaches both HAProxy pods a moment later
    const status = await waitFor(() => runPlugin(['status', 'web', '-n', ns]), {
      what: 'HAProxy converged on the live config',
      until: (r) => r.stdout.includes('HAProxy 2/2 on'),
    });
    expect(status.stdout).toMatch(
      /HAPTIC haptic\/haptic-config: leader haptic-controller-\S+ \(renewed \d+s ago\) · config ok · HAProxy 2\/2 on [0-9a-f]{12}$/m,
    );
    expect(status.stdout).toMatch(/web: ready +enabled 2\/2 /);
  });

  it('HS901 while a rollout waits for what its spec explains; HS101 for a gated pod no Service selects', async () => {
    const ns = await newNamespace(`progress-${shape}`);
    // the node stand-in starts the pod 8 s after it is scheduled: the rollout waits, and says for what
    await deploy(ns, 'slow', shape === 'gate', {
      podAnnotations: { 'standin.kubectl-haptic.dev/start-delay-ms': '8000' },
    });
    const progressing = await waitFor(() => why(ns, 'slow'), {
      what: 'HS901 for the pending pod',
      intervalMs: 500,
      until: (r) => /Pending \(being scheduled or started\)/.test(r.stdout),
    });
    expect(progressing.code).toBe(0);
    expect(ids(progressing.stdout)).toEqual(['HS901']);
    await deploy(ns, 'lonely', true, { withService: false });
    const r = await whyUntil(ns, 'lonely', 'HS101');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(`\\[HS101\\] lonely-\\S+: no Service selects this gated pod, so HAPTIC never sets ${GATE}`),
    );
  });

  // the gate shape is the release that has the readiness gate: HS105 cannot happen on it
  if (shape !== 'gate')
    it('HS105: a gated Deployment on a release without the readiness gate, and why', async () => {
      const ns = await newNamespace(`nogate-${shape}`);
      await deploy(ns, 'gated', true);
      const r = await whyUntil(ns, 'gated', 'HS105');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        'ClusterRoles bound to the controller: haptic, system:service-account-issuer-discovery; none allows patch on pods/status',
      );
      if (shape === 'dataplane') {
        expect(r.stdout).toContain(
          `[HS105] HAPTIC haptic/haptic-config is a release without the readiness gate: nothing sets ${GATE}`,
        );
        expect(r.stdout).toContain(
          'deploy statuses of the dataplane-API generation (deployedAt, no podUID): a HAPTIC release from before the readiness gate',
        );
      } else {
        expect(r.stdout).toContain(
          '[HS105] HAPTIC haptic/haptic-config has the readiness-gate feature off: it may not patch pods/status',
        );
      }
    });

  it('HS103: no leader', async () => {
    const ns = await newNamespace(`leaderless-${shape}`);
    await setKnobs(kubeconfig(), { leader: 'false' });
    await deploy(ns, 'web', true);
    // without the gate (agent, dataplane) HS105 comes first; HS103 follows once the Lease is stale
    const r = await waitFor(() => why(ns, 'web'), {
      what: 'HS103 among the findings',
      timeoutMs: 60_000,
      intervalMs: 1000,
      until: (x) => ids(x.stdout).includes('HS103'),
    });
    expect(ids(r.stdout)[0]).toBe(shape === 'gate' ? 'HS103' : 'HS105');
    expect(r.stdout).toMatch(
      /lease haptic\/haptic: holder haptic-controller-\S+, renewed \d+s ago, leaseDurationSeconds 15 \(stale\)/,
    );
  });

  it('HS106: deploys to the first HAProxy pod fail, with what this generation wrote about it', async () => {
    const ns = await newNamespace(`undeployed-${shape}`);
    await deploy(ns, 'web', shape === 'gate');
    await healthyRollout(ns, 'web');
    await setKnobs(kubeconfig(), { failDeployTo: 'first' });
    await restart(ns, 'web');
    const [first] = await haproxyPods();
    if (shape === 'gate') {
      const r = await whyUntil(ns, 'web', 'HS106');
      expect(r.stdout).toMatch(
        new RegExp(
          `${first}: its last deploy failed \\(entry checksum [0-9a-f]{16}, live config [0-9a-f]{16}\\); lastError: failed to sync configuration to pod ${first}: .*; consecutiveErrors \\d+`,
        ),
      );
    } else {
      // an ungated rollout completes whatever HAProxy does; status shows the failing deploy
      // the dataplane generation records the checksum it tried beside the error (configpublisher buildPodStatus): its
      // entry names the old checksum until a deploy of the new render fails too, then the live one
      if (shape === 'dataplane') {
        await waitFor(liveCfg, {
          what: 'the failing entry to name the live config',
          until: (c) => {
            const e = c.status?.deployedToPods?.find((x) => x.podName === first);
            return Boolean(e?.lastError) && e?.checksum === c.spec.checksum;
          },
        });
      }
      const s = await waitFor(() => runPlugin(['status', 'web', '-n', ns]), {
        what: 'status to show the failing deploy',
        until: (r) => r.stdout.includes(`deploy failing on ${first}`) && r.stdout.includes('HAProxy 1/2 on'),
      });
      // the agent generation's entry keeps the checksum the failing pod still runs: said, so 1/2 does not read as an
      // outage; the dataplane generation's names the live checksum with lastError: failing, not "deploying"
      expect(s.stdout).toMatch(
        shape === 'dataplane'
          ? /HAProxy 1\/2 on [0-9a-f]{12} · deploy failing on /
          : /HAProxy 1\/2 on [0-9a-f]{12}, 1 on [0-9a-f]{12} · deploy failing on /,
      );
      const cfg = await liveCfg();
      const entry = cfg.status!.deployedToPods!.find((e) => e.podName === first)!;
      expect(entry.lastError).toMatch(/failed to sync configuration/);
      expect('lastErrorAt' in entry).toBe(shape === 'dataplane');
    }
  });

  it("HS107: HAProxy refuses every render, told in this generation's words", async () => {
    const ns = await newNamespace(`refused-${shape}`);
    await setKnobs(kubeconfig(), { refuseRender: 'true' });
    await deploy(ns, 'web', true);
    const r = await waitFor(() => why(ns, 'web'), {
      what: 'HS107 among the findings',
      timeoutMs: 45_000,
      intervalMs: 1000,
      until: (x) => ids(x.stdout).includes('HS107'),
    });
    expect(r.stdout).toContain("[HS107] HAProxy refused HAPTIC haptic/haptic-config's rendered configuration");
    expect(r.stdout).toMatch(
      /haproxycfg haptic\/haptic-config-haproxycfg-invalid holds the refused render: \[ALERT\].*unknown keyword 'sever'/,
    );
    if (shape === 'gate')
      expect(r.stdout).toContain('haproxycfg haptic/haptic-config-haproxycfg: ConfigPinned=True (renders are held)');
    if (shape === 'dataplane')
      expect(r.stdout).toContain(
        'haproxytemplateconfig haptic/haptic-config: validationStatus Invalid: HAProxy configuration validation failed',
      );
    else
      expect(r.stdout).toMatch(
        /haproxytemplateconfig haptic\/haptic-config: Validated=False reason HAProxyValidationFailed/,
      );
  });

  it('leader election off: no "no leader" while its one controller runs; HS111 when it does not', async () => {
    const ns = await newNamespace(`standalone-${shape}`);
    await setKnobs(kubeconfig(), { leaderElection: 'off' });
    await waitFor(() => api().tryGet('coordination.k8s.io/v1', 'Lease', 'haptic', 'haptic'), {
      what: 'the Lease to be gone',
      until: (l) => l === undefined,
    });
    await deploy(ns, 'web', shape === 'gate');
    await healthyRollout(ns, 'web');
    const status = await runPlugin(['status', 'web', '-n', ns]);
    expect(status.stdout).toMatch(
      /HAPTIC haptic\/haptic-config: leader election off \(single controller haptic-controller-\S+\)/,
    );
    await api().patch('apps/v1', 'Deployment', 'haptic-controller', 'haptic', { spec: { replicas: 0 } });
    try {
      await restart(ns, 'web');
      if (shape === 'gate') {
        const r = await whyUntil(ns, 'web', 'HS111');
        expect(r.stdout).toContain(
          '[HS111] HAPTIC haptic/haptic-config runs one controller without leader election, and it is not running',
        );
        expect(ids(r.stdout)).not.toContain('HS103');
      } else {
        const s = await waitFor(() => runPlugin(['status', 'web', '-n', ns]), {
          what: 'status to show the controller down',
          until: (r) => r.stdout.includes('leader election off, controller not running'),
        });
        expect(s.stdout).not.toContain('no leader');
      }
    } finally {
      await api().patch('apps/v1', 'Deployment', 'haptic-controller', 'haptic', { spec: { replicas: 1 } });
    }
  });

  // the dataplane shape writes no observedGeneration on the template config: HS112 cannot be told on it
  if (shape !== 'dataplane')
    it('HS112: an edit of the template config the controller has not processed', async () => {
      const ns = await newNamespace(`unobserved-${shape}`);
      await deploy(ns, 'web', true);
      await setKnobs(kubeconfig(), { leader: 'false' });
      await api().patch('haproxy-haptic.org/v1alpha1', 'HAProxyTemplateConfig', 'haptic-config', 'haptic', {
        spec: { haproxyConfig: { template: `{% include "kubernetes-backends" %} # ${Date.now()}` } },
      });
      const r = await waitFor(() => why(ns, 'web'), {
        what: 'HS112 among the findings',
        timeoutMs: 45_000,
        intervalMs: 1000,
        until: (x) => ids(x.stdout).includes('HS112'),
      });
      expect(r.stdout).toMatch(
        /\[HS112\] HAPTIC haptic\/haptic-config has not processed the latest edit of its template config \(generation \d+, observed \d+\)/,
      );
    });
});

describe('HAPTIC content the plugin must decode (gate shape)', () => {
  afterAll(() => resetKnobs(kubeconfig()));
  afterEach(() =>
    Promise.all(created.splice(0).map(({ ns, name }) => api().delete('apps/v1', 'Deployment', name, ns))),
  );

  it('compressed configs, comments before the server line, and retained checkpoints: routing still told', async () => {
    await setKnobs(kubeconfig(), { compressed: 'true', podComment: 'before', retainConfigs: '2' });
    const ns = await newNamespace('content');
    await deploy(ns, 'web', true);
    await healthyRollout(ns, 'web');
    const cfg = await liveCfg();
    expect(cfg.spec.compressed).toBe(true);
    // a pod stuck on an older config: it is retained, so the plugin can tell that config does not route the new pod
    await setKnobs(kubeconfig(), { failDeployTo: 'first' });
    await restart(ns, 'web');
    const [first] = await haproxyPods();
    const r = await whyUntil(ns, 'web', 'HS106');
    expect(r.stdout).toContain(`[HS106] HAProxy pod ${first} did not get HAPTIC haptic/haptic-config's configuration`);
    const retained = await liveCfg();
    const runs = retained.status!.deployedToPods!.find((e) => e.podName === first)!.checksum;
    expect(retained.status!.retainedConfigs!.map((c) => c.checksum)).toContain(runs);
    // the other HAProxy pod gets the config that routes the new pod after its own deploy delay and reload, which
    // HS106 on the first does not wait for; the stuck one stays at 0 and is never unknown
    type Routing = { inConfig: boolean; disabled: boolean; runningOn: number; unknown: number; of: number };
    const fresh = await waitFor(
      async () => {
        const json = JSON.parse((await runPlugin(['status', 'web', '-n', ns, '-o', 'json'])).stdout);
        return json.newPods.find((p: { haproxy: Routing[] }) => p.haproxy.length)?.haproxy[0] as Routing | undefined;
      },
      {
        what: 'the other HAProxy pod to run the config that routes the new pod',
        until: (h) => (h?.runningOn ?? 0) > 0 || (h?.unknown ?? 0) > 0,
      },
    );
    expect(fresh).toMatchObject({ inConfig: true, disabled: false, runningOn: 1, unknown: 0, of: 2 });
  });
});
