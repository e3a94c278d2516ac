// The trimmers keep every field the model and the rules read: each scenario fixture (one per why-stalled id, and
// the progressing and complete ones) gives the same model, findings and output, text and JSON, whether its objects
// arrive whole or through the trimmers status uses (rolloutQueries' own), and also when they first carry everything
// the API server adds that nothing reads (managed fields, volumes, environment, tolerations, image IDs…).
import { describe, expect, it } from 'vitest';
import { diagnoseContext } from '../../../src/diagnose/context.ts';
import { diagnose } from '../../../src/diagnose/index.ts';
import { rolloutQueries } from '../../../src/kube/rollout-snapshot.ts';
import { trimEvent, trimHAProxyCfg, trimObject, trimPod, trimSlice } from '../../../src/kube/trim.ts';
import { buildRollout } from '../../../src/model/rollout/rollout.ts';
import type { KubeObject } from '../../../src/types/kube.ts';
import type { HapticInputs, RolloutSnapshot } from '../../../src/types/snapshot.ts';
import { formatStructured } from '../../../src/ui/output.ts';
import { rolloutOutput, statusText } from '../../../src/ui/status-text.ts';
import { painter } from '../../../src/ui/style.ts';
import { diagnosisOutput, whyText } from '../../../src/ui/why-text.ts';
import { loadScenario, scenarios, snapshotOf } from '../../fixtures/load.ts';
import { GATE, NOW } from '../fixtures/rollout.ts';

const plain = painter(false);

/** Everything a command prints of a snapshot: status and why-stalled, as text and as JSON. */
function outputs(snapshot: RolloutSnapshot) {
  const model = buildRollout(snapshot, NOW, { gateType: GATE });
  const results = [{ model, diagnosis: diagnose(diagnoseContext(snapshot, model, NOW)) }];
  return {
    status: statusText(model, NOW, plain),
    statusJson: formatStructured(rolloutOutput([model], true), 'json'),
    whyStalled: whyText(results, plain),
    whyStalledJson: formatStructured(diagnosisOutput(results), 'json'),
  };
}

/** The snapshot as status reads it: every object through the trimmer of its query. */
function trimmed(s: RolloutSnapshot): RolloutSnapshot {
  const q = rolloutQueries([s.workload]);
  const each = <T>(query: { trim?(item: KubeObject): KubeObject }, items: T[]) =>
    items.map((i) => query.trim!(structuredClone(i) as KubeObject) as T);
  const haptic = Object.fromEntries(
    Object.entries(s.haptic).map(([k, read]) => [
      k,
      {
        ...read,
        // HAProxyCfgs keep when their spec was last written (loadHaptic's trimmer of them)
        items: read.items.map((i: KubeObject) =>
          (k === 'haproxyCfgs' ? trimHAProxyCfg : trimObject)(structuredClone(i)),
        ),
      },
    ]),
  ) as unknown as HapticInputs;
  return {
    workload: {
      ...q.workloads[s.workload.kind]!.trim!(structuredClone(s.workload)),
      kind: s.workload.kind,
    } as RolloutSnapshot['workload'],
    claims: q.claims ? each(q.claims, s.claims) : [],
    replicaSets: q.replicaSets ? each(q.replicaSets, s.replicaSets) : [],
    pods: each(q.pods, s.pods),
    services: each(q.services, s.services),
    slices: each(q.slices, s.slices),
    events: each(q.warnings, s.events),
    haptic,
  };
}

const managed = (manager: string) => ({
  manager,
  operation: 'Update',
  apiVersion: 'v1',
  time: '2026-11-29T11:59:00Z',
  fieldsType: 'FieldsV1',
  fieldsV1: { 'f:status': { 'f:conditions': {} } },
});
const lastApplied = (o: KubeObject) => ({
  'kubectl.kubernetes.io/last-applied-configuration': JSON.stringify({
    apiVersion: o.apiVersion,
    kind: o.kind,
    metadata: { name: o.metadata.name },
  }),
});

