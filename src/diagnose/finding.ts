// A finding: a stable id from the catalogue, the arguments its title and fix templates take, and the evidence that
// proves it (object names and exact field values). Rules emit findings; the catalogue turns them into text
// (describeFinding), and one module of src/ui prints them.

export type Severity = 'blocker' | 'error' | 'warning' | 'info' | 'ok';

/** Values for a catalogue entry's `{placeholders}`. */
export type FindingArgs = Record<string, string | number>;

export interface Finding {
  id: string;
  /** from the catalogue, never chosen by a rule */
  severity: Severity;
  args: FindingArgs;
  /** which of the entry's title/fix forms applies, for entries that have several */
  variant?: string | undefined;
  evidence: string[];
  /** the pod a per-pod finding is about; the same finding on many pods is reported once (see groupByPod) */
  pod?: string | undefined;
}

/** A finding as people and -o json|yaml read it. */
export interface FindingText {
  id: string;
  severity: Severity;
  title: string;
  evidence: string[];
  fix?: string | undefined;
  pod?: string | undefined;
  /** where the check is documented */
  docs: string;
}
