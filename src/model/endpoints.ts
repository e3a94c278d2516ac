import type { EndpointSlice, Pod, Service } from '../types/kube.ts';
import { servicesSelecting } from './services.ts';

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

/** Where a pod stands in its Services' EndpointSlices, matched by targetRef uid (or name) — never by IP alone. */
export function podEndpoints(pod: Pod, services: Service[], slices: EndpointSlice[]): PodEndpoints {
  const selecting = servicesSelecting(services, pod.metadata.labels).map((s) => s.metadata.name);
  const endpoints: EndpointView[] = [];
  for (const slice of slices) {
    const service = slice.metadata.labels?.[SERVICE_LABEL];
    if (!service || slice.metadata.namespace !== pod.metadata.namespace) continue;
    for (const ep of slice.endpoints ?? []) {
      const ref = ep.targetRef;
      const matches = ref?.kind === 'Pod' && (ref.uid ? ref.uid === pod.metadata.uid : ref.name === pod.metadata.name);
      if (!matches) continue;
      const c = ep.conditions ?? {};
      endpoints.push({ service, slice: slice.metadata.name, ready: c.ready ?? true, serving: c.serving ?? true, terminating: c.terminating ?? false });
    }
  }
  return { services: selecting, endpoints };
}
