import type { KubeClient } from '../kube/client.ts';
import { isApiError } from '../kube/errors.ts';
import { Informer } from '../kube/informer.ts';
import { workloadResource } from '../kube/resources.ts';
import { type RolloutQueries, rolloutQueries } from '../kube/rollout-snapshot.ts';
import type { Query } from '../kube/snapshot.ts';
import { trimObject } from '../kube/trim.ts';
import { keepHeapSmall } from '../lib/heap.ts';
import { kindOf, ROLLOUT_KINDS } from '../model/rollout/kinds/index.ts';
import type { RolloutUpdate } from '../model/rollout/report.ts';
import type { KubeObject, RolloutTarget } from '../types/kube.ts';
import { type FollowOptions, RolloutStream, type Store, type StoreFactory, sharedStores } from './live-rollout.ts';
import type { SessionsSource, SessionTarget } from './sessions.ts';

// status --watch over several workloads: a row per workload a selection matches, each followed by a RolloutStream,
// all of them on one set of informers (sharedStores: memory and requests grow with the objects, not with the rows).
// The workloads' own informers (one per kind, on -l) tell which workloads match: one that starts to match after the
// overview opened gets a row, one that stops keeps its row, marked gone.

/** A row of the overview: one workload the selection matches. */
export interface OverviewTarget {
  /** namespace/kind/name */
  key: string;
  kind: RolloutTarget['kind'];
  name: string;
  namespace: string;
}

export type OverviewEvent =
  /** a workload matched (a new row) or stopped matching (`gone`: deleted, or its labels changed) */
  | { type: 'row'; row: OverviewTarget; gone: boolean }
  /** what a row's stream saw (RolloutStream's update) */
  | { type: 'update'; key: string; update: RolloutUpdate };

/** The overview's feed, for a view to subscribe to while it is shown. */
export interface OverviewFeed {
  /** every row and the latest update of each first, then what changes; returns how to stop */
  subscribe(onEvent: (event: OverviewEvent) => void): () => void;
  /** the row a person has open (undefined: none): the only one whose HAProxy sessions are read */
  open(key: string | undefined): void;
  /** settles when a read the models cannot do without is refused for good (`failure()` then says why) */
  ended: Promise<void>;
  failure(): unknown;
}

export interface OverviewOptions {
  conditionType: string;
  drained: boolean;
  /** the selection's namespace; undefined: every namespace (-A) */
  namespace: string | undefined;
  /** -l, when it chose the workloads */
  selector?: string | undefined;
  /** HAProxy's sessions, read for the open row only (one sampler) */
  sessions?: SessionsSource | undefined;
  /** applied to every update before a view sees it (the CLI's redaction) */
  map?: ((update: RolloutUpdate) => RolloutUpdate) | undefined;
  /** a workload as its controller reads it (an Argo Rollout's spec.workloadRef template: withReferencedTemplate) */
  resolve?: ((target: RolloutTarget) => Promise<RolloutTarget>) | undefined;
  /** how long the workloads' informers must be quiet before the rows are matched again */
  reconcileMs?: number | undefined;
  /** passed to each stream (tests) */
  debounceMs?: number | undefined;
  tickMs?: number | undefined;
  now?: (() => number) | undefined;
}

/** RolloutStream's tick, and the tick of a row done and not open. */
const TICK_MS = 1000;
const DONE_TICK_MS = 5000;

const keyOf = (t: { kind: string; metadata: { name: string; namespace?: string | undefined } }) =>
  `${t.metadata.namespace ?? ''}/${t.kind}/${t.metadata.name}`;

const queryKey = (q: Query) =>
  JSON.stringify([q.resource.display, q.namespace, q.name, q.labelSelector, q.fieldSelector]);

/** The lists whose label selector is the cover of the workloads' selectors: it moves as workloads come and go. */
type Covered = 'pods' | 'replicaSets' | 'claims';
const COVERED: Covered[] = ['pods', 'replicaSets', 'claims'];

