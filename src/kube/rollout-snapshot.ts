import type { HapticInputs, RolloutLists } from '../types/snapshot.ts';
import type { KubeClient } from './client.ts';
import { loadHaptic } from './haptic-snapshot.ts';
import { R, WORKLOAD_KINDS, WORKLOAD_OWNS_REPLICASETS, workloadResource } from './resources.ts';
import { fetchAll, type Fetched, type Query } from './snapshot.ts';
import type {
  EndpointSlice,
  KubeEvent,
  KubeObject,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  RolloutTarget,
  Service,
  TargetName,
} from '../types/kube.ts';
import { unionSelector } from './selector-query.ts';
import { trimEvent, trimObject, trimPod, trimSlice } from './trim.ts';

/** The lists behind the rollouts of some workloads (HAPTIC's are loadHaptic's): one query per kind, whatever their number. */
export interface RolloutQueries {
  /** the workloads themselves, by kind, for informers (one-shot commands have them already) */
  workloads: Partial<Record<RolloutTarget['kind'], Query>>;
  /** the Deployments' ReplicaSets: asked for only when there are Deployments */
  replicaSets?: Query | undefined;
  pods: Query;
  services: Query;
  slices: Query;
  /** Warning events of anything: every event a rule reads is one (FailedScheduling, Unhealthy, BackOff, Failed, FailedCreate) */
  warnings: Query;
  /** the workloads' own Normal events (ScalingReplicaSet, SuccessfulCreate…), one query per kind */
  workloadEvents: Query[];
  /** PersistentVolumeClaims, for StatefulSets with volumeClaimTemplates: a Pending claim holds a pod back */
  claims?: Query | undefined;
  /**
   * The claims' Normal events: the persistentvolume controller says a claim finds no volume and no StorageClass in a
   * Normal event (pv_controller.go, FailedBinding); what else it says of claims is a Warning, read with the others
   */
  claimEvents?: Query | undefined;
}

/**
 * What to list for these workloads, in a number of requests that depends on neither their number nor the pods
 * around them (each list is paged by 500, pager.ts):
 *
 * - ReplicaSets and pods by label selector, cluster-side: one workload's own selector (matchExpressions included),
 *   or for several the tightest selector covering all of theirs (unionSelector), each workload then keeping its
 *   own (model/rollout/inputs.ts). When theirs share no key there is no cover, and the whole namespace (or cluster)
 *   is listed and filtered on arrival instead: the same one request per page, only more bytes.
 * - One namespace: its lists. Several: one cluster-wide list per kind. Lists per namespace would send fewer bytes
 *   when the targets sit in a few namespaces of a big cluster, but their number grows with the namespaces (200
 *   requests per kind for -A over 200 namespaces, against kubectl's one); cluster-wide, selected by the cover, a
 *   list carries little more than the targets' own objects, in one request per 500.
 * - Events: not the namespace's every event, which grow with every pod scheduled, pulled, started or killed in the
 *   last hour (the API server keeps events an hour), but its Warning events and the workloads' own.
 * - Claims: a StatefulSet's controller labels the claims it creates with the matchLabels of its selector
 *   (kubernetes/pkg/controller/statefulset/stateful_set_utils.go, getPersistentVolumeClaims), so they are selected
 *   by those.
 *
 * `selector` is -l, for the workloads' informers when there are several.
 */
export function rolloutQueries(targets: RolloutTarget[], selector?: string): RolloutQueries {
  const namespaces = new Set(targets.map((d) => d.metadata.namespace ?? ''));
  const namespace = namespaces.size === 1 ? [...namespaces][0] : undefined;
  const labelSelector = unionSelector(targets.map((d) => d.spec.selector));
  const one = targets.length === 1 ? targets[0]! : undefined;
  const kinds = new Set(targets.map((t) => t.kind));
  const workloads = Object.fromEntries(
    [...kinds].map((kind): [RolloutTarget['kind'], Query] => [
      kind,
      {
        resource: workloadResource(kind),
        namespace,
        ...(one ? { fieldSelector: `metadata.name=${one.metadata.name}` } : { labelSelector: selector }),
        trim: trimObject,
      },
    ]),
  );
  // only a StatefulSet has claim templates; only a Deployment rolls through ReplicaSets
  const claimed = targets.filter((t) => 'volumeClaimTemplates' in t.spec && t.spec.volumeClaimTemplates?.length);
  const replicaSets = targets.some((t) => WORKLOAD_OWNS_REPLICASETS[t.kind]);
  return {
    workloads,
    replicaSets: replicaSets ? { resource: R.replicasets, namespace, labelSelector, trim: trimObject } : undefined,
    pods: { resource: R.pods, namespace, labelSelector, trim: trimPod },
    claims: claimed.length
      ? {
          resource: R.persistentvolumeclaims,
          namespace,
          labelSelector: unionSelector(claimed.map((t) => ({ matchLabels: t.spec.selector.matchLabels ?? {} }))),
          optional: true,
          trim: trimObject,
        }
      : undefined,
    claimEvents: claimed.length
      ? {
          resource: R.events,
          namespace,
          fieldSelector: 'type=Normal,involvedObject.kind=PersistentVolumeClaim',
          optional: true,
          trim: trimEvent,
        }
      : undefined,
    ...scopeQueries(namespace, one, new Set(targets.map((t) => t.kind))),
  };
}

