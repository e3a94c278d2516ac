import { diagnose } from '../diagnose/index.ts';
import { diagnoseContext } from '../diagnose/context.ts';
import { HAPTIC_PODS_SELECTOR } from '../haptic/names.ts';
import type { KubeClient } from '../kube/client.ts';
import { Informer, type InformerOptions } from '../kube/informer.ts';
import { R, WORKLOAD_OWNS_REPLICASETS } from '../kube/resources.ts';
import { rolloutQueries } from '../kube/rollout-snapshot.ts';
import type { Query } from '../kube/snapshot.ts';
import { trimHAProxyCfg, trimObject } from '../kube/trim.ts';
import { splitRollouts } from '../model/rollout/inputs.ts';
import { kindOf } from '../model/rollout/kinds/index.ts';
import { rememberConfigs, type ConfigMemory } from '../model/haptic/haptic.ts';
import { observe, type RolloutHistory } from '../model/rollout/history.ts';
import { buildReport, type RolloutUpdate } from '../model/rollout/report.ts';
import { buildRollout, type RolloutModel } from '../model/rollout/rollout.ts';
import { transitions } from '../model/rollout/transitions.ts';
import type {
  EndpointSlice,
  KubeEvent,
  KubeObject,
  Lease,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  RolloutTarget,
  Service,
} from '../types/kube.ts';
import type { HAProxyCfg, HAProxyTemplateConfig } from '../types/haptic.ts';
import type { HapticInputs, Read, RolloutSnapshot } from '../types/snapshot.ts';
import { oneLine } from '../lib/errors.ts';
import { isApiError } from '../kube/errors.ts';
import { keepHeapSmall } from '../lib/heap.ts';
import type { AddressMemory } from '../model/haptic/sessions.ts';
import { awaitingSessions, withSessions } from '../model/rollout/sessions.ts';
import { type SessionTarget, type SessionsSource, sessionTargets } from './sessions.ts';

/** One kept-current list of objects: an informer, or a fake in tests. */
export interface Store<T extends KubeObject = KubeObject> {
  items(): T[];
  /** listed successfully at least once: before that, items() is not "none", it is unknown */
  readonly synced: boolean;
  /** the error it is retrying after, if any (cleared by the next successful list) */
  readonly error: unknown;
  /** failed attempts in a row since the last successful list or watch */
  readonly failures: number;
  start(): void;
  stop(): void;
}

/** A required read refused this many times in a row (401/403) ends the follow: retrying will not grant access. */
export const FATAL_REFUSALS = 3;

const refusal = (err: unknown) => isApiError(err, 'Unauthorized') || isApiError(err, 'Forbidden');

/** Opens a store for a query; `onChange` is called on every event it sees. */
export type StoreFactory = (query: Query, onChange: () => void) => Store;

export interface FollowOptions {
  conditionType: string;
  /** done only once old pods are gone too */
  drained: boolean;
  onUpdate: (update: RolloutUpdate) => void;
  /**
   * A read the model cannot do without (the workload, a Deployment's ReplicaSets, the pods, the namespace's Services and
   * EndpointSlices) is refused: unauthorized or forbidden FATAL_REFUSALS times in a row. Called once; no update
   * follows. Without it such a follow would wait forever, never "complete".
   */
  onFatal?: (error: unknown) => void;
  /** a burst of events yields one recompute after this quiet time */
  debounceMs?: number;
  /** recompute without any event, for countdowns and lease staleness (no API request) */
  tickMs?: number;
  now?: () => number;
  /** read HAProxy's sessions to the pods (status --sessions): the sampler the followers share */
  sessions?: SessionsSource | undefined;
}

export interface RolloutFollower {
  start(): void;
  stop(): void;
}

/** Follows one workload's rollout with informers on the API server. */
export function followRollout(
  client: KubeClient,
  target: RolloutTarget,
  options: FollowOptions & { informer?: InformerOptions },
): RolloutFollower {
  keepHeapSmall();
  return new RolloutStream(
    (query, onChange) => new Informer(client, query, { onChange }, options.informer),
    target,
    options,
  );
}

/**
 * Opens each distinct query once, however many followers ask for it: followers of several workloads share one
 * informer per list (rolloutQueries makes the same queries for all of them), each picking its own objects. The
 * informer starts with the first follower that starts it and stops with the last that stops it.
 */