/**
 * One list whose label selector follows the overview's workloads (their pods, ReplicaSets, claims: rolloutQueries
 * selects them by the cover of the workloads' selectors). Every stream's store of that list is a handle on it; when a
 * new workload widens the cover, the list is opened anew with the wider selector and takes over once it has listed,
 * the old one stopped: the streams keep their stores (and their history), and there is one such list at a time.
 */
class CoveredList {
  private current: Store;
  private next: Store | undefined;
  private query: Query;
  private readonly open: StoreFactory;
  private readonly listeners = new Set<() => void>();
  private running = 0;
  private settle: (() => void) | undefined;
  private settled: Promise<void> = Promise.resolve();

  constructor(open: StoreFactory, query: Query) {
    this.open = open;
    this.query = query;
    this.current = this.store(query);
  }

  private store(query: Query): Store {
    const store: Store = this.open(query, () => {
      if (store === this.current) this.notify();
      else if (store === this.next) {
        if (store.synced) this.swap();
        // refused or failing: the old list serves on (its error is the problem shown), the new one retries
        else if (store.error !== undefined) this.settle?.();
      }
    });
    return store;
  }

  private notify(): void {
    for (const l of this.listeners) l();
  }

  private swap(): void {
    const old = this.current;
    this.current = this.next!;
    this.next = undefined;
    old.stop();
    this.settle?.();
    this.notify();
  }

  /** Aims the list at this query; resolves once the new list has answered (at once when it is the same). */
  aim(query: Query): Promise<void> {
    if (queryKey(query) === queryKey(this.query)) return this.settled;
    this.query = query;
    this.next?.stop();
    const next = this.store(query);
    this.next = next;
    this.settled = new Promise<void>((resolve) => (this.settle = resolve));
    if (this.running) next.start();
    else this.swap();
    return this.settled;
  }

  /** A stream's store of this list. */
  handle(onChange: () => void): Store {
    const list = this;
    this.listeners.add(onChange);
    let running = false;
    return {
      items: () => list.current.items(),
      get synced() {
        return list.current.synced;
      },
      get error() {
        return list.current.error;
      },
      get failures() {
        return list.current.failures;
      },
      start: () => {
        if (running) return;
        running = true;
        if (list.running++ === 0) {
          list.current.start();
          list.next?.start();
        }
      },
      stop: () => {
        list.listeners.delete(onChange);
        if (!running) return;
        running = false;
        if (--list.running === 0) {
          list.current.stop();
          list.next?.stop();
          list.next = undefined;
          list.settle?.();
        }
      },
    };
  }
}

interface Row {
  row: OverviewTarget;
  target: RolloutTarget;
  stream?: RolloutStream | undefined;
  update?: RolloutUpdate | undefined;
  gone: boolean;
  /** its HAProxy sessions are read (the row is open) */
  open: boolean;
  /** the stream is starting: it registers with the sessions source then (see rowSessions) */
  starting: boolean;
  sessions?: { targets: () => SessionTarget[]; onChange: () => void; remove?: (() => void) | undefined } | undefined;
}

/**
 * Follows every workload the selection matches, and those that come to match, until stopped. `initial` is what
 * resolveTargets found (the rows shown before the workloads' informers have listed).
 */
export class LiveOverview implements OverviewFeed {
  private readonly options: OverviewOptions;
  private readonly rows = new Map<string, Row>();
  private readonly listeners = new Set<(event: OverviewEvent) => void>();
  private readonly open_: StoreFactory;
  private readonly covered = new Map<string, CoveredList>();
  /** the queries of the stream being built (rolloutQueries of its scope): the factory tells its lists apart by them */
  private building: RolloutQueries | undefined;
  /** rolloutQueries of every workload followed: what the covered lists are aimed at */
  private cover: RolloutQueries | undefined;
  private readonly kinds: { kind: RolloutTarget['kind']; store: Store; absent: boolean }[] = [];
  private reconcileTimer: NodeJS.Timeout | undefined;
  /** one reconcile at a time: each sees the rows the one before left */
  private reconciling: Promise<void> = Promise.resolve();
  private running = false;
  private stopped = false;
  private openKey: string | undefined;
  private failed: unknown;
  private end!: () => void;
  readonly ended = new Promise<void>((resolve) => (this.end = resolve));

