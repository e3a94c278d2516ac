import type { RolloutSnapshot } from '../types/snapshot.ts';
import type { KubeClient } from './client.ts';
import { loadHaptic } from './haptic-snapshot.ts';
import { R } from './resources.ts';
import { fetchAll, fetchQuery } from './snapshot.ts';
import type { Deployment, EndpointSlice, KubeEvent, Pod, ReplicaSet, Service } from '../types/kube.ts';
import { labelSelectorQuery } from './selector-query.ts';

export interface RolloutScope {
  /** undefined: all namespaces */
  namespace: string | undefined;
  deployments: Deployment[];
}

/**
 * Everything the rollout model needs for some Deployments, in one parallel round: their ReplicaSets and pods
 * (scoped by each Deployment's selector), the namespace's Services, EndpointSlices and Events, and HAPTIC's
 * objects. The request count depends on the number of Deployments and namespaces, never on replicas.
 */
export async function loadRollouts(client: KubeClient, scope: RolloutScope): Promise<RolloutSnapshot[]> {
  const namespaces = [...new Set(scope.deployments.map((d) => d.metadata.namespace ?? ''))];
  const perNamespace = (ns: string) =>
    fetchAll(client, {
      services: { resource: R.services, namespace: ns },
      slices: { resource: R.endpointslices, namespace: ns },
      events: { resource: R.events, namespace: ns, optional: true },
    });
  const perDeployment = (d: Deployment) => {
    const labelSelector = labelSelectorQuery(d.spec.selector);
    const namespace = d.metadata.namespace;
    return Promise.all([
      fetchQuery<ReplicaSet>(client, { resource: R.replicasets, namespace, labelSelector }),
      fetchQuery<Pod>(client, { resource: R.pods, namespace, labelSelector }),
    ]);
  };
  const [nsData, deploymentData, haptic] = await Promise.all([
    Promise.all(namespaces.map(perNamespace)),
    Promise.all(scope.deployments.map(perDeployment)),
    loadHaptic(client),
  ]);
  return scope.deployments.map((deployment, i) => {
    const data = nsData[namespaces.indexOf(deployment.metadata.namespace ?? '')];
    const [replicaSets, pods] = deploymentData[i] ?? [[], []];
    return {
      deployment,
      replicaSets,
      pods,
      services: (data?.services.items ?? []) as Service[],
      slices: (data?.slices.items ?? []) as EndpointSlice[],
      events: (data?.events.items ?? []) as KubeEvent[],
      haptic,
    };
  });
}
