// A finding: a stable id from the catalogue, the arguments its title and fix templates take, and the evidence that
// proves it (object names and exact field values). Rules emit findings; the catalogue (src/diagnose/catalogue.ts,
// entries of the shape below) turns them into text (describeFinding), and one module of src/ui prints them.

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
  /**
   * What the cluster says of how long the cause lasted, for a catalogue entry's `endsWait`: the restarts the kubelet
   * counted for the container at fault, and how much longer the pod's own spec (its probes) explains the state.
   */
  restarts?: number | undefined;
  withinMs?: number | undefined;
}

/**
 * When a finding ends `status --wait` with exit 1 before any deadline: it has been the workload's first finding for
 * `holdSeconds` without a break, past what the pod's own spec allows (Finding.withinMs), and, where `restarts` is
 * given and the finding counts restarts, its container restarted that often. A cause that clears sooner ends nothing.
 */
export interface WaitHold {
  holdSeconds: number;
  restarts?: number | undefined;
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

/**
 * A title or fix: text with `{name}` placeholders filled from the finding's args, or one such text per variant
 * (the rule names the variant). Placeholders are identifiers in braces, so JSON in a fix (`'{"spec":…}'`) is text.
 */
export type Template = string | Readonly<Record<string, string>>;

export interface CatalogueEntry {
  severity: Severity;
  /** for checks whose form decides how bad it is: the severity of a variant, where it differs from `severity` */
  severityOf?: Readonly<Record<string, Severity>>;
  /** one line: what the check finds (help, docs/checks.md) */
  summary: string;
  title: Template;
  fix?: Template | undefined;
  /**
   * What a doctor check needs beyond manifests: `cluster` (live state: pods, events, endpoints, HAPTIC) or
   * `helm-history` (a cluster and --helm-history). Without it a check runs on manifests (-f) and on a cluster alike.
   * The one place that says so: the doctor's runner, its "not run" list and docs/checks.md all read it.
   */
  needs?: 'cluster' | 'helm-history' | undefined;
  /**
   * Whether this finding ends a wait (status --wait, enable-gate --wait, drill) as a failure: the hold for every form,
   * or one per form (a form left out never ends one). Absent: only the progress deadline or --timeout do.
   */
  endsWait?: WaitHold | Readonly<Record<string, WaitHold>> | undefined;
}
