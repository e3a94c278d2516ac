// DaemonSets on the real control plane: the real DaemonSet controller runs a pod on each node stand-in behind a
// Service and an Ingress of HAPTIC's class, replaces them node by node, and the HAPTIC stand-in gates each new pod.
// enable-gate adds the gate (the rollout it starts goes through), status speaks kubectl rollout status's DaemonSet
// words at each step (kubectl of the control plane's version beside it), and a broken revision is named first.
import { describe, expect, it } from 'vitest';
import {
  adminApi,
  cluster,
  type DaemonSetOptions,
  followFromStart,
  GATE,
  gatedDaemonSet,
  type KubeObject,
  newNamespace,
  routedService,
  runExecutable,
  runPlugin,
  waitFor,
} from './support.ts';

const api = () => adminApi();
const FAIL = 'standin.kubectl-haptic.dev/fail';
const ids = (text: string) => [...text.matchAll(/\[(HS\d{3}|HG\d{3})\]/g)].map((m) => m[1]);

type Ds = KubeObject & {
  spec: any;
  status?: any;
  metadata: { generation: number; resourceVersion: string; annotations?: Record<string, string> };
};
type PodObject = { metadata: any; spec: any; status?: any };
const getDs = (ns: string, name: string) => api().get<Ds>('apps/v1', 'DaemonSet', name, ns);
const podsOf = async (ns: string, app: string): Promise<PodObject[]> =>
  api().list<PodObject & KubeObject>('v1', 'Pod', { namespace: ns, labelSelector: `app=${app}` });
const kubectl = (args: string[]) => runExecutable(cluster().kubectl, args);

/** Every node runs a pod of the current template, available, and the controller has seen the spec. */
function rolledOut(ns: string, name: string): Promise<Ds> {
  return waitFor(() => getDs(ns, name), {
    what: `daemonset ${name} rolled out`,
    timeoutMs: 90_000,
    intervalMs: 250,
    until: (d) =>
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.desiredNumberScheduled > 0 &&
      d.status?.updatedNumberScheduled === d.status?.desiredNumberScheduled &&
      d.status?.numberAvailable === d.status?.desiredNumberScheduled,
  });
}

async function served(o: DaemonSetOptions): Promise<Ds> {
  await api().apply([
    gatedDaemonSet(o),
    ...routedService({ name: o.name, namespace: o.namespace, selector: o.labels ?? { app: o.name } }),
  ]);
  return rolledOut(o.namespace, o.name);
}

/** A new rollout, as kubectl rollout restart starts one: a pod template annotation changes. */
const restart = (ns: string, name: string, annotations: Record<string, string> = {}) =>
  api().patch('apps/v1', 'DaemonSet', name, ns, {
    spec: {
      template: {
        metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString(), ...annotations } },
      },
    },
  });

