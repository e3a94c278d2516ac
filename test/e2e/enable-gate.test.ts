import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.ts';
import { connect } from '../../src/kube/config.ts';
import { applyGate } from '../../src/services/gate.ts';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import {
  adminApi,
  cluster,
  GATE,
  gatedDeployment,
  grantReadOnly,
  type KubeObject,
  newNamespace,
  routedService,
  runPlugin,
  service,
  waitFor,
} from './support.ts';

type Deployment = KubeObject & {
  spec: any;
  status?: any;
  metadata: { resourceVersion: string; generation: number; annotations?: Record<string, string> };
};

const api = () => adminApi();
const getDeployment = (ns: string, name: string) => api().get<Deployment>('apps/v1', 'Deployment', name, ns);
const gatesOf = (d: Deployment) =>
  (d.spec.template.spec.readinessGates ?? []).map((g: { conditionType: string }) => g.conditionType);

/** A served Deployment (a Service selects it) rolled out and available, with the given gates. */
async function servedDeployment(ns: string, name: string, gates: string[], replicas = 2): Promise<Deployment> {
  await api().apply([
    gatedDeployment({ name, namespace: ns, gates, replicas }),
    ...routedService({ name, namespace: ns, selector: { app: name } }),
  ]);
  return waitFor(() => getDeployment(ns, name), {
    what: `deployment ${name} available`,
    timeoutMs: 60_000,
    until: (d) =>
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.availableReplicas === replicas &&
      d.status?.updatedReplicas === replicas,
  });
}

