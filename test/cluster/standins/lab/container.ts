// One container of the lab, as a container runtime runs it: its own PID namespace (the program is PID 1, so a
// preStop's `kill -USR1 1` reaches it, and it only gets the signals it handles), its own mount namespace (a private
// /run and /tmp, so two HAProxy pods' sockets do not meet), inside the pod's network namespace (sandbox.ts). Its
// stdout and stderr go to a CRI-format log file (`<RFC 3339 nano> stdout F <line>`, as containerd writes them),
// which the node stand-in's kubelet API serves as pods/log.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { createWriteStream, existsSync, readFileSync, type WriteStream } from 'node:fs';
import { constants } from 'node:os';

export type Exit = { code: number; at: number; signal?: string };

/** RFC 3339 with nanoseconds, as the kubelet's log timestamps (the clock's sub-millisecond part from performance.now). */
export function nanoTime(ms = performance.timeOrigin + performance.now()): string {
  const whole = Math.floor(ms);
  const nanos = Math.round((ms - whole) * 1e6);
  return new Date(whole)
    .toISOString()
    .replace(/\.(\d{3})Z$/, (_, milli: string) => `.${milli}${String(nanos).padStart(6, '0')}Z`);
}

/**
 * The shell line that prepares the container's private mounts, then becomes the program (exec keeps PID 1). The
 * node's folders the container runs from (the programs, the pod's files: its image and volumes) stay visible when
 * they lie under /tmp (a clone in /tmp): bound aside before the private /tmp hides them, then moved back in place.
 */
