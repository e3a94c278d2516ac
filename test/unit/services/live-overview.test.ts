// The feed behind status --watch over several workloads, on fake stores: every row on one store per list (never a
// list per row), a workload that comes to match gets a row once the pods list has widened to its pods (the rows
// before it keep their stores and their history), a workload that stops matching keeps its row, marked gone, a kind
// the cluster does not serve stops its informer, and HAProxy's sessions are read for the open row only.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { ApiError } from '../../../src/kube/errors.ts';
import type { Query } from '../../../src/kube/snapshot.ts';
import type { RolloutUpdate } from '../../../src/model/rollout/report.ts';
import { LiveOverview, type OverviewEvent } from '../../../src/services/live-overview.ts';
import { sharedStores, type Store } from '../../../src/services/live-rollout.ts';
import type { SessionsSource, SessionTarget } from '../../../src/services/sessions.ts';
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
  list(objects: KubeObject[]) {
    this.objects = objects;
    this.synced = true;
    this.error = undefined;
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

/** The fixture's objects of deployment/web, renamed: another workload of the namespace, with pods of its own. */
function renamed<T>(o: T, name: string, ip: number): T {
  if (name === 'web') return o;
  return JSON.parse(
    JSON.stringify(o)
      .replaceAll('web', name)
      .replaceAll('"d-1"', `"d-${name}"`)
      .replaceAll('"rs-', `"rs-${name}-`)
      .replaceAll('10.0.0.', `10.0.${ip}.`),
  );
}

const app = (name: string, ip: number) => ({
  deployment: renamed(deployment(), name, ip),
  replicaSets: [replicaSet('1'), replicaSet('2')].map((r) => renamed(r, name, ip)),
  pods: [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }), pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3' })].map(
    (p) => renamed(p, name, ip),
  ),
  service: renamed(service(), name, ip),
  slice: renamed(
    slice([
      { pod: 'web-old-1', ip: '10.0.0.1', ready: true },
      { pod: 'web-new-1', ip: '10.0.0.3', ready: false },
    ]),
    name,
    ip,
  ),
});

const inputs = hapticInputs({ servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] });

/** A sessions sampler that reads nothing and records who is registered. */
function fakeSampler() {
  const added: { targets: () => SessionTarget[]; onChange: () => void }[] = [];
  const source: SessionsSource = {
    add(targets, onChange) {
      const entry = { targets, onChange };
      added.push(entry);
      return () => added.splice(added.indexOf(entry), 1);
    },
    state: () => ({ readings: [] }),
  };
  return { source, added };
}

