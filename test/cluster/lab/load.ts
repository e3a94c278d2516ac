// The lab's load: HTTP GETs, each on a new connection (as curl or redis-cli run once per request, so a connection
// kept from before a change never hides it), counted by how they ended:
//   ok        an answer below 500 … that is a success (2xx, 3xx)
//   refused   the connection could not be made: refused, or no route to the address (curl exit 7)
//   reset     the connection was cut before a whole answer: reset by the peer, or closed without any answer
//             (curl exits 56 and 52)
//   timeout   no whole answer within the request timeout (curl exit 28)
//   http5xx   an answer with a 5xx status (a proxy's 502/503/504 when it had no server to give the request to)
//   other     anything else: a 4xx answer, another socket error
// Used by the lab's scenarios (in process) and by lab/probe.ts (the lab's imitation of drill's probe image).
import { request } from 'node:http';

export const OUTCOMES = ['ok', 'refused', 'reset', 'timeout', 'http5xx', 'other'] as const;
export type Outcome = (typeof OUTCOMES)[number];
export type Result = {
  seq: number;
  startedAt: number;
  endedAt: number;
  outcome: Outcome;
  status?: number;
  error?: string;
};
export type Counts = Record<Outcome, number> & { requests: number; failed: number };

/** What a Node socket error means, in the classes above. */
export function classifyError(code: string | undefined, message: string): Outcome {
  if (code === 'ECONNREFUSED' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'refused';
  if (code === 'ECONNRESET' || code === 'EPIPE' || message === 'socket hang up') return 'reset';
  if (code === 'ETIMEDOUT' || code === 'LAB_TIMEOUT') return 'timeout';
  return 'other';
}

export function classifyStatus(status: number): Outcome {
  if (status >= 500) return 'http5xx';
  return status >= 200 && status < 400 ? 'ok' : 'other';
}

/** One GET on a fresh connection; `host` is the Host header (HAProxy routes by it). Never rejects. */
export function get(
  url: string,
  opts: { host?: string; timeoutMs: number },
): Promise<{ outcome: Outcome; status?: number; error?: string }> {
  return new Promise((resolve) => {
    let settled = false;
    const done = (value: { outcome: Outcome; status?: number; error?: string }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(value);
    };
    const req = request(url, { method: 'GET', agent: false, headers: opts.host ? { host: opts.host } : {} }, (res) => {
      res.resume();
      res.on('end', () => done({ outcome: classifyStatus(res.statusCode ?? 0), status: res.statusCode ?? 0 }));
      res.on('error', (error: Error & { code?: string }) =>
        done({ outcome: classifyError(error.code, error.message), error: error.code ?? error.message }),
      );
    });
    const timer = setTimeout(() => {
      const error = Object.assign(new Error('timeout'), { code: 'LAB_TIMEOUT' });
      req.destroy(error);
    }, opts.timeoutMs);
    req.on('error', (error: Error & { code?: string }) =>
      done({ outcome: classifyError(error.code, error.message), error: error.code ?? error.message }),
    );
    req.end();
  });
}

export function count(results: Result[]): Counts {
  const counts = Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Counts;
  for (const r of results) counts[r.outcome]++;
  counts.requests = results.length;
  counts.failed = results.length - counts.ok;
  return counts;
}

/**
 * A steady load: `concurrency` loops, each sending one request, then waiting `intervalMs`, until stopped. Every
 * result is kept with its sequence number (in order of sending) and times.
 */
export class Load {
  readonly results: Result[] = [];
  private stopped = false;
  private seq = 0;
  private loops: Promise<void>[] = [];
  private readonly opts: {
    url: string;
    host?: string;
    concurrency: number;
    intervalMs: number;
    timeoutMs: number;
    onResult?: (r: Result) => void;
  };

  constructor(opts: {
    url: string;
    host?: string;
    concurrency: number;
    intervalMs: number;
    timeoutMs: number;
    onResult?: (r: Result) => void;
  }) {
    this.opts = opts;
  }

  start(): this {
    this.loops = Array.from({ length: this.opts.concurrency }, () => this.loop());
    return this;
  }

  /** Stops sending and resolves once the requests in flight have ended. */
  async stop(): Promise<Counts> {
    this.stopped = true;
    await Promise.all(this.loops);
    return count(this.results);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      const seq = ++this.seq;
      const startedAt = Date.now();
      const answer = await get(this.opts.url, {
        ...(this.opts.host ? { host: this.opts.host } : {}),
        timeoutMs: this.opts.timeoutMs,
      });
      const result: Result = { seq, startedAt, endedAt: Date.now(), ...answer };
      this.results.push(result);
      this.opts.onResult?.(result);
      if (this.opts.intervalMs > 0 && !this.stopped) await new Promise((r) => setTimeout(r, this.opts.intervalMs));
    }
  }
}
