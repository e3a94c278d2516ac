import type { HapticInputs, RolloutLists } from '../types/snapshot.ts';
import type { KubeClient } from './client.ts';
import { loadHaptic } from './haptic-snapshot.ts';
import { R } from './resources.ts';
import { fetchAll, type Fetched, type Query } from './snapshot.ts';
import type { Deployment, EndpointSlice, KubeEvent, KubeObject, Pod, ReplicaSet, Service } from '../types/kube.ts';
import { unionSelector } from './selector-query.ts';
import { trimEvent, trimObject, trimPod, trimSlice } from './trim.ts';

/** The lists behind the rollouts of some Deployments (HAPTIC's are loadHaptic's): one query per kind, whatever their number. */
export interface RolloutQueries {
  /** the Deployments themselves, for informers (one-shot commands have them already) */
  deployments: Query;
  replicaSets: Query;
  pods: Query;
  services: Query;
  slices: Query;
  /** Warning events of anything: every event a rule reads is one (FailedScheduling, Unhealthy, BackOff, Failed, FailedCreate) */
  warnings: Query;
  /** the Deployments' own Normal events (ScalingReplicaSet), which the model lists beside the warnings */
  deploymentEvents: Query;
}

/**
 * What to list for these Deployments, in a number of requests that depends on neither their number nor the pods
 * around them (each list is paged by 500, pager.ts):
 *
 * - ReplicaSets and pods by label selector, cluster-side: one Deployment's own selector (matchExpressions included),
 *   or for several the tightest selector covering all of theirs (unionSelector), each Deployment then keeping its
 *   own (model/rollout-inputs.ts). When theirs share no key there is no cover, and the whole namespace (or cluster)
 *   is listed and filtered on arrival instead: the same one request per page, only more bytes.
 * - One namespace: its lists. Several: one cluster-wide list per kind. Lists per namespace would send fewer bytes
 *   when the targets sit in a few namespaces of a big cluster, but their number grows with the namespaces (200
 *   requests per kind for -A over 200 namespaces, against kubectl's one); cluster-wide, selected by the cover, a
 *   list carries little more than the targets' own objects, in one request per 500.
 * - Events: not the namespace's every event, which grow with every pod scheduled, pulled, started or killed in the
 *   last hour (the API server keeps events an hour), but its Warning events and the Deployments' own.
 *
 * `deploymentSelector` is -l, for the Deployments' informer when there are several.
 */
export function rolloutQueries(deployments: Deployment[], deploymentSelector?: string): RolloutQueries {
  const namespaces = new Set(deployments.map((d) => d.metadata.namespace ?? ''));
  const namespace = namespaces.size === 1 ? [...namespaces][0] : undefined;
  const labelSelector = unionSelector(deployments.map((d) => d.spec.selector));
  const one = deployments.length === 1 ? deployments[0]!.metadata.name : undefined;
  return {
    deployments: {
      resource: R.deployments,
      namespace,
      ...(one ? { fieldSelector: `metadata.name=${one}` } : { labelSelector: deploymentSelector }),
      trim: trimObject,
    },
    replicaSets: { resource: R.replicasets, namespace, labelSelector, trim: trimObject },
    pods: { resource: R.pods, namespace, labelSelector, trim: trimPod },
    ...scopeQueries(namespace, one),
  };
}

type ScopeQueries = Pick<RolloutQueries, 'services' | 'slices' | 'warnings' | 'deploymentEvents'>;

/**
 * The lists that depend only on where the Deployments are and, for one, its name — not on their selectors — so a
 * command that names its Deployments can send them before it has read them (prefetchRollouts).
 */
function scopeQueries(namespace: string | undefined, one: string | undefined): ScopeQueries {
  return {
    services: { resource: R.services, namespace, trim: trimObject },
    slices: { resource: R.endpointslices, namespace, trim: trimSlice },
    warnings: { resource: R.events, namespace, fieldSelector: 'type=Warning', optional: true, trim: trimEvent },
    deploymentEvents: {
      resource: R.events,
      namespace,
      fieldSelector: `type=Normal,involvedObject.kind=Deployment${one ? `,involvedObject.name=${one}` : ''}`,
      optional: true,
      trim: trimEvent,
    },
  };
}

/** Lists sent before the Deployments they are for have been read (prefetchRollouts). */
export interface RolloutPrefetch {
  scope: Promise<Record<keyof ScopeQueries, Fetched<KubeObject>>>;
  haptic: Promise<HapticInputs>;
}

/**
 * For Deployments named in one namespace: HAPTIC's objects and the lists that do not need their selectors, sent at
 * once, beside the GETs of the Deployments themselves, instead of one round after them — the same requests
 * rolloutQueries makes for these names, a round trip sooner. Their failures wait for loadRollouts to be asked: a
 * Deployment that turns out missing is the error reported, as before.
 */
export function prefetchRollouts(client: KubeClient, namespace: string, names: string[]): RolloutPrefetch {
  const early: RolloutPrefetch = {
    scope: fetchAll(client, scopeQueries(namespace, names.length === 1 ? names[0] : undefined)),
    haptic: loadHaptic(client),
  };
  // settled unread when the command stops at a missing Deployment
  early.scope.catch(() => {});
  early.haptic.catch(() => {});
  return early;
}

/**
 * Everything the rollout model needs for some Deployments, in one parallel round: rolloutQueries' lists and
 * HAPTIC's objects, or what of them prefetchRollouts sent already for these Deployments. Events are optional: a
 * user who may not list them gets the rest.
 */
export async function loadRollouts(
  client: KubeClient,
  deployments: Deployment[],
  early?: RolloutPrefetch,
): Promise<RolloutLists> {
  const q = rolloutQueries(deployments);
  const [selected, scope, haptic] = await Promise.all([
    fetchAll(client, { replicaSets: q.replicaSets, pods: q.pods }),
    early?.scope ??
      fetchAll(client, {
        services: q.services,
        slices: q.slices,
        warnings: q.warnings,
        deploymentEvents: q.deploymentEvents,
      }),
    early?.haptic ?? loadHaptic(client),
  ]);
  const lists = { ...selected, ...scope };
  return {
    replicaSets: lists.replicaSets.items as ReplicaSet[],
    pods: lists.pods.items as Pod[],
    services: lists.services.items as Service[],
    slices: lists.slices.items as EndpointSlice[],
    events: [...lists.warnings.items, ...lists.deploymentEvents.items] as KubeEvent[],
    haptic,
  };
}
