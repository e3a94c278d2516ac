import type { Pod } from '../../types/kube.ts';
import type { HAProxyReading, ServerStat, WorkerReading } from '../../types/sessions.ts';
import { lifetimeContainers } from './haptic.ts';
import { ipOf } from './rendered.ts';

export type { HAProxyReading, ServerStat, WorkerReading };

// What HAProxy itself says each server carries: the sessions a rollout's old pods still hold and the new ones
// take. Read through HAProxy's master CLI (the management guide, "9.4. Master CLI"): `show proc` lists the current
// worker and the leaving ones (a reload keeps old workers alive while their connections drain), and
// `@!<pid> show stat <backend> 4 -1` gives one worker's servers (type 4) of a backend (`-1`: of every backend) with
// `scur` (current sessions), `qcur` (queued requests), `addr` and `status`, columns read by the header's names. Pure:
// texts in, readings out.

/** Where HAProxy's master CLI listens in a HAPTIC HAProxy pod: the `-S` argument of the container that runs it. */
export interface MasterSocket {
  container: string;
  path: string;
}

export interface SessionsView {
  /** why nothing can be read (no pods/exec permission): stages only */
  unavailable?: string | undefined;
  /** HAProxy pods that could not be read now, and why (no socat, a worker not registered yet, exec failed) */
  problems: string[];
  /**
   * every HAProxy pod was read and none answered (exec failing on each): the pods' sessions stay unknown (an old
   * pod's end is said as unread), but a view has no count worth a column and says the problem instead
   */
  unread?: true | undefined;
  /** pods gone from the rollout whose servers HAProxy still lists (by pod key): how their last sessions ended */
  gone?: Record<string, PodSessions> | undefined;
}

/**
 * The master socket of a HAProxy pod: the `-S <path>[,options]` of its `haproxy` container (or the first container
 * that has one, native sidecars included), given as its own argument or inside a shell script as HAPTIC's chart does
 * (charts/haptic/templates/haproxy-deployment.yaml: `exec haproxy … -S "/etc/haproxy/haproxy-master.sock,level,admin"`).
 */
export function masterSocketOf(pod: Pod): MasterSocket | undefined {
  const containers = [...lifetimeContainers(pod)].sort(
    (a, b) => Number(b.name === 'haproxy') - Number(a.name === 'haproxy'),
  );
  for (const c of containers) {
    const words = [...(c.command ?? []), ...(c.args ?? [])];
    for (let i = 0; i < words.length; i++) {
      const word = words[i]!;
      if (word === '-S' && words[i + 1]) return { container: c.name, path: socketPath(words[i + 1]!) };
      const inline = /(?:^|[\s;&|(])-S\s*(?:"([^"]+)"|'([^']+)'|([^\s"';]+))/.exec(word);
      if (inline) return { container: c.name, path: socketPath(inline[1] ?? inline[2] ?? inline[3]!) };
    }
  }
  return undefined;
}

const socketPath = (arg: string) => arg.split(',')[0]!.replace(/^unix@/, '');

/**
 * The master CLI's prompt in interactive mode, as HAProxy's src/cli.c (pcli_write_prompt) writes it: `master> `;
 * `master[ReloadFailed]> ` once a reload has failed (the master keeps serving with the previous workers); 3.0+ may
 * put the uptime before it (`prompt timed`: `[0:00:01:02] master> `) and the access modes after it (`master(xe)> `).
 */
export const PROMPT_PATTERN = /(?:^|\n)(?:\[\d+:\d\d:\d\d:\d\d\] )?master(?:\[ReloadFailed\])?(?:\([xed]*\))?> /;
/** Longer than any prompt HAProxy writes (the uptime's days have a few digits): how far back a new piece is searched. */
export const PROMPT_MAX_LENGTH = 64;

/** The answers of an interactive master CLI session (after `prompt`), in the order the commands were sent. */
export function splitAnswers(transcript: string): string[] {
  return transcript.split(PROMPT_PATTERN).slice(1);
}

