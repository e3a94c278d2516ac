// What the doctor needs to know from a parsed haproxy.cfg: how HAProxy stops (hard-stop-after, master-worker), its
// resolvers sections, and each server with the settings it really runs with: its own keywords over the
// `default-server` lines before it in its section, over the `default-server` of the defaults section it takes its
// defaults from (the last unnamed one above it, or the one named by `from`). HAProxy's defaults: init-addr
// `last,libc`, inter 2s, fall 3, no check. Pure.
import { parseTimeMs, sectionLabel, type CfgLine, type CfgSection, type HAProxyConfig } from './haproxy-cfg.ts';

export interface ServerSettings {
  check?: boolean | undefined;
  interMs?: number | undefined;
  fastinterMs?: number | undefined;
  fall?: number | undefined;
  initAddr?: string[] | undefined;
  resolvers?: string | undefined;
}

export interface ServerView {
  /** `backend be_redis` */
  section: string;
  name: string;
  /** the address as written (`redis-0.redis:6379`) */
  address: string;
  /** the DNS name to resolve, when the address is one (not an IP, a socket or a variable) */
  host: string | undefined;
  line: number;
  text: string;
  template: boolean;
  check: boolean;
  interMs: number;
  fastinterMs: number | undefined;
  fall: number;
  /** where each setting came from, for evidence: "server", "default-server line 12" */
  initAddr: { methods: string[]; from: string };
  resolvers: { name: string; from: string } | undefined;
}

export interface HAProxyFacts {
  hardStopAfter: { ms: number; line: number; text: string } | undefined;
  /** `master-worker` in global (the -W flag is on the container's command line, see the pod template) */
  masterWorkerKeyword: boolean;
  resolverSections: string[];
  servers: ServerView[];
  /**
   * `monitor-uri` of each frontend or listen section, and whether a `monitor fail` makes it fail: without one the
   * URI answers 200 for as long as the process runs (configuration manual, monitor-uri)
   */
  monitors: { uri: string; fails: boolean; section: string; line: number }[];
}

export const DEFAULT_INIT_ADDR = ['last', 'libc'];
export const DEFAULT_INTER_MS = 2000;
export const DEFAULT_FALL = 3;

/** Server keywords that take one argument: read so that an argument is never taken for a keyword. */
const WITH_ARGUMENT = new Set([
  'addr',
  'agent-addr',
  'agent-inter',
  'agent-port',
  'agent-send',
  'alpn',
  'ca-file',
  'check-alpn',
  'check-proto',
  'check-sni',
  'ciphers',
  'ciphersuites',
  'cookie',
  'crl-file',
  'crt',
  'downinter',
  'error-limit',
  'fall',
  'fastinter',
  'guid',
  'id',
  'init-addr',
  'inter',
  'log-proto',
  'max-reuse',
  'maxconn',
  'maxqueue',
  'minconn',
  'namespace',
  'npn',
  'observe',
  'on-error',
  'on-marked-down',
  'on-marked-up',
  'pool-low-conn',
  'pool-max-conn',
  'pool-purge-delay',
  'port',
  'proto',
  'redir',
  'resolve-net',
  'resolve-opts',
  'resolve-prefer',
  'resolvers',
  'rise',
  'shard',
  'slowstart',
  'sni',
  'source',
  'ssl-max-ver',
  'ssl-min-ver',
  'socks4',
  'tcp-ut',
  'track',
  'verify',
  'verifyhost',
  'weight',
  'ws',
]);

function readSettings(params: string[], line: number, own: boolean): { settings: ServerSettings; from: string } {
  const settings: ServerSettings = {};
  for (let i = 0; i < params.length; i++) {
    const p = params[i] as string;
    const value = params[i + 1];
    if (p === 'check') settings.check = true;
    else if (p === 'no-check') settings.check = false;
    else if (WITH_ARGUMENT.has(p)) {
      i++;
      if (p === 'inter') settings.interMs = parseTimeMs(value);
      else if (p === 'fastinter') settings.fastinterMs = parseTimeMs(value);
      else if (p === 'fall') settings.fall = Number.parseInt(value ?? '', 10) || undefined;
      else if (p === 'init-addr') settings.initAddr = (value ?? '').split(',').filter(Boolean);
      else if (p === 'resolvers') settings.resolvers = value;
    }
  }
  return { settings, from: own ? 'server' : `default-server line ${line}` };
}

type Sourced = { [K in keyof ServerSettings]?: { value: ServerSettings[K]; from: string } };

function merge(base: Sourced, line: CfgLine, params: string[], own: boolean): Sourced {
  const { settings, from } = readSettings(params, line.line, own);
  const next: Sourced = { ...base };
  for (const [k, v] of Object.entries(settings) as [keyof ServerSettings, ServerSettings[keyof ServerSettings]][]) {
    if (v !== undefined) (next as Record<string, unknown>)[k] = { value: v, from };
  }
  return next;
}

