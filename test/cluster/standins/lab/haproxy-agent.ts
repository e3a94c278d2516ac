// The HAPTIC agent's part in the lab, with the real HAProxy of each HAProxy pod (HAProxy-Template-IC/
// haproxy-template-ingress-controller, docs/adr/0022-haptic-agent.md: "the agent writes the files transactionally
// … reloads through the master socket … a rejected command or reload is a NACK, the old worker keeps serving, the
// agent restores the LKG files"), and the controller's validation of a render with `haproxy -c` (same ADR: "haproxy
// -c stays where operator input enters"; HAPTIC's render gate runs it on every render).
// - validate: `haproxy -c` on the render; HAProxy's own complaint when it refuses.
// - apply: write the pod's haproxy.cfg, `reload` on its master socket, wait until `show proc` shows the reload
//   done with a new worker, then ask that worker (`@!<pid> show servers state`) for its servers: the deploy counts
//   only when the running worker has exactly the config's servers, enabled and disabled as written. A reload
//   HAProxy refuses restores the previous file and reports HAProxy's log lines.
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type Proc = { reloads: number; failed: number; worker: number | undefined };

/** `show proc` on the master CLI (HAProxy 2.6+): the master's reload and failure counts, the current worker. Pure. */
export function parseShowProc(text: string): Proc | undefined {
  const master = /^\d+\s+master\s+(\d+)\s+\[failed: (\d+)\]/m.exec(text);
  if (!master) return undefined;
  const workers = text.split('# workers')[1]?.split('#')[0] ?? '';
  const current = workers
    .split('\n')
    .map((l) => /^(\d+)\s+worker\s+0\s/.exec(l))
    .find(Boolean);
  return { reloads: Number(master[1]), failed: Number(master[2]), worker: current ? Number(current[1]) : undefined };
}

/** The servers of a config: backend/server → enabled (no `disabled` keyword). Pure. */
export function configServers(content: string): Map<string, boolean> {
  const servers = new Map<string, boolean>();
  let backend = '';
  for (const line of content.split('\n')) {
    const section = /^(\S+)\s+(\S+)/.exec(line);
    if (section) backend = section[1] === 'backend' ? section[2]! : '';
    const server = /^\s+server\s+(\S+)\s+\S+([^#]*)/.exec(line);
    if (backend && server) servers.set(`${backend}/${server[1]}`, !/\bdisabled\b/.test(server[2]!));
  }
  return servers;
}

/**
 * `show servers state` of a worker: backend/server → enabled (its admin state has no maintenance flag: forced,
 * inherited, from config, resolution or hostname — SRV_ADMF_FMAINT|IMAINT|CMAINT|RMAINT|HMAINT). Pure.
 */
export function workerServers(text: string): Map<string, boolean> {
  const servers = new Map<string, boolean>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#') || /^\d+$/.test(line.trim())) continue;
    const f = line.split(' ');
    if (f.length < 7) continue;
    const admin = Number(f[6]);
    servers.set(`${f[1]}/${f[3]}`, (admin & (0x01 | 0x02 | 0x04 | 0x20 | 0x40)) === 0);
  }
  return servers;
}

/** What differs between the servers a config asks for and those a worker runs, in words; undefined when none. */
export function serverMismatch(wanted: Map<string, boolean>, running: Map<string, boolean>): string | undefined {
  const problems: string[] = [];
  for (const [server, enabled] of wanted) {
    if (!running.has(server)) problems.push(`${server} missing`);
    else if (running.get(server) !== enabled)
      problems.push(
        `${server} ${running.get(server) ? 'enabled' : 'disabled'}, not ${enabled ? 'enabled' : 'disabled'}`,
      );
  }
  for (const server of running.keys()) if (!wanted.has(server)) problems.push(`${server} not in the config`);
  return problems.length ? problems.slice(0, 5).join(', ') : undefined;
}

/** One command on a master CLI socket; resolves with the answer (the master closes after it). */
export function masterCommand(socket: string, command: string, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    const conn = connect(socket);
    let answer = '';
    const timer = setTimeout(
      () => conn.destroy(new Error(`${command}: no answer from ${socket} within ${timeoutMs} ms`)),
      timeoutMs,
    );
    conn.setEncoding('utf8');
    conn.on('data', (d: string) => (answer += d));
    conn.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    conn.on('close', () => {
      clearTimeout(timer);
      resolve(answer);
    });
    conn.end(`${command}\n`);
  });
}

