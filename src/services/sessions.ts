import type { KubeClient } from '../kube/client.ts';
import { type ExecEnd, MAX_OUTPUT, openExec } from '../kube/exec.ts';
import { oneLine } from '../lib/errors.ts';
import type { Permission } from '../model/drill/plan.ts';
import type { Pod } from '../types/kube.ts';
import type { RolloutSnapshot } from '../types/snapshot.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import { ipOf } from '../model/haptic/rendered.ts';
import { routingInstallations, withSessions } from '../model/rollout/sessions.ts';
import {
  type HAProxyReading,
  type MasterSocket,
  masterSocketOf,
  parseShowProc,
  PROMPT_MAX_LENGTH,
  PROMPT_PATTERN,
  readingOf,
  splitAnswers,
  statBackends,
  statCommands,
} from '../model/haptic/sessions.ts';
import { missingPermissions } from './permissions.ts';

// Reads what each HAPTIC HAProxy pod's workers carry, server by server: one pods/exec per HAProxy pod per read, into
// its HAProxy container, running `socat` on the master socket that container's own `-S` names (HAPTIC's image ships
// socat; its chart talks to that socket with it). Only read-only commands are sent: `prompt`, `show proc`, `show stat`
// per worker of the backends that hold the rollout's servers (of every backend when none is known), `quit`. What
// cannot be read is said, once, and never counted as 0.

/**
 * What an exec over WebSocket needs in HAPTIC's namespace: the upgrade is a GET (authorized as `get`), and since 1.35
 * the API server checks `create` too (AuthorizePodWebsocketUpgradeCreatePermission, subresources.go).
 */
export const EXEC_PERMISSIONS: Permission[] = [
  { verb: 'create', group: '', resource: 'pods', subresource: 'exec', for: "to read HAProxy's sessions" },
  { verb: 'get', group: '', resource: 'pods', subresource: 'exec', for: "to read HAProxy's sessions" },
];

/** What is said when pods/exec is not allowed in a namespace; `then` says what is shown instead. */
const noExec = (namespace: string, then: string) =>
  `no permission to exec into HAProxy's pods in namespace ${namespace} (pods/exec: create, get): ${then}`;

/** A read that fails this many times in a row is said; fewer are a reload passing. */
const LASTING = 3;

export interface SessionTarget {
  namespace: string;
  pod: string;
  socket?: MasterSocket | undefined;
  /** the backends of this HAProxy pod's configs that hold the rollout's servers; undefined: ask for every server */
  backends?: string[] | undefined;
}

/** One read of one HAProxy pod: its workers and their servers, or why it could not be read. */
export async function readHAProxyPod(
  client: KubeClient,
  target: SessionTarget,
  options: { deadlineMs?: number; now?: () => number; signal?: AbortSignal } = {},
): Promise<HAProxyReading> {
  const now = options.now ?? Date.now;
  const name = `${target.namespace}/${target.pod}`;
  const failed = (problem: string): HAProxyReading => ({ pod: name, at: now(), workers: [], problem });
  if (!target.socket)
    return {
      ...failed(`HAProxy pod ${target.pod} runs no master socket (no -S argument in its containers)`),
      lasting: true,
    };
  const { container, path } = target.socket;
  let session: Awaited<ReturnType<typeof openExec>>;
  try {
    session = await openExec(
      client,
      {
        namespace: target.namespace,
        pod: target.pod,
        container,
        command: ['socat', '-T5', 'stdio', `unix-connect:${path}`],
      },
      { deadlineMs: options.deadlineMs ?? 5000, signal: options.signal },
    );
  } catch (err) {
    return failed(`exec into ${target.pod} failed: ${oneLine(err)}`);
  }
  // interactive mode: each answer ends with the prompt; show proc's is complete at the second prompt
  session.write('prompt\nshow proc\n');
  let workers: { pid: number; leaving: boolean }[] | undefined;
  try {
    workers = workersShown(await session.until(promptsSeen(2)));
  } catch {
    // the command ended: its end says why
  }
  const backends = statBackends(target.backends);
  if (workers) session.write(`${workers.flatMap((w) => statCommands(w.pid, backends)).join('\n')}\nquit\n`);
  else session.write('quit\n');
  const end = await session.ended;
  return readingOfExec(target, target.socket, workers, end, now(), backends);
}