/** `show proc`: the current worker(s) and the leaving ones; undefined when the text is not its answer. */
export function parseShowProc(text: string): { pid: number; leaving: boolean }[] | undefined {
  if (!/^\d+\s+master\s/m.test(text)) return undefined;
  const workers: { pid: number; leaving: boolean }[] = [];
  let section = '';
  for (const line of text.split('\n')) {
    const heading = /^#\s*(old workers|workers|programs|old programs)/.exec(line);
    if (heading) {
      section = heading[1]!;
      continue;
    }
    const worker = /^(\d+)\s+worker\b/.exec(line);
    if (worker && (section === 'workers' || section === 'old workers'))
      workers.push({ pid: Number(worker[1]), leaving: section === 'old workers' });
  }
  return workers;
}

/**
 * A counter of `show stat` as HAProxy's stats_emit_field_tags/stats_fill_* write it: a non-negative decimal integer
 * (empty when the column does not apply). NaN, Infinity, a sign, a fraction or hex (`Number('0x1F')` is 31) is not
 * one: the row cannot be counted, and the worker's reading is unknown, never a guess.
 */
const COUNTER = /^\d{1,15}$/;

/** Why a worker's `show stat` answer cannot be counted: a counter that is not one. */
export class UncountableStat {
  readonly problem: string;
  constructor(problem: string) {
    this.problem = problem;
  }
}

/**
 * `show stat` in CSV, its servers, columns found by the header; undefined when the text is not its answer, an
 * UncountableStat when a counter of a server row is not a non-negative decimal integer.
 */
export function parseShowStat(text: string): ServerStat[] | UncountableStat | undefined {
  const lines = text.split('\n');
  const header = lines.findIndex((l) => l.startsWith('# ') && /\bpxname\b/.test(l) && /\bsvname\b/.test(l));
  if (header < 0) return undefined;
  const names = lines[header]!.slice(2).split(',');
  const col = (name: string) => names.indexOf(name);
  const [px, sv, scur, qcur, addr, status, type, ttime, eresp, srvAbrt, wretr] = [
    'pxname',
    'svname',
    'scur',
    'qcur',
    'addr',
    'status',
    'type',
    'ttime',
    'eresp',
    'srv_abrt',
    'wretr',
  ].map(col) as number[] as [number, number, number, number, number, number, number, number, number, number, number];
  if (px < 0 || sv < 0 || scur < 0) return undefined;
  const rows: ServerStat[] = [];
  for (const line of lines.slice(header + 1)) {
    if (!line || line.startsWith('#')) continue;
    const f = line.split(',');
    const svname = f[sv] ?? '';
    // type 2 is a server; without the column, every row that is not a proxy's own
    if (type >= 0 ? f[type] !== '2' : svname === 'FRONTEND' || svname === 'BACKEND') continue;
    for (const [i, name] of [
      [scur, 'scur'],
      [qcur, 'qcur'],
      [ttime, 'ttime'],
      [eresp, 'eresp'],
      [srvAbrt, 'srv_abrt'],
      [wretr, 'wretr'],
    ] as const) {
      const value = i >= 0 ? f[i] : undefined;
      if (value && !COUNTER.test(value))
        return new UncountableStat(`show stat gave ${name} ${JSON.stringify(value.slice(0, 20))}, not a count`);
    }
    const number = (i: number) => (i >= 0 && f[i] ? Number(f[i]) : 0);
    rows.push({
      backend: f[px] ?? '',
      server: svname,
      addr: addr >= 0 && f[addr] ? f[addr] : undefined,
      scur: number(scur),
      qcur: number(qcur),
      status: status >= 0 ? (f[status] ?? '') : '',
      ttimeMs: ttime >= 0 && f[ttime] ? Number(f[ttime]) : undefined,
      failed: number(eresp) + number(srvAbrt),
      retried: number(wretr),
    });
  }
  return rows;
}

