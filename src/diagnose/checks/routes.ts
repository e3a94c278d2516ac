import type { Service } from '../../types/kube.ts';
import type { Installation } from '../../model/haptic/haptic.ts';
import {
  routeClasses,
  routeInstallations,
  type RouteAdmission,
  type RouteGeneration,
  type RouteReference,
  type Routing,
} from '../../model/haptic/routes.ts';
import { renderedEvidence, type RenderedServerOf } from '../../model/haptic/rendered.ts';

// What enable-gate's preflight (HG116–HG118) and why-stalled (HS113) say about routes: the routes that name the
// Services, why HAPTIC renders none of them, and what each installation renders.

const routeName = (r: RouteReference) => `${r.kind.toLowerCase()} ${r.namespace}/${r.name}`;

/** What an installation renders, in a line. */
function admissionLine(id: string, a: RouteAdmission, generation: RouteGeneration): string {
  if (a.unknown) return `HAPTIC ${id}: cannot tell which routes it renders (${a.unknown})`;
  const parts: string[] = [];
  if (a.ingresses) parts.push(`Ingresses${a.ingresses.fieldSelector ? ` with ${a.ingresses.fieldSelector}` : ''}`);
  const routeKinds = [a.httpRoutes && 'HTTPRoutes', a.grpcRoutes && 'GRPCRoutes'].filter(Boolean).join(' and ');
  if (routeKinds) parts.push(`${routeKinds} whatever their parents`);
  const listenerKinds = [a.tlsRoutes && 'TLSRoutes', a.tcpRoutes && 'TCPRoutes'].filter(Boolean).join(' and ');
  if (generation === 'agent' && a.gateways && listenerKinds)
    parts.push(
      `${listenerKinds} on listeners of Gateways${a.gateways.fieldSelector ? ` with ${a.gateways.fieldSelector}` : ''}`,
    );
  return `HAPTIC ${id} renders ${parts.length ? parts.join(', and ') : 'no routes (neither its ingress nor its gateway library is on)'}`;
}

export interface RouteCheck {
  /** no route that HAPTIC renders reaches any of the Services, and that is certain */
  unrouted: boolean;
  /** it cannot be told (a route kind unread, an installation's watch unknown) */
  unknown: boolean;
  nearMiss: boolean;
  /** the routes HAPTIC renders to them, as `ingress ns/name → service/web:80` */
  routed: string[];
  /** the live configs' servers for the workload's pods, as evidence lines (rendered.ts) */
  rendered: string[];
  /** what rendering the routes does besides (a port name the Service lacks fails the agent's whole render) */
  warnings: string[];
  evidence: string[];
  /** the arguments of the fix: the Service, a port, the class to use */
  fixArgs: { service: string; port: string; routeClass: string };
}

/** The routes of the Services that select the pods, judged; the evidence a person needs when none is rendered. */
export function routeCheck(routing: Routing, services: Service[], installations: Installation[]): RouteCheck {
  const insts = routeInstallations(installations);
  const judged = routing.services.filter((s) => services.some((svc) => svc.metadata.name === s.service));
  const routed = judged.flatMap((s) =>
    s.routes.filter((r) => !r.miss).map((r) => `${routeName(r)} → service/${s.service}:${r.service.port}`),
  );
  // the live config's servers in the backends of these Services prove them routed, whatever the routes say; the
  // workload's servers in other Services' backends are evidence only (those Services are routed, not these)
  const names = new Set(services.map((s) => s.metadata.name));
  const proving = (routing.rendered ?? []).filter((r) => r.services.some((s) => names.has(s)));
  const rendered = renderedEvidence(proving);
  const elsewhereServers = (routing.rendered ?? []).filter((r) => !proving.includes(r));
  const evidence: string[] = [];
  for (const s of judged) {
    if (!s.routes.length)
      evidence.push(`service/${s.service}: no Ingress, HTTPRoute, GRPCRoute, TLSRoute or TCPRoute names it`);
    for (const r of s.routes.filter((x) => x.miss))
      evidence.push(`${routeName(r)} → service/${s.service}:${r.service.port || '?'}: ${r.miss}`);
  }
  for (const r of routing.elsewhere) {
    evidence.push(
      r.service.namespace === r.namespace
        ? `${routeName(r)} names a Service ${r.service.name} in its own namespace ${r.namespace}, not this one`
        : `${routeName(r)} → service/${r.service.name} in ${r.service.namespace}: ${r.miss ?? 'rendered'}`,
    );
  }
  for (const u of routing.unread) evidence.push(u.reason);
  for (const i of insts) evidence.push(admissionLine(i.id, i.admission, i.generation));
  if (routing.rendered && !rendered.length) {
    evidence.push(noServerLine(installations, [...names]));
    evidence.push(...otherServiceEvidence(elsewhereServers));
  }
  const first = services[0];
  const port = first?.spec.ports?.[0];
  const none = judged.length > 0 && routed.length === 0 && rendered.length === 0;
  return {
    unrouted: none && routing.conclusive,
    unknown: none && !routing.conclusive,
    nearMiss: judged.some((s) => s.routes.length > 0) || routing.elsewhere.length > 0,
    routed,
    rendered,
    warnings: judged.flatMap((s) => s.routes.flatMap((r) => (r.warning ? [`${routeName(r)}: ${r.warning}`] : []))),
    evidence,
    fixArgs: {
      service: first?.metadata.name ?? '',
      port: port ? String(port.name || port.port) : '80',
      routeClass: routeClasses(insts)[0] ?? 'haproxy',
    },
  };
}

/**
 * The workload's servers that sit in other Services' backends: those Services are routed, and the pods they select
 * with them, not the pods only these Services select.
 */
function otherServiceEvidence(found: RenderedServerOf[]): string[] {
  const lines = renderedEvidence(found).map((line, i) => {
    const services = found[i]?.services ?? [];
    return i < found.length && !line.startsWith('…')
      ? `${line} (${services.length ? services.map((s) => `service/${s}`).join(', ') : 'a backend of no Service that selects it'}, not the Services above)`
      : line;
  });
  return lines;
}

/**
 * Why the live configs prove nothing: none of them has a server in a backend of these Services for a pod of the
 * workload (or none could be read).
 */
function noServerLine(installations: Installation[], services: string[]): string {
  const configs = installations.map((i) =>
    i.config
      ? `haproxycfg ${i.namespace}/${i.config.name}${i.config.unreadable ? ` (unreadable: ${i.config.unreadable})` : ''}`
      : `HAPTIC ${i.namespace}/${i.templateConfig} (no live config)`,
  );
  const of = services.length ? ` in a backend of ${services.map((s) => `service/${s}`).join(', ')}` : '';
  return `no server for a pod of the workload${of} in ${configs.join(', ') || 'any live config'}`;
}