  /** `open`: the stores to follow on (sharedStores over informers of the API server: followOverview) */
  constructor(open: StoreFactory, initial: RolloutTarget[], options: OverviewOptions) {
    this.options = options;
    const base = open;
    this.open_ = (query, onChange) => this.openStore(base, query, onChange);
    for (const t of initial) this.addRow(t);
    this.cover = this.queriesOf(this.live());
  }

  failure(): unknown {
    return this.failed;
  }

  subscribe(onEvent: (event: OverviewEvent) => void): () => void {
    this.listeners.add(onEvent);
    for (const r of this.rows.values()) {
      onEvent({ type: 'row', row: r.row, gone: r.gone });
      if (r.update) onEvent({ type: 'update', key: r.row.key, update: r.update });
    }
    if (!this.running && !this.stopped) this.start();
    return () => {
      this.listeners.delete(onEvent);
      if (!this.listeners.size) this.stop();
    };
  }

  open(key: string | undefined): void {
    if (key === this.openKey) return;
    const was = this.openKey === undefined ? undefined : this.rows.get(this.openKey);
    this.openKey = key;
    if (was) this.readSessions(was, false);
    const now = key === undefined ? undefined : this.rows.get(key);
    if (now) this.readSessions(now, true);
  }

  /** Starts following: the workloads' informers (one per kind, on -l) and a stream per row. */
  start(): void {
    if (this.running) return;
    keepHeapSmall();
    this.running = true;
    for (const kind of ROLLOUT_KINDS) {
      const store = this.open_(this.workloadQuery(kind), () => this.scheduleReconcile());
      this.kinds.push({ kind, store, absent: false });
      store.start();
    }
    for (const r of this.rows.values()) this.startRow(r);
  }

  stop(): void {
    this.stopped = true;
    this.running = false;
    clearTimeout(this.reconcileTimer);
    for (const r of this.rows.values()) {
      r.sessions?.remove?.();
      r.stream?.stop();
    }
    for (const k of this.kinds) k.store.stop();
  }

  /** The informer of one kind's workloads: the same query as rolloutQueries asks for them, shared with the streams. */
  private workloadQuery(kind: RolloutTarget['kind']): Query {
    return {
      resource: workloadResource(kind),
      namespace: this.options.namespace,
      labelSelector: this.options.selector,
      trim: trimObject,
    };
  }

  private live(): RolloutTarget[] {
    return [...this.rows.values()].filter((r) => !r.gone).map((r) => r.target);
  }

  /**
   * rolloutQueries of these workloads as a set that may grow: the queries of several even while there is one (one
   * workload's are by its name), and cluster-wide ones with -A even while they sit in one namespace, so that the
   * lists stay the same as rows come.
   */
  private queriesOf(targets: RolloutTarget[]): RolloutQueries | undefined {
    if (!targets.length) return undefined;
    return rolloutQueries(targets.length === 1 ? [targets[0]!, targets[0]!] : targets, this.options.selector);
  }

  private normalized(query: Query): Query {
    return this.options.namespace === undefined ? { ...query, namespace: undefined } : query;
  }

  /** Which of the lists rolloutQueries made for the stream being built this query is, if any. */
  private roleOf(query: Query): { rollout: boolean; covered?: Covered | undefined } {
    const q = this.building;
    if (!q) return { rollout: false };
    const key = queryKey(query);
    const covered = COVERED.find((c) => q[c] && queryKey(q[c]) === key);
    if (covered) return { rollout: true, covered };
    const others = [
      ...Object.values(q.workloads),
      q.services,
      q.slices,
      q.warnings,
      ...q.workloadEvents,
      ...(q.claimEvents ? [q.claimEvents] : []),
    ];
    return { rollout: others.some((o) => queryKey(o) === key) };
  }

