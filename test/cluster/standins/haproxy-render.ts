// Rendering haproxy.cfg the way HAPTIC's libraries do (docs/haptic-compat.md, "Config content format"): the backends
// of the routes HAPTIC watches (haptic-routes.ts), one server per endpoint, with the pod named in a `# Pod: <pod>`
// comment.
// - agent and gate generations (charts/haptic/charts/kubernetes-backends/library.yaml, BackendServers): a server
//   named after the pod, `weight` and `guid srv:<backend>:<name>`, `disabled` when the endpoint is not ready
//   (terminating endpoints are not ready); the gate release routes a gated pod whose containers are ready (the
//   seed's premise); the comment ends the line after two spaces.
// - dataplane generation (charts/haptic/libraries/base.yaml, BackendServers): fixed `SRV_<n>` slots (10 by
//   default: endpoints beyond them are not rendered), every endpoint address `enabled` whatever its conditions, empty
//   slots `127.0.0.1:1 disabled  # Placeholder`. A server keeps its slot across renders by its address:port (the
//   current config's assignments, "Slot Preservation"); a new one takes the first free slot, so a pod gone frees its
//   SRV_<n> for the next pod.
// Pure: backends in, config text out.
import { sha256Hex } from './common.ts';
import type { Backend } from './haptic-routes.ts';
import type { StatusShape } from './knobs.ts';

/** `guid` false leaves `guid` out of server lines (HAProxy before 3.0 refuses the keyword; the lab runs Debian's 2.6). */
export type RenderStyle = { shape: StatusShape; podComment: 'end' | 'before'; guid?: boolean };

/** The dataplane library's server slots per backend (its serverSlotsValue default). */
const DATAPLANE_SLOTS = 10;

/** The SRV_<n> slot of each address:port per backend in a dataplane config (its placeholders left out). */
export function slotsOf(content: string | undefined): Map<string, Map<string, number>> {
  const slots = new Map<string, Map<string, number>>();
  let backend: Map<string, number> | undefined;
  for (const line of content?.split('\n') ?? []) {
    const name = /^backend (\S+)/.exec(line)?.[1];
    if (name) {
      backend = new Map();
      slots.set(name, backend);
    }
    const server = /^\s+server SRV_(\d+) (\S+)/.exec(line);
    if (server && backend && server[2] !== '127.0.0.1:1') backend.set(server[2]!, Number(server[1]));
  }
  return slots;
}

function dataplaneSlots(
  backend: Backend,
  previous: Map<string, number> | undefined,
): (Backend['servers'][number] | undefined)[] {
  const slots: (Backend['servers'][number] | undefined)[] = Array.from({ length: DATAPLANE_SLOTS });
  const rest: Backend['servers'] = [];
  for (const s of backend.servers) {
    const kept = previous?.get(`${s.ip}:${s.port}`);
    if (kept !== undefined && kept <= DATAPLANE_SLOTS && !slots[kept - 1]) slots[kept - 1] = s;
    else rest.push(s);
  }
  for (const s of rest) {
    const free = slots.findIndex((x) => !x);
    if (free < 0) break;
    slots[free] = s;
  }
  return slots;
}

function serverLines(backend: Backend, style: RenderStyle, previous: Map<string, number> | undefined): string[] {
  if (style.shape === 'dataplane') {
    return dataplaneSlots(backend, previous).map((s, i) =>
      s
        ? `    server SRV_${i + 1} ${s.ip}:${s.port} enabled  # Pod: ${s.pod}`
        : `    server SRV_${i + 1} 127.0.0.1:1 disabled  # Placeholder`,
    );
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

/** `previous`: the config rendered before, whose SRV_<n> assignments the dataplane generation keeps. */
export function renderConfig(
  source: string,
  backends: Backend[],
  style: RenderStyle = { shape: 'gate', podComment: 'end' },
  previous?: string,
): string {
  const kept = style.shape === 'dataplane' ? slotsOf(previous) : undefined;
  const http = backends.filter((b) => !b.tcp);
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
    ...http.flatMap((b) => b.hosts.map((host) => `    use_backend ${b.name} if { hdr(host) -i ${host} }`)),
    ...http.filter((b) => b.hosts.length === 0).map((b) => `    use_backend ${b.name}`),
  ];
  for (const backend of backends) {
    lines.push(
      '',
      `backend ${backend.name}`,
      ...(backend.tcp ? ['    mode tcp'] : []),
      '    balance roundrobin',
      ...serverLines(backend, style, kept?.get(backend.name)),
    );
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

/**
 * The pods a rendered config routes to, each at the address its server sends to (`name@ip`): a server of a pod's
 * name that sends to another address routes to another pod — a StatefulSet's pod made again under the same name, on
 * a new IP, until a config with its new address is rendered (HAPTIC renders each server's address from the pod's
 * EndpointSlice endpoint: BackendServers in both generations). A pod IP is the cluster's own, so the pair names one
 * pod whatever the namespace (a backendRef may cross namespaces; the backend's name carries the route's).
 */
export function routedAddresses(content: string): Set<string> {
  return new Set(enabledServers(content).map((s) => `${s.pod}@${s.ip}`));
}

function enabledServers(content: string): { pod: string; ip: string }[] {
  const routed: { pod: string; ip: string }[] = [];
  let podBefore: string | undefined;
  for (const line of content.split('\n')) {
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
      if (!/\bdisabled\b/.test(server[3] ?? '')) routed.push({ pod, ip });
    }
    podBefore = undefined;
  }
  return routed;
}