/** What the API server and the kubelet add to objects that no reader of a rollout looks at. */
function noisy<T extends KubeObject>(object: T): T {
  const o = structuredClone(object) as any;
  o.metadata.managedFields = [
    ...(o.metadata.managedFields ?? []),
    managed('kube-controller-manager'),
    managed('kubelet'),
  ];
  o.metadata.annotations = { ...o.metadata.annotations, ...lastApplied(o) };
  if (o.kind === 'Pod') {
    o.metadata.generateName = `${o.metadata.name}-`;
    o.spec.volumes = [
      {
        name: 'kube-api-access',
        projected: {
          sources: [
            { serviceAccountToken: { path: 'token', expirationSeconds: 3607 } },
            { configMap: { name: 'kube-root-ca.crt', items: [{ key: 'ca.crt', path: 'ca.crt' }] } },
          ],
        },
      },
    ];
    o.spec.tolerations = [
      { key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 },
    ];
    o.spec.dnsPolicy = 'ClusterFirst';
    o.spec.schedulerName = 'default-scheduler';
    o.spec.securityContext = {};
    o.spec.serviceAccountName = 'default';
    o.spec.initContainers = [{ name: 'init', image: 'busybox', command: ['true'] }];
    for (const c of o.spec.containers) {
      c.env = [
        { name: 'DB_PASSWORD', valueFrom: { secretKeyRef: { name: 'db', key: 'password' } } },
        { name: 'MODE', value: 'prod' },
      ];
      c.resources = { requests: { cpu: '100m', memory: '64Mi' } };
      c.volumeMounts = [
        { name: 'kube-api-access', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount', readOnly: true },
      ];
      c.terminationMessagePath = '/dev/termination-log';
      c.imagePullPolicy = 'IfNotPresent';
      c.lifecycle = { preStop: { sleep: { seconds: 5 } } };
      c.livenessProbe = { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 10 };
    }
    if (o.status) {
      o.status.qosClass = 'Burstable';
      o.status.hostIP = '172.18.0.2';
      o.status.hostIPs = [{ ip: '172.18.0.2' }];
      o.status.podIPs = o.status.podIP ? [{ ip: o.status.podIP }] : [];
      o.status.startTime = '2026-11-29T11:50:00Z';
      for (const s of o.status.containerStatuses ?? []) {
        s.imageID = 'docker.io/library/web@sha256:0123';
        s.containerID = 'containerd://0123abcd';
        s.started = true;
        s.volumeMounts = [
          {
            name: 'kube-api-access',
            mountPath: '/var/run/secrets/kubernetes.io/serviceaccount',
            readOnly: true,
            recursiveReadOnly: 'Disabled',
          },
        ];
        s.resources = { requests: { cpu: '100m' } };
      }
    }
  }
  if (o.kind === 'EndpointSlice')
    for (const e of o.endpoints ?? []) Object.assign(e, { zone: 'zone-a', hints: { forZones: [{ name: 'zone-a' }] } });
  if (o.kind === 'Event')
    Object.assign(o, {
      source: { component: 'kubelet', host: 'node-1' },
      reportingComponent: 'kubelet',
      reportingInstance: 'node-1',
      action: '',
    });
  return o;
}

function noisySnapshot(s: RolloutSnapshot): RolloutSnapshot {
  const haptic = Object.fromEntries(
    Object.entries(s.haptic).map(([k, read]) => [
      k,
      {
        ...read,
        items: read.items.map((i: KubeObject) => ({
          ...structuredClone(i),
          metadata: {
            ...structuredClone(i.metadata),
            managedFields: [...(i.metadata.managedFields ?? []), managed('haptic')],
          },
        })),
      },
    ]),
  ) as unknown as HapticInputs;
  return {
    workload: noisy(s.workload),
    claims: s.claims.map(noisy),
    replicaSets: s.replicaSets.map(noisy),
    pods: s.pods.map(noisy),
    services: s.services.map(noisy),
    slices: s.slices.map(noisy),
    events: s.events.map(noisy),
    haptic,
  };
}

const scenarioSnapshot = (name: string) => snapshotOf(loadScenario(name), 'web');

describe('trimming keeps what the model reads', () => {
  it.each(scenarios())(
    '%s: the same model, findings and output, trimmed or whole, with or without what nobody reads',
    (name) => {
      const whole = scenarioSnapshot(name);
      const expected = outputs(whole);
      expect(outputs(trimmed(whole))).toEqual(expected);
      const noise = noisySnapshot(whole);
      expect(outputs(noise)).toEqual(expected);
      const cut = trimmed(noise);
      expect(outputs(cut)).toEqual(expected);
      // and the noise is gone: of managedFields, HAProxyCfgs keep only when their spec was written
      const writers = cut.haptic.haproxyCfgs.items.flatMap((c) => c.metadata.managedFields ?? []);
      for (const w of writers) expect(Object.keys(w).sort()).toEqual(['fieldsV1', 'manager', 'operation', 'time']);
      expect(writers.every((w) => JSON.stringify(w.fieldsV1) === '{"f:spec":{}}')).toBe(true);
      const unwritten = cut.haptic.haproxyCfgs.items.map((c) => ({
        ...c,
        metadata: { ...c.metadata, managedFields: undefined },
      }));
      const text = JSON.stringify({ ...cut, haptic: { ...cut.haptic, haproxyCfgs: { items: unwritten } } });
      for (const dropped of [
        'managedFields',
        'last-applied-configuration',
        'DB_PASSWORD',
        'kube-api-access',
        'tolerations',
        'imageID',
        'qosClass',
        'zone-a',
        'reportingInstance',
        'initContainers',
        'containerID',
        'podIPs',
      ]) {
        expect(text, dropped).not.toContain(dropped);
      }
      // a pod's startTime is noise; an Argo Rollout's pause conditions have one the model reads
      expect(JSON.stringify({ ...cut, workload: undefined }), 'startTime').not.toContain('startTime');
      expect(text.length).toBeLessThan(JSON.stringify(noise).length);
    },
  );

  it('a pod keeps its identity, lifecycle, gates, containers as rules quote them, and status; nothing else', () => {
    const [pod] = noisySnapshot(scenarioSnapshot('hs201-readiness-probe')).pods;
    const t = trimPod(pod!);
    expect(Object.keys(t.metadata).sort()).toEqual(
      ['creationTimestamp', 'labels', 'name', 'namespace', 'ownerReferences', 'uid']
        .filter((k) => k in pod!.metadata)
        .sort(),
    );
    expect(Object.keys(t.spec).sort()).toEqual(
      ['containers', 'nodeName', 'readinessGates', 'terminationGracePeriodSeconds']
        .filter((k) => k in pod!.spec)
        .sort(),
    );
    expect(t.spec.containers.map((c) => Object.keys(c).sort())).toEqual(
      pod!.spec.containers.map((c) =>
        ['image', 'name', 'ports', 'readinessProbe', 'startupProbe'].filter((k) => k in c).sort(),
      ),
    );
    expect(t.status?.conditions).toBe(pod!.status?.conditions);
    expect(Object.keys(t.status?.containerStatuses?.[0] ?? {})).not.toContain('imageID');
  });

  it('an object without anything to drop is passed on as it is; the others are not changed in place', () => {
    const svc = {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'shop' },
      spec: { selector: { app: 'web' } },
    };
    expect(trimObject(svc)).toBe(svc);
    const withFields = noisy(svc);
    const before = JSON.stringify(withFields);
    expect(trimObject(withFields).metadata).toEqual({ name: 'web', namespace: 'shop', annotations: {} });
    expect(JSON.stringify(withFields)).toBe(before);
    const slice = noisy({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 's', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: null,
      ports: null,
    } as KubeObject);
    expect(trimSlice(slice as never)).toEqual({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 's', namespace: 'shop', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: null,
      ports: null,
    });
    const event = noisy({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'shop' },
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'BackOff',
      type: 'Warning',
      count: 3,
    } as KubeObject);
    expect(trimEvent(event as never)).toEqual({
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e', namespace: 'shop' },
      involvedObject: { kind: 'Pod', name: 'p' },
      reason: 'BackOff',
      type: 'Warning',
      count: 3,
    });
  });
});

