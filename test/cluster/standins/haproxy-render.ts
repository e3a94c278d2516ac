// Rendering haproxy.cfg the way HAPTIC's libraries do (docs/haptic-compat.md, "Config content format"): the backends
// of the routes HAPTIC watches (haptic-routes.ts), one server per endpoint, with the pod named in a `# Pod: <pod>`
// comment.
// - agent and gate generations (charts/haptic/charts/kubernetes-backends/library.yaml, BackendServers): a server
//   named after the pod, `weight` and `guid srv:<backend>:<name>`, `disabled` when the endpoint is not ready
//   (terminating endpoints are not ready); the gate release routes a gated pod whose containers are ready (the
//   seed's premise); the comment ends the line after two spaces.
// - dataplane generation (charts/haptic/libraries/base.yaml, BackendServers): fixed `SRV_<n>` slots (10 by
//   default), every endpoint address `enabled` whatever its conditions, empty slots `127.0.0.1:1 disabled  # Placeholder`.
// Pure: backends in, config text out.
import { sha256Hex } from './common.ts';
import type { Backend } from './haptic-routes.ts';
import type { StatusShape } from './knobs.ts';

/** `guid` false leaves `guid` out of server lines (HAProxy before 3.0 refuses the keyword; the lab runs Debian's 2.6). */
export type RenderStyle = { shape: StatusShape; podComment: 'end' | 'before'; guid?: boolean };

/** The dataplane library's server slots per backend (its serverSlotsValue default). */
const DATAPLANE_SLOTS = 10;

function serverLines(backend: Backend, style: RenderStyle): string[] {
  if (style.shape === 'dataplane') {
    const slots = Math.max(DATAPLANE_SLOTS, backend.servers.length);
    return Array.from({ length: slots }, (_, i) => {
      const s = backend.servers[i];
      return s
        ? `    server SRV_${i + 1} ${s.ip}:${s.port} enabled  # Pod: ${s.pod}`
        : `    server SRV_${i + 1} 127.0.0.1:1 disabled  # Placeholder`;
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
  return [
    '    timeout connect 100ms',
    '    option redispatch',
    '    retry-on conn-failure empty-response response-timeout',
  ];
}

export function renderConfig(
  source: string,
  backends: Backend[],
  style: RenderStyle = { shape: 'gate', podComment: 'end' },
): string {
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
    // a route's hosts lead to its backend (the libraries' host maps); a route without hosts takes any host
    ...backends.flatMap((b) => b.hosts.map((host) => `    use_backend ${b.name} if { hdr(host) -i ${host} }`)),
    ...backends.filter((b) => b.hosts.length === 0).map((b) => `    use_backend ${b.name}`),
  ];
  for (const backend of backends) {
    lines.push('', `backend ${backend.name}`, '    balance roundrobin', ...serverLines(backend, style));
  }
  return `${lines.join('\n')}\n`;
}

/**
 * Which checksums HAPTIC writes (docs/haptic-compat.md, "Checksums"):
 * - `short`: 16 hex characters, the first 8 bytes of a SHA-256 over the config and its auxiliary files, in
 *   spec.checksum and every entry (pkg/dataplane/checksum.go, ComputeContentChecksum; the agent generation);
 * - `release`: the dataplane generation's released tags, the SHA-256 of the config (64 hex) in both;
 * - `head`: the dataplane generation at HEAD, the 16-hex content checksum in spec.checksum while deploys record the
 *   64-hex SHA-256 of the config in deployedToPods[].checksum.
 * The stand-in has no auxiliary files, so the config alone.
 */
export type ChecksumStyle = 'short' | 'release' | 'head';

export function checksumOf(content: string, style: ChecksumStyle = 'short'): string {
  return style === 'release' ? sha256Hex(content) : sha256Hex(content).slice(0, 16);
}

export function entryChecksumOf(content: string, style: ChecksumStyle = 'short'): string {
  return style === 'short' ? checksumOf(content) : sha256Hex(content);
}

/** The pods (`namespace/name`) a rendered config routes to: enabled server lines, read back from the text. */
export function routedPods(content: string): Set<string> {
  return new Set(enabledServers(content).map((s) => s.pod));
}

/**
 * The pods a rendered config routes to, each at the address its server sends to (`namespace/name@ip`): a server of
 * a pod's name that sends to another address routes to another pod — a StatefulSet's pod made again under the same
 * name, on a new IP, until a config with its new address is rendered (HAPTIC renders each server's address from the
 * pod's EndpointSlice endpoint: the `util-backend-servers` template, BackendServers, in charts/haptic/libraries/
 * base.yaml, which ingress.yaml and gateway.yaml import).
 */
export function routedAddresses(content: string): Set<string> {
  return new Set(enabledServers(content).map((s) => `${s.pod}@${s.ip}`));
}

function enabledServers(content: string): { pod: string; ip: string }[] {
  const routed: { pod: string; ip: string }[] = [];
  let namespace = '';
  let podBefore: string | undefined;
  for (const line of content.split('\n')) {
    // `ing_<namespace>_…` or `gtw_<namespace>_…`: a namespace name holds no `_`
    const backend = /^backend (?:ing|gtw)_([^_\s]+)_/.exec(line);
    if (backend) namespace = backend[1]!;
    const comment = /^\s+# Pod: (\S+)\s*$/.exec(line);
    if (comment) {
      podBefore = comment[1];
      continue;
    }
    const server = /^\s+server (\S+) (\S+)([^#]*)(?:#\s*(.*))?$/.exec(line);
    if (server) {
      // the pod is named in the comment (end of line, or the line before); the agent's servers are named after it too
      const pod = /^Pod: (\S+)/.exec(server[4] ?? '')?.[1] ?? podBefore ?? server[1]!;
      const ip = server[2]!.replace(/:\d+$/, '');
      if (!/\bdisabled\b/.test(server[3] ?? '')) routed.push({ pod: `${namespace}/${pod}`, ip });
    }
    podBefore = undefined;
  }
  return routed;
}
