// The live rollout stream behind --watch and --wait, on fake stores: one recompute per burst of events (debounce),
// no update when nothing a person sees changed (de-duplication), an update when only a read problem changes, and
// nothing before every store has answered once.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../src/kube/errors.ts';
import type { Query } from '../../../src/kube/snapshot.ts';
import { RolloutStream, sameJson, sharedStores, type Store } from '../../../src/services/live-rollout.ts';
import type { RolloutUpdate } from '../../../src/model/rollout/report.ts';
import type { KubeObject } from '../../../src/types/kube.ts';
import { asTarget, deployment, GATE, hapticInputs, NOW, pod, replicaSet, service, slice } from '../fixtures/rollout.ts';

class FakeStore implements Store {
  objects: KubeObject[] = [];
  synced = false;
  error: unknown = undefined;
  failures = 0;
  started = false;
  stopped = false;
  readonly query: Query;
  readonly onChange: () => void;
  constructor(query: Query, onChange: () => void) {
    this.query = query;
    this.onChange = onChange;
  }
  items() {
    return this.objects;
  }
  start() {
    this.started = true;
  }
  stop() {
    this.stopped = true;
  }
  /** the informer listed: objects and a change event */
  list(objects: KubeObject[]) {
    this.objects = objects;
    this.synced = true;
    this.error = undefined;
    this.failures = 0;
    this.onChange();
  }
  fail(error: unknown) {
    this.error = error;
    this.failures++;
    this.onChange();
  }
}

const key = (q: Query) =>
  `${q.resource.plural}${q.namespace ? `@${q.namespace}` : ''}${q.labelSelector ? `?${q.labelSelector}` : ''}${q.fieldSelector ? `#${q.fieldSelector}` : ''}`;

/** HAPTIC's stores list what its fixture installation holds. */
function listHaptic(get: (key: string) => FakeStore, inputs: ReturnType<typeof hapticInputs>): void {
  get('haproxytemplateconfigs').list(inputs.templateConfigs.items);
  get('haproxycfgs').list(inputs.haproxyCfgs.items);
  get('pods?app.kubernetes.io/name=haptic').list(inputs.pods.items);
  get('clusterroles').list(inputs.clusterRoles.items);
  get('clusterrolebindings').list(inputs.clusterRoleBindings.items);
  get('ingresses').list(inputs.ingresses.items);
  get('gateways').list(inputs.gateways.items);
  get('httproutes').list(inputs.httpRoutes.items);
  get('grpcroutes').list(inputs.grpcRoutes.items);
  get('tlsroutes').list(inputs.tlsRoutes.items);
  get('tcproutes').list(inputs.tcpRoutes.items);
  get('referencegrants').list(inputs.referenceGrants.items);
}

