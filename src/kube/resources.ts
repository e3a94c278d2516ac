// Where each kind lives in the API. The one place that builds REST paths.

export interface ResourceType {
  group: string;
  version: string;
  plural: string;
  kind: string;
  namespaced: boolean;
  /** the name kubectl prints in messages, e.g. deployments.apps */
  display: string;
}

function type(group: string, version: string, plural: string, kind: string, namespaced = true): ResourceType {
  return { group, version, plural, kind, namespaced, display: group ? `${plural}.${group}` : plural };
}

export const R = {
  namespaces: type('', 'v1', 'namespaces', 'Namespace', false),
  pods: type('', 'v1', 'pods', 'Pod'),
  services: type('', 'v1', 'services', 'Service'),
  events: type('', 'v1', 'events', 'Event'),
  deployments: type('apps', 'v1', 'deployments', 'Deployment'),
  replicasets: type('apps', 'v1', 'replicasets', 'ReplicaSet'),
  statefulsets: type('apps', 'v1', 'statefulsets', 'StatefulSet'),
  configmaps: type('', 'v1', 'configmaps', 'ConfigMap'),
  secrets: type('', 'v1', 'secrets', 'Secret'),
  poddisruptionbudgets: type('policy', 'v1', 'poddisruptionbudgets', 'PodDisruptionBudget'),
  horizontalpodautoscalers: type('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler'),
  endpointslices: type('discovery.k8s.io', 'v1', 'endpointslices', 'EndpointSlice'),
  leases: type('coordination.k8s.io', 'v1', 'leases', 'Lease'),
  clusterroles: type('rbac.authorization.k8s.io', 'v1', 'clusterroles', 'ClusterRole', false),
  clusterrolebindings: type('rbac.authorization.k8s.io', 'v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
  customresourcedefinitions: type('apiextensions.k8s.io', 'v1', 'customresourcedefinitions', 'CustomResourceDefinition', false),
  haproxytemplateconfigs: type('haproxy-haptic.org', 'v1alpha1', 'haproxytemplateconfigs', 'HAProxyTemplateConfig'),
  haproxycfgs: type('haproxy-haptic.org', 'v1alpha1', 'haproxycfgs', 'HAProxyCfg'),
} as const;

export interface Locator {
  namespace?: string | undefined;
  name?: string | undefined;
  subresource?: string | undefined;
}

/** `/apis/apps/v1/namespaces/ns/deployments/name/status`; without a namespace a namespaced type lists across all. */
export function resourcePath(resource: ResourceType, at: Locator = {}): string {
  const base = resource.group ? `/apis/${resource.group}/${resource.version}` : `/api/${resource.version}`;
  const ns = resource.namespaced && at.namespace ? `/namespaces/${encodeURIComponent(at.namespace)}` : '';
  const name = at.name ? `/${encodeURIComponent(at.name)}` : '';
  const sub = at.name && at.subresource ? `/${at.subresource}` : '';
  return `${base}${ns}/${resource.plural}${name}${sub}`;
}

/** Accepts NAME, deployment/NAME, deploy/NAME, deployments.apps/NAME; other kinds are named, not crashed on. */
export function parseTargetName(arg: string): { kind: string; name: string } {
  const slash = arg.indexOf('/');
  if (slash < 0) return { kind: 'deployment', name: arg };
  const kind = arg.slice(0, slash).toLowerCase();
  const name = arg.slice(slash + 1);
  const deploymentAliases = ['deployment', 'deployments', 'deploy', 'deployment.apps', 'deployments.apps'];
  return { kind: deploymentAliases.includes(kind) ? 'deployment' : kind, name };
}