  private openStore(base: StoreFactory, query: Query, onChange: () => void): Store {
    const role = this.roleOf(query);
    if (!role.covered) return base(role.rollout ? this.normalized(query) : query, onChange);
    const aimed = this.normalized(this.cover?.[role.covered] ?? query);
    const slot = `${role.covered}:${queryKey({ ...aimed, labelSelector: undefined })}`;
    let list = this.covered.get(slot);
    if (!list) {
      list = new CoveredList(base, aimed);
      this.covered.set(slot, list);
    }
    return list.handle(onChange);
  }

  private emit(event: OverviewEvent): void {
    for (const l of this.listeners) l(event);
  }

  private addRow(target: RolloutTarget): Row {
    const key = keyOf(target);
    const r: Row = {
      row: { key, kind: target.kind, name: target.metadata.name, namespace: target.metadata.namespace ?? '' },
      target,
      gone: false,
      open: false,
      starting: false,
    };
    this.rows.set(key, r);
    this.emit({ type: 'row', row: r.row, gone: false });
    return r;
  }

  private startRow(r: Row): void {
    const map = this.options.map ?? ((u: RolloutUpdate) => u);
    const sessions = this.rowSessions(r);
    const o = this.options;
    const options: FollowOptions = {
      conditionType: o.conditionType,
      drained: o.drained,
      ...(o.debounceMs === undefined ? {} : { debounceMs: o.debounceMs }),
      // without events, a row recomputes every second while it rolls (its holds and countdowns), as the single view
      // does; once done and not open, every 5 s: hundreds of complete rows tick a fifth as often while nothing
      // happens (the stream reads this at each tick; an event still recomputes it at once)
      get tickMs() {
        const tick = o.tickMs ?? TICK_MS;
        return r.update?.done && !r.open ? Math.max(tick, DONE_TICK_MS) : tick;
      },
      ...(o.now ? { now: o.now } : {}),
      onUpdate: (update) => {
        r.update = map(update);
        this.emit({ type: 'update', key: r.row.key, update: r.update });
      },
      onFatal: (error) => this.fail(error),
      // the stream asks at start to register (then the row's sessions can be read later), and on each recompute
      // whether to read them: only while the row is open
      get sessions() {
        return sessions && (r.open || r.starting) ? sessions : undefined;
      },
    };
    this.building = this.queriesOf([r.target]);
    try {
      r.stream = new RolloutStream(this.open_, r.target, options, {
        targets: [r.target, r.target],
        selector: this.options.selector,
      });
    } finally {
      this.building = undefined;
    }
    r.starting = true;
    try {
      r.stream.start();
    } finally {
      r.starting = false;
    }
  }

  /**
   * A row's view of the one sessions sampler: the row's stream registers with it at start; its HAProxy pods are
   * read only while the row is open. One sampler for every row would ask each stream for its HAProxy pods and
   * recompute every row after each read: a cost that grows with the square of the rows.
   */
  private rowSessions(r: Row): SessionsSource | undefined {
    const sampler = this.options.sessions;
    if (!sampler) return undefined;
    return {
      add: (targets, onChange) => {
        r.sessions = { targets, onChange };
        if (r.open) r.sessions.remove = sampler.add(targets, onChange);
        return () => {
          r.sessions?.remove?.();
          r.sessions = undefined;
        };
      },
      state: () => sampler.state(),
    };
  }

  private readSessions(r: Row, open: boolean): void {
    r.open = open;
    const s = r.sessions;
    const sampler = this.options.sessions;
    if (!s || !sampler) return;
    if (open && !s.remove) s.remove = sampler.add(s.targets, s.onChange);
    if (!open && s.remove) {
      s.remove();
      s.remove = undefined;
    }
    // the row's model with its sessions, or without them, at once
    s.onChange();
  }

