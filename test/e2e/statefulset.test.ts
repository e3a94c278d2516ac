// StatefulSets on the real control plane: the real StatefulSet controller rolls a gated StatefulSet one ordinal at a
// time behind a Service and an Ingress of HAPTIC's class, the HAPTIC stand-in gates each new pod, and kubectl of the
// control plane's own version (build.sh) answers `rollout status` beside the plugin at each step. Then enable-gate,
// disable-gate, targets and completion of both kinds, and the stalls a StatefulSet meets (why-stalled names each
// first): a broken revision the ordered controller waits on, a claim that stays Pending, a partition, OnDelete.
import { describe, expect, it } from 'vitest';
import {
  adminApi,
  cluster,
  followFromStart,
  GATE,
  gatedDeployment,
  gatedStatefulSet,
  type KubeObject,
  newNamespace,
  type PluginResult,
  routedService,
  runExecutable,
  runPlugin,
  type StatefulSetOptions,
  waitFor,
} from './support.ts';

const api = () => adminApi();
const FAIL = 'standin.kubectl-haptic.dev/fail';
const ids = (text: string) => [...text.matchAll(/\[(HS\d{3}|HG\d{3})\]/g)].map((m) => m[1]);

type Sts = KubeObject & { spec: any; status?: any; metadata: { generation: number; resourceVersion: string } };
type PodObject = { metadata: any; spec: any; status?: any };
const getSts = (ns: string, name: string) => api().get<Sts>('apps/v1', 'StatefulSet', name, ns);
const podsOf = async (ns: string, app: string): Promise<PodObject[]> =>
  (await api().list<PodObject & KubeObject>('v1', 'Pod', { namespace: ns, labelSelector: `app=${app}` })).sort((a, b) =>
    a.metadata.name.localeCompare(b.metadata.name),
  );
const kubectl = (args: string[]) => runExecutable(cluster().kubectl, args);

/** A gated StatefulSet, its Service and Ingress of class haproxy; waits until all its pods are Ready. */
async function served(o: StatefulSetOptions): Promise<Sts> {
  await api().apply([
    gatedStatefulSet(o),
    ...routedService({ name: o.name, namespace: o.namespace, selector: o.labels ?? { app: o.name } }),
  ]);
  return rolledOut(o.namespace, o.name, o.replicas ?? 3);
}

function rolledOut(ns: string, name: string, replicas: number): Promise<Sts> {
  return waitFor(() => getSts(ns, name), {
    what: `statefulset ${name} rolled out`,
    timeoutMs: 90_000,
    intervalMs: 250,
    until: (s) =>
      s.status?.observedGeneration === s.metadata.generation &&
      s.status?.readyReplicas === replicas &&
      s.status?.updatedReplicas === replicas &&
      s.status?.currentRevision === s.status?.updateRevision,
  });
}

/** A 1 GiB hostPath PersistentVolume reserved for one claim (the node stand-in mounts nothing), maybe only for some nodes. */
const volumeFor = (name: string, ns: string, claim: string, nodeAffinity?: object): KubeObject => ({
  apiVersion: 'v1',
  kind: 'PersistentVolume',
  metadata: { name },
  spec: {
    capacity: { storage: '1Gi' },
    accessModes: ['ReadWriteOnce'],
    persistentVolumeReclaimPolicy: 'Delete',
    hostPath: { path: `/tmp/${name}` },
    claimRef: { namespace: ns, name: claim },
    ...(nodeAffinity ? { nodeAffinity } : {}),
  },
});

/** A new rollout, as kubectl rollout restart starts one: a pod template annotation changes. */
const restart = (ns: string, name: string, annotations: Record<string, string> = {}) =>
  api().patch('apps/v1', 'StatefulSet', name, ns, {
    spec: {
      template: {
        metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString(), ...annotations } },
      },
    },
  });

const gateTrueAt = (p: PodObject) =>
  Date.parse(
    p.status?.conditions?.find((c: { type: string; status: string }) => c.type === GATE && c.status === 'True')
      ?.lastTransitionTime,
  );

