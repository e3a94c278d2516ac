// Readiness probes as the kubelet runs them (pkg/kubelet/prober/worker.go; "Configure Liveness, Readiness and
// Startup Probes", kubernetes.io/docs/tasks/configure-pod-container/configure-liveness-readiness-startup-probes/):
// - the first probe runs initialDelaySeconds after the container started, then one every periodSeconds;
// - a probe fails when it takes longer than timeoutSeconds; HTTP succeeds on a status from 200 to 399, TCP when
//   the connection opens, exec when the command exits 0;
// - readiness starts False, and the result only changes after successThreshold successes (failureThreshold
//   failures) in a row;
// - defaults: periodSeconds 10, timeoutSeconds 1, successThreshold 1, failureThreshold 3, initialDelaySeconds 0;
// - a container without a readiness probe is ready once it runs.
import { request } from 'node:http';
import { connect } from 'node:net';

export type ProbeTiming = {
  initialDelayMs: number;
  periodMs: number;
  timeoutMs: number;
  successThreshold: number;
  failureThreshold: number;
};

export type Handler =
  | { kind: 'http'; path: string; port: number | string; host?: string; headers: Record<string, string> }
  | { kind: 'tcp'; port: number | string; host?: string }
  | { kind: 'exec'; command: string[] };

export type ProbeSpec = ProbeTiming & { handler: Handler };

/** The result so far and the run of equal outcomes that leads to it. */
export type ProbeState = { ready: boolean; last?: boolean; run: number };

export const INITIAL: ProbeState = { ready: false, run: 0 };

type RawProbe = {
  httpGet?: { path?: string; port: number | string; host?: string; httpHeaders?: { name: string; value: string }[] };
  tcpSocket?: { port: number | string; host?: string };
  exec?: { command?: string[] };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  successThreshold?: number;
  failureThreshold?: number;
};

/** The probe of a container spec with the kubelet's defaults; undefined without one (or a handler the lab lacks). */
export function probeSpec(raw: RawProbe | undefined): ProbeSpec | undefined {
  if (!raw) return undefined;
  let handler: Handler | undefined;
  if (raw.httpGet) {
    const headers = Object.fromEntries((raw.httpGet.httpHeaders ?? []).map((h) => [h.name, h.value]));
    handler = {
      kind: 'http',
      path: raw.httpGet.path || '/',
      port: raw.httpGet.port,
      headers,
      ...(raw.httpGet.host ? { host: raw.httpGet.host } : {}),
    };
  } else if (raw.tcpSocket) {
    handler = { kind: 'tcp', port: raw.tcpSocket.port, ...(raw.tcpSocket.host ? { host: raw.tcpSocket.host } : {}) };
  } else if (raw.exec?.command?.length) {
    handler = { kind: 'exec', command: raw.exec.command };
  }
  if (!handler) return undefined;
  return {
    handler,
    initialDelayMs: (raw.initialDelaySeconds ?? 0) * 1000,
    periodMs: (raw.periodSeconds || 10) * 1000,
    timeoutMs: (raw.timeoutSeconds || 1) * 1000,
    successThreshold: raw.successThreshold || 1,
    failureThreshold: raw.failureThreshold || 3,
  };
}

/** The state after one probe outcome (worker.go: resultRun, and the thresholds before the result flips). */
export function probeStep(
  state: ProbeState,
  ok: boolean,
  spec: Pick<ProbeTiming, 'successThreshold' | 'failureThreshold'>,
): ProbeState {
  const run = state.last === ok ? state.run + 1 : 1;
  const threshold = ok ? spec.successThreshold : spec.failureThreshold;
  return { ready: run >= threshold ? ok : state.ready, last: ok, run };
}

/** A named port resolved against the container's ports, as the kubelet does (an unknown name fails the probe). */
export function resolvePort(
  port: number | string,
  ports: { name?: string; containerPort: number }[] | undefined,
): number | undefined {
  if (typeof port === 'number') return port;
  if (/^\d+$/.test(port)) return Number(port);
  return ports?.find((p) => p.name === port)?.containerPort;
}

/** Runs one probe from the node against the pod; resolves with success and the kubelet's words for a failure. */
export async function runProbe(
  handler: Handler,
  ctx: {
    podIP: string;
    ports: { name?: string; containerPort: number }[] | undefined;
    timeoutMs: number;
    exec: (argv: string[], timeoutMs: number) => Promise<number>;
  },
): Promise<{ ok: boolean; output: string }> {
  if (handler.kind === 'exec') {
    const code = await ctx.exec(handler.command, ctx.timeoutMs);
    return code === 0
      ? { ok: true, output: '' }
      : { ok: false, output: `command ${JSON.stringify(handler.command.join(' '))} exited with ${code}` };
  }
  const port = resolvePort(handler.port, ctx.ports);
  if (port === undefined) return { ok: false, output: `port ${handler.port} not found` };
  const host = handler.host ?? ctx.podIP;
  if (handler.kind === 'tcp') {
    return new Promise((resolve) => {
      const socket = connect({ host, port, timeout: ctx.timeoutMs });
      socket.once('connect', () => {
        socket.destroy();
        resolve({ ok: true, output: '' });
      });
      socket.once('timeout', () => {
        socket.destroy();
        resolve({ ok: false, output: `dial tcp ${host}:${port}: i/o timeout` });
      });
      socket.once('error', (error) => resolve({ ok: false, output: `dial tcp ${host}:${port}: ${dialError(error)}` }));
    });
  }
  return new Promise((resolve) => {
    const url = `http://${host}:${port}${handler.path}`;
    const req = request(
      url,
      {
        method: 'GET',
        headers: { 'user-agent': 'kube-probe/1.36', ...handler.headers },
        timeout: ctx.timeoutMs,
        agent: false,
      },
      (res) => {
        res.resume();
        const status = res.statusCode ?? 0;
        resolve(
          status >= 200 && status < 400
            ? { ok: true, output: '' }
            : { ok: false, output: `HTTP probe failed with statuscode: ${status}` },
        );
      },
    );
    req.once('timeout', () => req.destroy(new Error('timeout')));
    req.once('error', (error) => {
      const text =
        error.message === 'timeout'
          ? `context deadline exceeded (Client.Timeout exceeded while awaiting headers)`
          : `dial tcp ${host}:${port}: ${dialError(error)}`;
      resolve({ ok: false, output: `Get "${url}": ${text}` });
    });
    req.end();
  });
}

/** Go's wording of a dial error. */
function dialError(error: Error & { code?: string }): string {
  if (error.code === 'ECONNREFUSED') return 'connect: connection refused';
  if (error.code === 'EHOSTUNREACH') return 'connect: no route to host';
  return error.message;
}
