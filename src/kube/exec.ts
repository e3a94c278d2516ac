import type { KubeClient } from './client.ts';
import { R, resourcePath } from './resources.ts';

// `kubectl exec` without a terminal, as a conversation: the pods/exec subresource over a WebSocket speaking the
// channel protocol kubectl 1.30+ speaks (k8s.io/apimachinery/pkg/util/remotecommand, "v5.channel.k8s.io"): every
// binary message starts with its channel, 0 stdin, 1 stdout, 2 stderr, 3 the command's end as a metav1.Status;
// v5 adds 255, the client closing its stdin. The API server proxies it to the kubelet (or translates it to SPDY for a
// kubelet that does not declare ExtendWebSocketsToKubelet: pkg/registry/core/pod/rest/subresources.go).

export const EXEC_PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

const STDIN = 0;
const STDOUT = 1;
const STDERR = 2;
const ERROR = 3;
/** At most this much of stdout or stderr is kept: a conversation with a CLI never needs more; past it, `truncated`. */
export const MAX_OUTPUT = 4 * 1024 * 1024;

export interface ExecTarget {
  namespace: string;
  pod: string;
  container: string;
  command: string[];
}

/** How the command ended: the kubelet's Status on the error channel, or why the stream ended without one. */
export interface ExecEnd {
  stdout: string;
  stderr: string;
  /** the command exited 0 */
  ok: boolean;
  exitCode?: number | undefined;
  /** the Status's message, or why the exec failed before the command ran */
  message?: string | undefined;
  /** stdout or stderr went past MAX_OUTPUT and was cut there: what follows the cut is unknown */
  truncated: boolean;
}

export interface ExecSession {
  write(text: string): void;
  /**
   * Resolves with stdout so far once `test` holds; rejects when the command ends first or on the deadline. `test` is
   * given stdout so far, then each new piece of it (a test keeps what it needs of earlier pieces), so the work per
   * piece is the piece's, however long stdout grows.
   */
  until(test: (piece: string) => boolean): Promise<string>;
  readonly ended: Promise<ExecEnd>;
  close(): void;
}

/** The exit code of a NonZeroExitCode Status (details.causes[reason=ExitCode]). */
function exitCodeOf(status: {
  status?: string;
  reason?: string;
  details?: { causes?: { reason?: string; message?: string }[] };
}): number | undefined {
  if (status.status === 'Success') return 0;
  const cause = status.details?.causes?.find((c) => c.reason === 'ExitCode')?.message;
  return cause !== undefined && /^\d+$/.test(cause) ? Number(cause) : undefined;
}

/**
 * Runs a command in a container with stdin, stdout and stderr (no terminal). The session ends when the command does,
 * on close(), or after `deadlineMs`.
 */
export async function openExec(
  client: KubeClient,
  target: ExecTarget,
  options: { deadlineMs: number; signal?: AbortSignal | undefined },
): Promise<ExecSession> {
  // the one path builder of every request: a pod named `.` or `..` is refused, never sent as another URL
  const path = resourcePath(R.pods, { namespace: target.namespace, name: target.pod, subresource: 'exec' });
  const query: [string, string][] = [
    ['container', target.container],
    ['stdin', 'true'],
    ['stdout', 'true'],
    ['stderr', 'true'],
    ...target.command.map((c): [string, string] => ['command', c]),
  ];
  const ws = await client.webSocket(path, query, EXEC_PROTOCOLS, options.signal);
  ws.binaryType = 'arraybuffer';
  let stdout = '';
  let stderr = '';
  let truncated = false;
  let status: Record<string, unknown> | undefined;
  const decoders = [new TextDecoder(), new TextDecoder()];
  const waiters = new Set<{
    test: (piece: string) => boolean;
    resolve: (s: string) => void;
    reject: (e: Error) => void;
  }>();
  let finish!: (end: ExecEnd) => void;
  const ended = new Promise<ExecEnd>((resolve) => (finish = resolve));
  let end: ExecEnd | undefined;
  const settle = (why?: string) => {
    if (end) return;
    const code = status ? exitCodeOf(status) : undefined;
    // a Status said how the command ended: Success has no failure to tell, whatever closed the stream after it
    const message = status
      ? status.status !== 'Success'
        ? String(status.message ?? status.reason ?? '')
        : undefined
      : why;
    end = { stdout, stderr, ok: code === 0, exitCode: code, message, truncated };
    clearTimeout(timer);
    for (const w of waiters) w.reject(new Error(message || 'the command ended'));
    waiters.clear();
    finish(end);
  };
  const timer = setTimeout(() => {
    settle(`no end within ${options.deadlineMs} ms`);
    ws.close();
  }, options.deadlineMs);
  options.signal?.addEventListener('abort', () => ws.close(), { once: true });
  let opened = false;
  ws.addEventListener('open', () => {
    opened = true;
  });
  ws.addEventListener('message', (event) => {
    const data = new Uint8Array(event.data as ArrayBuffer);
    if (!data.length) return;
    const channel = data[0];
    const body = data.subarray(1);
    // what goes past the cap is dropped and said (truncated), never taken as the end of the output
    const kept = (had: string, decoder: TextDecoder) => {
      const text = decoder.decode(body, { stream: true });
      if (had.length + text.length <= MAX_OUTPUT) return text;
      truncated = true;
      return text.slice(0, Math.max(0, MAX_OUTPUT - had.length));
    };
    if (channel === STDOUT && stdout.length < MAX_OUTPUT) {
      const piece = kept(stdout, decoders[0]!);
      stdout += piece;
      if (piece)
        for (const w of [...waiters])
          if (w.test(piece)) {
            waiters.delete(w);
            w.resolve(stdout);
          }
    } else if (channel === STDOUT || channel === STDERR) {
      if (channel === STDERR && stderr.length < MAX_OUTPUT) stderr += kept(stderr, decoders[1]!);
      else truncated = true;
    } else if (channel === ERROR) {
      try {
        status = JSON.parse(new TextDecoder().decode(body)) as Record<string, unknown>;
      } catch {
        status = { status: 'Failure', message: new TextDecoder().decode(body).slice(0, 300) };
      }
    }
  });
  ws.addEventListener('close', (event) => {
    settle(
      opened
        ? `the stream closed without the command's status${event.reason ? ` (${event.reason})` : ''}`
        : // undici says only "Received network error or non-101 status code." of a failed handshake: nothing to add
          "the API server did not upgrade the exec to a WebSocket: it refused it, cannot reach the pod's kubelet, or is older than 1.30",
    );
  });
  return {
    write(text: string) {
      const bytes = new TextEncoder().encode(text);
      const frame = new Uint8Array(bytes.length + 1);
      frame[0] = STDIN;
      frame.set(bytes, 1);
      if (ws.readyState === ws.OPEN) ws.send(frame);
      else
        ws.addEventListener('open', () => ws.send(frame), {
          once: true,
        });
    },
    until(test) {
      if (test(stdout)) return Promise.resolve(stdout);
      if (end) return Promise.reject(new Error(end.message || 'the command ended'));
      return new Promise((resolve, reject) => waiters.add({ test, resolve, reject }));
    },
    ended,
    close() {
      ws.close();
    },
  };
}