/**
 * A proxy name HAProxy accepts (cfgparse.c invalid_char: letters, digits, `.`, `-`, `_`, `:`), so a name put in a
 * command is one word: the master CLI splits a line at `;` into commands and at blanks into words, and a backend
 * name from a config the plugin did not write must never become a second command.
 */
const PROXY_NAME = /^[A-Za-z0-9._:-]{1,128}$/;
/** Past this many backends, one read of every server costs less than a command per backend per worker. */
export const MAX_STAT_BACKENDS = 32;

/**
 * The backends a read asks each worker for, or undefined to ask for every server (`-1`): none known, too many, or
 * a name HAProxy would not have taken as one word. Sorted and each once, so followers asking for the same agree.
 */
export function statBackends(backends: readonly string[] | undefined): string[] | undefined {
  const names = [...new Set(backends ?? [])].sort();
  if (!names.length || names.length > MAX_STAT_BACKENDS || !names.every((b) => PROXY_NAME.test(b))) return undefined;
  return names;
}

/**
 * The commands one read sends per worker after `show proc` answered: its servers (type 4, every server id) of each
 * backend of `backends` (as statBackends gives them), or of every backend. Asking only for the backends of the
 * rollout's Services keeps the answer to their servers: a cluster of a thousand backends answers `-1` with MiBs.
 */
export function statCommands(pid: number, backends: readonly string[] | undefined): string[] {
  return backends ? backends.map((b) => `@!${pid} show stat ${b} 4 -1`) : [`@!${pid} show stat -1 4 -1`];
}

/** HAProxy's answer to `show stat <proxy> …` naming a proxy its worker does not have (stats.c, cli_parse_show_stat). */
const NO_SUCH_PROXY = /^\s*No such proxy\.\s*$/;

/**
 * A HAProxy pod's reading from one interactive master CLI session: `prompt`, `show proc`, then each worker's
 * statCommands (`answers` as splitAnswers gives them: show proc's first, then the workers' in order, one per backend
 * of `backends`, or one each when every server was asked for). A worker whose config has no such backend (a leaving
 * worker from before a Service was routed) has no server in it.
 */
export function readingOf(
  pod: string,
  at: number,
  workers: { pid: number; leaving: boolean }[],
  statAnswers: string[],
  backends?: readonly string[] | undefined,
): HAProxyReading {
  const each = backends?.length ?? 1;
  return {
    pod,
    at,
    workers: workers.map((w, i) => {
      const servers: ServerStat[] = [];
      for (let k = 0; k < each; k++) {
        const answer = statAnswers[i * each + k];
        if (backends && answer !== undefined && NO_SUCH_PROXY.test(answer)) continue;
        const rows = answer === undefined ? undefined : parseShowStat(answer);
        if (rows instanceof UncountableStat) return { ...w, problem: `${rows.problem}: its sessions are unknown` };
        if (!rows) {
          const said = answer?.trim().split('\n')[0];
          return {
            ...w,
            problem: said
              ? `a worker did not answer show stat (${said.replace(/\d+/g, 'N').slice(0, 120)}): not registered with the master yet`
              : 'a worker did not answer show stat',
          };
        }
        servers.push(...rows);
      }
      return { ...w, servers };
    }),
  };
}

/** One server of a pod in one worker of one HAProxy pod. */
export interface ServerRow {
  scur: number;
  failed: number;
  retried: number;
}

/** Sessions of one pod on one HAProxy pod: summed over the current and the leaving workers. */
export interface SessionsOn {
  haproxyPod: string;
  /** undefined: unknown (the pod or a worker could not be read) */
  sessions?: number | undefined;
  queued?: number | undefined;
  /** of them, held by leaving workers */
  onLeaving?: number | undefined;
  /** what made it unknown */
  problem?: string | undefined;
}

