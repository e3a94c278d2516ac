import type { Service } from '../types/kube.ts';
import { mapSelects, selectorMismatches } from './selectors.ts';
import { editDistance } from '../lib/suggest.ts';

export interface NearMiss {
  service: string;
  mismatches: { key: string; want: string; have: string | undefined }[];
}

/** Services of the namespace whose selector selects these labels (a Service without a selector selects nothing). */
export function servicesSelecting(services: Service[], labels: Record<string, string> | undefined): Service[] {
  return services.filter((s) => mapSelects(s.spec.selector, labels));
}

/**
 * Services whose selector almost selects the labels: exactly one key differs, and either the selector has other keys
 * that match or the two values are a typo apart (edit distance ≤ 2). A selector for another app is not a near miss.
 */
export function nearMisses(services: Service[], labels: Record<string, string> | undefined): NearMiss[] {
  return services
    .filter((s) => s.spec.selector && Object.keys(s.spec.selector).length > 0)
    .map((s) => ({
      service: s.metadata.name,
      size: Object.keys(s.spec.selector ?? {}).length,
      mismatches: selectorMismatches(s.spec.selector as Record<string, string>, labels),
    }))
    .filter(
      (m) =>
        m.mismatches.length === 1 &&
        (m.size > 1 || editDistance(m.mismatches[0]!.want, m.mismatches[0]!.have ?? '') <= 2),
    )
    .map(({ service, mismatches }) => ({ service, mismatches }));
}
