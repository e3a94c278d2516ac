// The images the lab's node stand-in runs for real, and how: what a container runtime would run for each (the
// image's entrypoint and command, the pod's command/args, its env), with the host's binaries standing in for the
// image's. Any other image runs no process: its container is reported running and ready (the stand-in's
// "healthy" trace), as outside the lab. Pure: a container spec in, a plan out.
import { join } from 'node:path';
import { normalizeImage } from '../images.ts';

export const HTTP_SERVER_IMAGE = 'lab.kubectl-haptic.dev/http-server';
/** drill's default probe image (curl and a shell, on Alpine): the lab imitates it with lab/probe.ts */
export const CURL_IMAGE = 'curlimages/curl';
/** The HAPTIC agent's image: the pod's file tree and HAProxy's sockets are its (the lab's agent is the HAPTIC stand-in). */
const HAPTIC_AGENT = /\/haptic-agent$/;

export type ImageKind = 'http-server' | 'probe' | 'haproxy' | 'haptic-haproxy';

export type ContainerSpec = {
  name: string;
  image: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  ports?: { name?: string; containerPort: number; protocol?: string }[];
  volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
  lifecycle?: { stopSignal?: string; preStop?: unknown };
  readinessProbe?: unknown;
};

export type ContainerPlan = {
  kind: ImageKind;
  /** what to exec inside the container's namespaces */
  argv: string[];
  env: Record<string, string>;
  /** the signal the kubelet stops it with after the preStop */
  stopSignal: NodeJS.Signals;
  /**
   * HAPTIC's HAProxy pods: the files the agent owns (the config HAProxy loads, the master socket), as the node sees
   * them; `socketInside`, the socket's path inside the container, when it lies in a volume bound there
   */
  agent?: { config: string; masterSocket: string; socketInside?: string };
  /** folders of the pod bound over a path inside the container (its emptyDir volumes), as a runtime mounts them */
  mounts?: { source: string; target: string }[];
};

/** Where HAPTIC's chart puts the master socket (charts/haptic/templates/haproxy-deployment.yaml, the `-S` argument). */
export const CHART_MASTER_SOCKET = '/etc/haproxy/haproxy-master.sock';

/** The path of a container's `-S` argument, on its own or in a shell script (`-S "/path,level,admin"`). */
export function masterSocketArg(container: ContainerSpec): string | undefined {
  const words = [...(container.command ?? []), ...(container.args ?? [])];
  for (const [i, word] of words.entries()) {
    if (word === '-S' && words[i + 1]) return words[i + 1]!.split(',')[0];
    const inline = /(?:^|\s)-S\s*"?([^\s",]+)/.exec(word);
    if (inline) return inline[1];
  }
  return undefined;
}

/**
 * Whether a program is in an image, for the programs the lab runs from the host's own: socat only in HAProxy
 * Technologies' images (haproxytech/haproxy-{alpine,debian,ubuntu}), which HAPTIC's chart runs and uses socat in
 * (charts/haptic/templates/haproxy-deployment.yaml); the official `haproxy` image and the others have none. A shell
 * and the usual utilities are in every image the lab runs.
 */
export function imageHas(image: string, program: string): boolean {
  if (program.split('/').pop() !== 'socat') return true;
  return /^haproxytech\/haproxy-(alpine|debian|ubuntu)$/.test(repositoryOf(image));
}

/** The repository of an image without registry defaults or tag: `haproxy`, `haproxytech/haproxy-debian`. */
export function repositoryOf(image: string): string {
  const ref = normalizeImage(image).split('@')[0]!;
  const path = ref.slice(0, ref.lastIndexOf(':') > ref.lastIndexOf('/') ? ref.lastIndexOf(':') : ref.length);
  return path.replace(/^docker\.io\/(library\/)?/, '');
}

export function imageKind(image: string, podImages: string[]): ImageKind | undefined {
  const repo = repositoryOf(image);
  if (repo === HTTP_SERVER_IMAGE) return 'http-server';
  if (repo === CURL_IMAGE) return 'probe';
  if (repo.split('/').pop()!.includes('haproxy'))
    return podImages.some((i) => HAPTIC_AGENT.test(repositoryOf(i))) ? 'haptic-haproxy' : 'haproxy';
  return undefined;
}

/**
 * The image's STOPSIGNAL, where the image is known to set one: the official `haproxy` image (docker-library/haproxy,
 * Dockerfile `STOPSIGNAL SIGUSR1`) and HAProxy Technologies' `haproxytech/haproxy-{alpine,debian,ubuntu}` (same line
 * in haproxytech/haproxy-docker-*). Any other image keeps the runtime's default, SIGTERM.
 */
export function imageStopSignal(image: string): NodeJS.Signals {
  const repo = repositoryOf(image);
  if (repo === 'haproxy' || /^haproxytech\/haproxy-(alpine|debian|ubuntu)$/.test(repo)) return 'SIGUSR1';
  return 'SIGTERM';
}