type ScopeQueries = Pick<RolloutQueries, 'services' | 'slices' | 'warnings' | 'workloadEvents'>;

/**
 * The lists that depend only on where the workloads are, their kinds and, for one, its name — not on their
 * selectors — so a command that names its workloads can send them before it has read them (prefetchRollouts).
 */
function scopeQueries(
  namespace: string | undefined,
  one: TargetName | { metadata: { name: string } } | undefined,
  kinds: Set<RolloutTarget['kind'] | undefined>,
): ScopeQueries {
  const events = (fieldSelector: string): Query => ({
    resource: R.events,
    namespace,
    fieldSelector: `type=Normal,${fieldSelector}`,
    optional: true,
    trim: trimEvent,
  });
  const name = one && ('metadata' in one ? one.metadata.name : one.name);
  return {
    services: { resource: R.services, namespace, trim: trimObject },
    slices: { resource: R.endpointslices, namespace, trim: trimSlice },
    warnings: { resource: R.events, namespace, fieldSelector: 'type=Warning', optional: true, trim: trimEvent },
    // a field selector has no "or": one query per kind; for one workload, its name (of either kind: a name given
    // bare is sent before its kind is known, and the model keeps the events of its own kind)
    workloadEvents: [
      ...(one
        ? [events(`involvedObject.name=${name}`)]
        : WORKLOAD_KINDS.filter((k) => kinds.has(k) || kinds.has(undefined)).map((k) =>
            events(`involvedObject.kind=${k}`),
          )),
      // the kubelet says a liveness probe restarted a container only in a Normal Killing event
      // (pkg/kubelet/kuberuntime/kuberuntime_container.go killContainer, events.KillingContainer)
      events('reason=Killing'),
    ],
  };
}

/** Lists sent before the workloads they are for have been read (prefetchRollouts). */
export interface RolloutPrefetch {
  scope: Promise<Record<string, Fetched<KubeObject>>>;
  haptic: Promise<HapticInputs>;
}

/** The queries of a record of them and a list of them, as one record for fetchAll. */
function scopeRecord(q: ScopeQueries): Record<string, Query> {
  return {
    services: q.services,
    slices: q.slices,
    warnings: q.warnings,
    ...Object.fromEntries(q.workloadEvents.map((e, i) => [`events${i}`, e])),
  };
}

/**
 * For workloads named in one namespace: HAPTIC's objects and the lists that do not need their selectors, sent at
 * once, beside the GETs of the workloads themselves, instead of one round after them — the same requests
 * rolloutQueries makes for these names, a round trip sooner. Their failures wait for loadRollouts to be asked: a
 * workload that turns out missing is the error reported, as before.
 */
export function prefetchRollouts(client: KubeClient, namespace: string, names: TargetName[]): RolloutPrefetch {
  const kinds = new Set(names.map((n) => n.kind));
  const early: RolloutPrefetch = {
    scope: fetchAll(client, scopeRecord(scopeQueries(namespace, names.length === 1 ? names[0] : undefined, kinds))),
    haptic: loadHaptic(client),
  };
  // settled unread when the command stops at a missing workload
  early.scope.catch(() => {});
  early.haptic.catch(() => {});
  return early;
}

/**
 * Everything the rollout model needs for some workloads, in one parallel round: rolloutQueries' lists and HAPTIC's
 * objects, or what of them prefetchRollouts sent already for these workloads. Events and claims are optional: a
 * user who may not list them gets the rest.
 */
export async function loadRollouts(
  client: KubeClient,
  targets: RolloutTarget[],
  early?: RolloutPrefetch,
): Promise<RolloutLists> {
  const q = rolloutQueries(targets);
  const [selected, scope, haptic] = await Promise.all([
    fetchAll(client, {
      pods: q.pods,
      ...(q.replicaSets && { replicaSets: q.replicaSets }),
      ...(q.claims && { claims: q.claims }),
      ...(q.claimEvents && { claimEvents: q.claimEvents }),
    } as Record<string, Query>),
    early?.scope ?? fetchAll(client, scopeRecord(q)),
    early?.haptic ?? loadHaptic(client),
  ]);
  const events = Object.entries(scope)
    .filter(([key]) => key === 'warnings' || key.startsWith('events'))
    .flatMap(([, f]) => f.items);
  return {
    replicaSets: (selected.replicaSets?.items ?? []) as ReplicaSet[],
    pods: selected.pods!.items as Pod[],
    services: scope.services!.items as Service[],
    slices: scope.slices!.items as EndpointSlice[],
    events: [...events, ...(selected.claimEvents?.items ?? [])] as KubeEvent[],
    claims: (selected.claims?.items ?? []) as PersistentVolumeClaim[],
    haptic,
  };
}
