// Is the test cluster faithful? These tests check the API objects themselves (no plugin): the timeline of a gated
// rollout as the real Deployment, ReplicaSet and EndpointSlice controllers and our node and HAPTIC stand-ins write
// it, a rollout stalled by a HAPTIC without leader, and the kubelet's failure traces. Objects are recorded through
// watches (every version, in order, with the local time it arrived); versions of different objects are ordered by
// resourceVersion, which in this real cluster is etcd's global revision (a number; the API calls it opaque).
import { afterEach, describe, expect, it } from 'vitest';
import type { WatchEvent } from '../../src/kube/client.ts';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import {
  adminApi,
  cluster,
  GATE,
  gatedDeployment,
  type Kube,
  type KubeObject,
  newNamespace,
  routedService,
  waitFor,
} from './support.ts';

const api = () => adminApi();
const HAPTIC_NS = 'haptic';
const HAPROXY_CFG = 'haptic-config-haproxycfg';
const HAPTIC_GROUP = 'haproxy-haptic.org/v1alpha1';
const GRACE = 5;
const NOT_EXIST = `corresponding condition of pod readiness gate "${GATE}" does not exist.`;
const ROUTED_MESSAGE = 'every HAProxy pod of haptic/haptic-config runs a configuration that routes to this pod';

type Seen = { type: 'ADDED' | 'MODIFIED' | 'DELETED'; object: any; at: number; rv: number };

/** Every version of the objects of one collection from now on: a list, then a watch from the list's resourceVersion. */
class Recorder {
  readonly events: Seen[] = [];
  error: string | undefined;
  private readonly controller = new AbortController();
  private pump: Promise<void> = Promise.resolve();

  static async start(kube: Kube, path: string, query: Record<string, string> = {}): Promise<Recorder> {
    const recorder = new Recorder();
    const list = await kube.request('GET', `${path}?${new URLSearchParams(query)}`);
    const at = Date.now();
    for (const object of list.items)
      recorder.events.push({ type: 'ADDED', object, at, rv: Number(object.metadata.resourceVersion) });
    const watch = { ...query, resourceVersion: list.metadata.resourceVersion, timeoutSeconds: 600 };
    recorder.pump = recorder.read(kube.client.watch<any>(path, watch, recorder.controller.signal));
    return recorder;
  }

  private async read(events: AsyncIterable<WatchEvent<any>>): Promise<void> {
    try {
      for await (const event of events) {
        if (event.type !== 'BOOKMARK')
          this.events.push({
            type: event.type,
            object: event.object,
            at: Date.now(),
            rv: Number(event.object.metadata.resourceVersion),
          });
      }
      if (!this.controller.signal.aborted) this.error ??= 'the watch ended early';
    } catch (error) {
      // a refused watch, a broken stream, or the server's ERROR event (e.g. 410 Gone): the record is incomplete
      if (!this.controller.signal.aborted) this.error ??= String(error);
    }
  }

  /** The versions of one object, oldest first (DELETED excluded). */
  versions(name: string): Seen[] {
    return this.events.filter((e) => e.object.metadata.name === name && e.type !== 'DELETED');
  }

  deleted(name: string): Seen | undefined {
    return this.events.find((e) => e.object.metadata.name === name && e.type === 'DELETED');
  }

  async stop(): Promise<void> {
    this.controller.abort();
    await this.pump;
    expect(this.error, 'the watch broke (its events are incomplete)').toBeUndefined();
  }
}

const condition = (object: any, type: string) =>
  (object.status?.conditions ?? []).find((c: { type: string }) => c.type === type);
const status = (object: any, type: string): string | undefined => condition(object, type)?.status;
const firstIndex = (versions: Seen[], test: (object: any) => boolean) => versions.findIndex((v) => test(v.object));

/** The endpoint conditions of a pod in a Service's slices (nil ready/serving = true, nil terminating = false). */
function endpointState(slices: Map<string, any>, pod: string): string {
  for (const slice of slices.values()) {
    const endpoint = (slice.endpoints ?? []).find((e: any) => e.targetRef?.kind === 'Pod' && e.targetRef.name === pod);
    if (endpoint) {
      const c = endpoint.conditions ?? {};
      return `ready=${c.ready ?? true} serving=${c.serving ?? true} terminating=${c.terminating ?? false}`;
    }
  }
  return 'absent';
}