export function sharedStores(open: StoreFactory): StoreFactory {
  const shared = new Map<string, { store: Store; listeners: Set<() => void>; started: number }>();
  return (query, onChange) => {
    const key = JSON.stringify([
      query.resource.display,
      query.namespace,
      query.name,
      query.labelSelector,
      query.fieldSelector,
    ]);
    let entry = shared.get(key);
    if (!entry) {
      const listeners = new Set<() => void>();
      entry = {
        store: open(query, () => {
          for (const l of listeners) l();
        }),
        listeners,
        started: 0,
      };
      shared.set(key, entry);
    }
    const { store, listeners } = entry;
    const e = entry;
    listeners.add(onChange);
    let running = false;
    return {
      items: () => store.items(),
      get synced() {
        return store.synced;
      },
      get error() {
        return store.error;
      },
      get failures() {
        return store.failures;
      },
      start: () => {
        if (running) return;
        running = true;
        if (e.started++ === 0) store.start();
      },
      stop: () => {
        listeners.delete(onChange);
        if (!running) return;
        running = false;
        if (--e.started === 0) store.stop();
      },
    };
  };
}

type Part =
  | 'pods'
  | 'services'
  | 'slices'
  | 'warnings'
  | 'templateConfigs'
  | 'haproxyCfgs'
  | 'hapticPods'
  | 'clusterRoles'
  | 'clusterRoleBindings'
  | 'ingresses'
  | 'gateways'
  | 'httpRoutes'
  | 'grpcRoutes'
  | 'tlsRoutes'
  | 'tcpRoutes'
  | 'referenceGrants';

/** Kinds a cluster may not serve at all (the Gateway API is an add-on): their NotFound is an answer, not a problem. */
const MAY_BE_ABSENT: Part[] = ['gateways', 'httpRoutes', 'grpcRoutes', 'tlsRoutes', 'tcpRoutes', 'referenceGrants'];

/**
 * The status pipeline on a loop: stores (list + watch) keep one workload's objects and HAPTIC's current; every
 * event marks the snapshot dirty; one debounced recompute builds the model and its top finding; an update is
 * emitted only when something a person would see changed. The stores hold what rolloutQueries asks for `scope`
 * (the workloads followed together, this one by default): the same lists as a one-shot status, label-selected,
 * paged and trimmed as objects arrive; the stream picks this workload's objects from them (splitRollouts).
 */
export class RolloutStream implements RolloutFollower {
  private readonly stores: Store[] = [];
  private readonly leaseStores = new Map<string, Store>();
  private readonly open: StoreFactory;
  private readonly options: FollowOptions;
  private readonly target: RolloutTarget;
  /** the workload itself (the Deployments' or the StatefulSets' list of the scope) */
  private readonly workload: Store;
  private readonly parts: Record<Part, Store>;
  /** a Deployment's ReplicaSets; a StatefulSet's claims, when it has volumeClaimTemplates */
  private readonly replicaSets: Store | undefined;
  private readonly claims: Store | undefined;
  /** the workloads' own events, and the claims' Normal ones */
  private readonly workloadEvents: Store[];
  private timer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private stopped = false;
  /** when the last recompute started and how long it took (ms): the next waits at least twice that */
  private lastStarted = 0;
  private lastTook = 0;
  private last: unknown;
  private fatal = false;
  private memory: ConfigMemory = new Map();
  private history: RolloutHistory | undefined;
  private emitted: RolloutModel | undefined;
  /** which pod each server address belongs to, kept over recomputes (sessions to a pod gone since) */
  private readonly addresses: AddressMemory = new Map();
  private stopSessions: (() => void) | undefined;

  constructor(
    open: StoreFactory,
    target: RolloutTarget,
    options: FollowOptions,
    scope: { targets: RolloutTarget[]; selector?: string | undefined } = { targets: [target] },
  ) {
    this.open = open;
    this.options = options;
    this.target = target;
    const q = rolloutQueries(scope.targets, scope.selector);
    const make = (query: Query) => {
      const store = open(query, () => this.dirty());
      this.stores.push(store);
      return store;
    };
    // the scope holds this target, so the queries of its kind are there
    this.workload = make(q.workloads[target.kind]!);
    this.replicaSets = WORKLOAD_OWNS_REPLICASETS[target.kind] ? make(q.replicaSets!) : undefined;
    // claims are asked for when a StatefulSet of the scope has claim templates: this one's or another's
    const claimed = 'volumeClaimTemplates' in target.spec && !!target.spec.volumeClaimTemplates?.length;
    this.claims = claimed && q.claims ? make(q.claims) : undefined;
    this.workloadEvents = [...q.workloadEvents, ...(claimed && q.claimEvents ? [q.claimEvents] : [])].map(make);
    this.parts = {
      pods: make(q.pods),
      services: make(q.services),
      slices: make(q.slices),
      warnings: make(q.warnings),
      templateConfigs: make({ resource: R.haproxytemplateconfigs, trim: trimObject }),
      haproxyCfgs: make({ resource: R.haproxycfgs, trim: trimHAProxyCfg }),
      hapticPods: make({ resource: R.pods, labelSelector: HAPTIC_PODS_SELECTOR, trim: trimObject }),
      clusterRoles: make({ resource: R.clusterroles, trim: trimObject }),
      clusterRoleBindings: make({ resource: R.clusterrolebindings, trim: trimObject }),
      ingresses: make({ resource: R.ingresses, trim: trimObject }),
      gateways: make({ resource: R.gateways, trim: trimObject }),
      httpRoutes: make({ resource: R.httproutes, trim: trimObject }),
      grpcRoutes: make({ resource: R.grpcroutes, trim: trimObject }),
      tlsRoutes: make({ resource: R.tlsroutes, trim: trimObject }),
      tcpRoutes: make({ resource: R.tcproutes, trim: trimObject }),
      referenceGrants: make({ resource: R.referencegrants, trim: trimObject }),
    };
  }

