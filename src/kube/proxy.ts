// Go's http.ProxyFromEnvironment, which kubectl uses when a cluster has no proxy-url: HTTPS_PROXY for https servers,
// HTTP_PROXY for http ones (upper case first, then lower case), unless NO_PROXY matches the host; requests to
// localhost and loopback addresses are never proxied.
import { isIP } from 'node:net';

const env = (...names: string[]) => names.map((n) => process.env[n]).find((v) => v !== undefined && v !== '');

export function proxyFor(url: URL): string | undefined {
  const raw = url.protocol === 'https:' ? env('HTTPS_PROXY', 'https_proxy') : env('HTTP_PROXY', 'http_proxy');
  if (!raw) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || isLoopback(host)) return undefined;
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  if (noProxy(host, port, env('NO_PROXY', 'no_proxy') ?? '')) return undefined;
  // Go takes a proxy without a scheme as http://
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `http://${raw}`;
}

function isLoopback(host: string): boolean {
  if (isIP(host) === 4) return host.startsWith('127.');
  return host === '::1';
}

/** NO_PROXY entries: `*`, an IP, a CIDR, or a domain (also its subdomains; a leading `.` or `*.` only subdomains), each with an optional port. */
function noProxy(host: string, port: string, list: string): boolean {
  for (let entry of list
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean)) {
    if (entry === '*') return true;
    if (entry.includes('/')) {
      if (inCidr(host, entry)) return true;
      continue;
    }
    let entryPort = '';
    const m = /^(.*):(\d+)$/.exec(entry);
    if (m && !entry.startsWith('[') && isIP(entry) !== 6) {
      entry = m[1] as string;
      entryPort = m[2] as string;
    }
    entry = entry.replace(/^\[|\]$/g, '');
    if (entryPort && entryPort !== port) continue;
    if (isIP(entry)) {
      if (entry === host) return true;
      continue;
    }
    if (entry.startsWith('*.')) entry = entry.slice(1);
    if (entry.startsWith('.')) {
      if (host.endsWith(entry)) return true;
    } else if (host === entry || host.endsWith(`.${entry}`)) return true;
  }
  return false;
}

function inCidr(host: string, cidr: string): boolean {
  const [base, bitsText] = cidr.split('/') as [string, string];
  const bits = Number(bitsText);
  if (isIP(host) !== 4 || isIP(base) !== 4 || !(bits >= 0 && bits <= 32)) return false;
  const num = (ip: string) => ip.split('.').reduce((n, part) => n * 256 + Number(part), 0);
  const block = 2 ** (32 - bits);
  return Math.floor(num(host) / block) === Math.floor(num(base) / block);
}