export interface PodSessions {
  /** summed over every HAProxy pod; undefined when any was unreadable (never 0 for unknown) */
  sessions?: number | undefined;
  queued?: number | undefined;
  /** at least this many (the readable part), when some HAProxy pod or worker was not readable */
  atLeast?: number | undefined;
  on: SessionsOn[];
  /** server rows matched to the pod, over every HAProxy pod and worker (0: HAProxy no longer lists it anywhere) */
  servers: number;
  /**
   * The pod's server rows, by `<HAProxy pod>/<worker pid>/<backend>/<server>`: sessions now, and HAProxy's fault
   * counters, which count from their worker's start (a follower compares them with earlier reads of the same key)
   */
  rows: Record<string, ServerRow>;
}

/**
 * Which pod each server address belongs to, remembered over reads: a server's address stays its pod's after the pod
 * is gone (a leaving worker still holds sessions to it), until another pod is seen at that address. A follower's
 * memory also keeps, in `slots`, whom each worker's servers stood for (sessionsByPod fills it; a one-shot read starts
 * with none).
 */
export type AddressMemory = Map<string, string> & { slots?: SlotMemory };

/**
 * Whom each server row of each worker stood for at earlier reads: by HAProxy pod, then `<pid>/<backend>/<server>`,
 * each pod seen at it with the address it had and the time of the first read that saw it there. The dataplane
 * generation changes a server's address in the running worker, without a reload (a server is updated by its name,
 * pkg/dataplane/comparator/compare_backends.go compareServersWithIndex; the Dataplane API answers 200 for a change
 * made through the runtime API, sections/executors/named_child.go): the sessions the server holds stay on it, counted
 * in its `scur`, while its address is the next pod's or HAPTIC's placeholder.
 */
export type SlotMemory = Map<string, Map<string, SlotOwner[]>>;
export interface SlotOwner {
  key: string;
  addr: string;
  seenAt: number;
  /** the first read that saw the placeholder it left with none open: none of its sessions is there any more */
  clearedAt?: number | undefined;
}

/** An empty dataplane slot (charts/haptic/libraries/base.yaml, BackendServers: `127.0.0.1:1 disabled  # Placeholder`). */
export const PLACEHOLDER_ADDRESS = '127.0.0.1:1';

/** Remembers the addresses of the pods seen now (`ip` → pod key); a pod seen at a reused address takes it over. */
export function rememberAddresses(memory: AddressMemory, pods: { key: string; ip?: string | undefined }[]): void {
  for (const p of pods) if (p.ip) memory.set(p.ip, p.key);
}

/**
 * Which pod each server of HAPTIC's configs stands for, by `<backend>/<server>`: the pod (by key) its `# Pod:`
 * comment names, at the address the server had. The dataplane generation reuses its `SRV_<n>` slots (a pod gone frees
 * its slot for the next, base.yaml BackendServers), so a server's name alone says nothing: it names the pod only
 * while the stat row shows that address.
 */
export type ServerNames = Map<string, { key: string; address: string }[]>;

/** The ServerNames of configs' servers, for the pods known by name (`name` → key). */
export function serverNames(
  servers: { backend: string; server: string; pod: string; named: boolean; address: string }[],
  keys: Map<string, string>,
): ServerNames {
  const names: ServerNames = new Map();
  for (const s of servers) {
    const key = s.named ? keys.get(s.pod) : undefined;
    if (!key) continue;
    const id = `${s.backend}/${s.server}`;
    const list = names.get(id) ?? [];
    if (!list.some((n) => n.key === key && n.address === s.address)) list.push({ key, address: s.address });
    names.set(id, list);
  }
  return names;
}