  start(): void {
    for (const s of this.stores) s.start();
    this.stopSessions = this.options.sessions?.add(
      () => this.sessionTargets(),
      () => this.dirty(),
    );
    this.ticker = setTimeout(() => this.run(), this.options.tickMs ?? 1000);
  }

  stop(): void {
    clearTimeout(this.timer);
    clearTimeout(this.ticker);
    this.stopped = true;
    this.stopSessions?.();
    for (const s of [...this.stores, ...this.leaseStores.values()]) s.stop();
  }

  /** The HAProxy pods of the installations that route it (as the last model found them), with their master sockets. */
  private sessionTargets(): SessionTarget[] {
    return this.emitted ? sessionTargets(this.emitted, this.parts.hapticPods.items() as Pod[]) : [];
  }

  /** First error of a store that is retrying (API server down, forbidden…). */
  private problem(): unknown {
    const absent = new Set(MAY_BE_ABSENT.map((part) => this.parts[part]));
    return [...this.stores, ...this.leaseStores.values()].find(
      (s) => s.error && !(absent.has(s) && isApiError(s.error, 'NotFound')),
    )?.error;
  }

  /**
   * An event: recompute once the burst is over (debounceMs of quiet), and not sooner than twice the last recompute's
   * length after it started, so that a model of a thousand pods under a stream of events costs at most half a core.
   */
  private dirty(): void {
    clearTimeout(this.timer);
    const spacing = this.lastStarted + 2 * this.lastTook - Date.now();
    this.timer = setTimeout(() => this.run(), Math.max(this.options.debounceMs ?? 100, spacing));
  }

  /** A recompute; without events the next comes tickMs later (countdowns, lease staleness: no API request). */
  private run(): void {
    const started = Date.now();
    try {
      this.recompute();
    } finally {
      this.lastStarted = started;
      this.lastTook = Date.now() - started;
      clearTimeout(this.ticker);
      if (!this.stopped)
        this.ticker = setTimeout(() => this.run(), Math.max(this.options.tickMs ?? 1000, 2 * this.lastTook));
    }
  }

  /** The Leases of every namespace that holds a HAPTIC installation, watched from the moment it is known. */
  private ensureLeaseStores(): void {
    for (const htc of this.parts.templateConfigs.items()) {
      const namespace = htc.metadata.namespace ?? '';
      if (this.leaseStores.has(namespace)) continue;
      const store = this.open({ resource: R.leases, namespace, trim: trimObject }, () => this.dirty());
      this.leaseStores.set(namespace, store);
      store.start();
    }
  }

  /** The reads the model needs: a list that never succeeded is unknown, never "no objects". */
  private required(): Store[] {
    const p = this.parts;
    return [this.workload, ...(this.replicaSets ? [this.replicaSets] : []), p.pods, p.services, p.slices];
  }

