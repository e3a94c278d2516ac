import type { KubeObject, RolloutTarget } from '../../types/kube.ts';
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
 * One snapshot per workload from lists read for several at once: its namespace's Services, EndpointSlices and
 * Events, and the ReplicaSets, pods and claims its selector selects — the same rule as the API server's label
 * selection, so a workload sees what a list by its own selector would have returned, whatever wider list they came
 * from. A StatefulSet's claims carry the matchLabels of its selector only (rolloutQueries), and are picked by those.
 */
export function splitRollouts(targets: RolloutTarget[], lists: RolloutLists): RolloutSnapshot[] {
  const replicaSets = byNamespace(lists.replicaSets);
  const pods = byNamespace(lists.pods);
  const services = byNamespace(lists.services);
  const slices = byNamespace(lists.slices);
  const events = byNamespace(lists.events);
  const claims = byNamespace(lists.claims);
  return targets.map((workload) => {
    const ns = workload.metadata.namespace ?? '';
    const selected = <T extends KubeObject>(items: T[] | undefined, selector = workload.spec.selector) =>
      (items ?? []).filter((o) => selectorMatches(selector, o.metadata.labels));
    return {
      workload,
      // the ReplicaSets and claims of its selector: its kind's module takes those it owns (a Deployment's
      // ReplicaSets, a StatefulSet's claims, named after its claim templates)
      replicaSets: selected(replicaSets.get(ns)),
      claims: selected(claims.get(ns), { matchLabels: workload.spec.selector.matchLabels ?? {} }),
      pods: selected(pods.get(ns)),
      services: services.get(ns) ?? [],
      slices: slices.get(ns) ?? [],
      events: events.get(ns) ?? [],
      haptic: lists.haptic,
    };
  });
}