describe('a gated DaemonSet on the real control plane', () => {
  it('enable-gate gates a DaemonSet whose rollout then goes node by node; status says what kubectl rollout status says', async () => {
    const ns = await newNamespace('ds-gate');
    const before = await served({ name: 'web', namespace: ns, gates: [], terminationGracePeriodSeconds: 4 });
    const nodes = before.status.desiredNumberScheduled as number;
    expect(nodes).toBeGreaterThanOrEqual(2);

    const preview = await runPlugin(['enable-gate', 'ds/web', '-n', ns, '--dry-run=client']);
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
    expect(preview.stdout).toContain('daemonset.apps/web gate added (dry run: client; nothing written)');
    // more than one node, no surge: the other nodes' pods serve while one is replaced, so no HG111
    expect(ids(preview.stdout)).not.toContain('HG111');

    const enabled = runPlugin(['enable-gate', 'daemonset/web', '-n', ns, '--wait', '--timeout', '90s'], {
      timeoutMs: 120_000,
    });
    // side by side: kubectl and the plugin on the same state of the DaemonSet (same resourceVersion before and after)
    const seen = new Map<string, string>();
    await waitFor(
      async () => {
        const at = await getDs(ns, 'web');
        const [theirs, ours] = await Promise.all([
          kubectl(['rollout', 'status', 'daemonset/web', '-n', ns, '--watch=false']),
          runPlugin(['status', 'ds/web', '-n', ns, '-o', 'json']),
        ]);
        const after = await getDs(ns, 'web');
        if (at.metadata.resourceVersion !== after.metadata.resourceVersion) return false;
        expect(theirs.code, theirs.stderr).toBe(0);
        const model = JSON.parse(ours.stdout);
        expect(model.message).toBe(theirs.stdout.trim());
        seen.set(model.message, model.phase);
        return (
          model.phase === 'complete' &&
          model.gated &&
          after.metadata.generation > before.metadata.generation &&
          after.status.updatedNumberScheduled === nodes
        );
      },
      { what: 'the gated rollout to complete, sampled beside kubectl', timeoutMs: 120_000, intervalMs: 300 },
    );
    const messages = [...seen.keys()];
    expect(messages.some((m) => /^Waiting for daemon set "web" rollout to finish: /.test(m))).toBe(true);
    expect(seen.get('daemon set "web" successfully rolled out')).toBe('complete');

    const result = await enabled;
    expect(result.code, result.stdout + result.stderr).toBe(0);
    expect(result.stdout).toMatch(/daemonset\.apps\/web gate added\n/);
    expect(result.stdout).toContain(`follow it with: kubectl haptic status daemonset/web -n ${ns} --watch`);

    // every node's new pod carries the gate, and HAPTIC set it True before the pod was Ready
    const pods = await waitFor(() => podsOf(ns, 'web'), {
      what: 'one gated pod per node, old pods gone',
      until: (ps) => ps.length === nodes && ps.every((p) => !p.metadata.deletionTimestamp),
    });
    expect(new Set(pods.map((p) => p.spec.nodeName)).size).toBe(nodes);
    for (const p of pods) {
      expect(p.spec.readinessGates).toEqual([{ conditionType: GATE }]);
      expect(p.status.conditions.find((c: { type: string }) => c.type === GATE)?.status).toBe('True');
    }
    const generation = (await getDs(ns, 'web')).metadata.annotations?.['deprecated.daemonset.template.generation'];
    const shown = await runPlugin(['status', 'ds/web', '-n', ns]);
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      new RegExp(
        `^daemonset\\.apps/web -n ${ns} · template generation ${generation} · RollingUpdate maxSurge 0, maxUnavailable 1 · gate ${GATE.replace(/\./g, '\\.')}`,
      ),
    );
    expect(shown.stdout).toContain(`NEW PODS  template generation ${generation}`);

    const again = await runPlugin(['enable-gate', 'ds/web', '-n', ns]);
    expect(again.stdout).toContain(
      'daemonset.apps/web unchanged (gate haproxy-haptic.org/load-balancer-ready already present)',
    );
    const completed = await runPlugin(['__complete', 'status', '-n', ns, 'ds/']);
    expect(completed.stdout).toBe('ds/web\n:4\n');

    // drill plans a DaemonSet's restart as kubectl rollout restart does (a template annotation), and follows it
    const planned = await runPlugin(['drill', 'ds/web', '-n', ns, '--dry-run']);
    expect(planned.code, planned.stdout + planned.stderr).toBe(0);
    expect(planned.stdout).toContain('kubectl.kubernetes.io/restartedAt');
    expect(planned.stdout).toContain('# then patch daemonset/web (strategic merge):');
    expect(planned.stdout).toContain('  generateName: haptic-drill-web-');
  });

  it('a broken revision (the image cannot be pulled): why-stalled names it first, and status --wait fails fast', async () => {
    const ns = await newNamespace('ds-broken');
    await served({ name: 'web', namespace: ns });
    await restart(ns, 'web', { [FAIL]: 'image-pull' });
    const followed = followFromStart(ns, 'web', 'daemonset');
    const broken = await waitFor(() => runPlugin(['why-stalled', 'ds/web', '-n', ns]), {
      what: 'why-stalled ds/web to name the image pull first',
      timeoutMs: 60_000,
      intervalMs: 1000,
      until: (r) => ids(r.stdout)[0] === 'HS203',
    });
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(/^daemonset\.apps\/web -n \S+: stalled/m);
    await followed.check('HS203');
    // the controller really waits: maxUnavailable 1, so the other node keeps its old pod, Ready and serving
    const pods = await podsOf(ns, 'web');
    const old = pods.filter((p) => p.metadata.labels['pod-template-generation'] === '1');
    expect(old.length).toBeGreaterThanOrEqual(1);
  });
});
