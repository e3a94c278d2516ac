// Rendering haproxy.cfg the way HAPTIC's libraries do (docs/haptic-compat.md, "Config content format"): one backend
// per Service port and one server per endpoint, with the pod named in a `# Pod: <pod>` comment.
// - agent and gate generations (charts/haptic/charts/kubernetes-backends/library.yaml, BackendServers): a server
//   named after the pod, `weight` and `guid srv:<backend>:<name>`, `disabled` when the endpoint is not ready
//   (terminating endpoints are not ready); the gate release routes a gated pod whose containers are ready (the
//   seed's premise); the comment ends the line after two spaces.
// - dataplane generation (charts/haptic/libraries/base.yaml, BackendServers): fixed `SRV_<n>` slots (10 by
//   default), every endpoint address `enabled` whatever its conditions, empty slots `127.0.0.1:1 disabled  # Placeholder`.
// Pure: Services, EndpointSlices and Pods in, config text out.
import { findCondition, type Obj, sha256Hex } from './common.ts';
import type { StatusShape } from './knobs.ts';

export type Server = { pod: string; ip: string; port: number; enabled: boolean };
export type Backend = { name: string; namespace: string; service: string; servers: Server[] };

/** Namespaces HAPTIC's own pods live in, and the system's, are not routed. */
export function isRoutedNamespace(namespace: string): boolean {
  return !namespace.startsWith('haptic') && !namespace.startsWith('kube-');
}

export function serverEnabled(endpoint: any, pod: Obj | undefined, gate: string | undefined, shape: StatusShape = 'gate'): boolean {
  if (shape === 'dataplane') return true;
  if (endpoint.conditions?.terminating === true) return false;
  if (endpoint.conditions?.ready !== false) return true;
  if (!gate || !pod || pod.metadata.deletionTimestamp) return false;
  const gated = (pod.spec.readinessGates ?? []).some((g: { conditionType: string }) => g.conditionType === gate);
  return gated && findCondition(pod.status?.conditions, 'ContainersReady')?.status === 'True';
}

/**
 * The backends for every routed Service with a selector. `gate` is the condition type when the readiness gate
 * feature is on (gated pods with ready containers are routed), undefined when it is off.
 */
export function backendsFor(services: Obj[], slices: Obj[], pods: (key: string) => Obj | undefined, gate: string | undefined, shape: StatusShape = 'gate'): Backend[] {
  const backends: Backend[] = [];
  for (const svc of services) {
    const { namespace = '', name } = svc.metadata;
    if (!isRoutedNamespace(namespace) || Object.keys(svc.spec?.selector ?? {}).length === 0) continue;
    const own = slices.filter((s) => s.metadata.namespace === namespace && s.metadata.labels?.['kubernetes.io/service-name'] === name);
    for (const port of svc.spec.ports ?? []) {
      const servers = new Map<string, Server>();
      for (const slice of own) {
        const slicePort = (slice.ports ?? []).find((p: { name?: string }) => (p.name ?? '') === (port.name ?? ''));
        if (!slicePort?.port) continue;
        for (const endpoint of slice.endpoints ?? []) {
          const ref = endpoint.targetRef;
          if (ref?.kind !== 'Pod' || servers.has(ref.name)) continue;
          const enabled = serverEnabled(endpoint, pods(`${namespace}/${ref.name}`), gate, shape);
          servers.set(ref.name, { pod: ref.name, ip: endpoint.addresses[0], port: slicePort.port, enabled });
        }
      }
      const sorted = [...servers.values()].sort((a, b) => a.pod.localeCompare(b.pod));
      backends.push({ name: `${namespace}_${name}_${port.name || port.port}`, namespace, service: name, servers: sorted });
    }
  }
  return backends.sort((a, b) => a.name.localeCompare(b.name));
}

/** `guid` false leaves `guid` out of server lines (HAProxy before 3.0 refuses the keyword; the lab runs Debian's 2.6). */
export type RenderStyle = { shape: StatusShape; podComment: 'end' | 'before'; guid?: boolean };

/** The dataplane library's server slots per backend (its serverSlotsValue default). */
const DATAPLANE_SLOTS = 10;

