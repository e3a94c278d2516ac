// What one read of a HAProxy pod's master CLI gives (src/model/haptic/sessions.ts reads it).

/** One server row of one worker's `show stat`. */
export interface ServerStat {
  backend: string;
  server: string;
  /** ip:port, when the worker says (HAProxy ≥ 1.9) */
  addr?: string | undefined;
  scur: number;
  qcur: number;
  status: string;
  /** average total session time over the last 1024 sessions, ms (`ttime`) */
  ttimeMs?: number | undefined;
  /** responses that failed (`eresp`) or were aborted by the server (`srv_abrt`), since the worker started */
  failed: number;
  /** attempts retried elsewhere after this server failed them (`wretr`): cut or refused, the client never saw it */
  retried: number;
}

export interface WorkerReading {
  pid: number;
  /** an old worker, left after a reload, finishing its connections */
  leaving: boolean;
  servers?: ServerStat[] | undefined;
  /** why this worker could not be read (not registered with the master yet, gone meanwhile) */
  problem?: string | undefined;
}

/** One HAProxy pod, one read. */
export interface HAProxyReading {
  /** namespace/name of the HAProxy pod */
  pod: string;
  at: number;
  workers: WorkerReading[];
  /** why the pod could not be read at all */
  problem?: string | undefined;
  /** a problem that passes (a reload re-executes the master, which refuses connections meanwhile): not worth a note */
  transient?: boolean | undefined;
  /** a problem that will not pass by itself (no socat in the image, no master socket) */
  lasting?: boolean | undefined;
}
