import type { Service } from '../../types/kube.ts';
import { formatSelector } from '../../model/selectors.ts';
import { nearMisses, servicesSelecting, type NearMiss } from '../../model/services.ts';

export interface ServiceSelection {
  selecting: Service[];
  misses: NearMiss[];
  /** the labels, the namespace's Services, and the near misses, as evidence lines */
  evidence: string[];
}

/**
 * Which Services select these labels, and when none does, the evidence a person needs: the labels, every Service of
 * the namespace with its selector (a selector-less one manages its EndpointSlices by hand), and the near misses.
 * `subject` names what carries the labels: the pod template (enable-gate) or a pod (why-stalled).
 */
export function serviceSelection(
  subject: 'pod' | 'template',
  labels: Record<string, string>,
  services: Service[],
  namespace: string,
): ServiceSelection {
  const selecting = servicesSelecting(services, labels);
  const misses = nearMisses(services, labels);
  const evidence = [`${subject === 'pod' ? 'pod labels' : 'pod template labels'}: ${formatSelector(labels)}`];
  const listed = services.map((s) =>
    s.spec.selector && Object.keys(s.spec.selector).length
      ? `${s.metadata.name} (${formatSelector(s.spec.selector)})`
      : `${s.metadata.name} (no selector: its EndpointSlices are managed by hand)`,
  );
  evidence.push(
    listed.length
      ? `Services in namespace ${namespace}: ${listed.join(', ')}`
      : `namespace ${namespace} has no Services`,
  );
  for (const miss of misses) {
    const m = miss.mismatches[0];
    if (m)
      evidence.push(
        `service/${miss.service} almost matches: it wants ${m.key}=${m.want}, the ${subject} has ${m.have === undefined ? `no ${m.key} label` : `${m.key}=${m.have}`}`,
      );
  }
  return { selecting, misses, evidence };
}
