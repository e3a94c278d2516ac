import { CATALOGUE, severityOf, type FindingId } from './catalogue.ts';
import type { CatalogueEntry, Finding, FindingArgs } from '../types/finding.ts';

/**
 * Builds a finding whose severity comes from the catalogue (by id, or by id and form where the catalogue says so),
 * so a rule cannot disagree with the registry.
 */
export function finding(
  id: FindingId,
  args: FindingArgs,
  evidence: string[],
  options: { variant?: string | undefined; pod?: string | undefined } = {},
): Finding {
  return {
    id,
    severity: severityOf(CATALOGUE[id] as CatalogueEntry, options.variant),
    args,
    ...(options.variant === undefined ? {} : { variant: options.variant }),
    evidence,
    ...(options.pod === undefined ? {} : { pod: options.pod }),
  };
}