describe('a gated StatefulSet on the real control plane', () => {
  it('rolls one ordinal at a time, each new pod waiting for HAProxy; status says what kubectl rollout status says at every step', async () => {
    const ns = await newNamespace('sts-roll');
    // All pods ready with only some updated ("Waiting for partitioned roll out to finish: N out of 3") lasts while an
    // old pod terminates: it stays Ready through its grace period, and the controller counts it. 8 s of grace holds
    // that state long enough for a sample (status and kubectl side by side) on a busy machine; 2 s did not always.
    await served({ name: 'web', namespace: ns, replicas: 3, terminationGracePeriodSeconds: 8 });
    const before = await podsOf(ns, 'web');

    await restart(ns, 'web');
    const waited = runPlugin(['status', 'statefulset/web', '-n', ns, '--wait', '--timeout', '120s'], {
      timeoutMs: 150_000,
    });
    // side by side: kubectl and the plugin on the same state of the StatefulSet (same resourceVersion before and after)
    const seen = new Map<string, string>();
    await waitFor(
      async () => {
        const at = await getSts(ns, 'web');
        const [theirs, ours] = await Promise.all([
          kubectl(['rollout', 'status', 'statefulset/web', '-n', ns, '--watch=false']),
          runPlugin(['status', 'sts/web', '-n', ns, '-o', 'json']),
        ]);
        const after = await getSts(ns, 'web');
        if (at.metadata.resourceVersion !== after.metadata.resourceVersion) return false;
        expect(theirs.code, theirs.stderr).toBe(0);
        const model = JSON.parse(ours.stdout);
        expect(model.message).toBe(theirs.stdout.trim());
        seen.set(model.message, model.phase);
        return model.phase === 'complete' && after.status.currentRevision === after.status.updateRevision;
      },
      { what: 'the rollout to complete, sampled beside kubectl', timeoutMs: 120_000, intervalMs: 300 },
    );
    // the steps of an ordered rollout were all met and said alike: a pod down, then so many of 3 updated, then done
    const messages = [...seen.keys()];
    expect(messages).toContain('Waiting for 1 pods to be ready...');
    expect(messages.some((m) => /^Waiting for partitioned roll out to finish: [12] out of 3 new pods/.test(m))).toBe(
      true,
    );
    expect(seen.get('partitioned roll out complete: 3 new pods have been updated...')).toBe('complete');

    const result = await waited;
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('Rollout report: statefulset.apps/web -n');

    // one ordinal at a time from the highest, each made only once the one above it was gated True
    const after = await podsOf(ns, 'web');
    expect(after.map((p) => p.metadata.uid)).not.toEqual(expect.arrayContaining(before.map((p) => p.metadata.uid)));
    const [p0, p1, p2] = after as [PodObject, PodObject, PodObject];
    expect(Date.parse(p1.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(gateTrueAt(p2));
    expect(Date.parse(p0.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(gateTrueAt(p1));

    const shown = await runPlugin(['status', 'sts/web', '-n', ns]);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toMatch(
      /^statefulset\.apps\/web -n \S+ · revision web-\w+ · RollingUpdate maxUnavailable 1, OrderedReady · gate /,
    );
    expect(shown.stdout).toMatch(/NAME +CONTAINERS[^\n]*\nweb-0 [^\n]*\nweb-1 [^\n]*\nweb-2 /);
  });

  it('enable-gate and disable-gate write a StatefulSet as a Deployment, with its own warnings; names and completion take both kinds', async () => {
    const ns = await newNamespace('sts-gate');
    await served({ name: 'db', namespace: ns, replicas: 2, gates: [] });

    const preview = await runPlugin(['enable-gate', 'sts/db', '-n', ns, '--dry-run=client']);
    expect(preview.code, preview.stderr).toBe(0);
    expect(preview.stdout).toContain('statefulset.apps/db gate added (dry run: client; nothing written)');
    expect(ids(preview.stdout)).toEqual(expect.arrayContaining(['HG100', 'HG118']));

    const enabled = await runPlugin(['enable-gate', 'statefulset/db', '-n', ns, '--wait', '--timeout', '90s'], {
      timeoutMs: 120_000,
    });
    expect(enabled.code, enabled.stdout + enabled.stderr).toBe(0);
    expect(enabled.stdout).toMatch(/statefulset\.apps\/db gate added\n/);
    expect(enabled.stdout).toContain(`follow it with: kubectl haptic status statefulset/db -n ${ns} --watch`);
    const gated = await getSts(ns, 'db');
    expect(gated.spec.template.spec.readinessGates).toEqual([{ conditionType: GATE }]);
    expect((await podsOf(ns, 'db')).every((p) => p.spec.readinessGates?.[0]?.conditionType === GATE)).toBe(true);

    const again = await runPlugin(['enable-gate', 'sts/db', '-n', ns]);
    expect(again.stdout).toContain(
      'statefulset.apps/db unchanged (gate haproxy-haptic.org/load-balancer-ready already present)',
    );

    // OnDelete and a partition are said before the write, and do not block it
    await api().patch('apps/v1', 'StatefulSet', 'db', ns, {
      spec: { updateStrategy: { rollingUpdate: { partition: 1 } } },
    });
    const disabled = await runPlugin(['disable-gate', 'sts/db', '-n', ns, '-o', 'json']);
    expect(disabled.code, disabled.stderr).toBe(0);
    expect(JSON.parse(disabled.stdout).items[0]).toMatchObject({
      workloadKind: 'StatefulSet',
      name: 'db',
      result: 'removed',
    });
    const warned = await runPlugin(['enable-gate', 'sts/db', '-n', ns, '--dry-run=server']);
    expect(warned.code, warned.stderr).toBe(0);
    expect(ids(warned.stdout)).toContain('HG121');
    expect(warned.stdout).toContain('statefulset web has partition'.replace('web', 'db'));

    // a Deployment of the same name: a bare name is ambiguous, the kind decides; completion offers both
    await api().apply([gatedDeployment({ name: 'db', namespace: ns, replicas: 1, maxSurge: 1, maxUnavailable: 0 })]);
    const ambiguous = await runPlugin(['status', 'db', '-n', ns]);
    expect(ambiguous).toMatchObject({
      code: 3,
      stderr: `error: "db" is both a Deployment and a StatefulSet in namespace "${ns}": name one, deployment/db or statefulset/db\n`,
    });
    expect((await runPlugin(['status', 'statefulset/db', '-n', ns, '-o', 'json'])).stdout).toContain(
      '"workloadKind": "StatefulSet"',
    );
    const listed = await runPlugin(['status', '-n', ns, '-o', 'json']);
    expect(
      JSON.parse(listed.stdout).items.map((m: { workloadKind: string; name: string }) => `${m.workloadKind}/${m.name}`),
    ).toEqual(['Deployment/db', 'StatefulSet/db']);
    const completed = await runPlugin(['__complete', 'status', '-n', ns, '']);
    expect(completed.stdout).toBe('deployment/db\nstatefulset/db\n:4\n');
    expect((await runPlugin(['__complete', 'status', '-n', ns, 'sts/'])).stdout).toBe('sts/db\n:4\n');
  });
});

describe('what stalls a StatefulSet, named first by why-stalled', () => {
  const why = (ns: string, name: string) => runPlugin(['why-stalled', `sts/${name}`, '-n', ns]);
  const whyUntil = (ns: string, name: string, first: string, also: (r: PluginResult) => boolean = () => true) =>
    waitFor(() => why(ns, name), {
      what: `why-stalled sts/${name} to report ${first} first`,
      timeoutMs: 60_000,
      intervalMs: 1000,
      until: (r) => ids(r.stdout)[0] === first && also(r),
    });

  it('a broken revision: the ordered controller waits on its pod, no rollback; after undo it still does, until the pod is deleted', async () => {
    const ns = await newNamespace('sts-broken');
    await served({ name: 'web', namespace: ns, replicas: 3 });
    await restart(ns, 'web', { [FAIL]: 'crash-loop' });
    const followed = followFromStart(ns, 'web', 'statefulset');

    const broken = await whyUntil(ns, 'web', 'HS211');
    await followed.check('HS211');
    expect(broken.code).toBe(1);
    expect(broken.stdout).toMatch(
      /\[HS211\] statefulset web waits on pod web-2 of the new revision web-\w+, which cannot become Ready \(CrashLoopBackOff\)/,
    );
    expect(broken.stdout).toContain(
      `then delete the pod so that it is made again from the fixed revision: kubectl -n ${ns} delete pod web-2`,
    );
    expect(ids(broken.stdout)[1]).toBe('HS202');
    // the controller really waits: web-1 and web-0 keep the old revision
    const waiting = await getSts(ns, 'web');
    expect(waiting.status.updatedReplicas).toBe(1);

    // undo: the template is the old one again, but web-2 is not Ready and the controller never replaces it
    await api().patch(
      'apps/v1',
      'StatefulSet',
      'web',
      ns,
      [{ op: 'remove', path: `/spec/template/metadata/annotations/${FAIL.replace('/', '~1')}` }],
      { type: 'json' },
    );
    const undone = await whyUntil(ns, 'web', 'HS211', (r) => r.stdout.includes('of the older revision'));
    expect(undone.stdout).toContain(
      `fix: delete the pod so that it is made again from the update revision: kubectl -n ${ns} delete pod web-2`,
    );

    await api().delete('v1', 'Pod', 'web-2', ns);
    await rolledOut(ns, 'web', 3);
    const fine = await why(ns, 'web');
    expect(fine.code).toBe(0);
    expect(ids(fine.stdout)).toEqual(['HS902']);
  });

  it('a claim that stays Pending (no StorageClass, no volume), or bound in another zone: HS212 first; a PersistentVolume that fits lets the pod run', async () => {
    const ns = await newNamespace('sts-claim');
    await api().apply([
      gatedStatefulSet({ name: 'db', namespace: ns, replicas: 1, volume: '1Gi' }),
      ...routedService({ name: 'db', namespace: ns, selector: { app: 'db' } }),
    ]);
    const pending = await whyUntil(ns, 'db', 'HS212', (r) => r.stdout.includes('no storage class is set'));
    expect(pending.code).toBe(1);
    expect(pending.stdout).toContain(
      '[HS212] pod db-0 waits for its claim data-db-0, which is Pending: no persistent volumes available for this claim and no storage class is set',
    );
    expect(pending.stdout).toContain('create a PersistentVolume that fits the claim');

    const pv = `pv-${ns}`;
    await api().apply([volumeFor(pv, ns, 'data-db-0')]);
    // bound to a volume that only nodes of another zone may use: the scheduler's conflict, named the same way
    const zoned = `pv-${ns}-zoned`;
    await api().apply([
      volumeFor(zoned, ns, 'data-far-0', {
        required: {
          nodeSelectorTerms: [
            { matchExpressions: [{ key: 'topology.kubernetes.io/zone', operator: 'In', values: ['elsewhere'] }] },
          ],
        },
      }),
      gatedStatefulSet({ name: 'far', namespace: ns, replicas: 1, volume: '1Gi' }),
    ]);
    try {
      await rolledOut(ns, 'db', 1);
      expect(ids((await why(ns, 'db')).stdout)).toEqual(['HS902']);
      const far = await whyUntil(ns, 'far', 'HS212', (r) =>
        r.stdout.includes("didn't match PersistentVolume's node affinity"),
      );
      expect(far.stdout).toContain(
        '[HS212] pod far-0 waits for its claim data-far-0, which is Bound: 0/2 nodes are available',
      );
      expect(far.stdout).toContain('fix: the volume can only be used where no node for the pod is');
    } finally {
      for (const name of [pv, zoned])
        await api()
          .delete('v1', 'PersistentVolume', name)
          .catch(() => undefined);
    }
  });

  it('a partition and OnDelete leave pods on an older revision on purpose: warnings, exit 0, kubectl agrees on what is complete', async () => {
    const ns = await newNamespace('sts-hold');
    await served({ name: 'part', namespace: ns, replicas: 3, partition: 2 });
    await served({ name: 'manual', namespace: ns, replicas: 2, updateStrategy: 'OnDelete' });
    await restart(ns, 'part');
    await restart(ns, 'manual');

    const held = await whyUntil(ns, 'part', 'HS213', (r) => r.stdout.includes('not stalled (complete)'));
    expect(held.code).toBe(0);
    expect(held.stdout).toMatch(
      /\[HS213\] statefulset part has partition 2: pods part-0, part-1 keep revision part-\w+ until the partition is lowered/,
    );
    const theirs = await kubectl(['rollout', 'status', 'sts/part', '-n', ns, '--watch=false']);
    expect(theirs.stdout).toBe('partitioned roll out complete: 1 new pods have been updated...\n');
    const waited = await runPlugin(['status', 'sts/part', '-n', ns, '--wait', '--timeout', '60s'], {
      timeoutMs: 90_000,
    });
    expect(waited.code, waited.stderr).toBe(0);

    const manual = await whyUntil(ns, 'manual', 'HS214');
    expect(manual.code).toBe(0);
    expect(manual.stdout).toContain(
      `fix: delete them one at a time from the highest ordinal, each once the one before is Ready: kubectl -n ${ns} delete pod manual-1`,
    );
    // kubectl refuses to wait on OnDelete, and so does --wait: nothing but a person moves it
    const refused = await kubectl(['rollout', 'status', 'sts/manual', '-n', ns, '--watch=false']);
    expect(refused.stderr).toContain('rollout status is only available for RollingUpdate strategy type');
    const ours = await runPlugin(['status', 'sts/manual', '-n', ns, '--wait', '--timeout', '60s'], {
      timeoutMs: 90_000,
    });
    expect(ours.code).toBe(1);
    expect(JSON.parse((await runPlugin(['status', 'sts/manual', '-n', ns, '-o', 'json'])).stdout)).toMatchObject({
      phase: 'paused',
      message: 'rollout status is only available for RollingUpdate strategy type',
    });
  });
});