/** The workers show proc listed, from the transcript up to its answer's end (the second prompt); undefined if none. */
export const workersShown = (text: string) => parseShowProc(splitAnswers(text)[0] ?? '');

/**
 * What one read's session told, once it ended: `workers` as workersShown gave them (undefined when show proc was
 * not answered: the end says why), `end` the exec's, `at` when it ended, `backends` the ones each worker was asked
 * for (statBackends; undefined: every server). Pure: readHAProxyPod's end, and the fuzzer's.
 */
export function readingOfExec(
  target: { namespace: string; pod: string },
  socket: MasterSocket,
  workers: { pid: number; leaving: boolean }[] | undefined,
  end: Pick<ExecEnd, 'stdout' | 'stderr' | 'message' | 'exitCode' | 'truncated'>,
  at: number,
  backends?: readonly string[] | undefined,
): HAProxyReading {
  const name = `${target.namespace}/${target.pod}`;
  if (!workers) {
    const problem = execProblem(target.pod, socket.container, socket.path, end);
    return { pod: name, at, workers: [], problem, lasting: problem.startsWith('no socat') };
  }
  const answers = splitAnswers(end.stdout).slice(1);
  // an answer is whole when a prompt follows it, or the session ended by itself; a transcript cut at the cap leaves
  // its last answer cut: that worker's reading is unknown, never a smaller count or 0
  if (end.truncated) answers.pop();
  const reading = readingOf(name, at, workers, answers, backends);
  const each = backends?.length ?? 1;
  return end.truncated
    ? {
        ...reading,
        workers: reading.workers.map((w, i) =>
          (i + 1) * each <= answers.length ? w : { pid: w.pid, leaving: w.leaving, problem: TRUNCATED },
        ),
      }
    : reading;
}

const TRUNCATED = `its show stat answer went past ${MAX_OUTPUT / 1024 / 1024} MiB and was cut: not read`;

/**
 * A test for ExecSession.until: whether `count` prompts of the master CLI have been seen. It is given each new piece
 * of stdout and looks only at it and the few characters before it (where a prompt may have begun), never at the whole
 * transcript, so reading a long answer in many pieces costs as much as the answer, not its square.
 */
export function promptsSeen(count: number): (piece: string) => boolean {
  const prompt = new RegExp(PROMPT_PATTERN.source, 'g');
  let seen = 0;
  let carry = '';
  return (piece) => {
    const text = carry + piece;
    prompt.lastIndex = 0;
    // a prompt wholly inside the carried characters was counted with the piece before
    for (let m = prompt.exec(text); m; m = prompt.exec(text)) if (m.index + m[0].length > carry.length) seen++;
    carry = text.slice(-PROMPT_MAX_LENGTH);
    return seen >= count;
  };
}

