import type { Service } from '../../types/kube.ts';
import type { RouteServices } from '../../types/snapshot.ts';
import { renderedReferences, type RouteInstallation, type RouteLists } from './routes.ts';

// A render of the agent generation that fails, which nothing HAPTIC writes tells. The agent generation renders every
// route of an installation in one template run, and its kubernetes-backends library's ResolveServicePort fail()s on
// an Ingress port name the Service lacks (charts/*/kubernetes-backends/library.yaml): the whole render fails, for
// every workload the installation routes. A failed render is a TemplateRenderFailedEvent (pkg/controller/renderer/
// component.go, pkg/controller/reconciler/coordinator.go handlePipelineFailure), which HAPTIC's status updater does not
// subscribe to (pkg/controller/configchange/status_updater.go: ConfigValidated, ConfigInvalid, ValidationFailed only):
// the template config stays Validated=True, no `-invalid` HAProxyCfg is written (configpublisher/workers.go writes one
// for a render HAProxy refused, which needs a render), the live config stays the last one rendered, and only the
// controller's log says it. HAPTIC's admission webhook renders an Ingress before admitting it, so the usual way in is
// a Service's port renamed under an Ingress that names it. The dataplane generation falls back to port 80 and goes on.

/** An Ingress an installation renders that names a Service port by name. */
export interface NamedPortRoute {
  /** `ingress <namespace>/<name>` */
  route: string;
  /** `ingress/<name>`, as kubectl names it in its namespace */
  resource: string;
  /** the Ingress's namespace, and its Service's */
  namespace: string;
  service: string;
  port: string;
}

/** Such an Ingress whose Service has no port of that name: it fails the installation's whole render. */
export interface PortNameMiss extends NamedPortRoute {
  /** the Service's ports, `name number` each (a number alone when unnamed) */
  ports: string;
}

export interface PortNames {
  misses: PortNameMiss[];
  /** Ingresses whose Service was not read (yet): why, until a read of their namespace judges them */
  unjudged: (NamedPortRoute & { reason: string })[];
}

const portsOf = (service: Service) =>
  (service.spec.ports ?? []).map((p) => (p.name ? `${p.name} ${p.port}` : String(p.port))).join(', ') || 'none';

/** Judges each route against the Services of its namespace, where they were read (`covers`); the rest stay unjudged. */
function judge(
  routes: (NamedPortRoute & { reason: string })[],
  services: Service[],
  covers: (namespace: string) => boolean,
): PortNames {
  const misses: PortNameMiss[] = [];
  const unjudged: PortNames['unjudged'] = [];
  for (const route of routes) {
    if (!covers(route.namespace)) {
      unjudged.push(route);
      continue;
    }
    const service = services.find(
      (s) => (s.metadata.namespace ?? '') === route.namespace && s.metadata.name === route.service,
    );
    // a Service that does not exist renders no backend; only one that lacks the name fails the render
    if (!service || (service.spec.ports ?? []).some((p) => p.name === route.port)) continue;
    const { reason: _, ...plain } = route;
    misses.push({ ...plain, ports: portsOf(service) });
  }
  return { misses, unjudged };
}

/**
 * The Ingresses an agent-generation installation renders that name a Service port by name, judged against the
 * Services read for them (HapticInputs.routeServices); undefined when there is none, and for the dataplane
 * generation, whose render goes on.
 */
export function portNamesOf(
  lists: RouteLists,
  inst: RouteInstallation,
  read: RouteServices | undefined,
): PortNames | undefined {
  if (inst.generation === 'dataplane') return undefined;
  const routes = renderedReferences(lists, inst)
    .filter((r) => r.kind === 'Ingress' && r.service.port && !/^\d+$/.test(r.service.port))
    .map((r) => ({
      route: `ingress ${r.namespace}/${r.name}`,
      resource: `ingress/${r.name}`,
      namespace: r.service.namespace,
      service: r.service.name,
      port: r.service.port,
      reason:
        read?.unread.find((u) => u.namespace === r.service.namespace)?.reason ??
        `the Services of namespace ${r.service.namespace} were not read`,
    }));
  const seen = new Set<string>();
  const unique = routes.filter((r) => {
    const key = `${r.route} ${r.service} ${r.port}`;
    return !seen.has(key) && !!seen.add(key);
  });
  const names = judge(unique, read?.items ?? [], (ns) => !!read?.namespaces.includes(ns));
  // nothing to say: no route names a port by name
  return names.misses.length || names.unjudged.length ? names : undefined;
}

/** The routes still unjudged, judged against the Services of one more namespace (the workload's, read with it). */
export function judgedIn(names: PortNames, services: Service[], namespace: string): PortNames {
  if (!names.unjudged.some((r) => r.namespace === namespace)) return names;
  const more = judge(names.unjudged, services, (ns) => ns === namespace);
  return { misses: [...names.misses, ...more.misses], unjudged: more.unjudged };
}