/**
 * Every property the model, the rules and the views read of an object, as `Kind.path` with list positions as `[]`:
 * the snapshot's objects wrapped in proxies that note each read of a property the object has.
 */
function readsOf(s: RolloutSnapshot): Set<string> {
  const reads = new Set<string>();
  const proxies = new WeakMap<object, object>();
  const wrap = <T>(value: T, kind: string, path: string): T => {
    if (value === null || typeof value !== 'object') return value;
    const cached = proxies.get(value);
    if (cached) return cached as T;
    const proxy = new Proxy(value, {
      get(target, key, receiver) {
        const v = Reflect.get(target, key, receiver);
        if (typeof key === 'symbol' || !Object.hasOwn(target, key)) return v;
        if (Array.isArray(target) && key === 'length') return v;
        const at = Array.isArray(target) ? `${path}[]` : `${path}.${key}`;
        reads.add(`${kind}${at}`);
        return wrap(v, kind, at);
      },
    });
    proxies.set(value, proxy);
    return proxy as T;
  };
  const each = <T extends KubeObject>(items: T[]) => items.map((o) => wrap(o, o.kind ?? '?', ''));
  const traced: RolloutSnapshot = { ...s, pods: each(s.pods), slices: each(s.slices), events: each(s.events) };
  outputs(traced);
  return reads;
}

