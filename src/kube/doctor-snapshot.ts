import type { DoctorInputs, HelmHistoryInput, UnreadList } from '../types/doctor.ts';
import type {
  ConfigMap,
  Deployment,
  EndpointSlice,
  HorizontalPodAutoscaler,
  KubeEvent,
  KubeObject,
  Pod,
  PodDisruptionBudget,
  Secret,
  Service,
  StatefulSet,
  Workload,
} from '../types/kube.ts';
import type { KubeClient } from './client.ts';
import { loadHaptic } from './haptic-snapshot.ts';
import { R } from './resources.ts';
import { labelSelectorQuery } from './selector-query.ts';
import { fetchAll, fetchQuery, type Fetched } from './snapshot.ts';

export interface DoctorScope {
  /** Deployments and StatefulSets, each with its kind */
  targets: Workload[];
  /** Helm releases whose revision Secrets to read (--helm-history) */
  helmReleases?: { release: string; namespace: string }[] | undefined;
}

const OPTIONAL: Record<UnreadList, string> = {
  pdbs: 'poddisruptionbudgets',
  hpas: 'horizontalpodautoscalers',
  events: 'events',
  configMaps: 'configmaps',
  statefulSets: 'statefulsets',
};

/**
 * Everything the doctor reads around some Deployments, in one parallel round of list calls (never a request per
 * pod): per namespace its Deployments, StatefulSets, Services, EndpointSlices, PodDisruptionBudgets, autoscalers,
 * ConfigMaps and Events; per target its pods (by its selector); HAPTIC's objects; with --helm-history, each
 * release's revision Secrets (by Helm's labels). Lists a user may not read are reported, not fatal.
 */
export async function loadDoctor(client: KubeClient, scope: DoctorScope): Promise<DoctorInputs> {
  const namespaces = [...new Set(scope.targets.map((d) => d.metadata.namespace ?? ''))];
  const perNamespace = (namespace: string) =>
    fetchAll(client, {
      deployments: { resource: R.deployments, namespace },
      services: { resource: R.services, namespace },
      slices: { resource: R.endpointslices, namespace },
      statefulSets: { resource: R.statefulsets, namespace, optional: true },
      pdbs: { resource: R.poddisruptionbudgets, namespace, optional: true },
      hpas: { resource: R.horizontalpodautoscalers, namespace, optional: true },
      configMaps: { resource: R.configmaps, namespace, optional: true },
      events: { resource: R.events, namespace, optional: true },
    });
  const podsOf = (d: Workload) =>
    fetchQuery<Pod>(client, {
      resource: R.pods,
      namespace: d.metadata.namespace,
      labelSelector: labelSelectorQuery(d.spec.selector),
    });
  const helmOf = async ({ release, namespace }: { release: string; namespace: string }): Promise<HelmHistoryInput> => {
    const { secrets } = await fetchAll(client, {
      secrets: { resource: R.secrets, namespace, labelSelector: `owner=helm,name=${release}`, optional: true },
    });
    return { release, namespace, secrets: secrets as Fetched<Secret> };
  };
  const [lists, pods, haptic, helm] = await Promise.all([
    Promise.all(namespaces.map(perNamespace)),
    Promise.all(scope.targets.map(podsOf)),
    loadHaptic(client),
    scope.helmReleases ? Promise.all(scope.helmReleases.map(helmOf)) : Promise.resolve(undefined),
  ]);
  const items = <T>(key: keyof (typeof lists)[number]) =>
    lists.flatMap((l) => l[key].items as KubeObject[]) as unknown as T[];
  const unread: Partial<Record<UnreadList, string>> = {};
  lists.forEach((l, i) => {
    for (const key of Object.keys(OPTIONAL) as UnreadList[]) {
      const error = l[key].error;
      if (error) unread[key] = `cannot list ${OPTIONAL[key]} in namespace ${namespaces[i]}: ${error.message}`;
    }
  });
  return {
    mode: 'live',
    targets: scope.targets,
    deployments: items<Deployment>('deployments'),
    statefulSets: items<StatefulSet>('statefulSets'),
    services: items<Service>('services'),
    slices: items<EndpointSlice>('slices'),
    pdbs: items<PodDisruptionBudget>('pdbs'),
    hpas: items<HorizontalPodAutoscaler>('hpas'),
    configMaps: items<ConfigMap>('configMaps'),
    events: items<KubeEvent>('events'),
    pods: pods.flat(),
    haptic,
    helm,
    sources: {},
    notes: [],
    unread,
  };
}
