// A TCP proxy on 127.0.0.1 that puts a round trip between a client and a server on the same machine: every chunk
// of bytes is held half the round trip in each direction, and what the client sends on a new connection leaves only
// one round trip after it connected (the TCP handshake, which the kernel completes at once on loopback). The
// start-up benchmark times one-shot commands through it, the plugin's and kubectl's alike, as a cluster that many
// milliseconds away would answer them. Bytes are relayed as they are: TLS runs end to end, through it.
import { type AddressInfo, createConnection, createServer, type Server, type Socket } from 'node:net';

export interface DelayProxy {
  /** the port on 127.0.0.1 to connect to instead of the server's */
  port: number;
  close(): Promise<void>;
}

/** One direction of a connection: chunks written to `to` in order, each once its time has come. */
class DelayedPipe {
  private readonly queue: { at: number; data: Buffer | undefined }[] = [];
  private timer: NodeJS.Timeout | undefined;
  private readonly to: Socket;

  constructor(to: Socket) {
    this.to = to;
  }

  /** `data` reaches the other side at `at` (performance.now()); undefined ends it. */
  push(at: number, data: Buffer | undefined): void {
    this.queue.push({ at, data });
    this.pump();
  }

  stop(): void {
    clearTimeout(this.timer);
    this.queue.length = 0;
  }

  private pump(): void {
    if (this.timer) return;
    for (;;) {
      const head = this.queue[0];
      if (!head) return;
      const wait = head.at - performance.now();
      if (wait > 0) {
        this.timer = setTimeout(() => {
          this.timer = undefined;
          this.pump();
        }, wait);
        return;
      }
      this.queue.shift();
      if (this.to.destroyed) continue;
      if (head.data) this.to.write(head.data);
      else this.to.end();
    }
  }
}

/** Starts a proxy to `target` that adds `rttMs` of round trip; `close()` stops it and every connection through it. */
export async function startDelayProxy(target: { host: string; port: number }, rttMs: number): Promise<DelayProxy> {
  const half = rttMs / 2;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const accepted = performance.now();
    const upstream = createConnection({ host: target.host, port: target.port });
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
    }
    const up = new DelayedPipe(upstream);
    const down = new DelayedPipe(client);
    // the client's first bytes could not have left before its handshake's round trip
    const leaves = () => Math.max(performance.now(), accepted + rttMs) + half;
    client.on('data', (data: Buffer) => up.push(leaves(), data));
    client.on('end', () => up.push(leaves(), undefined));
    upstream.on('data', (data: Buffer) => down.push(performance.now() + half, data));
    upstream.on('end', () => down.push(performance.now() + half, undefined));
    const fail = () => {
      up.stop();
      down.stop();
      client.destroy();
      upstream.destroy();
    };
    client.on('error', fail);
    upstream.on('error', fail);
    client.on('close', () => setTimeout(() => upstream.destroy(), half));
    upstream.on('close', () => setTimeout(() => client.destroy(), half));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host: '127.0.0.1', port: 0 }, resolve);
  });
  return {
    port: (server.address() as AddressInfo).port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
