import { diagnose } from '../diagnose/index.ts';
import { diagnoseContext } from '../diagnose/context.ts';
import type { Finding } from '../diagnose/finding.ts';
import { HAPTIC_PODS_SELECTOR } from '../haptic/names.ts';
import type { KubeClient } from '../kube/client.ts';
import { Informer, type InformerOptions } from '../kube/informer.ts';
import { R } from '../kube/resources.ts';
import { labelSelectorQuery } from '../kube/selector-query.ts';
import type { Query } from '../kube/snapshot.ts';
import { rememberConfigs, type ConfigMemory } from '../model/haptic.ts';
import { buildRollout, type RolloutModel } from '../model/rollout.ts';
import type { Deployment, EndpointSlice, KubeEvent, KubeObject, Lease, Pod, ReplicaSet, Service } from '../types/kube.ts';
import type { HAProxyCfg, HAProxyTemplateConfig } from '../types/haptic.ts';
import type { Read, RolloutSnapshot } from '../types/snapshot.ts';
import { oneLine } from '../cli/errors.ts';

/** What a follower of a rollout sees after each change: the model, its top stall finding, and any retrying read. */
export interface RolloutUpdate {
  model: RolloutModel;
  /** the first finding of a stalled rollout (why-stalled's answer), none while it progresses normally */
  finding?: Finding | undefined;
  /** one line about a read that is failing and being retried (API server gone, watch forbidden) */
  problem?: string | undefined;
  /** the rollout is complete (and drained, when asked) */
  done: boolean;
}

/** One kept-current list of objects: an informer, or a fake in tests. */
export interface Store<T extends KubeObject = KubeObject> {
  items(): T[];
  /** listed successfully at least once since the last error */
  readonly synced: boolean;
  /** the error it is retrying after, if any */
  readonly error: unknown;
  start(): void;
  stop(): void;
}

/** Opens a store for a query; `onChange` is called on every event it sees. */
export type StoreFactory = (query: Query, onChange: () => void) => Store;

export interface FollowOptions {
  conditionType: string;
  /** done only once old pods are gone too */
  drained: boolean;
  onUpdate: (update: RolloutUpdate) => void;
  /** a burst of events yields one recompute after this quiet time */
  debounceMs?: number;
  /** recompute without any event, for countdowns and lease staleness (no API request) */
  tickMs?: number;
  now?: () => number;
}

export interface RolloutFollower {
  start(): void;
  stop(): void;
}

/** Follows one Deployment's rollout with informers on the API server. */
export function followRollout(client: KubeClient, target: Deployment, options: FollowOptions & { informer?: InformerOptions }): RolloutFollower {
  return new RolloutStream((query, onChange) => new Informer(client, query, { onChange }, options.informer), target, options);
}

/**
 * The status pipeline on a loop: stores (list + watch) keep one Deployment's objects and HAPTIC's current; every
 * event marks the snapshot dirty; one debounced recompute builds the model and its top finding; an update is
 * emitted only when something a person would see changed.
 */
export class RolloutStream implements RolloutFollower {
  private readonly stores: Store[] = [];
  private readonly leaseStores = new Map<string, Store>();
  private readonly open: StoreFactory;
  private readonly options: FollowOptions;
  private readonly deployment: Store;
  private readonly parts: Record<'replicaSets' | 'pods' | 'services' | 'slices' | 'events' | 'templateConfigs' | 'haproxyCfgs' | 'hapticPods' | 'clusterRoles' | 'clusterRoleBindings', Store>;
  private timer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private last = '';
  private memory: ConfigMemory = new Map();

