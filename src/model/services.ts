import type { Service } from '../kube/types.ts';
import { mapSelects, selectorMismatches } from './selectors.ts';

export interface NearMiss {
  service: string;
  mismatches: { key: string; want: string; have: string | undefined }[];
}

/** Services of the namespace whose selector selects these labels (a Service without a selector selects nothing). */
export function servicesSelecting(services: Service[], labels: Record<string, string> | undefined): Service[] {
  return services.filter((s) => mapSelects(s.spec.selector, labels));
}

/** Services whose selector misses the labels by one key: likely a typo or a stale label. */
export function nearMisses(services: Service[], labels: Record<string, string> | undefined): NearMiss[] {
  return services
    .filter((s) => s.spec.selector && Object.keys(s.spec.selector).length > 0)
    .map((s) => ({ service: s.metadata.name, mismatches: selectorMismatches(s.spec.selector as Record<string, string>, labels) }))
    .filter((m) => m.mismatches.length === 1);
}