/** The values at a path (`.a.b[].c`) of an object, one per list element where the path crosses a list. */
function valuesAt(object: unknown, path: string): unknown[] {
  let values = [object];
  for (const part of path.split('.').slice(1)) {
    const [key, ...lists] = part.split('[]');
    values = values.flatMap((v) => {
      let out = [v === null || typeof v !== 'object' ? undefined : (v as Record<string, unknown>)[key!]];
      for (const _ of lists) out = out.flatMap((x) => (Array.isArray(x) ? x : [undefined]));
      return out;
    });
  }
  return values;
}

/** Fields read of pods, EndpointSlices and events that `cut` lacks where the whole snapshot has them. */
function lostReads(noise: RolloutSnapshot, cut: RolloutSnapshot): string[] {
  const lost = new Set<string>();
  const pairs = {
    Pod: [noise.pods, cut.pods],
    EndpointSlice: [noise.slices, cut.slices],
    Event: [noise.events, cut.events],
  } as const;
  for (const read of readsOf(noise)) {
    const [kind, ...rest] = read.split('.');
    const path = `.${rest.join('.')}`;
    const [wholes, trims] = pairs[kind as keyof typeof pairs] ?? [[], []];
    wholes.forEach((whole, i) => {
      const after = valuesAt(trims[i], path);
      if (valuesAt(whole, path).some((v, j) => v !== undefined && after[j] === undefined)) lost.add(read);
    });
  }
  return [...lost];
}

describe('a reader of a field the trimmers drop is caught', () => {
  it.each(scenarios())(
    '%s: every field of a pod, an EndpointSlice or an event that is read survives trimming',
    (name) => {
      const noise = noisySnapshot(scenarioSnapshot(name));
      expect(
        lostReads(noise, trimmed(noise)),
        'read by the model or a rule, but dropped by src/kube/trim.ts: keep it there',
      ).toEqual([]);
    },
  );

  it("catches a trimmer that drops a field the model reads (here the pods' readinessGates)", () => {
    const noise = noisySnapshot(scenarioSnapshot('hs901-progressing'));
    const cut = trimmed(noise);
    const weaker = { ...cut, pods: cut.pods.map((p) => ({ ...p, spec: { ...p.spec, readinessGates: undefined } })) };
    expect(lostReads(noise, weaker)).toContain('Pod.spec.readinessGates');
  });
});