/** Whether this HAProxy takes `guid` on server lines (3.0 and later). */
export async function haproxyTakesGuid(): Promise<boolean> {
  const { stdout } = await run('haproxy', ['-v']);
  const [major] = (/version (\d+)\.(\d+)/.exec(stdout) ?? []).slice(1).map(Number);
  return (major ?? 0) >= 3;
}

export type AgentFiles = { config: string; masterSocket: string; log: string };

export class HAProxyAgent {
  private readonly dir: string;
  private checks = 0;

  constructor(dir: string) {
    this.dir = dir;
    mkdirSync(dir, { recursive: true });
  }

  /** `haproxy -c` on a render; HAProxy's [ALERT] lines when it refuses it, undefined when it accepts it. */
  async validate(content: string): Promise<string | undefined> {
    const file = join(this.dir, `haproxy-${++this.checks}.cfg`);
    writeFileSync(file, content);
    try {
      await run('haproxy', ['-c', '-f', file]);
      return undefined;
    } catch (error) {
      const output = `${(error as { stdout?: string }).stdout ?? ''}${(error as { stderr?: string }).stderr ?? ''}`;
      return alerts(output) || 'haproxy -c refused the configuration';
    } finally {
      rmSync(file, { force: true });
    }
  }

  /** Deploys a config to one HAProxy pod; resolves with an error message, or undefined once its worker runs it. */
  async apply(files: AgentFiles | undefined, content: string, timeoutMs = 10_000): Promise<string | undefined> {
    if (!files) return 'agent not reachable: the HAProxy container is not running';
    const status = async () => parseShowProc(await masterCommand(files.masterSocket, 'show proc'));
    let before: Proc | undefined;
    try {
      before = await status();
    } catch (error) {
      return `agent not reachable: HAProxy's master socket: ${(error as Error).message}`;
    }
    if (!before) return 'agent: HAProxy master CLI answered show proc with nothing it could read';
    const previous = readFileSync(files.config, 'utf8');
    const logSize = safeSize(files.log);
    writeFileSync(`${files.config}.new`, content);
    renameSync(`${files.config}.new`, files.config);
    await masterCommand(files.masterSocket, 'reload').catch(() => '');
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await new Promise((r) => setTimeout(r, 50));
      const now = await status().catch(() => undefined);
      if (now && now.failed > before.failed) {
        writeFileSync(files.config, previous);
        const said = alerts(readFileSync(files.log, 'utf8').slice(logSize));
        return `HAProxy refused the reload and kept its previous configuration${said ? `: ${said}` : ''}`;
      }
      if (now && now.reloads > before.reloads && now.worker !== undefined && now.worker !== before.worker) {
        const state = await masterCommand(files.masterSocket, `@!${now.worker} show servers state`).catch(
          (e: Error) => e.message,
        );
        const mismatch = serverMismatch(configServers(content), workerServers(state));
        return mismatch ? `HAProxy's new worker does not run the deployed servers: ${mismatch}` : undefined;
      }
      if (Date.now() > deadline) return `HAProxy did not finish reloading within ${timeoutMs} ms`;
    }
  }
}

function safeSize(file: string): number {
  try {
    return readFileSync(file).length;
  } catch {
    return 0;
  }
}

/** HAProxy's [ALERT] lines (the reasons it refuses a config), without its NOTICE chatter, on one line. */
function alerts(output: string): string {
  return output
    .split('\n')
    .map((l) => l.replace(/^\S+ stderr F /, '').trim())
    .filter((l) => l.startsWith('[ALERT]'))
    .join(' ');
}
