// Rendering haproxy.cfg the way HAPTIC's kubernetes-backends library does: one backend per Service port, one
// `server <pod> <ip>:<port>` per endpoint with a `# Pod: <pod>` comment, `disabled` when the endpoint is not ready
// or terminating — except a gated pod whose containers are ready, which is routed (the readiness gate's premise).
// Pure: Services, EndpointSlices and Pods in, config text out.
import { findCondition, type Obj, sha256Hex } from './common.ts';

export type Server = { pod: string; ip: string; port: number; enabled: boolean };
export type Backend = { name: string; namespace: string; service: string; servers: Server[] };

/** Namespaces HAPTIC's own pods live in, and the system's, are not routed. */
export function isRoutedNamespace(namespace: string): boolean {
  return !namespace.startsWith('haptic') && !namespace.startsWith('kube-');
}

export function serverEnabled(endpoint: any, pod: Obj | undefined, gate: string | undefined): boolean {
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
export function backendsFor(services: Obj[], slices: Obj[], pods: (key: string) => Obj | undefined, gate: string | undefined): Backend[] {
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
          const enabled = serverEnabled(endpoint, pods(`${namespace}/${ref.name}`), gate);
          servers.set(ref.name, { pod: ref.name, ip: endpoint.addresses[0], port: slicePort.port, enabled });
        }
      }
      const sorted = [...servers.values()].sort((a, b) => a.pod.localeCompare(b.pod));
      backends.push({ name: `${namespace}_${name}_${port.name || port.port}`, namespace, service: name, servers: sorted });
    }
  }
  return backends.sort((a, b) => a.name.localeCompare(b.name));
}

export function renderConfig(source: string, backends: Backend[]): string {
  const lines = [
    `# Rendered by HAPTIC from ${source}`,
    'global',
    '    log stdout format raw local0',
    '    maxconn 4096',
    '    stats socket /var/run/haproxy/admin.sock mode 660 level admin expose-fd listeners',
    '',
    'defaults',
    '    mode http',
    '    timeout connect 5s',
    '    timeout client 30s',
    '    timeout server 30s',
    '',
    'frontend http',
    '    bind *:8080',
    ...backends.map((b) => `    use_backend ${b.name} if { hdr(host) -i ${b.service}.${b.namespace}.svc }`),
  ];
  for (const backend of backends) {
    lines.push('', `backend ${backend.name}`, '    balance roundrobin');
    for (const s of backend.servers) {
      lines.push(`    # Pod: ${s.pod}`, `    server ${s.pod} ${s.ip}:${s.port} check${s.enabled ? '' : ' disabled'}`);
    }
  }
  return lines.join('\n') + '\n';
}

export function checksumOf(content: string): string {
  return `sha256:${sha256Hex(content)}`;
}

/** The pods (`namespace/name`) a rendered config routes to: enabled server lines, read back from the text. */
export function routedPods(content: string): Set<string> {
  const routed = new Set<string>();
  let namespace = '';
  for (const line of content.split('\n')) {
    const backend = /^backend ([^_\s]+)_/.exec(line);
    if (backend) namespace = backend[1]!;
    const server = /^\s+server (\S+) \S+( .*)?$/.exec(line);
    if (server && !/\bdisabled\b/.test(server[2] ?? '')) routed.add(`${namespace}/${server[1]}`);
  }
  return routed;
}