export function prepareLine(keep: string[], mounts: { source: string; target: string }[] = []): string {
  const quote = (p: string) => `'${p.replace(/'/g, `'\\''`)}'`;
  const under = keep.filter((p) => p.startsWith('/tmp/'));
  return [
    // the pod's volumes over their paths first, while their folders on the node are still in sight: what a runtime
    // does with the CRI's ContainerConfig.mounts the kubelet gives it (a bind of the volume's host folder at mountPath)
    ...mounts.map((m) => `mkdir -p ${quote(m.target)} && mount --bind ${quote(m.source)} ${quote(m.target)}`),
    'mount -t tmpfs tmpfs /run',
    'mkdir -p /run/haproxy',
    ...under.map((p, i) => `mkdir -p /run/.keep${i} && mount --bind ${quote(p)} /run/.keep${i}`),
    'mount -t tmpfs tmpfs /tmp',
    ...under.map((p, i) => `mkdir -p ${quote(p)} && mount --move /run/.keep${i} ${quote(p)}`),
    'exec "$@"',
  ].join(' && ');
}

export class ContainerProcess {
  readonly name: string;
  readonly startedAt = Date.now();
  /** the program's PID as the node sees it (PID 1 inside) */
  pid: number | undefined;
  exit: Exit | undefined;
  private readonly child: ChildProcess;
  private readonly log: WriteStream;
  private readonly exited: Promise<Exit>;
  private sigkilled = false;
  /** unshare could not re-raise SIGKILL on itself (signal(SIGKILL) fails) and exited 1 instead: see exitCode */
  private reraiseFailed = false;

  constructor(opts: {
    name: string;
    netns: string;
    argv: string[];
    env: Record<string, string>;
    logFile: string;
    cwd: string;
    keep: string[];
    mounts?: { source: string; target: string }[] | undefined;
  }) {
    this.name = opts.name;
    this.log = createWriteStream(opts.logFile, { flags: 'a' });
    const argv = [
      'netns',
      'exec',
      opts.netns,
      'unshare',
      '--pid',
      '--fork',
      '--mount',
      '--propagation',
      'private',
      '--mount-proc',
      'sh',
      '-c',
      prepareLine(opts.keep, opts.mounts),
      'sh',
      ...opts.argv,
    ];
    this.child = spawn('ip', argv, {
      cwd: opts.cwd,
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    this.pipe(this.child.stdout!, 'stdout');
    this.pipe(this.child.stderr!, 'stderr');
    this.exited = new Promise((resolve) => {
      this.child.on('exit', (code, signal) => {
        // unshare --fork exits as its child did: with its code, or killed by the same signal (then 128 + signal).
        // For SIGKILL it cannot (util-linux 2.38 resets the signal's handler first, which SIGKILL refuses) and
        // exits 1 saying "sigprocmask unblock failed": that is the container killed by SIGKILL, 137.
        const killed = this.sigkilled && this.reraiseFailed && code === 1;
        const number = signal ? 128 + (constants.signals[signal] ?? 0) : killed ? 137 : (code ?? 0);
        this.exit = { code: number, at: Date.now(), ...(signal ? { signal } : {}) };
        this.log.end();
        resolve(this.exit);
      });
      this.child.on('error', (error) => {
        this.exit = { code: 128, at: Date.now() };
        this.write('stderr', `could not start: ${error.message}`);
        resolve(this.exit);
      });
    });
  }

  /** Resolves once the program's PID is known (unshare has forked it), or the container already exited. */
  async started(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    const parent = this.child.pid;
    while (!this.exit && parent !== undefined && this.pid === undefined) {
      const file = `/proc/${parent}/task/${parent}/children`;
      const first = existsSync(file) ? Number(readFileSync(file, 'utf8').trim().split(/\s+/)[0]) : NaN;
      if (first > 0) this.pid = first;
      else if (Date.now() > deadline) throw new Error(`container ${this.name}: no process after ${timeoutMs} ms`);
      else await new Promise((r) => setTimeout(r, 5));
    }
  }

  whenExited(): Promise<Exit> {
    return this.exited;
  }

  /** Sends a signal to the program (PID 1 of the container), as the runtime's kill does. */
  signal(signal: NodeJS.Signals): void {
    if (this.exit || this.pid === undefined) return;
    if (signal === 'SIGKILL') this.sigkilled = true;
    try {
      process.kill(this.pid, signal);
    } catch {
      // exited meanwhile
    }
  }

  /** Runs a command in the container's namespaces (an exec preStop hook); resolves with its exit code. */
  exec(argv: string[], timeoutMs: number): Promise<number> {
    if (this.exit || this.pid === undefined) return Promise.resolve(137);
    const nsenter = ['-t', String(this.pid), '-p', '-m', '-n', '--', ...argv];
    return new Promise((resolve) => {
      execFile('nsenter', nsenter, { timeout: timeoutMs, killSignal: 'SIGKILL' }, (error) => {
        resolve(error ? (typeof error.code === 'number' ? error.code : 137) : 0);
      });
    });
  }

  /**
   * Starts a command in the container's namespaces with pipes for stdin, stdout and stderr (what the runtime's exec
   * does for the kubelet); undefined when the container is not running.
   */
  spawnIn(argv: string[], env: Record<string, string>): ChildProcess | undefined {
    if (this.exit || this.pid === undefined) return undefined;
    return spawn('nsenter', ['-t', String(this.pid), '-p', '-m', '-n', '--', ...argv], {
      env: { PATH: process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
  }

  /** Kills the whole container at once (SIGKILL to PID 1 takes every process of its PID namespace with it). */
  kill(): void {
    this.sigkilled = true;
    this.signal('SIGKILL');
    if (!this.exit && this.child.pid !== undefined) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  }

  private pipe(stream: NodeJS.ReadableStream, name: 'stdout' | 'stderr'): void {
    let buffer = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk: string) => {
      buffer += chunk;
      for (let nl = buffer.indexOf('\n'); nl >= 0; nl = buffer.indexOf('\n')) {
        this.write(name, buffer.slice(0, nl));
        buffer = buffer.slice(nl + 1);
      }
    });
    stream.on('end', () => buffer && this.write(name, buffer));
  }

  private write(stream: 'stdout' | 'stderr', line: string): void {
    if (stream === 'stderr' && line.startsWith('unshare: sigprocmask unblock failed')) {
      this.reraiseFailed = true;
      return;
    }
    if (!this.log.writableEnded) this.log.write(`${nanoTime()} ${stream} F ${line}\n`);
  }
}