const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/** The DNS name of a server address, or undefined for an IP, a socket, `*`, or an address built from variables. */
export function addressHost(address: string): string | undefined {
  let a = address;
  const family = /^(ipv4|ipv6|udp|udp4|udp6|tcp|tcp4|tcp6|quic4|quic6)@/.exec(a);
  if (family) a = a.slice(family[0].length);
  else if (/^[a-z0-9]+@/.test(a) || a.startsWith('/')) return undefined;
  if (a.includes('$') || a === '*' || a.startsWith('[')) return undefined;
  if ((a.match(/:/g) ?? []).length > 1) return undefined; // a bare IPv6 address
  const host = a.split(':')[0] ?? '';
  if (!host || IPV4.test(host) || host === '*') return undefined;
  return /^[A-Za-z0-9_.-]+$/.test(host) ? host : undefined;
}

/** Whether an init-addr list lets HAProxy start when the name does not resolve: `none`, or a fixed IP to fall back to. */
export function toleratesUnresolved(methods: string[]): boolean {
  return methods.some((m) => m === 'none' || IPV4.test(m) || m.includes(':'));
}

export function haproxyFacts(cfg: HAProxyConfig): HAProxyFacts {
  const global = cfg.sections.filter((s) => s.keyword === 'global').flatMap((s) => s.lines);
  const stop = global.find((l) => l.words[0] === 'hard-stop-after');
  const hardStopMs = parseTimeMs(stop?.words[1]);
  const servers: ServerView[] = [];
  const defaultsByName = new Map<string, Sourced>();
  let lastDefaults: Sourced = {};
  for (const section of cfg.sections) {
    if (section.keyword === 'defaults') {
      const base = section.from ? (defaultsByName.get(section.from) ?? {}) : {};
      const own = section.lines
        .filter((l) => l.words[0] === 'default-server')
        .reduce<Sourced>((acc, l) => merge(acc, l, l.words.slice(1), false), base);
      lastDefaults = own;
      if (section.name) defaultsByName.set(section.name, own);
      continue;
    }
    if (!['backend', 'listen'].includes(section.keyword)) continue;
    servers.push(...sectionServers(section, section.from ? (defaultsByName.get(section.from) ?? {}) : lastDefaults));
  }
  return {
    hardStopAfter: stop && hardStopMs !== undefined ? { ms: hardStopMs, line: stop.line, text: stop.text } : undefined,
    masterWorkerKeyword: global.some((l) => l.words[0] === 'master-worker'),
    resolverSections: cfg.sections.filter((s) => s.keyword === 'resolvers' && s.name).map((s) => s.name as string),
    servers,
    monitors: cfg.sections.flatMap((s) => {
      const uri = s.lines.find((l) => l.words[0] === 'monitor-uri' && l.words[1]);
      if (!uri || !['frontend', 'listen', 'defaults'].includes(s.keyword)) return [];
      return [
        {
          uri: uri.words[1] as string,
          fails: s.lines.some((l) => l.words[0] === 'monitor' && l.words[1] === 'fail'),
          section: `${s.keyword}${s.name ? ` ${s.name}` : ''}`,
          line: uri.line,
        },
      ];
    }),
  };
}

function sectionServers(section: CfgSection, defaults: Sourced): ServerView[] {
  const servers: ServerView[] = [];
  let current = defaults;
  for (const line of section.lines) {
    const [keyword, ...rest] = line.words;
    if (keyword === 'default-server') {
      current = merge(current, line, rest, false);
      continue;
    }
    // server <name> <address> [params]; server-template <prefix> <num|range> <fqdn>[:port] [params]
    const template = keyword === 'server-template';
    if (keyword !== 'server' && !template) continue;
    const address = (template ? rest[2] : rest[1]) ?? '';
    const s = merge(current, line, rest.slice(template ? 3 : 2), true);
    servers.push({
      section: sectionLabel(section),
      name: rest[0] ?? '',
      address,
      host: addressHost(address),
      line: line.line,
      text: line.text,
      template,
      check: s.check?.value ?? false,
      interMs: s.interMs?.value ?? DEFAULT_INTER_MS,
      fastinterMs: s.fastinterMs?.value,
      fall: s.fall?.value ?? DEFAULT_FALL,
      initAddr: s.initAddr
        ? { methods: s.initAddr.value ?? [], from: s.initAddr.from }
        : { methods: DEFAULT_INIT_ADDR, from: 'default' },
      resolvers: s.resolvers?.value ? { name: s.resolvers.value, from: s.resolvers.from } : undefined,
    });
  }
  return servers;
}

/**
 * How long HAProxy takes to mark a server down once it stops answering, at worst: the first failed check comes up
 * to `inter` after, the `fall - 1` others `fastinter` apart (inter when not set).
 */
export function detectionMs(s: ServerView): number {
  return s.interMs + (s.fall - 1) * (s.fastinterMs ?? s.interMs);
}
