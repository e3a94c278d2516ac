// Small shared helpers for the stand-ins: object shapes, time formats, hashing, logging.
import { createHash } from 'node:crypto';

/** A Kubernetes object as plain JSON. */
export type Obj = {
  apiVersion?: string;
  kind?: string;
  metadata: {
    name: string;
    namespace?: string;
    uid?: string;
    resourceVersion?: string;
    generation?: number;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    deletionTimestamp?: string;
    finalizers?: string[];
    [key: string]: unknown;
  };
  [key: string]: any;
};

export type Condition = {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastProbeTime?: string | null;
  [key: string]: unknown;
};

/** The readiness gate HAPTIC writes (kept in one place). */
export const GATE_CONDITION = 'haproxy-haptic.org/load-balancer-ready';

/** Prefix of the per-pod test annotations the node stand-in reads. */
export const STANDIN_ANNOTATION = 'standin.kubectl-haptic.dev';

/** RFC 3339 with seconds precision, as metav1.Time serialises. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** RFC 3339 with microseconds, as metav1.MicroTime serialises (Leases, Event.eventTime). */
export function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/Z$/, '000Z');
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Structural equality of JSON values (key order does not matter). */
export function jsonEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a).filter((k) => (a as any)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as any)[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => jsonEqual((a as any)[k], (b as any)[k]));
}

export function findCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((c) => c.type === type);
}

export function log(component: string, message: string): void {
  process.stderr.write(`${new Date().toISOString()} [${component}] ${message}\n`);
}

export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** An informer's onError for the stand-ins' log: what failed and when it lists again. */
export function informerLog(name: string): (error: unknown, retryInMs: number) => void {
  return (error, retryInMs) => log('informer', `${name}: ${errorText(error)}; re-listing in ${retryInMs} ms`);
}

export const sleep = (ms: number, signal?: AbortSignal): Promise<void> =>
  new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
