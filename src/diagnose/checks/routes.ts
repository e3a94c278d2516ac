import type { Service } from '../../types/kube.ts';
import type { Installation } from '../../model/haptic/haptic.ts';
import {
  routeClasses,
  routeInstallations,
  type RouteAdmission,
  type RouteReference,
  type Routing,
} from '../../model/haptic/routes.ts';

// What enable-gate's preflight (HG116–HG118) and why-stalled (HS113) say about routes: the routes that name the
// Services, why HAPTIC renders none of them, and what each installation renders.

const routeName = (r: RouteReference) => `${r.kind.toLowerCase()} ${r.namespace}/${r.name}`;

/** What an installation renders, in a line. */
function admissionLine(id: string, a: RouteAdmission): string {
  if (a.unknown) return `HAPTIC ${id}: cannot tell which routes it renders (${a.unknown})`;
  const parts: string[] = [];
  if (a.ingresses) parts.push(`Ingresses${a.ingresses.fieldSelector ? ` with ${a.ingresses.fieldSelector}` : ''}`);
  const gatewayKinds = [a.httpRoutes && 'HTTPRoutes', a.grpcRoutes && 'GRPCRoutes'].filter(Boolean).join(' and ');
  if (a.gateways && gatewayKinds)
    parts.push(`${gatewayKinds} on Gateways${a.gateways.fieldSelector ? ` with ${a.gateways.fieldSelector}` : ''}`);
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
  const evidence: string[] = [];
  for (const s of judged) {
    if (!s.routes.length) evidence.push(`service/${s.service}: no Ingress, HTTPRoute or GRPCRoute names it`);
    for (const r of s.routes.filter((x) => x.miss))
      evidence.push(`${routeName(r)} → service/${s.service}:${r.service.port || '?'}: ${r.miss}`);
  }
  for (const r of routing.elsewhere.slice(0, 5)) {
    evidence.push(
      r.service.namespace === r.namespace
        ? `${routeName(r)} names a Service ${r.service.name} in its own namespace ${r.namespace}, not this one`
        : `${routeName(r)} → service/${r.service.name} in ${r.service.namespace}: ${r.miss ?? 'rendered'}`,
    );
  }
  for (const u of routing.unread) evidence.push(u.reason);
  for (const i of insts) evidence.push(admissionLine(i.id, i.admission));
  const first = services[0];
  const port = first?.spec.ports?.[0];
  return {
    unrouted: judged.length > 0 && routed.length === 0 && routing.conclusive,
    unknown: judged.length > 0 && routed.length === 0 && !routing.conclusive,
    nearMiss: judged.some((s) => s.routes.length > 0) || routing.elsewhere.length > 0,
    routed,
    evidence,
    fixArgs: {
      service: first?.metadata.name ?? '',
      port: port ? String(port.name || port.port) : '80',
      routeClass: routeClasses(insts)[0] ?? 'haproxy',
    },
  };
}
