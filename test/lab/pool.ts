// The lab project's test workers run inside the lab's network namespace, where its cluster, pods and load are:
// vitest's forks pool, with each worker forked through `ip netns exec <namespace>` (a process cannot change its own
// network namespace, so the worker has to start inside it). The IPC channel survives the exec.
import { fork } from 'node:child_process';
import { ForksPoolWorker } from 'vitest/node';
import type { PoolOptions, PoolRunnerInitializer } from 'vitest/node';

class NetnsForksPoolWorker extends ForksPoolWorker {
  override readonly name: string;
  private readonly netns: string;

  constructor(options: PoolOptions, name: string, netns: string) {
    super(options);
    this.name = name;
    this.netns = netns;
  }

  override async start(): Promise<void> {
    // ForksPoolWorker.start keeps a child it already has (`this._fork ||= fork(…)`) and wires its streams and
    // watchdog: hand it the child forked inside the namespace
    const self = this as unknown as { _fork?: ReturnType<typeof fork> };
    self._fork ??= fork(this.entrypoint, [], {
      env: this.env,
      execPath: 'ip',
      execArgv: ['netns', 'exec', this.netns, process.execPath, ...this.execArgv],
      stdio: 'pipe',
      serialization: 'advanced',
    });
    await super.start();
  }
}

export function netnsPool(netns: string): PoolRunnerInitializer {
  const name = 'lab-netns';
  return { name, createPoolWorker: (options) => new NetnsForksPoolWorker(options, name, netns) };
}
