// Suppression per workload: `kubectl-haptic.dev/ignore: "DR101,DR401"` on the workload or on its pod template (the
// two lists add up), or on the HAProxyTemplateConfig for HAPTIC's HAProxy tier. Suppressed findings stay in the report, marked, and do not
// count for the exit code; an id the doctor does not know is named in a note rather than silently ignored.
import type { SourceRef } from '../../types/doctor.ts';
import { DOCTOR_CATALOGUE } from './catalogue.ts';
import type { Located, ObjectRef } from './located.ts';
import { refName } from './located.ts';

export const IGNORE_ANNOTATION = 'kubectl-haptic.dev/ignore';

export interface DoctorFinding extends Located {
  /** why it does not count: the annotation that suppresses it */
  suppressed?: string | undefined;
  /** static mode: where the object the finding is about was written */
  source?: SourceRef | undefined;
}

/** The ids an annotation value lists, and the ones that are not doctor checks. */
export function ignoredIds(value: string | undefined): { ids: Set<string>; unknown: string[] } {
  const listed = (value ?? '')
    .split(/[\s,]+/)
    .map((s) => s.trim().toUpperCase())
    .filter(Boolean);
  return { ids: new Set(listed), unknown: listed.filter((id) => !(id in DOCTOR_CATALOGUE)) };
}

export function applySuppression(
  subject: ObjectRef,
  annotations: Record<string, string> | undefined,
  findings: Located[],
  notes: string[],
  templateAnnotations?: Record<string, string> | undefined,
): DoctorFinding[] {
  const own = annotations?.[IGNORE_ANNOTATION];
  const onTemplate = templateAnnotations?.[IGNORE_ANNOTATION];
  if (own === undefined && onTemplate === undefined) return findings;
  const { ids, unknown } = ignoredIds([own, onTemplate].filter((v) => v !== undefined).join(','));
  const where = `${refName(subject)} -n ${subject.namespace}`;
  if (unknown.length)
    notes.push(
      `${where}: annotation ${IGNORE_ANNOTATION} names ${unknown.join(', ')}, which ${unknown.length === 1 ? 'is' : 'are'} not a doctor check`,
    );
  return findings.map((f) =>
    ids.has(f.id)
      ? {
          ...f,
          suppressed: `annotation ${IGNORE_ANNOTATION} on ${refName(subject)}${ignoredIds(own).ids.has(f.id) ? '' : "'s pod template"}`,
        }
      : f,
  );
}