  constructor(open: StoreFactory, target: Deployment, options: FollowOptions) {
    this.open = open;
    this.options = options;
    const namespace = target.metadata.namespace;
    const labelSelector = labelSelectorQuery(target.spec.selector);
    const make = (query: Query) => {
      const store = open(query, () => this.dirty());
      this.stores.push(store);
      return store;
    };
    this.deployment = make({ resource: R.deployments, namespace, fieldSelector: `metadata.name=${target.metadata.name}` });
    this.parts = {
      replicaSets: make({ resource: R.replicasets, namespace, labelSelector }),
      pods: make({ resource: R.pods, namespace, labelSelector }),
      services: make({ resource: R.services, namespace }),
      slices: make({ resource: R.endpointslices, namespace }),
      events: make({ resource: R.events, namespace }),
      templateConfigs: make({ resource: R.haproxytemplateconfigs }),
      haproxyCfgs: make({ resource: R.haproxycfgs }),
      hapticPods: make({ resource: R.pods, labelSelector: HAPTIC_PODS_SELECTOR }),
      clusterRoles: make({ resource: R.clusterroles }),
      clusterRoleBindings: make({ resource: R.clusterrolebindings }),
    };
  }

  start(): void {
    for (const s of this.stores) s.start();
    this.ticker = setInterval(() => this.recompute(), this.options.tickMs ?? 1000);
  }

  stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    for (const s of [...this.stores, ...this.leaseStores.values()]) s.stop();
  }

  /** First error of a store that is retrying (API server down, forbidden…). */
  private problem(): unknown {
    return [...this.stores, ...this.leaseStores.values()].find((s) => s.error)?.error;
  }

  private dirty(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.recompute(), this.options.debounceMs ?? 100);
  }

  /** The Leases of every namespace that holds a HAPTIC installation, watched from the moment it is known. */
  private ensureLeaseStores(): void {
    for (const htc of this.parts.templateConfigs.items()) {
      const namespace = htc.metadata.namespace ?? '';
      if (this.leaseStores.has(namespace)) continue;
      const store = this.open({ resource: R.leases, namespace }, () => this.dirty());
      this.leaseStores.set(namespace, store);
      store.start();
    }
  }

  private recompute(): void {
    this.ensureLeaseStores();
    const deployment = this.deployment.items()[0] as Deployment | undefined;
    const answered = (s: Store) => s.synced || s.error;
    const leases = [...this.leaseStores.values()];
    if (!deployment || !this.stores.every(answered) || !leases.every(answered)) return;
    const p = this.parts;
    const read = <T>(s: Store): Read<T> => ({ items: s.items() as T[], error: s.synced ? undefined : readError(s.error) });
    const snapshot: RolloutSnapshot = {
      deployment,
      replicaSets: p.replicaSets.items() as ReplicaSet[],
      pods: p.pods.items() as Pod[],
      services: p.services.items() as Service[],
      slices: p.slices.items() as EndpointSlice[],
      events: p.events.items() as KubeEvent[],
      haptic: {
        templateConfigs: read<HAProxyTemplateConfig>(p.templateConfigs),
        haproxyCfgs: read<HAProxyCfg>(p.haproxyCfgs),
        pods: read<Pod>(p.hapticPods),
        leases: { items: leases.flatMap((s) => s.items()) as Lease[], error: readError(leases.find((s) => !s.synced)?.error) },
        clusterRoles: read(p.clusterRoles),
        clusterRoleBindings: read(p.clusterRoleBindings),
      },
    };
    const now = (this.options.now ?? Date.now)();
    const model = buildRollout(snapshot, now, { gateType: this.options.conditionType, memory: this.memory });
    // configs seen now stay readable after HAPTIC replaces them: then what an older config a HAProxy pod still
    // runs routes can be told in later recomputes
    this.memory = rememberConfigs(this.memory, model.installations);
    const diagnosis = diagnose(diagnoseContext(snapshot, model, now));
    const problem = this.problem();
    const update: RolloutUpdate = {
      model,
      finding: diagnosis.stalled ? diagnosis.findings[0] : undefined,
      problem: problem === undefined ? undefined : oneLine(problem),
      done: model.phase === 'complete' && (!this.options.drained || model.drained),
    };
    // a new problem (API server gone, watch forbidden) is news too, even when the model stands still
    const key = JSON.stringify(update);
    if (key === this.last) return;
    this.last = key;
    this.options.onUpdate(update);
  }
}

function readError(err: unknown): Read<never>['error'] {
  if (err === undefined || err === null) return undefined;
  const kind = typeof err === 'object' && 'kind' in err ? String(err.kind) : 'Error';
  return { kind, message: oneLine(err) };
}