function harness(debounceMs = 100) {
  const stores = new Map<string, FakeStore>();
  const updates: RolloutUpdate[] = [];
  const fatal: unknown[] = [];
  const stream = new RolloutStream(
    (query, onChange) => {
      const store = new FakeStore(query, onChange);
      stores.set(key(query), store);
      return store;
    },
    asTarget(deployment()),
    {
      conditionType: GATE,
      drained: false,
      onUpdate: (u) => updates.push(u),
      onFatal: (e) => fatal.push(e),
      debounceMs,
      tickMs: 60_000,
      now: () => NOW,
    },
  );
  const inputs = hapticInputs({ servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] });
  /** every store lists what a mid-rollout cluster holds */
  const listAll = () => {
    const get = (k: string) => {
      const s = stores.get(k);
      if (!s) throw new Error(`no store ${k}; have ${[...stores.keys()].join(', ')}`);
      return s;
    };
    get('deployments@shop#metadata.name=web').list([deployment()]);
    get('replicasets@shop?app=web').list([replicaSet('1'), replicaSet('2')]);
    get('pods@shop?app=web').list([
      pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
      pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3' }),
    ]);
    get('services@shop').list([service()]);
    get('endpointslices@shop').list([
      slice([
        { pod: 'web-old-1', ip: '10.0.0.1', ready: true },
        { pod: 'web-new-1', ip: '10.0.0.3', ready: false },
      ]),
    ]);
    get('events@shop#type=Warning').list([]);
    get('events@shop#type=Normal,involvedObject.name=web').list([]);
    get('events@shop#type=Normal,reason=Killing').list([]);
    listHaptic(get, inputs);
  };
  return { stream, stores, updates, fatal, listAll, leases: () => inputs.leases.items };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('RolloutStream', () => {
  it('waits until every store answered, then emits one update per burst of events', () => {
    const h = harness();
    h.stream.start();
    expect([...h.stores.values()].every((s) => s.started)).toBe(true);
    h.listAll();
    vi.advanceTimersByTime(150);
    // the template configs are known now: the stream opened the Lease store of their namespace, which has not listed
    expect(h.updates).toHaveLength(0);
    h.stores.get('leases@haptic')!.list(h.leases());
    vi.advanceTimersByTime(99);
    expect(h.updates).toHaveLength(0);
    vi.advanceTimersByTime(1);
    expect(h.updates).toHaveLength(1);
    expect(h.updates[0]!.model.newPods.map((p) => [p.name, p.gate.state])).toEqual([['web-new-1', 'missing']]);
    expect(h.updates[0]!.done).toBe(false);

    // ten events within the quiet time: one recompute, and an unchanged model is not emitted again
    for (let i = 0; i < 10; i++) {
      h.stores.get('services@shop')!.list([service()]);
      vi.advanceTimersByTime(50);
    }
    vi.advanceTimersByTime(100);
    expect(h.updates).toHaveLength(1);
    h.stream.stop();
    expect([...h.stores.values()].every((s) => s.stopped)).toBe(true);
  });

  it('a cluster without the Gateway API answers NotFound for its routes: no read problem, and the model says the kinds are not served', () => {
    const h = harness();
    h.stream.start();
    h.listAll();
    for (const k of ['gateways', 'httproutes', 'grpcroutes', 'tlsroutes', 'tcproutes', 'referencegrants']) {
      const store = h.stores.get(k)!;
      store.synced = false;
      store.fail(
        new ApiError(
          'NotFound',
          'the server could not find the requested resource',
          { verb: 'list', resource: `${k}.gateway.networking.k8s.io` },
          404,
        ),
      );
    }
    vi.advanceTimersByTime(150);
    h.stores.get('leases@haptic')!.list(h.leases());
    vi.advanceTimersByTime(150);
    expect(h.updates).toHaveLength(1);
    expect(h.updates[0]!.problem).toBeUndefined();
    expect(h.updates[0]!.model.routing.unread.map((u) => [u.kind, u.absent])).toEqual([
      ['httproutes.gateway.networking.k8s.io', true],
      ['grpcroutes.gateway.networking.k8s.io', true],
      ['tlsroutes.gateway.networking.k8s.io', true],
      ['tcproutes.gateway.networking.k8s.io', true],
      ['gateways.gateway.networking.k8s.io', true],
      ['referencegrants.gateway.networking.k8s.io', true],
    ]);
    // the Ingress of class haproxy still routes the pods
    expect(h.updates[0]!.model.routing.services[0]!.routed).toBe(true);
    h.stream.stop();
  });

  it('emits when the model changes, and when only a read problem appears or clears', () => {
    const h = harness();
    h.stream.start();
    h.listAll();
    vi.advanceTimersByTime(150);
    h.stores.get('leases@haptic')!.list(h.leases());
    vi.advanceTimersByTime(150);
    expect(h.updates).toHaveLength(1);

    h.stores
      .get('pods@shop?app=web')!
      .list([
        pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
        pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' }),
      ]);
    vi.advanceTimersByTime(150);
    expect(h.updates).toHaveLength(2);
    expect(h.updates[1]!.model.newPods[0]!.gate.state).toBe('True');

    const gone = Object.assign(
      new Error('cannot reach the Kubernetes API server at https://127.0.0.1:1 (ECONNREFUSED)'),
      { kind: 'Unreachable' },
    );
    h.stores.get('events@shop#type=Warning')!.fail(gone);
    vi.advanceTimersByTime(150);
    expect(h.updates).toHaveLength(3);
    expect(h.updates[2]!.problem).toBe('cannot reach the Kubernetes API server at https://127.0.0.1:1 (ECONNREFUSED)');

    h.stores.get('events@shop#type=Warning')!.list([]);
    vi.advanceTimersByTime(150);
    expect(h.updates).toHaveLength(4);
    expect(h.updates[3]!.problem).toBeUndefined();
    h.stream.stop();
  });

  it('a required store that never listed is unknown, not empty: no update, however complete the Deployment looks', () => {
    const h = harness();
    h.stream.start();
    h.listAll();
    vi.advanceTimersByTime(150);
    h.stores.get('leases@haptic')!.list(h.leases());
    const pods = h.stores.get('pods@shop?app=web')!;
    pods.synced = false;
    pods.objects = [];
    const unauthorized = Object.assign(new Error('unauthorized: the API server rejected the credentials'), {
      name: 'ApiError',
    });
    pods.fail(unauthorized);
    vi.advanceTimersByTime(500);
    expect(h.updates).toHaveLength(0);
    expect(h.fatal).toHaveLength(0);
  });

  it('a required read refused FATAL_REFUSALS times in a row ends the follow with its error, once', async () => {
    const { ApiError } = await import('../../../src/kube/errors.ts');
    const h = harness();
    h.stream.start();
    h.listAll();
    vi.advanceTimersByTime(150);
    h.stores.get('leases@haptic')!.list(h.leases());
    const pods = h.stores.get('pods@shop?app=web')!;
    pods.synced = false;
    const forbidden = new ApiError(
      'Forbidden',
      'forbidden: cannot list pods in namespace "shop"',
      { verb: 'list', resource: 'pods', namespace: 'shop' },
      403,
    );
    pods.fail(forbidden);
    pods.fail(forbidden);
    vi.advanceTimersByTime(200);
    expect(h.fatal).toEqual([]);
    pods.fail(forbidden);
    vi.advanceTimersByTime(200);
    expect(h.fatal).toEqual([forbidden]);
    expect(h.updates).toHaveLength(0);
    expect([...h.stores.values()].every((s) => s.stopped)).toBe(true);
    pods.fail(forbidden);
    vi.advanceTimersByTime(200);
    expect(h.fatal).toHaveLength(1);
  });

  it("an optional read (HAPTIC's objects) refused still answers: the model says what it could not read", async () => {
    const { ApiError } = await import('../../../src/kube/errors.ts');
    const h = harness();
    h.stream.start();
    h.listAll();
    const roles = h.stores.get('clusterroles')!;
    roles.synced = false;
    roles.objects = [];
    for (let i = 0; i < 5; i++)
      roles.fail(
        new ApiError(
          'Forbidden',
          'forbidden: cannot list clusterroles.rbac.authorization.k8s.io',
          { verb: 'list', resource: 'clusterroles.rbac.authorization.k8s.io' },
          403,
        ),
      );
    vi.advanceTimersByTime(150);
    h.stores.get('leases@haptic')!.list(h.leases());
    vi.advanceTimersByTime(200);
    expect(h.fatal).toEqual([]);
    expect(h.updates).toHaveLength(1);
  });

  it('followers of several Deployments share one store per list (started by the first, stopped by the last), each seeing its own objects', () => {
    const created: FakeStore[] = [];
    const open = sharedStores((query, onChange) => {
      const store = new FakeStore(query, onChange);
      created.push(store);
      return store;
    });
    /** the same objects for Deployment api: its own names, labels and uids */
    const twin = <T>(o: T): T =>
      JSON.parse(JSON.stringify(o).replaceAll('web', 'api').replaceAll('"d-1"', '"d-2"').replaceAll('"rs-', '"ars-'));
    const web = asTarget(deployment());
    const api = twin(web);
    const updates: Record<string, RolloutUpdate[]> = { web: [], api: [] };
    const streams = [web, api].map(
      (d) =>
        new RolloutStream(
          open,
          d,
          {
            conditionType: GATE,
            drained: false,
            onUpdate: (u) => updates[d.metadata.name]!.push(u),
            debounceMs: 100,
            tickMs: 60_000,
            now: () => NOW,
          },
          { targets: [web, api] },
        ),
    );
    expect(created).toHaveLength(20);
    const byKey = new Map(created.map((s) => [key(s.query), s]));
    expect(byKey.size).toBe(20);
    for (const s of streams) s.start();
    expect(created.every((s) => s.started)).toBe(true);
    const get = (k: string) => byKey.get(k) ?? raise(`no store ${k}; have ${[...byKey.keys()].join(', ')}`);
    const webPods = [
      pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
      pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3' }),
    ];
    const inputs = hapticInputs({ servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] });
    get('deployments@shop').list([web, api]);
    get('replicasets@shop?app in (api,web)').list([
      replicaSet('1'),
      replicaSet('2'),
      twin(replicaSet('1')),
      twin(replicaSet('2')),
    ]);
    get('pods@shop?app in (api,web)').list([...webPods, ...twin(webPods)]);
    get('services@shop').list([service(), twin(service())]);
    get('endpointslices@shop').list([]);
    get('events@shop#type=Warning').list([]);
    get('events@shop#type=Normal,involvedObject.kind=Deployment').list([]);
    get('events@shop#type=Normal,reason=Killing').list([]);
    listHaptic(get, inputs);
    vi.advanceTimersByTime(150);
    // both followers opened the Lease store of HAPTIC's namespace: one store
    expect(created.filter((s) => s.query.resource.plural === 'leases')).toHaveLength(1);
    created.find((s) => s.query.resource.plural === 'leases')!.list(inputs.leases.items);
    vi.advanceTimersByTime(150);
    expect(updates.web!.at(-1)!.model.newPods.map((p) => p.name)).toEqual(['web-new-1']);
    expect(updates.api!.at(-1)!.model.newPods.map((p) => p.name)).toEqual(['api-new-1']);
    expect(updates.api!.at(-1)!.model.oldPods.map((p) => p.name)).toEqual(['api-old-1']);
    streams[0]!.stop();
    expect(created.some((s) => s.stopped)).toBe(false);
    streams[1]!.stop();
    expect(created.every((s) => s.stopped)).toBe(true);
  });
});

