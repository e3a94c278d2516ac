// A finding: a stable id from the catalogue, the evidence that proves it (object names and exact field values),
// and a fix a person can act on. Rules emit findings; one formatter prints them.

export type Severity = 'blocker' | 'error' | 'warning' | 'info' | 'ok';

export interface Finding {
  id: string;
  severity: Severity;
  title: string;
  evidence: string[];
  fix?: string | undefined;
  /** the pod a per-pod finding is about; the same finding on many pods is reported once (see groupByPod) */
  pod?: string | undefined;
}
