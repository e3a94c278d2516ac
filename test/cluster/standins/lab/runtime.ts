// The lab's container runtime behind the node stand-in (node.ts hands it every pod with an image it knows,
// images.ts): per pod a network sandbox (sandbox.ts), one process per container (container.ts), readiness probes
// run for real (probes.ts), and the kubelet's termination: the preStop hook (exec, sleep, httpGet), then the stop
// signal, then SIGKILL when the grace period ends (pkg/kubelet/kuberuntime/kuberuntime_container.go killContainer:
// the preStop runs within the grace period, what it leaves — at least 2 s — is the stop's timeout). When every
// container has exited, the pod's status says so (status.ts) and, if it is being deleted, the pod is removed.
import { mkdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import type { Kube } from '../../kube.ts';
import { errorText, log, type Obj } from '../common.ts';
import type { KubeletContext, KubeletEvent, KubeletView } from '../kubelet-status.ts';
import { ContainerProcess } from './container.ts';
import { type ContainerPlan, containerPlan, type ContainerSpec, imageKind } from './images.ts';
import { INITIAL, type ProbeSpec, probeSpec, type ProbeState, probeStep, runProbe } from './probes.ts';
import { createSandbox, destroySandbox, type Sandbox } from './sandbox.ts';
import { backoffMs, type ContainerRun, restarts, runtimeView } from './status.ts';

/** What node.ts gives the runtime to write with: the status (and events) of a view, and the final delete. */
export type RuntimeIO = { show(view: KubeletView): Promise<void>; remove(): Promise<void> };

/** The hook node.ts calls for the pods a runtime runs. */
export interface PodRuntime {
  runs(pod: Obj): boolean;
  reconcile(key: string, pod: Obj, ctx: KubeletContext, io: RuntimeIO): Promise<number | undefined>;
  forget(key: string): void;
  attach(onChange: (key: string) => void): void;
}

/** kuberuntime_container.go minimumGracePeriodInSeconds: the stop always gets at least this long after a preStop. */
const MIN_STOP_MS = 2000;
const BOOTSTRAP_HAPROXY = `# the HAPTIC agent's bootstrap configuration, until the controller's first deploy
global
    log stdout format raw local0
defaults
    mode http
    timeout connect 5s
    timeout client 30s
    timeout server 30s
frontend status
    bind *:8404
    http-request return status 200 content-type text/plain string "OK" if { path /healthz }
`;

type Container = ContainerSpec & { lifecycle?: { stopSignal?: string; preStop?: PreStop } };
type PreStop = {
  exec?: { command?: string[] };
  sleep?: { seconds?: number };
  httpGet?: { path?: string; port: number | string; host?: string };
};

type Run = ContainerRun & {
  plan?: ContainerPlan;
  spec: Container;
  proc?: ContainerProcess;
  probe?: ProbeSpec;
  probeState: ProbeState;
  probeTimer?: NodeJS.Timeout;
  restartAt?: number;
};

type LabPod = {
  key: string;
  uid: string;
  dir: string;
  sandbox?: Sandbox;
  runs: Map<string, Run>;
  started: boolean;
  stopping: boolean;
  removed: boolean;
  events: Map<string, KubeletEvent>;
};

export class LabRuntime implements PodRuntime {
  private readonly pods = new Map<string, LabPod>();
  private onChange: (key: string) => void = () => {};
  private readonly opts: { kube: Kube; labNetns: string; labDir: string; repoRoot: string; node: string };

  constructor(opts: { kube: Kube; labNetns: string; labDir: string; repoRoot: string; node: string }) {
    this.opts = opts;
    mkdirSync(join(opts.labDir, 'p'), { recursive: true });
    mkdirSync(join(opts.labDir, 'probes'), { recursive: true });
  }

  attach(onChange: (key: string) => void): void {
    this.onChange = onChange;
  }

  runs(pod: Obj): boolean {
    const images = (pod.spec.containers as Container[]).map((c) => c.image);
    return images.some((image) => imageKind(image, images) !== undefined);
  }

  /** The files of a running HAPTIC HAProxy pod's agent (for the HAPTIC stand-in's deploys), by namespace/name. */
  agentOf(key: string): { config: string; masterSocket: string; log: string; uid: string } | undefined {
    const pod = this.pods.get(key);
    const run = pod && [...pod.runs.values()].find((r) => r.plan?.agent && r.state === 'running');
    if (!pod || !run?.plan?.agent) return undefined;
    const { socketInside, ...files } = run.plan.agent;
    // a socket's path may be 107 bytes at most (sun_path): the pod's folder under the cluster's is often longer, so
    // the agent reaches it as the container sees it, through its root (the agent shares that volume in HAPTIC's pod)
    const pid = run.proc?.pid;
    const masterSocket = socketInside && pid ? `/proc/${pid}/root${socketInside}` : files.masterSocket;
    return { ...files, masterSocket, log: this.logFile(pod, run.name, run.restarts), uid: pod.uid };
  }

  /** A running container of a pod, by namespace/name, for the kubelet API's exec: its process, image and env. */
  execTarget(
    key: string,
    container: string,
  ): { proc: ContainerProcess; image: string; env: Record<string, string> } | undefined {
    const run = this.pods.get(key)?.runs.get(container);
    if (!run?.plan || !run.proc || run.state !== 'running' || run.proc.exit) return undefined;
    return { proc: run.proc, image: run.spec.image, env: run.plan.env };
  }

  /** The CRI log of a container's current (or previous) attempt, for the kubelet API's containerLogs. */
  logOf(key: string, container: string, previous = false): string | undefined {
    const pod = this.pods.get(key);
    const run = pod?.runs.get(container);
    if (!pod || !run?.plan || (previous && run.restarts === 0)) return undefined;
    const file = this.logFile(pod, container, previous ? run.restarts - 1 : run.restarts);
    return existsSync(file) ? file : undefined;
  }

  async reconcile(key: string, pod: Obj, ctx: KubeletContext, io: RuntimeIO): Promise<number | undefined> {
    let lab = this.pods.get(key);
    if (lab && lab.uid !== pod.metadata.uid) {
      this.forget(key);
      lab = undefined;
    }
    if (!lab) {
      lab = {
        key,
        uid: pod.metadata.uid!,
        dir: join(this.opts.labDir, 'p', pod.metadata.uid!.replace(/-/g, '').slice(0, 12)),
        runs: new Map(),
        started: false,
        stopping: false,
        removed: false,
        events: new Map(),
      };
      this.pods.set(key, lab);
    }
    if (!lab.started) {
      // a start that fails before any container runs (the sandbox could not be made) is tried again on the next pass
      await this.start(lab, pod, ctx.podIP!);
      lab.started = true;
    }
    if (pod.metadata.deletionTimestamp && !lab.stopping) {
      lab.stopping = true;
      void this.stop(lab, pod);
    }
    const now = Date.now();
    const wake = lab.stopping ? undefined : this.restartDue(lab, pod, ctx.podIP!, now);
    const view = runtimeView(pod, ctx, lab.runs);
    await io.show({ ...view, events: [...lab.events.values()] });
    const ended = [...lab.runs.values()].every((r) => r.state === 'exited');
    // A container that exited while this pass wrote the status is restarted on the next one, in the same sandbox.
    const restarting =
      !lab.stopping &&
      [...lab.runs.values()].some((r) => r.ended && restarts(pod.spec.restartPolicy, r.ended.exitCode));
    if (ended && !restarting && lab.sandbox) {
      // CNI DEL once no container is left and none will be restarted: the kubelet keeps a pod's sandbox while
      // restartPolicy restarts its containers (kuberuntime_manager.go computePodActions) and kills it with a pod
      // that is terminal or deleted (kubelet.go SyncTerminatingPod → killPod); the pod IP then stops answering
      await destroySandbox(lab.sandbox);
      lab.sandbox = undefined;
    }
    if (ended && pod.metadata.deletionTimestamp && !lab.removed) {
      // the kubelet's status manager deletes the pod only once its final status is stored: a status write that
      // lost a conflict is written again on the next pass (the watch brings the newer pod)
      const statuses: { state?: { terminated?: unknown } }[] = pod.status?.containerStatuses ?? [];
      const stored = statuses.length === pod.spec.containers.length && statuses.every((c) => c.state?.terminated);
      if (!stored) return Date.now() + 200;
      lab.removed = true;
      await io.remove();
    }
    return wake;
  }

  forget(key: string): void {
    const lab = this.pods.get(key);
    if (!lab) return;
    this.pods.delete(key);
    for (const run of lab.runs.values()) {
      clearTimeout(run.probeTimer);
      run.proc?.kill();
    }
    // the kubelet removes a deleted pod's containers, logs and volumes
    void Promise.all([...lab.runs.values()].map((r) => r.proc?.whenExited())).then(async () => {
      if (lab.sandbox) await destroySandbox(lab.sandbox);
      rmSync(lab.dir, { recursive: true, force: true });
    });
  }

  /** Kills every container at once (the stand-ins are stopping). */
  stopAll(): void {
    for (const lab of this.pods.values()) for (const run of lab.runs.values()) run.proc?.kill();
  }

  private logFile(lab: LabPod, container: string, attempt: number): string {
    return join(lab.dir, 'logs', `${container}-${attempt}.log`);
  }

  private async start(lab: LabPod, pod: Obj, podIP: string): Promise<void> {
    mkdirSync(join(lab.dir, 'logs'), { recursive: true });
    await this.writeVolumes(lab, pod);
    lab.sandbox = await createSandbox(this.opts.labNetns, lab.uid, podIP);
    const images = (pod.spec.containers as Container[]).map((c) => c.image);
    for (const spec of pod.spec.containers as Container[]) {
      // the probe's own count outlives the pod (the lab's tests read it after drill deleted the pod)
      const probeTally = join(this.opts.labDir, 'probes', `${pod.metadata.namespace}_${pod.metadata.name}.jsonl`);
      const plan = containerPlan(spec, images, {
        repoRoot: this.opts.repoRoot,
        node: this.opts.node,
        podDir: lab.dir,
        pod: { name: pod.metadata.name, namespace: pod.metadata.namespace!, podIP },
        probeTally,
      });
      const probe = plan ? probeSpec(spec.readinessProbe as never) : undefined;
      const run: Run = {
        name: spec.name,
        restarts: 0,
        state: 'running',
        startedAt: Date.now(),
        ready: plan === undefined,
        spec,
        probeState: INITIAL,
        ...(plan ? { plan } : {}),
        ...(probe ? { probe } : {}),
      };
      lab.runs.set(spec.name, run);
      if (plan?.agent && !existsSync(plan.agent.config)) writeFileSync(plan.agent.config, BOOTSTRAP_HAPROXY);
      if (plan) await this.launch(lab, run, podIP);
    }
  }

  /** ConfigMap volumes as the kubelet writes them (every key, or the listed items, as files); emptyDir folders. */
  private async writeVolumes(lab: LabPod, pod: Obj): Promise<void> {
    for (const volume of pod.spec.volumes ?? []) {
      const dir = join(lab.dir, 'volumes', volume.name);
      mkdirSync(dir, { recursive: true });
      if (!volume.configMap) continue;
      const cm = await this.opts.kube.tryGet<Obj>('v1', 'ConfigMap', volume.configMap.name, pod.metadata.namespace);
      const data: Record<string, string> = cm?.data ?? {};
      const items: { key: string; path: string }[] =
        volume.configMap.items ?? Object.keys(data).map((key) => ({ key, path: key }));
      for (const item of items) if (data[item.key] !== undefined) writeFileSync(join(dir, item.path), data[item.key]!);
    }
  }

  private async launch(lab: LabPod, run: Run, podIP: string): Promise<void> {
    const plan = run.plan!;
    const proc = new ContainerProcess({
      name: run.name,
      netns: lab.sandbox!.netns,
      argv: plan.argv,
      env: plan.env,
      logFile: this.logFile(lab, run.name, run.restarts),
      cwd: lab.dir,
      keep: [this.opts.repoRoot, this.opts.labDir],
      mounts: plan.mounts,
    });
    run.proc = proc;
    run.state = 'running';
    run.startedAt = Date.now();
    run.ready = !run.probe;
    run.probeState = INITIAL;
    await proc.started().catch((error) => log('node', `${lab.key}/${run.name}: ${errorText(error)}`));
    void proc.whenExited().then((exit) => {
      clearTimeout(run.probeTimer);
      if (run.proc !== proc) return;
      run.ended = { exitCode: exit.code, startedAt: run.startedAt, finishedAt: exit.at };
      run.ready = false;
      run.state = 'exited';
      this.onChange(lab.key);
    });
    if (run.probe) this.scheduleProbe(lab, run, proc, podIP, run.probe.initialDelayMs);
  }

  private scheduleProbe(lab: LabPod, run: Run, proc: ContainerProcess, podIP: string, delayMs: number): void {
    run.probeTimer = setTimeout(async () => {
      if (run.proc !== proc || proc.exit) return;
      const spec = run.probe!;
      const { ok, output } = await runProbe(spec.handler, {
        podIP,
        ports: run.spec.ports,
        timeoutMs: spec.timeoutMs,
        exec: (argv, ms) => proc.exec(argv, ms),
      });
      if (run.proc !== proc || proc.exit) return;
      if (!ok) this.event(lab, run.name, 'Warning', 'Unhealthy', `Readiness probe failed: ${output}`);
      const next = probeStep(run.probeState, ok, spec);
      const changed = next.ready !== run.ready;
      run.probeState = next;
      run.ready = next.ready;
      if (changed || !ok) this.onChange(lab.key);
      this.scheduleProbe(lab, run, proc, podIP, spec.periodMs);
    }, delayMs);
  }

  /** Restarts exited containers whose back-off has passed (restartPolicy); returns when the next one is due. */
  private restartDue(lab: LabPod, pod: Obj, podIP: string, now: number): number | undefined {
    let wake: number | undefined;
    for (const run of lab.runs.values()) {
      if (run.state === 'running' || !run.plan || !run.ended) continue;
      if (run.state === 'exited') {
        if (!restarts(pod.spec.restartPolicy, run.ended.exitCode)) continue;
        run.state = 'backoff';
        run.restartAt = now + backoffMs(run.restarts + 1);
        run.backoffMessage = `back-off ${Math.round(backoffMs(run.restarts + 1) / 1000)}s restarting failed container=${run.name} pod=${pod.metadata.name}_${pod.metadata.namespace}(${lab.uid})`;
      }
      if (run.restartAt! <= now) {
        run.restarts++;
        void this.launch(lab, run, podIP).then(() => this.onChange(lab.key));
      } else {
        wake = Math.min(wake ?? Infinity, run.restartAt!);
      }
    }
    return wake;
  }

  /** The kubelet's killPod: every container at once, each its preStop then its stop signal, SIGKILL at the deadline. */
  private async stop(lab: LabPod, pod: Obj): Promise<void> {
    const graceMs = (pod.metadata.deletionGracePeriodSeconds ?? pod.spec.terminationGracePeriodSeconds ?? 30) * 1000;
    await Promise.all([...lab.runs.values()].map((run) => this.stopContainer(lab, run, pod, graceMs)));
    this.onChange(lab.key);
  }

  private async stopContainer(lab: LabPod, run: Run, pod: Obj, graceMs: number): Promise<void> {
    const started = Date.now();
    if (run.state === 'backoff') run.state = 'exited';
    if (!run.proc || run.state !== 'running') {
      if (run.state === 'running') {
        // no process: it stops at once
        run.ended = { exitCode: 0, startedAt: run.startedAt, finishedAt: Date.now() };
        run.state = 'exited';
        run.ready = false;
      }
      return;
    }
    const proc = run.proc;
    this.event(lab, run.name, 'Normal', 'Killing', `Stopping container ${run.name}`);
    const preStop = run.spec.lifecycle?.preStop;
    if (preStop) {
      const failed = await this.preStop(preStop, proc, pod, run, graceMs);
      if (failed) this.event(lab, run.name, 'Warning', 'FailedPreStopHook', failed);
    }
    const left = Math.max(graceMs - (Date.now() - started), MIN_STOP_MS);
    proc.signal(run.plan!.stopSignal);
    const killed = setTimeout(() => proc.signal('SIGKILL'), left);
    await proc.whenExited();
    clearTimeout(killed);
  }

  /** Runs a preStop hook within the grace period; resolves with the kubelet's words for a failure, if any. */
  private async preStop(
    hook: PreStop,
    proc: ContainerProcess,
    pod: Obj,
    run: Run,
    graceMs: number,
  ): Promise<string | undefined> {
    const where = `Container "${run.name}" in Pod "${pod.metadata.name}_${pod.metadata.namespace}(${pod.metadata.uid})"`;
    if (hook.sleep) {
      await new Promise((r) => setTimeout(r, Math.min((hook.sleep!.seconds ?? 0) * 1000, graceMs)));
      return undefined;
    }
    if (hook.exec?.command?.length) {
      const command = hook.exec.command;
      const code = await proc.exec(command, graceMs);
      return code === 0
        ? undefined
        : `Exec lifecycle hook (${JSON.stringify(command)}) for ${where} failed - error: command '${command.join(' ')}' exited with ${code}`;
    }
    if (hook.httpGet) {
      const port =
        typeof hook.httpGet.port === 'number'
          ? hook.httpGet.port
          : run.spec.ports?.find((p) => p.name === hook.httpGet!.port)?.containerPort;
      const host = hook.httpGet.host ?? pod.status?.podIP;
      if (!port || !host)
        return `HTTP lifecycle hook (${hook.httpGet.path ?? '/'}) for ${where} failed - error: no port`;
      const error = await new Promise<string | undefined>((resolve) => {
        const req = request({ host, port, path: hook.httpGet!.path ?? '/', timeout: graceMs, agent: false }, (res) => {
          res.resume();
          res.on('end', () => resolve(undefined));
        });
        req.on('error', (e) => resolve(e.message));
        req.on('timeout', () => req.destroy(new Error('timeout')));
        req.end();
      });
      return error && `HTTP lifecycle hook (${hook.httpGet.path ?? '/'}) for ${where} failed - error: ${error}`;
    }
    return undefined;
  }

  /** An event as the kubelet's recorder counts it: one object per (container, reason, message), count going up. */
  private event(lab: LabPod, container: string, type: 'Normal' | 'Warning', reason: string, message: string): void {
    const id = `${container}|${reason}|${message}`;
    const seen = lab.events.get(id);
    lab.events.set(id, {
      type,
      reason,
      message,
      count: (seen?.count ?? 0) + 1,
      fieldPath: `spec.containers{${container}}`,
    });
  }
}
