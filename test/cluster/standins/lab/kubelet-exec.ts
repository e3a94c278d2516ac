// The kubelet's exec endpoint as the API server reaches it for pods/exec over WebSocket: `GET
// /exec/{namespace}/{pod}/{container}?command=…&input=1&output=1&error=1` with an upgrade to `v5.channel.k8s.io` (or
// v4). A 1.36 kubelet declares ExtendWebSocketsToKubelet in its node's status.declaredFeatures, and the API server
// then proxies the client's WebSocket to it unchanged (pkg/registry/core/pod/rest/subresources.go, ExecREST.Connect;
// pkg/kubelet/server/server.go, getExec). The channel protocol is k8s.io/apimachinery/pkg/util/remotecommand's:
// each binary message starts with its channel, 0 stdin, 1 stdout, 2 stderr, 3 the end as a metav1.Status (Success,
// or Failure with reason NonZeroExitCode and the exit code as a cause, pkg/kubelet/cri/streaming/remotecommand/
// exec.go), and in v5 255 closes a stream (the client's stdin). The command runs in the container's namespaces
// (container.ts, spawnIn) with the container's env; a program its image does not ship fails as containerd's exec
// does. WebSocket frames per RFC 6455 (the client's are masked, ours are not).
import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import type { ContainerProcess } from './container.ts';
import { imageHas } from './images.ts';

export type ExecLookup = (
  key: string,
  container: string,
) => { proc: ContainerProcess; image: string; env: Record<string, string> } | undefined;

const GUID = '258EAFA5-E914-47DA-95CA-C5AB0DC85B11';
const PROTOCOLS = ['v5.channel.k8s.io', 'v4.channel.k8s.io'];

/** One server frame: FIN, the opcode, an unmasked payload. */
export function frame(opcode: number, payload: Uint8Array): Buffer {
  const n = payload.length;
  const head = n < 126 ? Buffer.from([0x80 | opcode, n]) : n < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  if (n >= 126 && n < 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 126;
    head.writeUInt16BE(n, 2);
  } else if (n >= 65536) {
    head[0] = 0x80 | opcode;
    head[1] = 127;
    head.writeBigUInt64BE(BigInt(n), 2);
  }
  return Buffer.concat([head, payload]);
}

/** Reads the client's frames as they arrive: each whole frame's opcode and unmasked payload. */
export function frameReader(onFrame: (opcode: number, payload: Buffer) => void): (chunk: Buffer) => void {
  let buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    for (;;) {
      if (buffer.length < 2) return;
      const opcode = buffer[0]! & 0x0f;
      const masked = (buffer[1]! & 0x80) !== 0;
      let length = buffer[1]! & 0x7f;
      let offset = 2;
      if (length === 126) {
        if (buffer.length < 4) return;
        length = buffer.readUInt16BE(2);
        offset = 4;
      } else if (length === 127) {
        if (buffer.length < 10) return;
        length = Number(buffer.readBigUInt64BE(2));
        offset = 10;
      }
      const mask = masked ? buffer.subarray(offset, offset + 4) : undefined;
      if (masked) offset += 4;
      if (buffer.length < offset + length) return;
      const payload = Buffer.from(buffer.subarray(offset, offset + length));
      if (mask) for (let i = 0; i < payload.length; i++) payload[i]! ^= mask[i % 4]!;
      buffer = buffer.subarray(offset + length);
      onFrame(opcode, payload);
    }
  };
}

const status = (body: object) => Buffer.from(JSON.stringify({ metadata: {}, ...body }));

/** Serves one upgrade request to `/exec/…`; anything else gets the kubelet's 404. */
export function serveExec(req: IncomingMessage, socket: Duplex, lookup: ExecLookup): void {
  const url = new URL(req.url ?? '/', 'https://kubelet');
  const match = /^\/exec\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
  const refuse = (code: number, text: string): void => {
    socket.end(
      `HTTP/1.1 ${code} ${code === 404 ? 'Not Found' : 'Bad Request'}\r\ncontent-type: text/plain\r\ncontent-length: ${Buffer.byteLength(text)}\r\n\r\n${text}`,
    );
  };
  if (!match) {
    refuse(404, '404 page not found\n');
    return;
  }
  const [, namespace, pod, container] = match.map((m) => decodeURIComponent(m)) as [string, string, string, string];
  const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
  const protocol = PROTOCOLS.find((p) => offered.includes(p));
  const key = req.headers['sec-websocket-key'];
  if (!protocol || typeof key !== 'string') {
    refuse(400, 'a WebSocket upgrade to v5.channel.k8s.io or v4 is required');
    return;
  }
  const command = url.searchParams.getAll('command');
  const target = lookup(`${namespace}/${pod}`, container);
  if (!target) {
    refuse(404, `container not found ("${container}")`);
    return;
  }
  const accept = createHash('sha1').update(`${key}${GUID}`).digest('base64');
  socket.write(
    `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: ${protocol}\r\n\r\n`,
  );
  const send = (channel: number, data: Uint8Array) => {
    if (!socket.writableEnded) socket.write(frame(0x2, Buffer.concat([Buffer.from([channel]), data])));
  };
  const finish = (body: object) => {
    send(3, status(body));
    if (!socket.writableEnded) socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
  };
  const program = command[0] ?? '';
  if (!command.length || !imageHas(target.image, program)) {
    // containerd's words for a program the image lacks, as the kubelet passes them on
    finish({
      status: 'Failure',
      reason: 'InternalError',
      message: `Internal error occurred: error executing command in container: failed to exec in container: failed to start exec: OCI runtime exec failed: exec failed: unable to start container process: exec: "${program}": executable file not found in $PATH: unknown`,
    });
    return;
  }
  const child = target.proc.spawnIn(command, target.env);
  if (!child) {
    finish({ status: 'Failure', reason: 'InternalError', message: 'container is not running' });
    return;
  }
  child.stdout!.on('data', (d: Buffer) => send(1, d));
  child.stderr!.on('data', (d: Buffer) => send(2, d));
  child.stdin!.on('error', () => {});
  child.on('close', (code, signal) => {
    const exit = code ?? (signal ? 137 : 1);
    if (exit === 0) finish({ status: 'Success' });
    else
      finish({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${exit}`,
        details: { causes: [{ reason: 'ExitCode', message: String(exit) }] },
      });
  });
  socket.on(
    'data',
    frameReader((opcode, payload) => {
      if (opcode === 0x8) {
        child.kill('SIGKILL');
        socket.end();
      } else if (opcode === 0x9) socket.write(frame(0xa, payload));
      else if (opcode === 0x2 && payload.length) {
        if (payload[0] === 0) child.stdin!.write(payload.subarray(1));
        else if (payload[0] === 255 && payload[1] === 0) child.stdin!.end();
      }
    }),
  );
  socket.on('close', () => child.kill('SIGKILL'));
  socket.on('error', () => child.kill('SIGKILL'));
}
