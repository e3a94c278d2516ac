// Where each kind lives in the API. The one place that builds REST paths.
import type { RolloutTarget, WorkloadKind } from '../types/kube.ts';

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** the name kubectl prints in messages, e.g. deployments.apps */
  display: string;
  /**
   * older versions a cluster may serve the kind at instead of `version`, newest first: a list that finds `version`
   * not served (404) asks at the next (servedVersions, src/kube/snapshot.ts)
   */
  older?: readonly string[];
}

/** A resource type; R below lists the ones the plugin reads. */
export function resourceType(
  group: string,
  version: string,
  plural: string,
  kind: string,
  namespaced = true,
  older: readonly string[] = [],
): ResourceType {
  return {
    group,
    version,
    plural,
    kind,
    namespaced,
    display: group ? `${plural}.${group}` : plural,
    ...(older.length ? { older } : {}),
  };
}

/** The resource type at each version it may be served at, `version` first, then the older ones. */
export function atServedVersions(resource: ResourceType): ResourceType[] {
  return [resource, ...(resource.older ?? []).map((version) => ({ ...resource, version, older: [] }))];
}

export const R = {
  namespaces: resourceType('', 'v1', 'namespaces', 'Namespace', false),
  pods: resourceType('', 'v1', 'pods', 'Pod'),
  services: resourceType('', 'v1', 'services', 'Service'),
  events: resourceType('', 'v1', 'events', 'Event'),
  deployments: resourceType('apps', 'v1', 'deployments', 'Deployment'),
  replicasets: resourceType('apps', 'v1', 'replicasets', 'ReplicaSet'),
  statefulsets: resourceType('apps', 'v1', 'statefulsets', 'StatefulSet'),
  daemonsets: resourceType('apps', 'v1', 'daemonsets', 'DaemonSet'),
  rollouts: resourceType('argoproj.io', 'v1alpha1', 'rollouts', 'Rollout'),
  persistentvolumeclaims: resourceType('', 'v1', 'persistentvolumeclaims', 'PersistentVolumeClaim'),
  configmaps: resourceType('', 'v1', 'configmaps', 'ConfigMap'),
  secrets: resourceType('', 'v1', 'secrets', 'Secret'),
  poddisruptionbudgets: resourceType('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  horizontalpodautoscalers: resourceType('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler'),
  endpointslices: resourceType('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice'),
  leases: resourceType('coordination.k8s.io', 'v1', 'leases', 'Lease'),
  clusterroles: resourceType('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  clusterrolebindings: resourceType(
    'rbac.authorization.k8s.io',
    'v1',
    'clusterrolebindings',
    'ClusterRoleBinding',
    false,
  ),
  customresourcedefinitions: resourceType(
    'apiextensions.k8s.io',
    'v1',
    'customresourcedefinitions',
    'CustomResourceDefinition',
    false,
  ),
  haproxytemplateconfigs: resourceType(
    'haproxy-haptic.org',
    'v1alpha1',
    'haproxytemplateconfigs',
    'HAProxyTemplateConfig',
  ),
  haproxycfgs: resourceType('haproxy-haptic.org', 'v1alpha1', 'haproxycfgs', 'HAProxyCfg'),
  ingresses: resourceType('networking.k8s.io', 'v1', 'ingresses', 'Ingress'),
  gateways: resourceType('gateway.networking.k8s.io', 'v1', 'gateways', 'Gateway'),
  httproutes: resourceType('gateway.networking.k8s.io', 'v1', 'httproutes', 'HTTPRoute'),
  grpcroutes: resourceType('gateway.networking.k8s.io', 'v1', 'grpcroutes', 'GRPCRoute'),
  // Gateway API v1.5 serves TLSRoute and ReferenceGrant at v1 in its standard channel (v1alpha2 TLSRoute only in the
  // experimental channel, removed in v1.6, which serves TCPRoute at v1 too); before it, TLSRoute and TCPRoute were
  // v1alpha2 (experimental), ReferenceGrant v1beta1 (kubernetes-sigs/gateway-api, release notes v1.5.0, config/crd).
  // A cluster serves one or the other: each is read at v1, else at the older version. HAPTIC's agent generation
  // watches all three
  tlsroutes: resourceType('gateway.networking.k8s.io', 'v1', 'tlsroutes', 'TLSRoute', true, ['v1alpha2']),
  tcproutes: resourceType('gateway.networking.k8s.io', 'v1', 'tcproutes', 'TCPRoute', true, ['v1alpha2']),
  referencegrants: resourceType('gateway.networking.k8s.io', 'v1', 'referencegrants', 'ReferenceGrant', true, [
    'v1beta1',
  ]),
} as const;

export interface Locator {
  namespace?: string | undefined;
  name?: string | undefined;
  subresource?: string | undefined;
}

const LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** Why the API server would refuse this as an object name in a URL path (apimachinery's IsValidPathSegmentName). */
function pathSegmentProblem(name: string): string | undefined {
  if (name === '.' || name === '..') return `may not be '${name}'`;
  if (name.includes('/')) return "may not contain '/'";
  if (name.includes('%')) return "may not contain '%'";
  return undefined;
}

/** Why `name` is not a valid namespace name (a DNS-1123 label), as the API server words it; undefined if valid. */
export function namespaceNameProblem(name: string): string | undefined {
  const segment = pathSegmentProblem(name);
  if (segment) return segment;
  if (name.length > 63) return 'must be no more than 63 characters';
  if (!LABEL.test(name))
    return "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character";
  return undefined;
}

/** Why `name` is not a valid object name for Deployments and most kinds (a DNS-1123 subdomain); undefined if valid. */
export function objectNameProblem(name: string): string | undefined {
  const segment = pathSegmentProblem(name);
  if (segment) return segment;
  if (name.length > 253) return 'must be no more than 253 characters';
  if (!SUBDOMAIN.test(name))
    return "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character";
  return undefined;
}

/** `/apis/apps/v1/namespaces/ns/deployments/name/status`; without a namespace a namespaced type lists across all. */
export function resourcePath(resource: ResourceType, at: Locator = {}): string {
  // callers validate names first (objectNameProblem); a dot segment would silently address another URL
  for (const part of [at.namespace, at.name])
    if (part !== undefined && pathSegmentProblem(part))
      throw new Error(`refusing to build a request path for the name "${part}": ${pathSegmentProblem(part)}`);
  const base = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
  const ns = resource.namespaced && at.namespace ? `/namespaces/${encodeURIComponent(at.namespace)}` : '';
  const name = at.name ? `/${encodeURIComponent(at.name)}` : '';
  const sub = at.name && at.subresource ? `/${at.subresource}` : '';
  return `${base}${ns}/${resource.plural}${name}${sub}`;
}

/** Resource names and short names of the workload kinds, as kubectl accepts them before a slash. */
const WORKLOAD_ALIASES: Record<string, WorkloadKind> = {
  deployment: 'Deployment',
  deployments: 'Deployment',
  deploy: 'Deployment',
  'deployment.apps': 'Deployment',
  'deployments.apps': 'Deployment',
  statefulset: 'StatefulSet',
  statefulsets: 'StatefulSet',
  sts: 'StatefulSet',
  'statefulset.apps': 'StatefulSet',
  'statefulsets.apps': 'StatefulSet',
  daemonset: 'DaemonSet',
  daemonsets: 'DaemonSet',
  ds: 'DaemonSet',
  'daemonset.apps': 'DaemonSet',
  'daemonsets.apps': 'DaemonSet',
  rollout: 'Rollout',
  rollouts: 'Rollout',
  ro: 'Rollout',
  'rollout.argoproj.io': 'Rollout',
  'rollouts.argoproj.io': 'Rollout',
};

/** Where a workload whose rollout the plugin follows lives in the API. */
export function workloadResource(kind: RolloutTarget['kind']): ResourceType {
  return WORKLOAD_RESOURCES[kind];
}

const WORKLOAD_RESOURCES: Record<RolloutTarget['kind'], ResourceType> = {
  Deployment: R.deployments,
  StatefulSet: R.statefulsets,
  DaemonSet: R.daemonsets,
  Rollout: R.rollouts,
};

/** The kinds of workload whose rollout the plugin follows, in the order they are listed and looked up. */
export const WORKLOAD_KINDS = Object.keys(WORKLOAD_RESOURCES) as RolloutTarget['kind'][];

/** The kinds that roll through ReplicaSets they own (the others own their pods). */
export const WORKLOAD_OWNS_REPLICASETS: Record<RolloutTarget['kind'], boolean> = {
  Deployment: true,
  StatefulSet: false,
  DaemonSet: false,
  Rollout: true,
};

/** NAME (any workload kind) or KIND/NAME for a workload; undefined kind when the prefix names no workload kind. */
export function parseWorkloadName(arg: string): { kind?: WorkloadKind | undefined; name: string; prefix?: string } {
  const slash = arg.indexOf('/');
  if (slash < 0) return { name: arg };
  const prefix = arg.slice(0, slash).toLowerCase();
  return { kind: WORKLOAD_ALIASES[prefix], name: arg.slice(slash + 1), prefix };
}