/** Why a read failed, in the words a user can act on. */
export function execProblem(
  pod: string,
  container: string,
  path: string,
  end: { stderr: string; message?: string | undefined; exitCode?: number | undefined; stdout: string },
): string {
  const said = `${end.message ?? ''} ${end.stderr}`;
  if (/executable file not found|no such file or directory: socat|"socat": /i.test(said) || end.exitCode === 127)
    return `no socat in HAProxy pod ${pod}'s ${container} container: its image cannot be asked (HAPTIC's ships socat)`;
  if (/connect\(|No such file|Connection refused|ECONNREFUSED/.test(end.stderr))
    return `HAProxy's master socket ${path} does not answer in ${pod}: ${firstLine(end.stderr).replace(/^.*?socat\[\d+\] E /, '')}`;
  const why = end.message || firstLine(end.stderr) || 'no answer to show proc';
  return `could not read HAProxy in ${pod}: ${why}`;
}

const firstLine = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .find(Boolean)
    ?.slice(0, 200) ?? '';

export interface SessionsState {
  /** the latest reading of each HAProxy pod */
  readings: HAProxyReading[];
  /** why no HAProxy pod can be read (no pods/exec permission): then the view shows stages only */
  unavailable?: string | undefined;
}

/**
 * The HAProxy pods of the installations that route the rollout, with the master socket each one's HAProxy runs and
 * the backends of the installation's configs (the live one and those it retains) that hold a server of the rollout's
 * pods: the only ones a read asks for.
 */
export function sessionTargets(
  model: Pick<RolloutModel, 'installations' | 'routing' | 'newPods' | 'oldPods'>,
  pods: Pod[],
): SessionTarget[] {
  const rollout = [...model.newPods, ...model.oldPods];
  const names = new Set(rollout.map((p) => p.name));
  const ips = new Set(rollout.flatMap((p) => (p.ip ? [p.ip] : [])));
  return routingInstallations(model).flatMap((inst) => {
    const servers = [...(inst.config?.servers ?? []), ...(inst.config?.retained.flatMap((r) => r.servers ?? []) ?? [])];
    const backends = [
      ...new Set(servers.filter((s) => names.has(s.pod) || ips.has(ipOf(s.address))).map((s) => s.backend)),
    ];
    return inst.haproxyPods
      .filter((h) => h.discovered)
      .map((h) => {
        const pod = pods.find((p) => p.metadata.namespace === inst.namespace && p.metadata.name === h.name);
        return {
          namespace: inst.namespace,
          pod: h.name,
          socket: pod && masterSocketOf(pod),
          backends: backends.length ? backends : undefined,
        };
      });
  });
}

/**
 * Each HAProxy pod once, whoever names it, asked for the backends any of them needs (every server when one of them
 * knows none).
 */
export function mergeTargets(targets: Iterable<SessionTarget>): SessionTarget[] {
  const all = new Map<string, SessionTarget>();
  for (const t of targets) {
    const key = `${t.namespace}/${t.pod}`;
    const had = all.get(key);
    const backends = !had
      ? t.backends
      : had.backends && t.backends
        ? [...new Set([...had.backends, ...t.backends])]
        : undefined;
    all.set(key, { ...t, socket: t.socket ?? had?.socket, backends });
  }
  return [...all.values()];
}

/** One read of each HAProxy pod (a one-shot answer: why-stalled, doctor), after asking whether exec is allowed. */
export async function readSessionsOnce(client: KubeClient, targets: SessionTarget[]): Promise<SessionsState> {
  const namespaces = [...new Set(targets.map((t) => t.namespace))];
  const refused = (
    await Promise.all(
      namespaces.map((ns) => missingPermissions(client, ns, EXEC_PERMISSIONS).then((m) => (m.length ? ns : undefined))),
    )
  ).find(Boolean);
  if (refused)
    return {
      readings: [],
      unavailable: noExec(refused, 'sessions not read'),
    };
  return { readings: await Promise.all(targets.map((t) => readHAProxyPod(client, t))) };
}

/**
 * One-shot answers (status, why-stalled): each model with its pods' sessions, from one read of every HAProxy pod
 * any of them names (each pod once, however many models name it).
 */
export async function modelsWithSessions(
  client: KubeClient,
  snapshots: RolloutSnapshot[],
  models: RolloutModel[],
): Promise<RolloutModel[]> {
  if (!models.length) return models;
  const targets = mergeTargets(models.flatMap((m, i) => sessionTargets(m, snapshots[i]!.haptic.pods.items)));
  const state = await readSessionsOnce(client, targets);
  return models.map((m) => withSessions(m, state, new Map()));
}

/** What followers share: one sampler reads each HAProxy pod once, whoever follows. */
export interface SessionsSource {
  /** A follower's HAProxy pods to read, and what to call after each read; returns its removal. */
  add(targets: () => SessionTarget[], onChange: () => void): () => void;
  state(): SessionsState;
}

/**
 * Reads every HAProxy pod its followers name, one read per pod at a time, every `intervalMs`, and tells them after
 * each read. Before the first read in a namespace, asks whether pods/exec is allowed there (SelfSubjectAccessReview).
 * Runs while at least one follower is added.
 */
export class SessionSampler implements SessionsSource {
  private readonly client: KubeClient;
  private readonly intervalMs: number;
  private readonly sources = new Set<{ targets: () => SessionTarget[]; onChange: () => void }>();
  private readonly readings = new Map<string, HAProxyReading>();
  private readonly busy = new Set<string>();
  /** reads of each HAProxy pod that failed in a row */
  private readonly failures = new Map<string, number>();
  private readonly allowed = new Map<string, Promise<string | undefined>>();
  private denied: string | undefined;
  private timer: NodeJS.Timeout | undefined;
  private abort = new AbortController();

  constructor(client: KubeClient, options: { intervalMs?: number } = {}) {
    this.client = client;
    this.intervalMs = options.intervalMs ?? 1000;
  }

  add(targets: () => SessionTarget[], onChange: () => void): () => void {
    const source = { targets, onChange };
    this.sources.add(source);
    if (this.sources.size === 1) {
      this.abort = new AbortController();
      this.tick();
    }
    return () => {
      this.sources.delete(source);
      if (this.sources.size === 0) {
        clearTimeout(this.timer);
        this.abort.abort();
      }
    };
  }

  private targets(): SessionTarget[] {
    return mergeTargets([...this.sources].flatMap((s) => s.targets()));
  }

  private changed(): void {
    for (const s of this.sources) s.onChange();
  }

  state(): SessionsState {
    const live = new Set(this.targets().map((t) => `${t.namespace}/${t.pod}`));
    return {
      readings: [...this.readings.values()].filter((r) => live.has(r.pod)),
      unavailable: this.denied,
    };
  }

  private permission(namespace: string): Promise<string | undefined> {
    let answer = this.allowed.get(namespace);
    if (!answer) {
      answer = missingPermissions(this.client, namespace, EXEC_PERMISSIONS).then(
        (missing) => (missing.length ? noExec(namespace, 'showing stages only') : undefined),
        (err: unknown) => `cannot ask whether exec into namespace ${namespace} is allowed: ${oneLine(err)}`,
      );
      this.allowed.set(namespace, answer);
    }
    return answer;
  }

  private tick(): void {
    if (!this.sources.size) return;
    for (const target of this.targets()) {
      const key = `${target.namespace}/${target.pod}`;
      if (this.busy.has(key)) continue;
      this.busy.add(key);
      void this.read(target, key, this.abort.signal).finally(() => this.busy.delete(key));
    }
    this.timer = setTimeout(() => this.tick(), this.intervalMs);
  }

  private async read(target: SessionTarget, key: string, signal: AbortSignal): Promise<void> {
    const refused = await this.permission(target.namespace);
    if (signal.aborted) return;
    if (refused) {
      if (this.denied !== refused) {
        this.denied = refused;
        this.changed();
      }
      return;
    }
    const reading = await readHAProxyPod(this.client, target, { signal });
    if (signal.aborted) return;
    // a failure is a note when it lasts (LASTING reads in a row) or cannot pass (no socat, no master socket)
    const failures = reading.problem ? (this.failures.get(key) ?? 0) + 1 : 0;
    this.failures.set(key, failures);
    if (reading.problem && !reading.lasting && failures < LASTING) reading.transient = true;
    this.readings.set(key, reading);
    this.changed();
  }
}
