// pods/exec over WebSocket against a local server playing the API server (and, behind it, socat on HAProxy's master
// socket): what the plugin sends, the conversation it holds, and what it makes of an exec that goes wrong — a
// refused upgrade, a program that is not there, a socket that does not answer, a flood on stdout, garbage on the
// error channel. Frames are the lab kubelet's own codec (test/cluster/standins/lab/kubelet-exec.ts).
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../src/kube/client.ts';
import { connect } from '../../../src/kube/config.ts';
import { MAX_OUTPUT, openExec } from '../../../src/kube/exec.ts';
import { promptsSeen, readHAProxyPod, SessionSampler } from '../../../src/services/sessions.ts';
import { waitFor } from '../../e2e/support.ts';
import { frame, frameReader } from '../../cluster/standins/lab/kubelet-exec.ts';
import { kubeconfigFor } from './api-server.ts';

const TRANSCRIPT = readFileSync(new URL('../../fixtures/sessions/haproxy-2.6-reload.txt', import.meta.url), 'utf8');
const PROMPT = 'master> ';

type Talk = (
  io: { send: (channel: number, data: string | Buffer) => void; end: (status: object) => void; socket: Duplex },
  stdin: string,
) => void;

let server: Server | undefined;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
});

/** A server that upgrades every request and hands each stdin chunk to `talk`; `refuse` answers the upgrade instead. */
async function execServer(
  talk: Talk,
  refuse?: number,
  allowed: (review: { spec?: object }) => boolean = () => true,
): Promise<{ client: KubeClient; requests: IncomingMessage[] }> {
  const requests: IncomingMessage[] = [];
  // a SelfSubjectAccessReview (the sampler asks before its first read): allowed, unless told otherwise
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d));
    req.on('end', () => {
      const review = JSON.parse(body || '{}') as { spec?: object };
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ ...review, status: { allowed: allowed(review) } }));
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex) => {
    requests.push(req);
    if (refuse) {
      socket.end(`HTTP/1.1 ${refuse} Forbidden\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}`);
      return;
    }
    const accept = createHash('sha1')
      .update(`${req.headers['sec-websocket-key']}258EAFA5-E914-47DA-95CA-C5AB0DC85B11`)
      .digest('base64');
    socket.write(
      `HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Accept: ${accept}\r\nSec-WebSocket-Protocol: v5.channel.k8s.io\r\n\r\n`,
    );
    const io = {
      socket,
      send: (channel: number, data: string | Buffer) => {
        if (!socket.writableEnded) socket.write(frame(0x2, Buffer.concat([Buffer.from([channel]), Buffer.from(data)])));
      },
      end: (status: object) => {
        io.send(3, JSON.stringify({ metadata: {}, ...status }));
        socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
      },
    };
    socket.on('error', () => {});
    socket.on(
      'data',
      frameReader((opcode, payload) => {
        if (opcode === 0x2 && payload[0] === 0) talk(io, payload.subarray(1).toString());
        if (opcode === 0x8) socket.end();
      }),
    );
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  const kubeconfig = kubeconfigFor(`http://127.0.0.1:${(server!.address() as AddressInfo).port}`);
  return { client: new KubeClient(connect({ kubeconfig })), requests };
}

const target = {
  namespace: 'haptic',
  pod: 'hp-1',
  socket: { container: 'haproxy', path: '/etc/haproxy/haproxy-master.sock' },
};