describe('sameJson', () => {
  it.each<[string, unknown, unknown]>([
    ['equal objects, keys in another order', { a: 1, b: [1, 'x', { c: true }] }, { b: [1, 'x', { c: true }], a: 1 }],
    ['a key whose value is undefined is no key', { a: 1, b: undefined }, { a: 1 }],
    ['undefined in an array is null', [1, undefined, 3], [1, null, 3]],
    ['NaN and Infinity print as null', { n: Number.NaN, i: Number.POSITIVE_INFINITY }, { n: null, i: null }],
    ['a changed leaf', { a: { b: [1, 2] } }, { a: { b: [1, 3] } }],
    ['an extra key', { a: 1 }, { a: 1, b: 2 }],
    ['array against object', { a: [] }, { a: {} }],
    ['a string against a number', { a: '1' }, { a: 1 }],
    ['different lengths', [1, 2], [1, 2, 3]],
    ['null against an object', { a: null }, { a: {} }],
  ])('%s: as JSON.stringify compares them', (_, a, b) => {
    const sorted = (v: unknown): unknown =>
      Array.isArray(v)
        ? v.map(sorted)
        : v && typeof v === 'object'
          ? Object.fromEntries(
              Object.keys(v)
                .sort()
                .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
            )
          : v;
    const asJson =
      JSON.stringify(sorted(JSON.parse(JSON.stringify(a)))) === JSON.stringify(sorted(JSON.parse(JSON.stringify(b))));
    expect(sameJson(a, b)).toBe(asJson);
    expect(sameJson(b, a)).toBe(asJson);
  });
});

function raise(message: string): never {
  throw new Error(message);
}