/** A pod's endpoint state after each slice event: the distinct consecutive states, each with the event's rv. */
function endpointTimeline(slices: Recorder, pod: string): { state: string; rv: number }[] {
  const current = new Map<string, any>();
  const timeline: { state: string; rv: number }[] = [{ state: 'absent', rv: 0 }];
  for (const event of slices.events) {
    if (event.type === 'DELETED') current.delete(event.object.metadata.name);
    else current.set(event.object.metadata.name, event.object);
    const state = endpointState(current, pod);
    if (state !== timeline.at(-1)!.state) timeline.push({ state, rv: event.rv });
  }
  return timeline;
}

async function availableDeployment(ns: string, name: string, replicas: number): Promise<any> {
  return waitFor(() => api().get<any>('apps/v1', 'Deployment', name, ns), {
    what: `deployment ${name} rolled out and available`,
    timeoutMs: 60_000,
    intervalMs: 100,
    until: (d) =>
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.replicas === replicas &&
      d.status?.updatedReplicas === replicas &&
      d.status?.availableReplicas === replicas,
  });
}

const podsOf = (ns: string, name: string) =>
  api().list<any>('v1', 'Pod', { namespace: ns, labelSelector: `app=${name}` });
const newImage = (image: string) => ({ spec: { template: { spec: { containers: [{ name: 'app', image }] } } } });

