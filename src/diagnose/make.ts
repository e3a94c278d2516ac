import { CATALOGUE, type FindingId } from './catalogue.ts';
import type { Finding, FindingArgs } from './finding.ts';

/** Builds a finding whose severity comes from the catalogue, so a rule cannot disagree with the registry. */
export function finding(id: FindingId, args: FindingArgs, evidence: string[], options: { variant?: string | undefined; pod?: string | undefined } = {}): Finding {
  return { id, severity: CATALOGUE[id].severity, args, ...(options.variant === undefined ? {} : { variant: options.variant }), evidence, ...(options.pod === undefined ? {} : { pod: options.pod }) };
}