function harness(initial: string[]) {
  const apps = new Map<string, ReturnType<typeof app>>();
  let ip = 0;
  const add = (name: string) => apps.set(name, app(name, ip++));
  for (const name of initial) add(name);
  const opened: FakeStore[] = [];
  const open = sharedStores((query, onChange) => {
    const store = new FakeStore(query, onChange);
    opened.push(store);
    return store;
  });
  const sampler = fakeSampler();
  const overview = new LiveOverview(
    open,
    initial.map((n) => asTarget(apps.get(n)!.deployment)),
    {
      conditionType: GATE,
      drained: false,
      namespace: 'shop',
      selector: 'tier=shop',
      sessions: sampler.source,
      debounceMs: 10,
      tickMs: 60_000,
      reconcileMs: 10,
      now: () => NOW,
    },
  );
  const events: OverviewEvent[] = [];
  const updates = (name: string): RolloutUpdate[] =>
    events.flatMap((e) => (e.type === 'update' && e.key === `shop/Deployment/${name}` ? [e.update] : []));
  const live = () => opened.filter((s) => s.started && !s.stopped);
  /** what the cluster holds, by resource */
  const objects = (q: Query): KubeObject[] => {
    const all = [...apps.values()];
    switch (q.resource.plural) {
      case 'deployments':
        return all.map((a) => a.deployment);
      case 'replicasets':
        return all.flatMap((a) => a.replicaSets);
      case 'pods':
        return q.labelSelector === 'app.kubernetes.io/name=haptic' ? inputs.pods.items : all.flatMap((a) => a.pods);
      case 'services':
        return all.map((a) => a.service);
      case 'endpointslices':
        return all.map((a) => a.slice);
      case 'haproxytemplateconfigs':
        return inputs.templateConfigs.items;
      case 'haproxycfgs':
        return inputs.haproxyCfgs.items;
      case 'clusterroles':
        return inputs.clusterRoles.items;
      case 'clusterrolebindings':
        return inputs.clusterRoleBindings.items;
      case 'ingresses':
        return inputs.ingresses.items;
      case 'leases':
        return inputs.leases.items;
      default:
        return [];
    }
  };
  /** every started store that has not listed lists; the timers run until the streams have recomputed */
  const settle = async () => {
    for (let i = 0; i < 5; i++) {
      for (const s of live()) if (!s.synced) s.list(objects(s.query));
      await vi.advanceTimersByTimeAsync(20);
    }
  };
  /** the cluster changed: every started store lists again */
  const relist = async () => {
    for (const s of live()) s.list(objects(s.query));
    await settle();
  };
  return { overview, events, updates, opened, live, settle, relist, add, apps, sampler };
}

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('the live overview', () => {
  it('follows every row on one store per list, each row with updates of its own', async () => {
    const h = harness(['web', 'api']);
    h.overview.subscribe((e) => h.events.push(e));
    await h.settle();
    await vi.runOnlyPendingTimersAsync();
    await h.settle();
    const keys = h.live().map((s) => key(s.query));
    // two rows, one store per list: the same lists as one workload's, the pods and ReplicaSets by the cover
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys).toContain('pods@shop?app in (api,web)');
    expect(keys).toContain('replicasets@shop?app in (api,web)');
    expect(keys).toContain('deployments@shop?tier=shop');
    expect(keys).toContain('events@shop#type=Normal,involvedObject.kind=Deployment');
    expect(keys.filter((k) => k.startsWith('pods@'))).toHaveLength(1);
    expect(h.events.filter((e) => e.type === 'row').map((e) => e.type === 'row' && e.row.name)).toEqual(['web', 'api']);
    for (const name of ['web', 'api']) {
      const [first] = h.updates(name);
      expect(first, name).toBeDefined();
      expect(first!.model.name).toBe(name);
      expect(first!.model.newPods.map((p) => p.name)).toEqual([`${name}-new-1`]);
      // sessions are read for an open row only
      expect(first!.model.sessions).toBeUndefined();
    }
    h.overview.stop();
    expect(h.live()).toEqual([]);
  });

  it('a workload that comes to match gets a row once the pods list has widened to it; the others keep their history', async () => {
    const h = harness(['web', 'api']);
    h.overview.subscribe((e) => h.events.push(e));
    await h.settle();
    const before = h.updates('web').at(-1)!;
    const oldPods = h.live().find((s) => key(s.query) === 'pods@shop?app in (api,web)')!;

    h.add('cart');
    h.live()
      .find((s) => key(s.query) === 'deployments@shop?tier=shop')!
      .list([...h.apps.values()].map((a) => a.deployment));
    await vi.advanceTimersByTimeAsync(20);
    // the wider list is open and the old one serves until it has listed; no row yet
    const wider = h.opened.find((s) => key(s.query) === 'pods@shop?app in (api,cart,web)')!;
    expect(wider.started).toBe(true);
    expect(oldPods.stopped).toBe(false);
    expect(h.events.some((e) => e.type === 'row' && e.row.name === 'cart')).toBe(false);

    wider.list([...h.apps.values()].flatMap((a) => a.pods));
    await vi.advanceTimersByTimeAsync(20);
    await h.settle();
    expect(oldPods.stopped).toBe(true);
    expect(h.events.some((e) => e.type === 'row' && e.row.name === 'cart' && !e.gone)).toBe(true);
    // its stores had all listed before it started: its first model comes with its first tick
    await vi.advanceTimersByTimeAsync(60_000);
    expect(
      h
        .updates('cart')
        .at(-1)!
        .model.newPods.map((p) => p.name),
    ).toEqual(['cart-new-1']);
    // one pods list still, and the rows that were there follow on from where they were
    expect(h.live().filter((s) => key(s.query).startsWith('pods@shop?app'))).toHaveLength(1);
    await h.relist();
    expect(h.updates('web').at(-1)!.history.startedAt).toBe(before.history.startedAt);
    h.overview.stop();
  });

  it('a workload that no longer matches keeps its row, marked gone, and is followed no more', async () => {
    const h = harness(['web', 'api']);
    h.overview.subscribe((e) => h.events.push(e));
    await h.settle();
    h.apps.delete('api');
    h.live()
      .find((s) => key(s.query) === 'deployments@shop?tier=shop')!
      .list([...h.apps.values()].map((a) => a.deployment));
    await vi.advanceTimersByTimeAsync(20);
    expect(
      h.events.filter((e) => e.type === 'row' && e.row.name === 'api').map((e) => e.type === 'row' && e.gone),
    ).toEqual([false, true]);
    const seen = h.updates('api').length;
    await h.settle();
    await h.relist();
    expect(h.updates('api')).toHaveLength(seen);
    h.overview.stop();
  });

  it('a kind the cluster does not serve answers NotFound: its informer stops, the rows stay', async () => {
    const h = harness(['web', 'api']);
    h.overview.subscribe((e) => h.events.push(e));
    const rollouts = h.live().find((s) => s.query.resource.plural === 'rollouts')!;
    await h.settle();
    rollouts.synced = false;
    rollouts.fail(
      new ApiError(
        'NotFound',
        'the server could not find the requested resource',
        { verb: 'list', resource: 'rollouts.argoproj.io' },
        404,
      ),
    );
    await vi.advanceTimersByTimeAsync(20);
    expect(rollouts.stopped).toBe(true);
    expect(h.events.filter((e) => e.type === 'row' && e.gone)).toEqual([]);
    h.overview.stop();
  });

  it("reads HAProxy's sessions for the open row only", async () => {
    const h = harness(['web', 'api']);
    h.overview.subscribe((e) => h.events.push(e));
    await h.settle();
    expect(h.sampler.added).toHaveLength(0);
    h.overview.open('shop/Deployment/web');
    expect(h.sampler.added).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(h.updates('web').at(-1)!.model.sessions).toBeDefined();
    expect(h.updates('api').at(-1)!.model.sessions).toBeUndefined();
    // another row opened: the first one's are no longer read, and its model is without them again
    h.overview.open('shop/Deployment/api');
    expect(h.sampler.added).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(20);
    expect(h.updates('web').at(-1)!.model.sessions).toBeUndefined();
    expect(h.updates('api').at(-1)!.model.sessions).toBeDefined();
    h.overview.open(undefined);
    expect(h.sampler.added).toHaveLength(0);
    h.overview.stop();
  });

  it('a late subscriber is told every row and its latest update first', async () => {
    const h = harness(['web', 'api']);
    h.overview.subscribe((e) => h.events.push(e));
    await h.settle();
    const late: OverviewEvent[] = [];
    h.overview.subscribe((e) => late.push(e));
    expect(late.map((e) => `${e.type}:${e.type === 'row' ? e.row.name : e.key}`)).toEqual([
      'row:web',
      'update:shop/Deployment/web',
      'row:api',
      'update:shop/Deployment/api',
    ]);
    h.overview.stop();
  });
});
