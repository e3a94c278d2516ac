import { CATALOGUE, type FindingId } from './catalogue.ts';
import type { Finding } from './finding.ts';

/** Builds a finding whose severity comes from the catalogue, so a rule cannot disagree with the registry. */
export function finding(id: FindingId, title: string, evidence: string[], fix?: string): Finding {
  return { id, severity: CATALOGUE[id].severity, title, evidence, fix };
}