describe('the test cluster is faithful to Kubernetes and HAPTIC', () => {
  afterEach(async () => {
    await resetKnobs(cluster().adminKubeconfig);
  });

  it('a gated rolling update: containers ready, gate once every HAProxy pod routes, Ready, then old pods drain for their grace period', async () => {
    const ns = await newNamespace('fidelity');
    await api().apply([
      gatedDeployment({
        name: 'web',
        namespace: ns,
        replicas: 2,
        maxSurge: 1,
        maxUnavailable: 0,
        terminationGracePeriodSeconds: GRACE,
      }),
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
    ]);
    await availableDeployment(ns, 'web', 2);
    const oldNames = (await podsOf(ns, 'web')).map((p) => p.metadata.name).sort();
    expect(oldNames).toHaveLength(2);
    // the Deployment counts a pod available from its Ready condition, the EndpointSlice controller marks it ready
    // from the same condition on its own time: the recording starts once both have seen it
    await waitFor(
      () =>
        api().list<any>('discovery.k8s.io/v1', 'EndpointSlice', {
          namespace: ns,
          labelSelector: 'kubernetes.io/service-name=web',
        }),
      {
        what: "both pods ready in the Service's EndpointSlice",
        intervalMs: 100,
        until: (list) =>
          oldNames.every((n) =>
            list.some((s) =>
              (s.endpoints ?? []).some((e: any) => e.targetRef?.name === n && e.conditions?.ready === true),
            ),
          ),
      },
    );

    const kube = api();
    const [pods, slices, deployments, cfgs] = await Promise.all([
      Recorder.start(kube, await kube.path('v1', 'Pod', ns)),
      Recorder.start(kube, await kube.path('discovery.k8s.io/v1', 'EndpointSlice', ns), {
        labelSelector: 'kubernetes.io/service-name=web',
      }),
      Recorder.start(kube, await kube.path('apps/v1', 'Deployment', ns)),
      Recorder.start(kube, await kube.path(HAPTIC_GROUP, 'HAProxyCfg', HAPTIC_NS), {
        fieldSelector: `metadata.name=${HAPROXY_CFG}`,
      }),
    ]);
    await api().patch('apps/v1', 'Deployment', 'web', ns, newImage('example/app:2'), { type: 'strategic' });

    await waitFor(() => podsOf(ns, 'web'), {
      what: 'only new, live pods left',
      timeoutMs: 90_000,
      intervalMs: 100,
      until: (list) =>
        list.length === 2 && list.every((p) => !oldNames.includes(p.metadata.name) && !p.metadata.deletionTimestamp),
    });
    const done = await availableDeployment(ns, 'web', 2);
    await waitFor(() => oldNames.every((n) => pods.deleted(n)), {
      what: 'the watch to see both old pods deleted',
      intervalMs: 50,
    });
    const haproxyPods = (
      await api().list<any>('v1', 'Pod', {
        namespace: HAPTIC_NS,
        labelSelector: 'app.kubernetes.io/instance=haptic,app.kubernetes.io/component=loadbalancer',
      })
    )
      .filter((p) => p.status?.phase === 'Running' && !p.metadata.deletionTimestamp)
      .map((p) => p.metadata.name)
      .sort();
    await Promise.all([pods, slices, deployments, cfgs].map((r) => r.stop()));
    expect(haproxyPods).toHaveLength(2);

    // --- the first new pod: ContainersReady, then the gate, then Ready (observed in that order, in separate writes)
    const created = pods.events
      .filter((e) => e.type === 'ADDED' && !oldNames.includes(e.object.metadata.name))
      .sort((a, b) => a.rv - b.rv);
    expect(created).toHaveLength(2);
    const first = created[0]!.object.metadata.name as string;
    const versions = pods.versions(first);
    const iContainers = firstIndex(versions, (p) => status(p, 'ContainersReady') === 'True');
    const iGate = firstIndex(versions, (p) => status(p, GATE) === 'True');
    const iReady = firstIndex(versions, (p) => status(p, 'Ready') === 'True');
    expect(iContainers).toBeGreaterThanOrEqual(0);
    expect(iGate).toBeGreaterThan(iContainers);
    expect(iReady).toBeGreaterThan(iGate);
    // while the gate is missing the kubelet (node stand-in) says why the pod is not Ready
    for (const v of versions.slice(iContainers, iGate)) {
      expect(condition(v.object, GATE)).toBeUndefined();
      expect(condition(v.object, 'Ready')).toMatchObject({
        status: 'False',
        reason: 'ReadinessGatesNotReady',
        message: NOT_EXIST,
      });
    }
    const readyPod = versions[iReady]!.object;
    expect(condition(readyPod, GATE)).toMatchObject({
      status: 'True',
      reason: 'RoutedByAllHAProxyPods',
      message: ROUTED_MESSAGE,
    });
    const since = (type: string) => Date.parse(condition(readyPod, type).lastTransitionTime);
    expect(since('ContainersReady')).toBeLessThanOrEqual(since(GATE));
    expect(since(GATE)).toBeLessThanOrEqual(since('Ready'));
    const podIP = readyPod.status.podIP as string;
    expect(podIP).toMatch(/^10\.244\.[12]\.\d+$/);

    // --- HAPTIC set the gate only once every HAProxy pod ran a config with the pod's server enabled: its entry's
    // checksum names that config and its reload is done (runningPlanID = appliedPlanID). No entry has an
    // observedGeneration: no released CRD has one, and the API server prunes it.
    const contentByChecksum = new Map<string, string>(
      cfgs.events.filter((e) => e.type !== 'DELETED').map((e) => [e.object.spec.checksum, e.object.spec.content]),
    );
    const enabledLine = (line: string) =>
      line.trimStart().startsWith(`server ${first} ${podIP}:8080 `) && !/\bdisabled\b/.test(line.split('#')[0]!);
    const routesEverywhere = (cfg: any) => {
      const entries: any[] = cfg.status?.deployedToPods ?? [];
      return (
        JSON.stringify(entries.map((e) => e.podName).sort()) === JSON.stringify(haproxyPods) &&
        entries.every((e) => {
          const ran = contentByChecksum.get(e.checksum);
          return (
            ran !== undefined &&
            !('observedGeneration' in e) &&
            e.runningPlanID === e.appliedPlanID &&
            ran.split('\n').some(enabledLine)
          );
        })
      );
    };
    const cfgAt = (rv: number) => cfgs.events.filter((e) => e.rv < rv).at(-1)?.object;
    const gateRV = versions[iGate]!.rv;
    expect(cfgAt(gateRV), 'HAProxyCfg when the gate was written').toBeDefined();
    expect(
      routesEverywhere(cfgAt(gateRV)),
      `deployedToPods when the gate was written: ${JSON.stringify(cfgAt(gateRV)?.status?.deployedToPods)}`,
    ).toBe(true);
    // ... which it could not have done when the containers became ready: no HAProxy pod ran such a config yet
    expect(routesEverywhere(cfgAt(versions[iContainers]!.rv))).toBe(false);
    const firstRouting = cfgs.events.find((e) => e.object.spec.content.split('\n').some(enabledLine))!;
    expect(firstRouting.rv).toBeGreaterThan(versions[iContainers]!.rv);

    // --- the new pod's endpoint: listed not ready before the gate, ready after Ready
    const newTimeline = endpointTimeline(slices, first);
    expect(newTimeline.map((t) => t.state)).toEqual([
      'absent',
      'ready=false serving=false terminating=false',
      'ready=true serving=true terminating=false',
    ]);
    expect(newTimeline[1]!.rv).toBeLessThan(gateRV);
    expect(newTimeline[2]!.rv).toBeGreaterThan(versions[iReady]!.rv);

    // --- the first old pod deleted: only after the first new pod is Ready; Terminating for its grace period
    const deletion = (name: string) => pods.versions(name).find((v) => v.object.metadata.deletionTimestamp);
    const old = [...oldNames].sort((a, b) => deletion(a)!.rv - deletion(b)!.rv)[0]!;
    const deleting = deletion(old)!;
    expect(deleting.rv).toBeGreaterThan(versions[iReady]!.rv);
    expect(
      pods
        .versions(old)
        .filter((v) => v.rv < deleting.rv)
        .every((v) => status(v.object, 'Ready') === 'True'),
    ).toBe(true);
    expect(deleting.object.metadata.deletionGracePeriodSeconds).toBe(GRACE);
    const deadline = Date.parse(deleting.object.metadata.deletionTimestamp);
    const gone = pods.deleted(old)!;
    // deletionTimestamp = request time + grace, stored to the second: so the pod lives ≥ grace-1 s (100 ms for the watch)
    expect(gone.at - deleting.at).toBeGreaterThanOrEqual((GRACE - 1) * 1000 - 100);
    expect(gone.at).toBeGreaterThanOrEqual(deadline);
    expect(gone.at - deadline).toBeLessThan(2000);
    expect(await api().tryGet('v1', 'Pod', old, ns)).toBeUndefined();
    // still Ready (and so serving) while it terminates, until the kubelet stops it at the deadline
    const whileTerminating = pods.versions(old).filter((v) => v.rv >= deleting.rv);
    expect(status(whileTerminating[0]!.object, 'Ready')).toBe('True');
    expect(whileTerminating.at(-1)!.object.status.phase).toBe('Succeeded');

    const oldTimeline = endpointTimeline(slices, old);
    expect(oldTimeline.map((t) => t.state)).toEqual([
      'absent', // before the recorder's list
      'ready=true serving=true terminating=false',
      'ready=false serving=true terminating=true',
      'absent',
    ]);
    expect(oldTimeline[2]!.rv).toBeGreaterThan(deleting.rv);
    expect(oldTimeline[3]!.rv).toBeGreaterThan(oldTimeline[2]!.rv);

    // --- maxSurge 1 / maxUnavailable 0 held all along: never more than 3 pods that are not terminating (counted on
    // the pods themselves: Deployment status sums ReplicaSet statuses, which may lag a moment behind each other)
    const live = new Map<string, boolean>();
    for (const event of [...pods.events].sort((a, b) => a.rv - b.rv)) {
      live.set(event.object.metadata.name, event.type !== 'DELETED' && !event.object.metadata.deletionTimestamp);
      expect([...live.values()].filter(Boolean).length).toBeLessThanOrEqual(3);
    }
    for (const { object: d } of deployments.events) {
      if (d.status?.observedGeneration === d.metadata.generation)
        expect(d.status.availableReplicas).toBeGreaterThanOrEqual(2);
    }
    expect(done.status).toMatchObject({ replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 });
    expect(condition(done, 'Progressing')).toMatchObject({ status: 'True', reason: 'NewReplicaSetAvailable' });
    expect(condition(done, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
  });

  it('without a HAPTIC leader a new pod stays NotReady, the Deployment exceeds its progress deadline, old pods keep serving', async () => {
    const ns = await newNamespace('fidelity-stall');
    await api().apply([
      gatedDeployment({
        name: 'stall',
        namespace: ns,
        replicas: 2,
        maxSurge: 1,
        maxUnavailable: 0,
        progressDeadlineSeconds: 10,
      }),
      ...routedService({ name: 'stall', namespace: ns, selector: { app: 'stall' } }),
    ]);
    await availableDeployment(ns, 'stall', 2);
    const oldNames = (await podsOf(ns, 'stall')).map((p) => p.metadata.name).sort();
    await setKnobs(cluster().adminKubeconfig, { leader: 'false' });
    const cfgBefore = await api().get<any>(HAPTIC_GROUP, 'HAProxyCfg', HAPROXY_CFG, HAPTIC_NS);

    const patchedAt = Date.now();
    await api().patch('apps/v1', 'Deployment', 'stall', ns, newImage('example/app:2'), { type: 'strategic' });
    const failed = await waitFor(() => api().get<any>('apps/v1', 'Deployment', 'stall', ns), {
      what: 'Progressing=False ProgressDeadlineExceeded',
      timeoutMs: 45_000,
      intervalMs: 200,
      until: (d) => condition(d, 'Progressing')?.reason === 'ProgressDeadlineExceeded',
    });
    const pods = await podsOf(ns, 'stall');
    const fresh = pods.filter((p) => !oldNames.includes(p.metadata.name));
    expect(fresh).toHaveLength(1);
    const newPod = fresh[0]!;
    const newRS = `stall-${newPod.metadata.labels['pod-template-hash']}`;
    const progressing = condition(failed, 'Progressing');
    expect(progressing).toMatchObject({
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
      message: `ReplicaSet "${newRS}" has timed out progressing.`,
    });
    expect(Date.parse(progressing.lastTransitionTime) - patchedAt).toBeGreaterThanOrEqual(9000);
    expect(condition(failed, 'Available')).toMatchObject({ status: 'True', reason: 'MinimumReplicasAvailable' });
    expect(failed.status).toMatchObject({
      replicas: 3,
      updatedReplicas: 1,
      readyReplicas: 2,
      availableReplicas: 2,
      unavailableReplicas: 1,
    });

    // the new pod: containers ready, gate condition missing, not Ready (the gate-blocked signature)
    expect(newPod.status.phase).toBe('Running');
    expect(status(newPod, 'ContainersReady')).toBe('True');
    expect(condition(newPod, GATE)).toBeUndefined();
    expect(condition(newPod, 'Ready')).toMatchObject({
      status: 'False',
      reason: 'ReadinessGatesNotReady',
      message: NOT_EXIST,
    });
    // the old pods: still there, Ready, serving
    const olds = pods.filter((p) => oldNames.includes(p.metadata.name));
    expect(olds.map((p) => [p.metadata.name, !!p.metadata.deletionTimestamp, status(p, 'Ready')])).toEqual(
      oldNames.map((n) => [n, false, 'True']),
    );
    const slices = new Map(
      (
        await api().list<any>('discovery.k8s.io/v1', 'EndpointSlice', {
          namespace: ns,
          labelSelector: 'kubernetes.io/service-name=stall',
        })
      ).map((s) => [s.metadata.name, s]),
    );
    for (const name of oldNames) expect(endpointState(slices, name)).toBe('ready=true serving=true terminating=false');
    expect(endpointState(slices, newPod.metadata.name)).toBe('ready=false serving=false terminating=false');
    // nothing was rendered without a leader
    const cfg = await api().get<any>(HAPTIC_GROUP, 'HAProxyCfg', HAPROXY_CFG, HAPTIC_NS);
    expect(cfg.spec.checksum).toBe(cfgBefore.spec.checksum);
    expect(cfg.spec.content).not.toContain(`server ${newPod.metadata.name} `);
  });

  it('reproduces the kubelet traces of a failing readiness probe, a crash loop and a missing image', async () => {
    const ns = await newNamespace('fidelity-traces');
    const kube = api();
    const pods = await Recorder.start(kube, await kube.path('v1', 'Pod', ns));
    const pod = (name: string, fail: string, image = 'example/app:1'): KubeObject => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns, annotations: { 'standin.kubectl-haptic.dev/fail': fail } },
      spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'app', image }] },
    });
    const missing = 'example/missing:404';
    await Promise.all([
      api().create(pod('probe', 'readiness-probe')),
      api().create(pod('crash', 'crash-loop')),
      api().create(pod('pull', 'image-pull', missing)),
    ]);
    const events = (reason: string, podName: string) =>
      api().list<any>('v1', 'Event', {
        namespace: ns,
        fieldSelector: `involvedObject.name=${podName},reason=${reason}`,
      });
    const traced = async (
      name: string,
      test: (p: any) => boolean,
      reasons: string[],
    ): Promise<{ pod: any; events: any[] }> =>
      (await waitFor(
        async () => {
          const p = await api().get<any>('v1', 'Pod', name, ns);
          const found = await Promise.all(reasons.map((r) => events(r, name)));
          return test(p) && found.every((list) => list.length === 1)
            ? { pod: p, events: found.map((list) => list[0]) }
            : undefined;
        },
        { what: `pod ${name}'s trace and its ${reasons.join(', ')} event(s)`, timeoutMs: 20_000, intervalMs: 100 },
      ))!;
    const [probe, crash, pull] = await Promise.all([
      traced('probe', (p) => p.status?.phase === 'Running', ['Unhealthy']),
      traced('crash', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff', [
        'BackOff',
      ]),
      traced('pull', (p) => p.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'ImagePullBackOff', [
        'Failed',
        'BackOff',
      ]),
    ]);
    await pods.stop();
    const kubelet = (p: any, e: any) => {
      expect(e.type).toBe('Warning');
      expect(e.involvedObject).toMatchObject({
        kind: 'Pod',
        name: p.metadata.name,
        namespace: ns,
        uid: p.metadata.uid,
        fieldPath: 'spec.containers{app}',
      });
      expect(e.source).toEqual({ component: 'kubelet', host: p.spec.nodeName });
      expect([e.reportingComponent, e.reportingInstance]).toEqual(['kubelet', p.spec.nodeName]);
      expect(e.count).toBe(1);
    };
    const id = (p: any) => `${p.metadata.name}_${ns}(${p.metadata.uid})`;

    // readiness probe: running, never ready, Unhealthy
    const probeStatus = probe.pod.status.containerStatuses[0];
    expect([probeStatus.ready, probeStatus.started, !!probeStatus.state.running]).toEqual([false, true, true]);
    expect(condition(probe.pod, 'ContainersReady')).toMatchObject({
      status: 'False',
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [app]',
    });
    expect(probe.events[0].reason).toBe('Unhealthy');
    expect(probe.events[0].message).toBe('Readiness probe failed: HTTP probe failed with statuscode: 503');
    kubelet(probe.pod, probe.events[0]);

    // crash loop: waiting CrashLoopBackOff after the first exit, one restart, BackOff
    const crashStatus = crash.pod.status.containerStatuses[0];
    expect(crash.pod.status.phase).toBe('Running');
    expect(crashStatus.state.waiting).toEqual({
      reason: 'CrashLoopBackOff',
      message: `back-off 10s restarting failed container=app pod=${id(crash.pod)}`,
    });
    expect(crashStatus.lastState.terminated).toMatchObject({ exitCode: 1, reason: 'Error' });
    expect([crashStatus.restartCount, crashStatus.ready, crashStatus.started]).toEqual([1, false, false]);
    expect(crash.events[0].message).toBe(`Back-off restarting failed container app in pod ${id(crash.pod)}`);
    kubelet(crash.pod, crash.events[0]);

    // missing image: Pending, ErrImagePull then ImagePullBackOff, Failed and BackOff
    const ref = `docker.io/${missing}`;
    const pullError = `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
    expect(pull.pod.status.phase).toBe('Pending');
    expect(pull.pod.status.containerStatuses[0].state.waiting).toEqual({
      reason: 'ImagePullBackOff',
      message: `Back-off pulling image "${missing}": ErrImagePull: ${pullError}`,
    });
    const reasons = pods
      .versions('pull')
      .map((v) => v.object.status?.containerStatuses?.[0]?.state?.waiting?.reason)
      .filter((r, i, all) => r && r !== all[i - 1]);
    expect(reasons.slice(-2)).toEqual(['ErrImagePull', 'ImagePullBackOff']);
    expect(pull.events.map((e: any) => [e.reason, e.message])).toEqual([
      ['Failed', `Failed to pull image "${missing}": ${pullError}`],
      ['BackOff', `Back-off pulling image "${missing}"`],
    ]);
    for (const e of pull.events) kubelet(pull.pod, e);
  });
});
