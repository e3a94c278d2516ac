// Facts of a pod template the doctor's checks share: which containers run for the pod's life (containers and
// restartable init containers, the native sidecars), which of them serve a Service port (named targetPorts
// resolved as the EndpointSlice controller resolves them), which run HAProxy, and what signal stops them. Pure.
import type { Container, PodSpec, Service } from '../../types/kube.ts';
import { mapSelects } from '../selectors.ts';

export interface ServedPort {
  service: string;
  /** the Service port's name, when it has one */
  name?: string | undefined;
  /** the Service port as clients use it */
  port: number;
  targetPort: number | string;
  containerPort: number;
}

export interface ContainerView {
  container: Container;
  /** a restartable init container (restartPolicy: Always) runs beside the containers: a native sidecar */
  role: 'container' | 'sidecar';
  serves: ServedPort[];
  haproxy: boolean;
  /** an HAProxy ingress controller's container: the controller runs HAProxy and decides how it stops */
  controller?: string | undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Containers that run for the pod's life, in spec order; entries that are not objects with a name are left out. */
export function longRunningContainers(
  spec: PodSpec | undefined,
): { container: Container; role: 'container' | 'sidecar' }[] {
  const named = (list: unknown) =>
    (Array.isArray(list) ? list : []).filter((c): c is Container => isObject(c) && typeof c.name === 'string');
  return [
    ...named(spec?.containers).map((container) => ({ container, role: 'container' as const })),
    ...named(spec?.initContainers)
      .filter((c) => c.restartPolicy === 'Always')
      .map((container) => ({ container, role: 'sidecar' as const })),
  ];
}

const ports = (c: Container) =>
  (Array.isArray(c.ports) ? c.ports.filter(isObject) : []) as NonNullable<Container['ports']>;

/** A port as a probe or handler names it: a number, or a name this container declares (the kubelet looks no further). */
export function resolveContainerPort(c: Container, port: number | string | undefined): number | undefined {
  if (typeof port === 'number') return port;
  if (typeof port !== 'string') return undefined;
  if (/^\d+$/.test(port)) return Number(port);
  return ports(c).find((p) => p.name === port)?.containerPort;
}

/**
 * The container serving a Service port. A named targetPort is the container port of that name and protocol; a
 * number is the container declaring it, else — ports need not be declared — the pod's only container.
 */
function ownerOf(
  target: number | string,
  protocol: string,
  all: { container: Container }[],
): { container: Container; containerPort: number } | undefined {
  const same = (p: { protocol?: string }) => (p.protocol ?? 'TCP') === protocol;
  for (const { container } of all) {
    const hit = ports(container).find(
      (p) => same(p) && (typeof target === 'string' ? p.name === target : p.containerPort === target),
    );
    if (hit) return { container, containerPort: hit.containerPort };
  }
  if (typeof target === 'number' && all.length === 1)
    return { container: (all[0] as { container: Container }).container, containerPort: target };
  return undefined;
}

/** An image reference's repository path without registry port confusion, tag or digest: `mirror.gcr.io/library/haproxy`. */
function repositoryPath(image: string | undefined): string[] {
  const name = (image ?? '').split('@')[0] ?? '';
  const segments = name.split('/');
  const last = (segments.pop() ?? '').split(':')[0] ?? '';
  return [...segments, last].map((s) => s.toLowerCase());
}

/**
 * HAProxy ingress controllers whose image runs HAProxy under the controller: haproxytech/kubernetes-ingress (s6
 * supervises HAProxy and the controller; the image keeps its base haproxytech/haproxy-alpine's STOPSIGNAL SIGUSR1,
 * and fs/etc/s6-overlay/scripts/00-sigusr1 turns it into the supervision tree's shutdown) and
 * jcmoraisjr/haproxy-ingress (the controller starts and stops HAProxy; --wait-before-shutdown, docs/content/en/docs/
 * configuration/command-line.md). Their stop is the controller's, so the signal checks of a plain HAProxy do not apply.
 */
export function haproxyController(image: string | undefined): string | undefined {
  const path = repositoryPath(image);
  const [org, repo] = [path.at(-2), path.at(-1)];
  if (org === 'haproxytech' && repo === 'kubernetes-ingress') return 'the HAProxy Kubernetes Ingress Controller';
  if (repo === 'haproxy-ingress') return 'HAProxy Ingress';
  return undefined;
}

/**
 * Seconds an ingress controller keeps serving after its stop signal by its own flag, as a preStop sleep would:
 * HAProxy Ingress's --wait-before-shutdown (docs/content/en/docs/configuration/command-line.md, default 0).
 */
export function controllerWait(c: Container): number | undefined {
  if (haproxyController(c.image) !== 'HAProxy Ingress') return undefined;
  const words = [...(c.command ?? []), ...(c.args ?? [])].filter((w): w is string => typeof w === 'string');
  for (let i = 0; i < words.length; i++) {
    const m = /^--wait-before-shutdown(?:=(\d+))?$/.exec(words[i] as string);
    if (m) return Number(m[1] ?? words[i + 1]) || undefined;
  }
  return undefined;
}

/**
 * `haproxy:3.0`, `mirror.gcr.io/library/haproxy`, `haproxytech/haproxy-alpine:3.2`, an ingress controller's image:
 * the image's own name (not its registry) or its organisation says HAProxy; an exporter that only reads HAProxy's
 * statistics (haproxy-exporter, haproxy_exporter) does not run it.
 */
export function isHAProxyImage(image: string | undefined): boolean {
  const path = repositoryPath(image);
  const repo = path.at(-1) ?? '';
  if (/exporter/.test(repo)) return false;
  return repo.includes('haproxy') || path.at(-2) === 'haproxytech';
}

/**
 * What runs says HAProxy, whatever the image: the command is the haproxy binary, an argument loads a haproxy.cfg
 * (`-f /…/haproxy.cfg`), or a file named haproxy.cfg is mounted (a folder is not enough: sidecars that reload
 * or export HAProxy mount its configuration folder too).
 */
export function runsHAProxy(c: Container): boolean {
  const words = [...(c.command ?? []), ...(c.args ?? [])].filter((w): w is string => typeof w === 'string');
  if (words[0] !== undefined && base(words[0]) === 'haproxy') return true;
  if (words.some((w, i) => /(^|\/)haproxy[^/]*\.cfg$/.test(w) && ['-f', '--'].includes(words[i - 1] ?? '')))
    return true;
  // a shell line that starts the haproxy binary with its flags (exec /usr/local/sbin/haproxy -W -db …)
  if (SHELLS.has(base(c.command?.[0] ?? '')) && words.some((w) => /(^|[\s;&|/])haproxy\s+-/m.test(w))) return true;
  // a command of its own says what runs: the Data Plane API beside HAProxy uses HAProxy's image and is not HAProxy
  if (c.command?.length) return false;
  if (isHAProxyImage(c.image)) return true;
  const mounts = Array.isArray(c.volumeMounts) ? c.volumeMounts : [];
  return mounts.some((m) => typeof m?.mountPath === 'string' && /\/haproxy\.cfg$/.test(m.mountPath));
}

const base = (word: string) => word.split('/').pop() ?? word;
const SHELLS = new Set(['sh', 'bash', 'ash', 'dash']);

/** The template's containers with the Service ports each serves (Services of the namespace selecting the labels). */
export function containerViews(
  spec: PodSpec | undefined,
  labels: Record<string, string> | undefined,
  services: Service[],
): ContainerView[] {
  const all = longRunningContainers(spec);
  const selecting = services.filter((s) => mapSelects(s.spec?.selector, labels));
  const views = all.map(
    ({ container, role }): ContainerView => ({
      container,
      role,
      serves: [],
      haproxy: runsHAProxy(container),
      controller: haproxyController(container.image),
    }),
  );
  for (const svc of selecting) {
    for (const sp of Array.isArray(svc.spec.ports) ? svc.spec.ports : []) {
      const target = sp.targetPort ?? sp.port;
      const owner = ownerOf(
        typeof target === 'string' && /^\d+$/.test(target) ? Number(target) : target,
        sp.protocol ?? 'TCP',
        all,
      );
      const view = views.find((v) => v.container === owner?.container);
      if (view && owner)
        view.serves.push({
          service: svc.metadata.name,
          name: typeof sp.name === 'string' ? sp.name : undefined,
          port: sp.port,
          targetPort: target,
          containerPort: owner.containerPort,
        });
    }
  }
  return views;
}

/**
 * A port only Prometheus scrapes, by the convention every exporter and operator follows: named `metrics` (or
 * `http-metrics`, `https-metrics`, `prometheus`), or on a Service named `…-metrics`. A scrape missed during a
 * rollout is not a dropped request.
 */
export function metricsOnly(p: ServedPort): boolean {
  return /(^|-)metrics$|^prometheus$/.test(p.name ?? '') || /-metrics$/.test(p.service);
}

/**
 * Images whose Dockerfile sets STOPSIGNAL SIGUSR1, so the container runtime stops them with HAProxy's soft stop:
 * the official image (docker-library/haproxy: "graceful stop is triggered when the SIGUSR1 signal is sent") and
 * HAProxy Technologies' haproxytech/haproxy-{alpine,debian,ubuntu}. Any other image is assumed to keep SIGTERM.
 */
export function imageStopSignal(image: string | undefined): string | undefined {
  const path = repositoryPath(image);
  const [org, repo] = [path.at(-2), path.at(-1) ?? ''];
  // the official image under any registry or pull-through mirror: haproxy, library/haproxy, <registry>/haproxy,
  // <mirror>/library/haproxy, public.ecr.aws/docker/library/haproxy
  const registryHost = path.length === 2 && /[.:]|^localhost$/.test(path[0] ?? '');
  if (repo === 'haproxy' && (org === undefined || org === 'library' || registryHost)) return 'SIGUSR1';
  if (org === 'haproxytech' && /^haproxy-(alpine|debian|ubuntu)(-quic)?$/.test(repo)) return 'SIGUSR1';
  return undefined;
}

export interface StopSignal {
  signal: string;
  /** what decides it, for evidence */
  from: string;
}

/** The signal the kubelet's stop sends after the preStop: lifecycle.stopSignal, else the image's STOPSIGNAL, else SIGTERM. */
export function stopSignalOf(c: Container): StopSignal {
  const declared = c.lifecycle?.stopSignal;
  if (typeof declared === 'string' && declared)
    return { signal: declared.toUpperCase(), from: `lifecycle.stopSignal: ${declared}` };
  const image = imageStopSignal(c.image);
  if (image) return { signal: image, from: `image ${c.image} sets STOPSIGNAL ${image}` };
  // built FROM haproxytech/haproxy-alpine (build/Dockerfile), whose STOPSIGNAL it keeps
  if (haproxyController(c.image) === 'the HAProxy Kubernetes Ingress Controller')
    return { signal: 'SIGUSR1', from: `image ${c.image} keeps its base image's STOPSIGNAL SIGUSR1` };
  return { signal: 'SIGTERM', from: `image ${c.image ?? '?'} is not known to set STOPSIGNAL, so SIGTERM` };
}

/** HAProxy's master-worker mode from the command line (-W, -Ws): the master forwards signals to its workers. */
export function masterWorkerFlag(c: Container): boolean {
  return [...(c.command ?? []), ...(c.args ?? [])].some((w) => typeof w === 'string' && /^-W(s)?$/.test(w));
}

/** terminationGracePeriodSeconds, with Kubernetes' default of 30. */
export function gracePeriod(spec: PodSpec | undefined): number {
  const g = spec?.terminationGracePeriodSeconds;
  return typeof g === 'number' && g >= 0 ? g : 30;
}