  private fail(error: unknown): void {
    if (this.failed !== undefined) return;
    this.failed = error;
    this.stop();
    this.end();
  }

  private scheduleReconcile(): void {
    if (this.stopped) return;
    clearTimeout(this.reconcileTimer);
    this.reconcileTimer = setTimeout(() => {
      this.reconciling = this.reconciling.then(() => this.reconcile()).catch((error) => this.fail(error));
    }, this.options.reconcileMs ?? 200);
  }

  /**
   * The workloads that match now, against the rows: a new match gets a row (after the covered lists are aimed at
   * its pods too), a row whose workload no longer matches is marked gone and its stream stopped. A kind whose
   * informer has not listed yet leaves its rows as they are; a kind the cluster does not serve or the user may not
   * list (a NotFound or Forbidden answer) has none, and its informer stops.
   */
  private async reconcile(): Promise<void> {
    if (this.stopped) return;
    const matched = new Map<string, RolloutTarget>();
    const known = new Set<RolloutTarget['kind']>();
    for (const k of this.kinds) {
      if (k.absent) {
        known.add(k.kind);
        continue;
      }
      if (!k.store.synced) {
        if (isApiError(k.store.error, 'NotFound') || isApiError(k.store.error, 'Forbidden')) {
          const followed = [...this.rows.values()].some((r) => r.row.kind === k.kind && !r.gone);
          if (!followed) {
            k.absent = true;
            k.store.stop();
            known.add(k.kind);
          }
        }
        continue;
      }
      known.add(k.kind);
      for (const o of k.store.items() as KubeObject[]) {
        const t = { ...o, kind: k.kind } as RolloutTarget;
        if (kindOf(k.kind).unfollowable?.(t)) continue;
        matched.set(keyOf(t), t);
      }
    }
    const gone = [...this.rows.values()].filter((r) => !r.gone && known.has(r.row.kind) && !matched.has(r.row.key));
    const fresh = [...matched.entries()].filter(([key]) => !this.rows.get(key) || this.rows.get(key)!.gone);
    for (const r of gone) {
      r.gone = true;
      r.sessions?.remove?.();
      r.stream?.stop();
      r.stream = undefined;
      this.emit({ type: 'row', row: r.row, gone: true });
    }
    if (!fresh.length && !gone.length) return;
    const resolve = this.options.resolve ?? (async (t: RolloutTarget) => t);
    // a workload whose template cannot be read (its workloadRef names nothing) gets no row until it can
    const added = (await Promise.all(fresh.map(([, t]) => resolve(t).catch(() => undefined)))).filter(
      (t): t is RolloutTarget => t !== undefined,
    );
    if (this.stopped) return;
    // the lists that follow the cover take in the new workloads' pods before their streams start
    this.cover = this.queriesOf([...this.live(), ...added]);
    await Promise.all(
      [...this.covered.entries()].map(([slot, list]) => {
        const role = slot.slice(0, slot.indexOf(':')) as Covered;
        const query = this.cover?.[role];
        return query ? list.aim(this.normalized(query)) : undefined;
      }),
    );
    if (this.stopped) return;
    for (const t of added) {
      const r = this.rows.get(keyOf(t));
      const row = r?.gone ? Object.assign(r, { target: t, gone: false, update: undefined }) : this.addRow(t);
      if (r) this.emit({ type: 'row', row: row.row, gone: false });
      if (row.row.key === this.openKey) row.open = true;
      if (this.running) this.startRow(row);
    }
  }
}

/** status --watch over several workloads: the overview's feed, started by its first subscriber. */
export function followOverview(client: KubeClient, initial: RolloutTarget[], options: OverviewOptions): OverviewFeed {
  return new LiveOverview(
    sharedStores((query, onChange) => new Informer(client, query, { onChange })),
    initial,
    options,
  );
}