describe('enable-gate / disable-gate on the real control plane', () => {
  let ns: string;
  beforeAll(async () => {
    ns = await newNamespace('gate');
  });
  afterEach(async () => {
    await resetKnobs(cluster().adminKubeconfig);
  });

  it('adds exactly one gate, starts a rollout that completes through HAPTIC, and a second run writes nothing', async () => {
    const before = await servedDeployment(ns, 'web', []);
    const run = await runPlugin(['enable-gate', 'web', '-n', ns]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('deployment.apps/web gate added');
    expect(run.stdout).toMatch(/\[HG100\] Service web selects the pod template/);
    expect(run.stdout).toContain(
      `a rollout started (revision 2); follow it with: kubectl haptic status web -n ${ns} --watch`,
    );

    const after = await getDeployment(ns, 'web');
    expect(gatesOf(after)).toEqual([GATE]);
    expect(after.metadata.generation).toBe(before.metadata.generation + 1);
    await waitFor(() => getDeployment(ns, 'web'), {
      what: 'the gated rollout to complete',
      timeoutMs: 90_000,
      until: (d) =>
        d.status?.observedGeneration === d.metadata.generation &&
        d.status?.updatedReplicas === 2 &&
        d.status?.availableReplicas === 2 &&
        d.status?.replicas === 2,
    });
    // The old pods' grace periods end after the rollout completes, and the deployment controller then writes the
    // Deployment's status again (terminatingReplicas); the second run is compared against the settled object.
    const pods = await waitFor(() => api().list<KubeObject>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' }), {
      what: 'the old pods to be gone',
      timeoutMs: 90_000,
      until: (list) => list.length === 2 && list.every((p) => !p.metadata?.deletionTimestamp),
    });
    const rolled = await waitFor(() => getDeployment(ns, 'web'), {
      what: 'a settled status',
      until: (d) => !d.status?.terminatingReplicas,
    });
    for (const pod of pods) {
      expect(pod.status.conditions.find((c: { type: string }) => c.type === GATE)?.status).toBe('True');
    }

    const again = await runPlugin(['enable-gate', 'deployment/web', '-n', ns, '-o', 'json']);
    expect(again.code).toBe(0);
    const record = JSON.parse(again.stdout).items[0];
    expect(record).toMatchObject({ name: 'web', namespace: ns, result: 'unchanged', patch: [], findings: [] });
    expect((await getDeployment(ns, 'web')).metadata.resourceVersion).toBe(rolled.metadata.resourceVersion);
  });

  it('keeps other gates, and disable-gate restores the previous pod template', async () => {
    const other = 'example.com/other-gate';
    // nothing sets example.com/other-gate, so this Deployment never becomes available: wait only until it is observed
    await api().apply([
      gatedDeployment({ name: 'multi', namespace: ns, gates: [other], replicas: 1 }),
      ...routedService({ name: 'multi', namespace: ns, selector: { app: 'multi' } }),
    ]);
    const before = await waitFor(() => getDeployment(ns, 'multi'), {
      what: 'deployment multi observed',
      until: (d) => d.status?.observedGeneration === d.metadata.generation,
    });
    const enabled = await runPlugin(['enable-gate', 'multi', '-n', ns]);
    expect(enabled.code).toBe(0);
    expect(gatesOf(await getDeployment(ns, 'multi'))).toEqual([other, GATE]);

    const disabled = await runPlugin(['disable-gate', 'multi', '-n', ns]);
    expect(disabled.code).toBe(0);
    expect(disabled.stdout).toContain('deployment.apps/multi gate removed');
    const restored = await getDeployment(ns, 'multi');
    expect(restored.spec.template).toEqual(before.spec.template);

    const alone = await runPlugin(['disable-gate', 'multi', '-n', ns]);
    expect(alone.stdout).toBe(`deployment.apps/multi unchanged (gate ${GATE} not present)\n`);
  });

  it('acts on several targets, each with its own record; one refusal does not stop the others', async () => {
    await servedDeployment(ns, 'many-a', [], 1);
    await api().apply([
      gatedDeployment({ name: 'many-b', namespace: ns, gates: [], replicas: 1, labels: { app: 'many-b' } }),
    ]);
    const r = await runPlugin(['enable-gate', 'many-a', 'deployment/many-b', '-n', ns, '-o', 'json']);
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: '' });
    const { apiVersion, kind, items } = JSON.parse(r.stdout);
    expect({ apiVersion, kind }).toEqual({ apiVersion: 'kubectl-haptic/v1', kind: 'GateResultList' });
    expect(items.map((i: any) => [i.name, i.namespace, i.result])).toEqual([
      ['many-a', ns, 'added'],
      ['many-b', ns, 'refused'],
    ]);
    expect(items[0].revision).toBe('2');
    expect(items[0].patch.at(-1)).toEqual({
      op: 'add',
      path: '/spec/template/spec/readinessGates',
      value: [{ conditionType: GATE }],
    });
    // the doctor's DR103 (no readinessProbe: the gate would wait for HAProxy only) is a warning: the write went on
    expect(items[0].findings.map((f: any) => [f.id, f.severity])).toEqual([
      ['HG100', 'ok'],
      ['HG118', 'ok'],
      ['HG106', 'ok'],
      ['DR103', 'warning'],
    ]);
    expect(items[1].findings[0]).toMatchObject({ id: 'HG101', severity: 'blocker' });
    expect(gatesOf(await getDeployment(ns, 'many-a'))).toEqual([GATE]);
    expect(gatesOf(await getDeployment(ns, 'many-b'))).toEqual([]);
  });

  it('--wait follows the rollout the write started until it completes', async () => {
    await servedDeployment(ns, 'waiting', [], 2);
    const r = await runPlugin(['enable-gate', 'waiting', '-n', ns, '--wait', '--timeout', '90s'], {
      timeoutMs: 120_000,
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toContain('deployment.apps/waiting gate added');
    expect(r.stdout).toMatch(/ pod\/waiting-\S+ gate haproxy-haptic\.org\/load-balancer-ready: True/);
    expect(
      r.stdout
        .trimEnd()
        .split('\n')
        .filter((l) => / rollout: /.test(l))
        .at(-1),
    ).toMatch(/rollout: deployment "waiting" successfully rolled out$/);
    const d = await getDeployment(ns, 'waiting');
    expect(d.status).toMatchObject({ updatedReplicas: 2, availableReplicas: 2 });
  });

  it('removes the readinessGates field when the HAPTIC gate was the only one', async () => {
    await api().apply([
      gatedDeployment({ name: 'solo', namespace: ns, gates: [GATE], replicas: 1 }),
      ...routedService({ name: 'solo', namespace: ns, selector: { app: 'solo' } }),
    ]);
    const run = await runPlugin(['disable-gate', 'solo', '-n', ns]);
    expect(run.code).toBe(0);
    expect('readinessGates' in (await getDeployment(ns, 'solo')).spec.template.spec).toBe(false);
  });

  it('never clobbers a concurrent edit: it re-reads and retries once, or reports the conflict', async () => {
    await api().apply([
      gatedDeployment({ name: 'race', namespace: ns, gates: [], replicas: 1 }),
      ...routedService({ name: 'race', namespace: ns, selector: { app: 'race' } }),
    ]);
    const options = {
      namespace: ns,
      names: [{ kind: 'Deployment' as const, name: 'race' }],
      action: 'enable' as const,
      conditionType: GATE,
      dryRun: 'none' as const,
      force: true,
    };
    let edits = 0;
    const editTemplate = async () => {
      edits++;
      await api().patch('apps/v1', 'Deployment', 'race', ns, {
        spec: { template: { metadata: { annotations: { edit: String(edits) } } } },
      });
    };
    /** Another writer edits the Deployment just before each of the plugin's PATCH requests reaches the API server. */
    const racing = (edit: () => Promise<void>) =>
      new (class extends KubeClient {
        override async request<T>(...args: Parameters<KubeClient['request']>): Promise<T> {
          if (args[0] === 'PATCH') await edit();
          return super.request<T>(...args);
        }
      })(connect({ kubeconfig: cluster().adminKubeconfig }));

    const once = await applyGate(
      racing(async () => (edits === 0 ? editTemplate() : undefined)),
      options,
    );
    expect(once[0]?.result).toBe('added');
    const merged = await getDeployment(ns, 'race');
    expect(merged.spec.template.metadata.annotations).toEqual({ edit: '1' });
    expect(gatesOf(merged)).toEqual([GATE]);

    await api().patch(
      'apps/v1',
      'Deployment',
      'race',
      ns,
      [{ op: 'remove', path: '/spec/template/spec/readinessGates' }],
      { type: 'json' },
    );
    const always = await applyGate(racing(editTemplate), options);
    expect(always[0]?.result).toBe('failed');
    expect(always[0]?.error).toBe(
      'conflict: deployments.apps "race" changed again while retrying; nothing was written, run the command again',
    );
    const untouched = await getDeployment(ns, 'race');
    expect(gatesOf(untouched)).toEqual([]);
    expect(untouched.spec.template.metadata.annotations).toEqual({ edit: String(edits) });
  });

  it("writes nothing in either dry-run mode; the server dry run reports the server's validation message", async () => {
    const d = await servedDeployment(ns, 'dry', [], 1);
    const client = await runPlugin(['enable-gate', 'dry', '-n', ns, '--dry-run=client']);
    expect(client.code).toBe(0);
    expect(client.stdout).toContain('deployment.apps/dry gate added (dry run: client; nothing written)');
    expect(client.stdout).toContain(
      `patch (application/json-patch+json): [{"op":"test","path":"/metadata/generation","value":${d.metadata.generation}},{"op":"add","path":"/spec/template/spec/readinessGates","value":[{"conditionType":"${GATE}"}]}]`,
    );
    expect(client.stdout).toContain(`+   readinessGates:\n    +     - conditionType: ${GATE}`);

    const server = await runPlugin(['enable-gate', 'dry', '-n', ns, '--dry-run=server']);
    expect(server.code).toBe(0);
    expect(server.stdout).toContain(
      'deployment.apps/dry gate added (dry run: server, accepted by the API server; nothing written)',
    );

    const invalid = await runPlugin([
      'enable-gate',
      'dry',
      '-n',
      ns,
      '--dry-run=server',
      '--condition-type',
      'not a valid/condition type!',
      '--force',
    ]);
    expect(invalid.code).toBe(1);
    expect(invalid.stdout).toMatch(
      /deployment\.apps\/dry failed: .*readinessGates\[0\]\.conditionType: Invalid value: "not a valid\/condition type!"/,
    );
    expect((await getDeployment(ns, 'dry')).metadata.resourceVersion).toBe(d.metadata.resourceVersion);
  });

  it('refuses a Deployment no Service selects, with the evidence, and accepts it with --force', async () => {
    await api().apply([
      gatedDeployment({ name: 'lonely', namespace: ns, gates: [], replicas: 1 }),
      service({ name: 'lonly', namespace: ns, selector: { app: 'lonly' } }),
    ]);
    const refused = await runPlugin(['enable-gate', 'lonely', '-n', ns]);
    expect(refused.code).toBe(1);
    expect(refused.stdout).toContain(
      'deployment.apps/lonely refused: 1 preflight check failed; nothing written (--force adds the gate anyway)',
    );
    expect(refused.stdout).toContain(`[HG101] No Service in namespace ${ns} selects the pod template`);
    expect(refused.stdout).toContain('pod template labels: app=lonely');
    expect(refused.stdout).toContain('service/lonly almost matches: it wants app=lonly, the template has app=lonely');
    expect(gatesOf(await getDeployment(ns, 'lonely'))).toEqual([]);

    const forced = await runPlugin(['enable-gate', 'lonely', '-n', ns, '--force']);
    expect(forced.code).toBe(0);
    expect(gatesOf(await getDeployment(ns, 'lonely'))).toEqual([GATE]);
  });

  it('refuses while HAPTIC has no leader, and when its gate feature is off', async () => {
    await servedDeployment(ns, 'knobs', [], 1);
    await setKnobs(cluster().adminKubeconfig, { leader: 'false' });
    // the Lease goes stale only after its leaseDurationSeconds: preview until the refusal shows, then write once
    await waitFor(() => runPlugin(['enable-gate', 'knobs', '-n', ns, '--dry-run=client']), {
      what: 'the stale lease to show',
      timeoutMs: 45_000,
      intervalMs: 1000,
      until: (r) => r.code === 1,
    });
    const noLeader = await runPlugin(['enable-gate', 'knobs', '-n', ns]);
    expect(noLeader.code).toBe(1);
    expect(noLeader.stdout).toMatch(/\[HG103\] HAPTIC installation haptic\/haptic-config has no controller leader/);
    expect(noLeader.stdout).toMatch(
      /lease haptic\/haptic: holder haptic-controller-\S+, renewed \d+s ago, leaseDurationSeconds \d+ \(stale\)/,
    );
    const forcedWithoutLeader = await runPlugin(['enable-gate', 'knobs', '-n', ns, '--force']);
    expect(forcedWithoutLeader.code).toBe(0);
    expect(gatesOf(await getDeployment(ns, 'knobs'))).toEqual([GATE]);
    await resetKnobs(cluster().adminKubeconfig);
    expect((await runPlugin(['disable-gate', 'knobs', '-n', ns])).code).toBe(0);

    await setKnobs(cluster().adminKubeconfig, { gateFeature: 'off' });
    const off = await runPlugin(['enable-gate', 'knobs', '-n', ns]);
    expect(off.code).toBe(1);
    expect(off.stdout).toContain(
      '[HG104] HAPTIC installation haptic/haptic-config cannot set the gate: no ClusterRole bound to its controller allows patch on pods/status',
    );
    expect(gatesOf(await getDeployment(ns, 'knobs'))).toEqual([]);
    const forced = await runPlugin(['enable-gate', 'knobs', '-n', ns, '--force']);
    expect(forced.code).toBe(0);
    expect(gatesOf(await getDeployment(ns, 'knobs'))).toEqual([GATE]);
  });

  it('gives one line and the documented exit code for bad input and a 403', async () => {
    await api().apply([gatedDeployment({ name: 'ro', namespace: ns, gates: [], replicas: 1 })]);
    await grantReadOnly(ns);
    const forbidden = await runPlugin(['enable-gate', 'ro', '-n', ns, '--force'], {
      kubeconfig: cluster().limitedKubeconfig,
    });
    expect(forbidden.code).toBe(4);
    expect(forbidden.stdout).toMatch(
      new RegExp(
        `deployment\\.apps/ro failed: forbidden: cannot patch deployments\\.apps in namespace "${ns}" \\(.*User "limited" cannot patch resource "deployments"`,
      ),
    );

    const cases: [string[], number, string][] = [
      [
        ['enable-gate', 'nope', '-n', ns],
        3,
        `error: deployments.apps, statefulsets.apps, daemonsets.apps or rollouts.argoproj.io "nope" not found in namespace "${ns}"\n`,
      ],
      [['enable-gate', 'sts/nope', '-n', ns], 3, `error: statefulsets.apps "nope" not found in namespace "${ns}"\n`],
      [['enable-gate', 'web', '-n', 'no-such-namespace'], 3, 'error: namespace "no-such-namespace" not found\n'],
      [
        ['enable-gate', '-l', 'app=nothing', '-n', ns],
        3,
        `error: no Deployments, StatefulSets, DaemonSets or Rollouts in namespace "${ns}" match -l app=nothing\n`,
      ],
      [
        ['enable-gate', 'pod/db', '-n', ns],
        3,
        'error: pod "db": only Deployments, StatefulSets, DaemonSets and Rollouts are supported\n',
      ],
      [
        ['enable-gate', '-n', ns],
        3,
        'error: no workloads given: name them (NAME, deployment/NAME, statefulset/NAME, daemonset/NAME or rollout/NAME), or use -l SELECTOR or --all\n',
      ],
      [
        ['enable-gate', 'web', '--kubeconfig', '/nonexistent'],
        3,
        'error: kubeconfig file "/nonexistent" does not exist (--kubeconfig)\n',
      ],
    ];
    for (const [args, code, stderr] of cases) {
      const r = await runPlugin(args);
      expect({ args, code: r.code, stderr: r.stderr }).toEqual({ args, code, stderr });
    }
    const badSelector = await runPlugin(['enable-gate', '-l', 'app in (', '-n', ns]);
    expect(badSelector.code).toBe(3);
    expect(badSelector.stderr).toMatch(/^error: .*unable to parse requirement.*\n$/);
  });
});
