// The raw objects a command reads for its models: what src/kube returns and src/model builds from.
import type { HAProxyCfg, HAProxyTemplateConfig } from './haptic.ts';
import type { Gateway, GatewayRoute, Ingress, ReferenceGrant } from './routes.ts';
import type {
  ClusterRole,
  EndpointSlice,
  KubeEvent,
  Lease,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  RoleBinding,
  RolloutTarget,
  Service,
} from './kube.ts';

/** Why a list could not be read: the API error's kind (NotFound, Forbidden…) and its one-line message. */
export interface ReadError {
  kind: string;
  message: string;
}

/** Objects of one list, or none with the error that kept them from being read. */
export interface Read<T> {
  items: T[];
  error?: ReadError | undefined;
}

/** What the plugin read about HAPTIC, cluster-wide, as the API server sent it. Any part may carry a read error. */
export interface HapticInputs {
  templateConfigs: Read<HAProxyTemplateConfig>;
  haproxyCfgs: Read<HAProxyCfg>;
  pods: Read<Pod>;
  leases: Read<Lease>;
  clusterRoles: Read<ClusterRole>;
  clusterRoleBindings: Read<RoleBinding>;
  /** the routes HAPTIC may render, cluster-wide; Gateway API kinds a cluster lacks come back NotFound */
  ingresses: Read<Ingress>;
  httpRoutes: Read<GatewayRoute>;
  grpcRoutes: Read<GatewayRoute>;
  tlsRoutes: Read<GatewayRoute>;
  tcpRoutes: Read<GatewayRoute>;
  gateways: Read<Gateway>;
  /** what lets a route reach a Service of another namespace */
  referenceGrants: Read<ReferenceGrant>;
  /**
   * the Services of the namespaces whose Ingresses name a Service port by name, read only when one does: whether
   * the agent generation's one render resolves every such port (model/haptic/frozen-render.ts). Absent when not read.
   */
  routeServices?: RouteServices | undefined;
}

/** Services of some namespaces: those read, and why the others could not be. */
export interface RouteServices {
  items: Service[];
  /** the namespaces whose Services are all in `items` */
  namespaces: string[];
  unread: { namespace: string; reason: string }[];
}

/**
 * The objects read for one or several workloads at once, one list per kind (selected by the union of their
 * selectors, in their namespace or cluster-wide): model/rollout/inputs.ts splits them into one RolloutSnapshot each.
 */
export interface RolloutLists {
  /** the Deployments' ReplicaSets (none for StatefulSets, whose pods carry their revision in a label) */
  replicaSets: ReplicaSet[];
  pods: Pod[];
  services: Service[];
  slices: EndpointSlice[];
  /** Warning events, and the workloads' own (ScalingReplicaSet, SuccessfulCreate…) */
  events: KubeEvent[];
  /** the PersistentVolumeClaims of the namespace, read only for StatefulSets with volumeClaimTemplates */
  claims: PersistentVolumeClaim[];
  haptic: HapticInputs;
}

/** The objects behind one workload's rollout, as the API server sent them (one snapshot, or informers' caches). */
export interface RolloutSnapshot extends RolloutLists {
  workload: RolloutTarget;
}
