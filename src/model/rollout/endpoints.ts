import type { EndpointSlice, Pod, Service } from '../../types/kube.ts';
import { servicesSelecting } from '../services.ts';

export interface EndpointView {
  service: string;
  slice: string;
  /** nil ready/serving read as true, nil terminating as false (EndpointSlice API) */
  ready: boolean;
  serving: boolean;
  terminating: boolean;
}

export interface PodEndpoints {
  /** Services of the namespace whose selector selects the pod */
  services: string[];
  /** the pod's endpoint in each selecting Service's slices (none: not listed) */
  endpoints: EndpointView[];
}

const SERVICE_LABEL = 'kubernetes.io/service-name';

type Indexed = { order: number; view: EndpointView };

/**
 * The endpoints of Services' slices by the pod their targetRef names — `uid <ns>/<uid>`, or `name <ns>/<name>` for a
 * reference without uid — in slice order, indexed once per slice list: every pod of a rollout looks itself up.
 */
const endpointIndex = new WeakMap<EndpointSlice[], Map<string, Indexed[]>>();

function indexOf(slices: EndpointSlice[]): Map<string, Indexed[]> {
  let index = endpointIndex.get(slices);
  if (index) return index;
  index = new Map();
  let order = 0;
  for (const slice of slices) {
    const service = slice.metadata.labels?.[SERVICE_LABEL];
    if (!service) continue;
    for (const ep of slice.endpoints ?? []) {
      const ref = ep.targetRef;
      if (ref?.kind !== 'Pod') continue;
      const key = ref.uid
        ? `uid ${slice.metadata.namespace}/${ref.uid}`
        : `name ${slice.metadata.namespace}/${ref.name}`;
      const c = ep.conditions ?? {};
      const entry = {
        order: order++,
        view: {
          service,
          slice: slice.metadata.name,
          ready: c.ready ?? true,
          serving: c.serving ?? true,
          terminating: c.terminating ?? false,
        },
      };
      const list = index.get(key);
      if (list) list.push(entry);
      else index.set(key, [entry]);
    }
  }
  endpointIndex.set(slices, index);
  return index;
}

/** Where a pod stands in its Services' EndpointSlices, matched by targetRef uid (or name) — never by IP alone. */
export function podEndpoints(pod: Pod, services: Service[], slices: EndpointSlice[]): PodEndpoints {
  const selecting = servicesSelecting(services, pod.metadata.labels).map((s) => s.metadata.name);
  const index = indexOf(slices);
  const { namespace, uid, name } = pod.metadata;
  const byUid = uid ? (index.get(`uid ${namespace}/${uid}`) ?? []) : [];
  const byName = index.get(`name ${namespace}/${name}`) ?? [];
  const found =
    byUid.length && byName.length
      ? [...byUid, ...byName].sort((a, b) => a.order - b.order)
      : byUid.length
        ? byUid
        : byName;
  return { services: selecting, endpoints: found.map((e) => ({ ...e.view })) };
}