/**
 * The sessions each pod (by key) has on the HAProxy pods read, summed over workers: a server row is the pod's that
 * the config's `# Pod:` comment names for that backend and server at the row's address (`names`), else the pod at the
 * server's IP (whatever the port; `memory` keeps the addresses of pods gone since). `expected` are the HAProxy pods
 * that should have been read: one missing or unreadable makes the sum unknown (and `atLeast` the part that was read).
 *
 * A server whose address changed under it at runtime (the dataplane generation's slots, SlotMemory) keeps the
 * sessions it held: while it has sessions open, they may be any earlier pod's at it. The one earlier pod of a slot
 * now HAPTIC's placeholder (no pod took it) holds them all; otherwise each earlier pod's count on that HAProxy pod is
 * unknown until the server has none open. A placeholder holding sessions with no earlier pod remembered (a one-shot
 * read, a follower that started after the change) makes unknown, on that HAProxy pod, each pod not at a server of
 * that backend of that worker, except `fresh` ones (the rollout's new pods, which never had a slot to lose). Never a
 * drained pod for sessions HAProxy still counts on a slot it had. One pass over the rows, whatever the number of pods.
 */
export function sessionsByPod(
  readings: HAProxyReading[],
  expected: string[],
  memory: AddressMemory,
  names: ServerNames = new Map(),
  fresh: ReadonlySet<string> = new Set(),
): Map<string, PodSessions> {
  type Tally = { sessions: number; queued: number; onLeaving: number };
  const tallies = new Map<string, { on: Map<string, Tally>; rows: PodSessions['rows']; servers: number }>();
  const tally = (key: string) => {
    const t = tallies.get(key) ?? { on: new Map<string, Tally>(), rows: {}, servers: 0 };
    tallies.set(key, t);
    return t;
  };
  const problems = new Map<string, string>();
  // a pod's own unknown on a HAProxy pod (a server that held its sessions changed hands): key → HAProxy pod → why
  const unsure = new Map<string, Map<string, string>>();
  const mark = (key: string, haproxyPod: string, why: string) => {
    const u = unsure.get(key) ?? new Map<string, string>();
    unsure.set(key, u);
    if (!u.has(haproxyPod)) u.set(haproxyPod, why);
    tally(key).servers++;
  };
  memory.slots ??= new Map();
  const slots = memory.slots;
  for (const pod of slots.keys()) if (!expected.includes(pod)) slots.delete(pod);
  const byPod = new Map(readings.map((r) => [r.pod, r]));
  for (const haproxyPod of expected) {
    const r = byPod.get(haproxyPod);
    if (!r || r.problem) {
      problems.set(haproxyPod, r?.problem ?? 'not read yet');
      continue;
    }
    const seen = slots.get(haproxyPod) ?? new Map<string, SlotOwner[]>();
    slots.set(haproxyPod, seen);
    // a worker gone (or a pid no longer among them) takes its servers with it
    const pids = new Set(r.workers.map((w) => String(w.pid)));
    for (const id of seen.keys()) if (!pids.has(id.slice(0, id.indexOf('/')))) seen.delete(id);
    for (const w of r.workers) {
      if (!w.servers) {
        if (!problems.has(haproxyPod)) problems.set(haproxyPod, w.problem ?? `worker ${w.pid} unreadable`);
        continue;
      }
      const atBackend = new Map<string, Set<string>>();
      const orphans: ServerStat[] = [];
      for (const s of w.servers) {
        const named = names.get(`${s.backend}/${s.server}`)?.filter((n) => !s.addr || n.address === s.addr);
        let key: string | undefined =
          (named?.length === 1 ? named[0]!.key : undefined) ?? (s.addr ? memory.get(ipOf(s.addr)) : undefined);
        if (s.addr) {
          const id = `${w.pid}/${s.backend}/${s.server}`;
          const was = seen.get(id) ?? [];
          const addr = s.addr;
          const placeholder = addr === PLACEHOLDER_ADDRESS;
          const before = was.filter((o) => o.seenAt < r.at && o.addr !== addr && o.key !== key);
          // a placeholder that one pod left, and no other pod since, is still that pod's: its sessions and counters
          const heldBy = !key && placeholder ? [...new Set(before.map((o) => o.key))] : [];
          const held = heldBy.length === 1;
          // the earlier pods whose sessions may still be there: not seen with none open since they left
          const earlier = [
            ...new Set(before.filter((o) => o.clearedAt === undefined || o.clearedAt >= r.at).map((o) => o.key)),
          ];
          if (held && s.scur === 0) for (const o of before) o.clearedAt ??= r.at;
          // none open on a server another pod (or no pod) has now: whatever earlier pods held there is over
          const kept = s.scur === 0 && !held ? was.filter((o) => o.addr === addr || o.seenAt >= r.at) : [...was];
          if (key && !kept.some((o) => o.key === key && o.addr === addr)) kept.push({ key, addr, seenAt: r.at });
          if (kept.length) seen.set(id, kept);
          else seen.delete(id);
          if (held) key = heldBy[0];
          else if (s.scur > 0 && earlier.length) {
            const now = placeholder ? "HAPTIC's placeholder" : addr;
            const why = `${s.backend}/${s.server} went to ${now} with ${s.scur} session${s.scur === 1 ? '' : 's'} open: whose they are is not known`;
            for (const k of earlier) mark(k, haproxyPod, why);
          } else if (s.scur > 0 && !key && placeholder) orphans.push(s);
        }
        if (!key) continue;
        const at = atBackend.get(s.backend) ?? new Set<string>();
        atBackend.set(s.backend, at);
        at.add(key);
        const t = tally(key);
        const on = t.on.get(haproxyPod) ?? { sessions: 0, queued: 0, onLeaving: 0 };
        t.on.set(haproxyPod, on);
        t.servers++;
        on.sessions += s.scur;
        on.queued += s.qcur;
        if (w.leaving) on.onLeaving += s.scur;
        t.rows[`${haproxyPod}/${w.pid}/${s.backend}/${s.server}`] = {
          scur: s.scur,
          failed: s.failed,
          retried: s.retried,
        };
      }
      for (const s of orphans) {
        const why = `${s.backend}/${s.server} is HAPTIC's placeholder with ${s.scur} session${s.scur === 1 ? '' : 's'} open of a pod that had it: whose is not known`;
        for (const k of new Set(memory.values()))
          if (!fresh.has(k) && !atBackend.get(s.backend)?.has(k)) mark(k, haproxyPod, why);
      }
    }
  }
  const out = new Map<string, PodSessions>();
  for (const key of new Set([...memory.values(), ...tallies.keys()])) {
    const t = tallies.get(key);
    const own = unsure.get(key);
    const on = expected.map((haproxyPod): SessionsOn => {
      const n = t?.on.get(haproxyPod) ?? { sessions: 0, queued: 0, onLeaving: 0 };
      const problem = problems.get(haproxyPod) ?? own?.get(haproxyPod);
      return problem === undefined ? { haproxyPod, ...n } : { haproxyPod, problem, sessions: n.sessions };
    });
    const sum = on.reduce((n, o) => n + (o.sessions ?? 0), 0);
    const queued = on.reduce((n, o) => n + (o.queued ?? 0), 0);
    const rest = { on, servers: t?.servers ?? 0, rows: t?.rows ?? {} };
    out.set(key, problems.size || own ? { atLeast: sum, ...rest } : { sessions: sum, queued, ...rest });
  }
  return out;
}

/** The longest average session time any server reports (`ttime`, ms), over every reading: how long sessions take. */
export function longestSessionMs(readings: HAProxyReading[]): { ms: number; server: string; pod: string } | undefined {
  let best: { ms: number; server: string; pod: string } | undefined;
  for (const r of readings)
    for (const w of r.workers)
      for (const s of w.servers ?? [])
        if (s.ttimeMs !== undefined && s.ttimeMs > (best?.ms ?? 0))
          best = { ms: s.ttimeMs, server: `${s.backend}/${s.server}`, pod: r.pod };
  return best;
}