/** The kubelet's stop signal: `lifecycle.stopSignal` (the ContainerStopSignals feature), else the image's. */
export function stopSignalOf(container: ContainerSpec): NodeJS.Signals {
  const declared = container.lifecycle?.stopSignal;
  if (typeof declared === 'string' && /^SIG[A-Z0-9]+$/.test(declared.toUpperCase()))
    return declared.toUpperCase() as NodeJS.Signals;
  return imageStopSignal(container.image);
}

/** Literal env values and the downward API fields the lab supports (metadata.name, metadata.namespace, status.podIP). */
export function envOf(
  container: ContainerSpec,
  pod: { name: string; namespace: string; podIP: string },
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const e of container.env ?? []) {
    if (typeof e.value === 'string') env[e.name] = e.value;
    const path = (e.valueFrom as { fieldRef?: { fieldPath?: string } } | undefined)?.fieldRef?.fieldPath;
    if (path === 'metadata.name') env[e.name] = pod.name;
    else if (path === 'metadata.namespace') env[e.name] = pod.namespace;
    else if (path === 'status.podIP') env[e.name] = pod.podIP;
  }
  return env;
}

/**
 * Maps a path inside the container to the file the kubelet made for it: a path under a volume's mountPath is the
 * volume's directory in the pod's folder (`volumes/<volume>/…`); any other path is the host's own.
 */
export function hostPath(path: string, container: ContainerSpec, podDir: string): string {
  const mounts = [...(container.volumeMounts ?? [])].sort((a, b) => b.mountPath.length - a.mountPath.length);
  for (const m of mounts) {
    const base = m.mountPath.replace(/\/+$/, '');
    if (path === base || path.startsWith(`${base}/`))
      return join(podDir, 'volumes', m.name, m.subPath ?? '', path.slice(base.length));
  }
  return path;
}

/**
 * How the lab runs a container of a known image. `repoRoot` holds the lab's own programs, `node` the Node binary,
 * `podDir` the pod's folder (volumes, the agent's files).
 */
export function containerPlan(
  container: ContainerSpec,
  podImages: string[],
  ctx: {
    repoRoot: string;
    node: string;
    podDir: string;
    pod: { name: string; namespace: string; podIP: string };
    probeTally?: string;
  },
): ContainerPlan | undefined {
  const kind = imageKind(container.image, podImages);
  if (!kind) return undefined;
  const env = envOf(container, ctx.pod);
  const stopSignal = stopSignalOf(container);
  switch (kind) {
    case 'http-server': {
      const port = container.ports?.find((p) => (p.protocol ?? 'TCP') === 'TCP')?.containerPort ?? 8080;
      return {
        kind,
        argv: [ctx.node, join(ctx.repoRoot, 'test/cluster/lab/http-server.ts')],
        env: { PORT: String(port), POD_NAME: ctx.pod.name, ...env },
        stopSignal,
      };
    }
    case 'probe':
      // curlimages/curl runs drill's shell loop; the lab runs lab/probe.ts, which does what that loop does
      return {
        kind,
        argv: [ctx.node, join(ctx.repoRoot, 'test/cluster/lab/probe.ts')],
        env: { ...env, ...(ctx.probeTally ? { LAB_PROBE_TALLY: ctx.probeTally } : {}) },
        stopSignal,
      };
    case 'haptic-haproxy': {
      // the agent owns the config and the sockets: HAProxy in master-worker mode, reloaded through its master socket.
      // As in HAPTIC's chart, the socket and the config are in the runtime folder the HAProxy container shares with the
      // agent (an emptyDir at /etc/haproxy); the socket path is the pod's own `-S` argument.
      const socket = masterSocketArg(container) ?? CHART_MASTER_SOCKET;
      const folder = socket.slice(0, socket.lastIndexOf('/')) || '/';
      const mount = (container.volumeMounts ?? []).find((m) => m.mountPath.replace(/\/+$/, '') === folder);
      const shared = mount ? join(ctx.podDir, 'volumes', mount.name) : ctx.podDir;
      const inside = (file: string) => (mount ? `${folder}/${file}` : join(ctx.podDir, file));
      return {
        kind,
        argv: [
          'haproxy',
          '-W',
          '-db',
          '-S',
          `${mount ? socket : inside('m.sock')},level,admin`,
          '-f',
          inside('haproxy.cfg'),
        ],
        env,
        stopSignal,
        agent: {
          config: join(shared, 'haproxy.cfg'),
          masterSocket: join(shared, mount ? socket.slice(folder.length + 1) : 'm.sock'),
          ...(mount ? { socketInside: socket } : {}),
        },
        ...(mount ? { mounts: [{ source: shared, target: folder }] } : {}),
      };
    }
    case 'haproxy': {
      // the official image's CMD (haproxy -f /usr/local/etc/haproxy/haproxy.cfg; its entrypoint adds -W -db), or the pod's
      const given = [...(container.command ?? []), ...(container.args ?? [])];
      const argv = given.length ? given : ['haproxy', '-W', '-db', '-f', '/usr/local/etc/haproxy/haproxy.cfg'];
      const mapped = argv.map((arg, i) => (argv[i - 1] === '-f' ? hostPath(arg, container, ctx.podDir) : arg));
      return { kind, argv: mapped, env, stopSignal };
    }
  }
}