describe('reading HAProxy through pods/exec', () => {
  it('holds one interactive master CLI session: show proc, then show stat of every worker it listed', async () => {
    const [proc, ...stats] = TRANSCRIPT.split(PROMPT).slice(1);
    const { client, requests } = await execServer((io, stdin) => {
      if (stdin === 'prompt\nshow proc\n') io.send(1, `${PROMPT}${proc}${PROMPT}`);
      else {
        expect(stdin).toBe('@!13333 show stat -1 4 -1\n@!13313 show stat -1 4 -1\nquit\n');
        io.send(1, `${stats[0]}${PROMPT}${stats[1]}${PROMPT}`);
        io.end({ status: 'Success' });
      }
    });
    const reading = await readHAProxyPod(client, target, { now: () => 7 });
    expect(reading.problem).toBeUndefined();
    expect(reading.workers.map((w) => [w.pid, w.leaving, w.servers?.map((s) => s.scur)])).toEqual([
      [13333, false, [1, 0]],
      [13313, true, [2, 0]],
    ]);
    const url = new URL(requests[0]!.url!, 'http://x');
    expect(url.pathname).toBe('/api/v1/namespaces/haptic/pods/hp-1/exec');
    expect([...url.searchParams]).toEqual([
      ['container', 'haproxy'],
      ['stdin', 'true'],
      ['stdout', 'true'],
      ['stderr', 'true'],
      ['command', 'socat'],
      ['command', '-T5'],
      ['command', 'stdio'],
      ['command', 'unix-connect:/etc/haproxy/haproxy-master.sock'],
    ]);
    expect(requests[0]!.headers['sec-websocket-protocol']).toBe('v5.channel.k8s.io, v4.channel.k8s.io');
    expect(requests[0]!.headers.authorization).toBe('Bearer t');
  });

  it('says what went wrong, in words a user can act on', async () => {
    const cases: [string, Talk, string][] = [
      [
        'no socat in the image',
        (io) =>
          io.end({
            status: 'Failure',
            reason: 'InternalError',
            message:
              'Internal error occurred: error executing command in container: failed to exec in container: failed to start exec: OCI runtime exec failed: exec failed: unable to start container process: exec: "socat": executable file not found in $PATH: unknown',
          }),
        "no socat in HAProxy pod hp-1's haproxy container: its image cannot be asked (HAPTIC's ships socat)",
      ],
      [
        'the socket refuses',
        (io) => {
          io.send(
            2,
            '2026/12/04 08:25:03 socat[103] E connect(, AF=1 "/etc/haproxy/haproxy-master.sock", 34): Connection refused\n',
          );
          io.end({
            status: 'Failure',
            reason: 'NonZeroExitCode',
            message: 'command terminated with non-zero exit code: error executing command [socat], exit code 1',
            details: { causes: [{ reason: 'ExitCode', message: '1' }] },
          });
        },
        'HAProxy\'s master socket /etc/haproxy/haproxy-master.sock does not answer in hp-1: connect(, AF=1 "/etc/haproxy/haproxy-master.sock", 34): Connection refused',
      ],
      [
        'garbage on the error channel',
        (io) => {
          io.send(3, '\u0000not json');
          io.socket.end(frame(0x8, Buffer.from([0x03, 0xe8])));
        },
        'could not read HAProxy in hp-1: \u0000not json',
      ],
    ];
    for (const [what, talk, problem] of cases) {
      const { client } = await execServer(talk);
      const reading = await readHAProxyPod(client, target);
      expect(reading.problem, what).toBe(problem);
      expect(reading.workers, what).toEqual([]);
      server!.close();
    }
  });

  it('fuzz case "cut at byte 0": a command that ends with Success before answering is no answer, not a stream without status', async () => {
    // socat exited 0 with nothing on stdout (the master closed the connection): the kubelet's Status says Success, so
    // the end has no failure message; the close that follows is not "without the command's status"
    const { client } = await execServer((io) => io.end({ status: 'Success' }));
    const reading = await readHAProxyPod(client, target);
    expect(reading.problem).toBe('could not read HAProxy in hp-1: no answer to show proc');
    const session = await openExec(
      client,
      { namespace: 'haptic', pod: 'hp-1', container: 'haproxy', command: ['true'] },
      { deadlineMs: 5000 },
    );
    session.write('\n');
    expect(await session.ended).toMatchObject({ ok: true, exitCode: 0, message: undefined });
  });

  it('an upgrade the API server refuses is an unreadable pod, not an error', async () => {
    const { client } = await execServer(() => {}, 403);
    const reading = await readHAProxyPod(client, target);
    expect(reading.problem).toMatch(
      /^could not read HAProxy in hp-1: the API server did not upgrade the exec to a WebSocket/,
    );
  });

  it('a HAProxy pod named with a dot segment is refused, never exec’d as another URL', async () => {
    const { client, requests } = await execServer(() => {});
    for (const pod of ['..', '.']) {
      const reading = await readHAProxyPod(client, { ...target, pod });
      expect(reading.problem).toBe(
        `exec into ${pod} failed: refusing to build a request path for the name "${pod}": may not be '${pod}'`,
      );
    }
    await expect(
      openExec(client, { namespace: '..', pod: 'hp-1', container: 'haproxy', command: ['true'] }, { deadlineMs: 1000 }),
    ).rejects.toThrow('refusing to build a request path for the name ".."');
    expect(requests).toHaveLength(0);
  });

  it('a flood on stdout is cut at the deadline, with what was kept bounded', async () => {
    const chunk = Buffer.alloc(256 * 1024, 'x');
    const { client } = await execServer((io) => {
      const pump = () => {
        if (io.socket.writableEnded || io.socket.destroyed) return;
        io.send(1, chunk);
        setImmediate(pump);
      };
      pump();
    });
    const started = Date.now();
    const reading = await readHAProxyPod(client, target, { deadlineMs: 1500 });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(reading.problem).toBe('could not read HAProxy in hp-1: no end within 1500 ms');
    const session = await openExec(
      client,
      { ...target, container: 'haproxy', command: ['socat'] },
      { deadlineMs: 1500 },
    );
    session.write('show proc\n');
    const end = await session.ended;
    expect(end.stdout.length).toBeGreaterThan(0);
    expect(end.stdout.length).toBeLessThanOrEqual(4 * 1024 * 1024 + chunk.length);
  });

  it("a show stat answer cut at the cap is that worker's unknown, never a smaller count; the answers before it hold", async () => {
    const [proc, ...stats] = TRANSCRIPT.split(PROMPT).slice(1);
    const header = stats[1]!.split('\n').find((l) => l.startsWith('# '))!;
    const columns = header.slice(2).split(',');
    const rowOf = (i: number) =>
      columns
        .map((c) => ({ pxname: 'b', svname: `s${i}`, scur: '1', type: '2', addr: '10.0.0.9:80' })[c] ?? '')
        .join(',');
    const rows = Array.from({ length: 40_000 }, (_, i) => rowOf(i)).join('\n');
    const { client } = await execServer((io, stdin) => {
      if (stdin === 'prompt\nshow proc\n') io.send(1, `${PROMPT}${proc}${PROMPT}`);
      else {
        io.send(1, `${stats[0]}${PROMPT}${header}\n`);
        for (let at = 0; at < rows.length; at += 256 * 1024) io.send(1, rows.slice(at, at + 256 * 1024));
        io.send(1, '\n\n');
        io.end({ status: 'Success' });
      }
    });
    expect(rows.length).toBeGreaterThan(MAX_OUTPUT);
    const reading = await readHAProxyPod(client, target);
    expect(reading.workers[0]!.servers?.map((s) => s.scur)).toEqual([1, 0]);
    expect(reading.workers[1]).toEqual({
      pid: 13313,
      leaving: true,
      problem: 'its show stat answer went past 4 MiB and was cut: not read',
    });
  });

  it('counts prompts piece by piece, one cut anywhere across two pieces included, each once', () => {
    const text = `${PROMPT}a\n${PROMPT}b\n[0:00:01:02] master[ReloadFailed](xe)> c`;
    for (let cut = 0; cut <= text.length; cut++) {
      const seen = promptsSeen(3);
      expect(seen(text.slice(0, cut)) || seen(text.slice(cut)), `cut at ${cut}`).toBe(true);
      const fewer = promptsSeen(4);
      expect(fewer(text.slice(0, cut)) || fewer(text.slice(cut)), `cut at ${cut}`).toBe(false);
    }
  });

  it('4,000 KiB, then 4,096 one-byte frames: each frame costs what it adds, and the deadline holds', async () => {
    const { client } = await execServer((io) => {
      io.send(1, `${PROMPT}${'x'.repeat(4000 * 1024)}`);
      for (let i = 0; i < 4096; i++) io.send(1, 'y');
    });
    const started = Date.now();
    const reading = await readHAProxyPod(client, target, { deadlineMs: 1500 });
    expect(reading.problem).toBe('could not read HAProxy in hp-1: no end within 1500 ms');
    // the deadline's own timer ended it: within a second of it, however many frames came
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it('one message larger than an exec keeps ends the stream: what is accepted is capped, not only what is kept', async () => {
    const { client } = await execServer((io) => {
      io.send(1, Buffer.alloc(6 * 1024 * 1024, 'x'));
      io.end({ status: 'Success' });
    });
    const session = await openExec(
      client,
      { ...target, container: 'haproxy', command: ['socat'] },
      { deadlineMs: 5000 },
    );
    session.write('show proc\n');
    const end = await session.ended;
    expect(end.ok).toBe(false);
    expect(end.stdout.length).toBeLessThanOrEqual(MAX_OUTPUT);
  });

  it('the sampler: a failing read is a note only once it lasts (a reload passes), a refusal at once and alone', async () => {
    const refused = (io: Parameters<Talk>[0]) => {
      io.send(2, 'socat[9] E connect(, AF=1 "/etc/haproxy/haproxy-master.sock", 34): Connection refused\n');
      io.end({
        status: 'Failure',
        reason: 'NonZeroExitCode',
        message: 'exit code 1',
        details: { causes: [{ reason: 'ExitCode', message: '1' }] },
      });
    };
    const { client, requests } = await execServer((io) => refused(io));
    const sampler = new SessionSampler(client, { intervalMs: 20 });
    const seen: (boolean | undefined)[] = [];
    const stop = sampler.add(
      () => [target],
      () => seen.push(sampler.state().readings[0]?.transient),
    );
    await waitFor(() => seen, { what: 'four reads', intervalMs: 20, until: (s) => s.length >= 4 });
    stop();
    expect(seen.slice(0, 4)).toEqual([true, true, undefined, undefined]);
    expect(requests.length).toBeGreaterThanOrEqual(4);

    const denied = await execServer(
      () => {},
      undefined,
      () => false,
    );
    const sampler2 = new SessionSampler(denied.client, { intervalMs: 20 });
    let calls = 0;
    const stop2 = sampler2.add(
      () => [target],
      () => calls++,
    );
    await waitFor(() => sampler2.state().unavailable, { what: 'the refusal', intervalMs: 20, until: Boolean });
    stop2();
    expect(sampler2.state().unavailable).toBe(
      "no permission to exec into HAProxy's pods in namespace haptic (pods/exec: create, get): showing stages only",
    );
    expect(calls).toBe(1);
    expect(denied.requests).toEqual([]);
  });
});
