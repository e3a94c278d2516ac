import type { Deployment, KubeObject } from '../../types/kube.ts';
import type { RolloutLists, RolloutSnapshot } from '../../types/snapshot.ts';
import { selectorMatches } from '../selectors.ts';

function byNamespace<T extends KubeObject>(items: T[]): Map<string, T[]> {
  const grouped = new Map<string, T[]>();
  for (const item of items) {
    const ns = item.metadata.namespace ?? '';
    const list = grouped.get(ns);
    if (list) list.push(item);
    else grouped.set(ns, [item]);
  }
  return grouped;
}

/**
 * One snapshot per Deployment from lists read for several at once: its namespace's Services, EndpointSlices and
 * Events, and the ReplicaSets and pods its selector selects — the same rule as the API server's label selection, so
 * a Deployment sees what a list by its own selector would have returned, whatever wider list they came from.
 */
export function splitRollouts(deployments: Deployment[], lists: RolloutLists): RolloutSnapshot[] {
  const replicaSets = byNamespace(lists.replicaSets);
  const pods = byNamespace(lists.pods);
  const services = byNamespace(lists.services);
  const slices = byNamespace(lists.slices);
  const events = byNamespace(lists.events);
  return deployments.map((deployment) => {
    const ns = deployment.metadata.namespace ?? '';
    const selected = <T extends KubeObject>(items: T[] | undefined) =>
      (items ?? []).filter((o) => selectorMatches(deployment.spec.selector, o.metadata.labels));
    return {
      deployment,
      replicaSets: selected(replicaSets.get(ns)),
      pods: selected(pods.get(ns)),
      services: services.get(ns) ?? [],
      slices: slices.get(ns) ?? [],
      events: events.get(ns) ?? [],
      haptic: lists.haptic,
    };
  });
}