  private recompute(): void {
    if (this.fatal) return;
    this.ensureLeaseStores();
    const required = this.required();
    const refused = required.find((s) => refusal(s.error) && s.failures >= FATAL_REFUSALS);
    if (refused) {
      this.fatal = true;
      this.stop();
      this.options.onFatal?.(refused.error);
      return;
    }
    const { name, namespace } = this.target.metadata;
    const found = this.workload.items().find((d) => d.metadata.name === name && d.metadata.namespace === namespace);
    // a template another object holds (an Argo Rollout's workloadRef) is the one read when the follow began
    const held =
      !!found && !!kindOf(this.target.kind).templateRef?.({ ...found, kind: this.target.kind } as RolloutTarget);
    const workload =
      found &&
      ({
        ...found,
        kind: this.target.kind,
        ...(held ? { spec: { ...(found as RolloutTarget).spec, template: this.target.spec.template } } : {}),
      } as RolloutTarget);
    // optional reads (events, HAPTIC's objects, Leases) answer with their error: the model says what is unreadable
    const optional = [...this.stores.filter((s) => !required.includes(s)), ...this.leaseStores.values()];
    if (!workload || !required.every((s) => s.synced) || !optional.every((s) => s.synced || s.error)) return;
    const leases = [...this.leaseStores.values()];
    const p = this.parts;
    const read = <T>(s: Store): Read<T> => ({
      items: s.items() as T[],
      error: s.synced ? undefined : readError(s.error),
    });
    const haptic: HapticInputs = {
      templateConfigs: read<HAProxyTemplateConfig>(p.templateConfigs),
      haproxyCfgs: read<HAProxyCfg>(p.haproxyCfgs),
      pods: read<Pod>(p.hapticPods),
      leases: {
        items: leases.flatMap((s) => s.items()) as Lease[],
        error: readError(leases.find((s) => !s.synced)?.error),
      },
      clusterRoles: read(p.clusterRoles),
      clusterRoleBindings: read(p.clusterRoleBindings),
      ingresses: read(p.ingresses),
      gateways: read(p.gateways),
      httpRoutes: read(p.httpRoutes),
      grpcRoutes: read(p.grpcRoutes),
      tlsRoutes: read(p.tlsRoutes),
      tcpRoutes: read(p.tcpRoutes),
      referenceGrants: read(p.referenceGrants),
    };
    const [snapshot] = splitRollouts([workload], {
      replicaSets: (this.replicaSets?.items() ?? []) as ReplicaSet[],
      pods: p.pods.items() as Pod[],
      services: p.services.items() as Service[],
      slices: p.slices.items() as EndpointSlice[],
      events: [...p.warnings.items(), ...this.workloadEvents.flatMap((s) => s.items())] as KubeEvent[],
      claims: (this.claims?.items() ?? []) as PersistentVolumeClaim[],
      haptic,
    }) as [RolloutSnapshot];
    const now = (this.options.now ?? Date.now)();
    const built = buildRollout(snapshot, now, { gateType: this.options.conditionType, memory: this.memory });
    const model = this.options.sessions ? withSessions(built, this.options.sessions.state(), this.addresses) : built;
    // configs seen now stay readable after HAPTIC replaces them: then what an older config a HAProxy pod still
    // runs routes can be told in later recomputes
    this.memory = rememberConfigs(this.memory, model.installations);
    const diagnosis = diagnose(diagnoseContext(snapshot, model, now));
    const problem = this.problem();
    const complete = model.phase === 'complete' && (!this.options.drained || model.drained);
    let history = observe(this.history, model, now, complete);
    // with sessions read, done once every old pod's sessions are told (drained, cut, or not knowable after SETTLE_MS)
    const telling = awaitingSessions(Object.values(history.pods));
    const done = complete && !telling;
    if (complete && telling) history = { ...history, doneAt: this.history?.doneAt };
    this.history = history;
    const seen = {
      model,
      finding: diagnosis.stalled ? diagnosis.findings[0] : undefined,
      findings: diagnosis.findings,
      problem: problem === undefined ? undefined : oneLine(problem),
      done,
    };
    // a new problem (API server gone, watch forbidden) is news too, even when the model stands still
    if (sameJson(seen, this.last)) return;
    this.last = seen;
    const lines = transitions(this.emitted, model, { history, now });
    this.emitted = model;
    this.options.onUpdate({
      ...seen,
      transitions: lines,
      history,
      report: done && history.progressed ? buildReport(model, history) : undefined,
    });
  }
}

/**
 * Whether two values would print as the same JSON (keys in any order; undefined, functions and symbols left out of
 * objects and null in arrays, as JSON.stringify has them), without building either text: a model of a 500-replica
 * rollout prints as megabytes, compared on every recompute.
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  const absent = (v: unknown) => v === undefined || typeof v === 'function' || typeof v === 'symbol';
  if (typeof a === 'number' || typeof b === 'number') {
    const number = (v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v);
    return number(a) === number(b);
  }
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const other = b as unknown[];
    if (a.length !== other.length) return false;
    return a.every((v, i) => sameJson(absent(v) ? null : v, absent(other[i]) ? null : other[i]));
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  const keys = Object.keys(x).filter((k) => !absent(x[k]));
  if (keys.length !== Object.keys(y).filter((k) => !absent(y[k])).length) return false;
  return keys.every((k) => Object.hasOwn(y, k) && sameJson(x[k], y[k]));
}

function readError(err: unknown): Read<never>['error'] {
  if (err === undefined || err === null) return undefined;
  const kind = typeof err === 'object' && 'kind' in err ? String(err.kind) : 'Error';
  return { kind, message: oneLine(err) };
}
