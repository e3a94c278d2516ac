// The routes that send traffic to Services, as the API server sends them: Ingresses (networking.k8s.io/v1) and the
// Gateway API's Gateways, HTTPRoutes and GRPCRoutes (gateway.networking.k8s.io/v1). Only what the plugin reads of
// them: which Services and ports they name, and what decides whether HAPTIC renders them (class, parents).
import type { KubeObject } from './kube.ts';

export interface IngressServiceBackend {
  name?: string;
  port?: { name?: string; number?: number };
}

export interface IngressBackend {
  service?: IngressServiceBackend;
  resource?: { apiGroup?: string; kind?: string; name?: string };
}

export interface Ingress extends KubeObject {
  spec?: {
    ingressClassName?: string;
    defaultBackend?: IngressBackend;
    rules?: { host?: string; http?: { paths?: { path?: string; pathType?: string; backend?: IngressBackend }[] } }[];
  };
}

/** A route's parent: a Gateway, unless group/kind say otherwise. */
export interface ParentReference {
  group?: string;
  kind?: string;
  namespace?: string;
  name: string;
  sectionName?: string;
  port?: number;
}

/** A rule's backend: a Service of the route's namespace, unless group/kind/namespace say otherwise. */
export interface BackendReference {
  group?: string;
  kind?: string;
  name: string;
  namespace?: string;
  port?: number;
  weight?: number;
}

/** HTTPRoute, GRPCRoute, TLSRoute and TCPRoute: the same parents and backends, other matches. */
export interface GatewayRoute extends KubeObject {
  spec?: {
    parentRefs?: ParentReference[];
    hostnames?: string[];
    rules?: { backendRefs?: BackendReference[] }[];
  };
}

/** Which routes a listener admits: from which namespaces, of which kinds (the protocol's when none listed). */
export interface AllowedRoutes {
  namespaces?: { from?: string; selector?: { matchLabels?: Record<string, string> } };
  kinds?: { group?: string; kind: string }[];
}

export interface GatewayListener {
  name: string;
  protocol?: string;
  port?: number;
  hostname?: string;
  tls?: { mode?: string };
  allowedRoutes?: AllowedRoutes;
}

export interface Gateway extends KubeObject {
  spec?: { gatewayClassName?: string; listeners?: GatewayListener[] };
}

/** Lets routes of the `from` namespaces and kinds reach the `to` kinds (and names) of its own namespace. */
export interface ReferenceGrant extends KubeObject {
  spec?: {
    from?: { group?: string; kind: string; namespace: string }[];
    to?: { group?: string; kind: string; name?: string }[];
  };
}