function serverLines(backend: Backend, style: RenderStyle): string[] {
  if (style.shape === 'dataplane') {
    const slots = Math.max(DATAPLANE_SLOTS, backend.servers.length);
    return Array.from({ length: slots }, (_, i) => {
      const s = backend.servers[i];
      return s ? `    server SRV_${i + 1} ${s.ip}:${s.port} enabled  # Pod: ${s.pod}` : `    server SRV_${i + 1} 127.0.0.1:1 disabled  # Placeholder`;
    });
  }
  return backend.servers.flatMap((s) => {
    const guid = style.guid === false ? '' : ` guid srv:${backend.name}:${s.pod}`;
    const server = `    server ${s.pod} ${s.ip}:${s.port} weight 100${guid} check${s.enabled ? '' : ' disabled'}`;
    return style.podComment === 'before' ? [`    # Pod: ${s.pod}`, server] : [`${server}  # Pod: ${s.pod}`];
  });
}

/**
 * How HAProxy connects to servers. The agent generation's base library (HAProxy-Template-IC/haproxy-template-ingress-
 * controller, docs/site/docs/libraries/base.md, "Connection reliability and timeouts"): `timeout connect 100ms` so a
 * connect to a pod that just went fails fast, `option redispatch` so the retry goes to another server, and
 * `retry-on conn-failure empty-response response-timeout` so a pod that accepted and then closed is retried too
 * (HAProxy's default `retries 3`). The dataplane generation's base.yaml keeps HAProxy's 5 s connect and no redispatch.
 */
function connectionDefaults(shape: StatusShape): string[] {
  if (shape === 'dataplane') return ['    timeout connect 5s'];
  return ['    timeout connect 100ms', '    option redispatch', '    retry-on conn-failure empty-response response-timeout'];
}

export function renderConfig(source: string, backends: Backend[], style: RenderStyle = { shape: 'gate', podComment: 'end' }): string {
  const lines = [
    `# Rendered by HAPTIC from ${source}`,
    'global',
    '    log stdout format raw local0',
    '    maxconn 4096',
    '    stats socket /var/run/haproxy/admin.sock mode 660 level admin expose-fd listeners',
    '',
    'defaults',
    '    mode http',
    ...connectionDefaults(style.shape),
    '    timeout client 30s',
    '    timeout server 30s',
    '',
    'frontend http',
    '    bind *:8080',
    ...backends.map((b) => `    use_backend ${b.name} if { hdr(host) -i ${b.service}.${b.namespace}.svc }`),
  ];
  for (const backend of backends) {
    lines.push('', `backend ${backend.name}`, '    balance roundrobin', ...serverLines(backend, style));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * HAPTIC's spec.checksum: the first 8 bytes of a SHA-256 over the config and its auxiliary files, as 16 hex
 * characters without a prefix (pkg/dataplane/checksum.go, ComputeContentChecksum). The stand-in has no auxiliary
 * files, so the config alone.
 */
export function checksumOf(content: string): string {
  return sha256Hex(content).slice(0, 16);
}

/** The pods (`namespace/name`) a rendered config routes to: enabled server lines, read back from the text. */
export function routedPods(content: string): Set<string> {
  const routed = new Set<string>();
  let namespace = '';
  let podBefore: string | undefined;
  for (const line of content.split('\n')) {
    const backend = /^backend ([^_\s]+)_/.exec(line);
    if (backend) namespace = backend[1]!;
    const comment = /^\s+# Pod: (\S+)\s*$/.exec(line);
    if (comment) {
      podBefore = comment[1];
      continue;
    }
    const server = /^\s+server (\S+) \S+([^#]*)(?:#\s*(.*))?$/.exec(line);
    if (server) {
      // the pod is named in the comment (end of line, or the line before); the agent's servers are named after it too
      const pod = /^Pod: (\S+)/.exec(server[3] ?? '')?.[1] ?? podBefore ?? server[1]!;
      if (!/\bdisabled\b/.test(server[2] ?? '')) routed.add(`${namespace}/${pod}`);
    }
    podBefore = undefined;
  }
  return routed;
}
