import { buildHaptic, type HapticInputs } from '../model/haptic.ts';
import { rememberFirstRouted } from '../model/pod.ts';
import { buildRollout, type RolloutModel, type RolloutSnapshot } from '../model/rollout.ts';
import { formatSelector } from '../model/selectors.ts';
import { HAPTIC_PODS_SELECTOR } from '../haptic/names.ts';
import type { KubeClient } from './client.ts';
import { Informer, type InformerOptions } from './informer.ts';
import { R } from './resources.ts';
import type { Deployment, EndpointSlice, KubeEvent, Pod, ReplicaSet, Service } from './types.ts';

export interface LiveRolloutOptions {
  conditionType: string;
  onModel: (model: RolloutModel, snapshot: RolloutSnapshot) => void;
  /** a burst of events yields one recompute after this quiet time */
  debounceMs?: number;
  /** recompute without any event, for countdowns and lease staleness (no API request) */
  tickMs?: number;
  informer?: InformerOptions;
  now?: () => number;
}

/**
 * The status pipeline on a loop: informers (list + watch) keep one Deployment's objects and HAPTIC's current;
 * every event marks the snapshot dirty; one debounced recompute builds the model; it is emitted only when it changed.
 */
export class LiveRollout {
  private readonly informers: Informer[] = [];
  private readonly leaseInformers = new Map<string, Informer>();
  private readonly client: KubeClient;
  private readonly options: LiveRolloutOptions;
  private readonly deployment: Informer<Deployment>;
  private readonly parts: {
    replicaSets: Informer<ReplicaSet>;
    pods: Informer<Pod>;
    services: Informer<Service>;
    slices: Informer<EndpointSlice>;
    events: Informer<KubeEvent>;
    templateConfigs: Informer;
    haproxyCfgs: Informer;
    hapticPods: Informer<Pod>;
    clusterRoles: Informer;
    clusterRoleBindings: Informer;
  };
  private timer: NodeJS.Timeout | undefined;
  private ticker: NodeJS.Timeout | undefined;
  private last = '';
  private readonly firstRouted = new Map<string, number>();

  constructor(client: KubeClient, target: Deployment, options: LiveRolloutOptions) {
    this.client = client;
    this.options = options;
    const namespace = target.metadata.namespace;
    const labelSelector = formatSelector(target.spec.selector);
    const make = <T extends import('./types.ts').KubeObject>(query: ConstructorParameters<typeof Informer>[1]) => {
      const informer = new Informer<T>(client, query, () => this.dirty(), options.informer);
      this.informers.push(informer as unknown as Informer);
      return informer;
    };
    this.deployment = make<Deployment>({ resource: R.deployments, namespace, fieldSelector: `metadata.name=${target.metadata.name}` });
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
    for (const i of this.informers) i.start();
    this.ticker = setInterval(() => this.recompute(), this.options.tickMs ?? 1000);
  }

  stop(): void {
    clearTimeout(this.timer);
    clearInterval(this.ticker);
    for (const i of [...this.informers, ...this.leaseInformers.values()]) i.stop();
  }

  /** First error of an informer that is retrying (API server down, forbidden…), for the view to show. */
  problem(): unknown {
    return [...this.informers, ...this.leaseInformers.values()].find((i) => i.error)?.error;
  }

  private dirty(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.recompute(), this.options.debounceMs ?? 100);
  }

  private ensureLeaseInformers(): void {
    for (const htc of this.parts.templateConfigs.items()) {
      const ns = htc.metadata.namespace ?? '';
      if (this.leaseInformers.has(ns)) continue;
      const informer = new Informer(this.client, { resource: R.leases, namespace: ns }, () => this.dirty(), this.options.informer);
      this.leaseInformers.set(ns, informer);
      informer.start();
    }
  }

  private recompute(): void {
    this.ensureLeaseInformers();
    const deployment = this.deployment.items()[0];
    const ready = (i: Informer) => i.synced || i.error;
    if (!deployment || !this.informers.every(ready) || ![...this.leaseInformers.values()].every(ready)) return;
    const p = this.parts;
    const optional = <T>(i: Informer) => ({ items: i.items() as T[], error: i.synced ? undefined : (i.error as never) });
    const leases = [...this.leaseInformers.values()];
    const inputs: HapticInputs = {
      templateConfigs: optional(p.templateConfigs),
      haproxyCfgs: optional(p.haproxyCfgs),
      pods: optional(p.hapticPods),
      leases: { items: leases.flatMap((i) => i.items()) as never, error: leases.find((i) => !i.synced)?.error as never },
      clusterRoles: optional(p.clusterRoles),
      clusterRoleBindings: optional(p.clusterRoleBindings),
    };
    const now = (this.options.now ?? Date.now)();
    const haptic = buildHaptic(inputs, now);
    rememberFirstRouted(this.firstRouted, p.pods.items(), haptic.installations);
    const snapshot: RolloutSnapshot = { deployment, replicaSets: p.replicaSets.items(), pods: p.pods.items(), services: p.services.items(), slices: p.slices.items(), events: p.events.items(), haptic };
    const model = buildRollout(snapshot, now, this.options.conditionType, this.firstRouted);
    // a new problem (API server gone, watch forbidden) is news too, even when the model stands still
    const problem = this.problem();
    const json = JSON.stringify(model) + (problem instanceof Error ? problem.message : String(problem ?? ''));
    if (json === this.last) return;
    this.last = json;
    this.options.onModel(model, snapshot);
  }
}
