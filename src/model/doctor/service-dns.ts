// Which Service a DNS name in a config points at, by the cluster DNS naming rules: `<svc>`, `<svc>.<ns>`,
// `<svc>.<ns>.svc[.<cluster domain>]`, and a headless Service's pods `<hostname>.<svc>[.<ns>[.svc[.<domain>]]]`.
// A short name is resolved in the namespace of the client (resolv.conf's first search domain). Pure.
import type { Service } from '../../types/kube.ts';

export interface ServiceName {
  service: Service;
  /** the pod hostname part of a headless Service's record */
  hostname?: string | undefined;
}

/** The Service a host names, among the Services read; undefined for an external or unknown name. */
export function serviceOfHost(host: string, clientNamespace: string, services: Service[]): ServiceName | undefined {
  const labels = host.replace(/\.$/, '').split('.');
  const svcAt = labels.indexOf('svc');
  const find = (name: string | undefined, ns: string | undefined) =>
    services.find((s) => s.metadata.name === name && (s.metadata.namespace ?? '') === ns);
  if (svcAt >= 0) {
    // …<svc>.<ns>.svc.<domain>: the two labels before `svc`, and a pod hostname before them
    const [hostname, svc, ns] =
      svcAt >= 3 ? labels.slice(svcAt - 3, svcAt) : [undefined, ...labels.slice(svcAt - 2, svcAt)];
    const service = find(svc, ns);
    return service ? { service, hostname } : undefined;
  }
  if (labels.length === 1) {
    const service = find(labels[0], clientNamespace);
    return service ? { service } : undefined;
  }
  if (labels.length === 2) {
    const asService = find(labels[0], labels[1]);
    if (asService) return { service: asService };
    const asPod = find(labels[1], clientNamespace);
    return asPod ? { service: asPod, hostname: labels[0] } : undefined;
  }
  if (labels.length === 3) {
    const service = find(labels[1], labels[2]);
    return service ? { service, hostname: labels[0] } : undefined;
  }
  return undefined;
}

/** Top-level domains are letters only (or IDNA `xn--…`): a last label with a digit or a hyphen is none. */
const TLD = /^([a-z]{2,63}|xn--[a-z0-9-]+)$/i;

/**
 * A name HAProxy's own resolver cannot look up as written: it sends the name as is, without resolv.conf's search
 * domains. No dot, a name ending in `.svc`, one whose last label is a namespace (`web.shop`) or cannot be a
 * top-level domain (`redis-0.redis-headless`) is short.
 */
export function isShortName(host: string, namespaces: Set<string>): boolean {
  if (host.endsWith('.')) return false;
  const labels = host.split('.');
  const last = labels.at(-1) as string;
  if (labels.length === 1 || last === 'svc') return true;
  return namespaces.has(last) || !TLD.test(last);
}
