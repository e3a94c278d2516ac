import type { RenderedServer } from './haptic-config.ts';

// Whether HAPTIC routes a workload's Service, by what its live config holds: a server for one of the workload's pods
// is the proof, whatever route rendered it. Route analysis (routes.ts) only explains a miss; it decides alone only
// when there is no pod to look for, or no config to look in. A server stands for a pod by its `# Pod:` comment (both
// generations write one: the dataplane generation's `SRV_<n>` slots, charts/haptic/libraries/base.yaml,
// BackendServers; the agent generation's servers named after the pod), or, without a comment, by its name or its
// address; a server of the pod's name at another address stands for an earlier pod of that name, not this one.
// A server proves only its own pod routed, and the Service its backend renders: an old pod's server in the backend of
// a Service the new pods leave (its selector, `track=stable`, against the new template's `track=canary`; a Service
// that selects by `pod-template-hash`) says nothing of the new pods.

/** An installation as the evidence needs it: its id and its live config's servers. */
export interface InstallationConfig {
  namespace: string;
  templateConfig: string;
  config?: { name: string; servers: RenderedServer[] } | undefined;
}

/** A pod as the evidence needs it. */
export interface PodAddress {
  name: string;
  ip?: string | undefined;
  /** the Services of its namespace that select it (a server stands only for a pod of a Service that selects it) */
  services?: string[] | undefined;
}

/** A server of an installation's live config that stands for one of the pods. */
export interface RenderedServerOf {
  installation: string;
  config: string;
  pod: string;
  backend: string;
  server: string;
  address: string;
  disabled: boolean;
  /**
   * the Services (of the pod's namespace, selecting it) whose backend this is: by the backend's name, or the routes
   * that render that backend; every Service that selects the pod when the name does not tell
   */
  services: string[];
}

/**
 * The Service a backend's name names. HAPTIC joins the route's namespace and name, the Service and its port with `_`,
 * which Kubernetes names never hold: dataplane `ing_<ns>_<ingress>_<service>_<port>` (charts/haptic/libraries/
 * ingress.yaml, GenerateIngressBackends) and `gtw_<ns>_<route>_<service>_<port>` (libraries/gateway.yaml), agent
 * `<ns>_<ingress>_svc_<service>_<port>` (charts/ingress/library.yaml, util-backend-name-ingress). TLS and TCP
 * backends (`gtw_tls_…`, `gtw_tcp_…`) name a route's rule, not a Service.
 */
export function backendService(backend: string): string | undefined {
  const t = backend.split('_');
  if (t.length !== 5 || (t[0] === 'gtw' && (t[1] === 'tls' || t[1] === 'tcp'))) return undefined;
  return t[0] === 'ing' || t[0] === 'gtw' || t[2] === 'svc' ? t[3] : undefined;
}

/** The IP of a server's address (`10.0.0.3:8080`, `[fd00::3]:8080`). */
export const ipOf = (address: string) =>
  address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address.replace(/:\d+$/, '');

/**
 * The servers of the installations' live configs that stand for these pods. `backends` maps a backend name to the
 * Services whose routes render it (the route analysis), for names `backendService` cannot read.
 */
export function renderedFor(
  installations: InstallationConfig[],
  pods: PodAddress[],
  backends: ReadonlyMap<string, string[]> = new Map(),
): RenderedServerOf[] {
  if (!pods.length) return [];
  const byName = new Map(pods.map((p) => [p.name, p]));
  const byIp = new Map(pods.filter((p) => p.ip).map((p) => [p.ip!, p]));
  const found: RenderedServerOf[] = [];
  for (const inst of installations) {
    const config = inst.config;
    if (!config) continue;
    for (const s of config.servers) {
      const ip = ipOf(s.address);
      const pod = byName.get(s.pod) ?? (s.named ? undefined : byIp.get(ip));
      if (!pod || (pod.ip && ip !== pod.ip)) continue;
      const selecting = pod.services;
      const named = [backendService(s.backend), ...(backends.get(s.backend) ?? [])].filter(
        (x): x is string => !!x && (!selecting || selecting.includes(x)),
      );
      const told = backendService(s.backend) !== undefined || backends.has(s.backend);
      // a pod without an IP yet is found by name only: the backend must be one of a Service of its namespace
      if (!pod.ip && selecting && !named.length) continue;
      found.push({
        installation: `${inst.namespace}/${inst.templateConfig}`,
        config: `${inst.namespace}/${config.name}`,
        pod: pod.name,
        backend: s.backend,
        server: s.server,
        address: s.address,
        disabled: s.disabled,
        services: told ? [...new Set(named)] : (selecting ?? []),
      });
    }
  }
  return found;
}

/** The backends the route analysis knows, and the Services whose routes render each. */
export function routedBackends(services: { service: string; routes: { backend?: string | undefined }[] }[]) {
  const map = new Map<string, string[]>();
  for (const s of services)
    for (const r of s.routes) if (r.backend) map.set(r.backend, [...(map.get(r.backend) ?? []), s.service]);
  return map;
}

/**
 * Whether the live configs prove a pod routed: a server for the pod itself, or a server (of any pod of the workload)
 * in the backend of a Service that selects it, which HAPTIC then routes and fills from its EndpointSlices.
 */
export function servedPod(found: RenderedServerOf[], pod: string, services: string[]): boolean {
  return found.some((f) => f.pod === pod || f.services.some((s) => services.includes(s)));
}

/** At most this many servers are named in evidence; the rest are counted. */
const NAMED = 3;

/** The evidence lines: which live config has which server for which pod. */
export function renderedEvidence(found: RenderedServerOf[]): string[] {
  const lines = found
    .slice(0, NAMED)
    .map(
      (s) =>
        `haproxycfg ${s.config}: backend ${s.backend} server ${s.server} ${s.address}${s.disabled ? ' disabled' : ''} → pod ${s.pod}`,
    );
  if (found.length > NAMED) lines.push(`… and ${found.length - NAMED} more servers for its pods`);
  return lines;
}
