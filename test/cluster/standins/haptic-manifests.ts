// The objects a Helm install of HAPTIC creates (charts/haptic/templates: _helpers.tpl for the "fullname",
// deployment.yaml, haproxy-deployment.yaml, clusterrole.yaml, haproxytemplateconfig.yaml; docs/haptic-compat.md):
// HAPTIC's labels, the controller's CRD_NAME, RBAC with or without the readiness gate feature, leader election and
// compression settings. Pure: installation and settings in, objects out.
import type { Obj } from './common.ts';
import { GATEWAY_API_VERSION } from './gateway-api-crds.ts';
import { HAPTIC_API_VERSION } from './haptic-crds.ts';
import type { StatusShape } from './knobs.ts';

/** What the chart's values decide in these objects, from the knobs. */
export type ChartSettings = {
  gateFeature: boolean;
  statusShape: StatusShape;
  leaderElection: boolean;
  compressed: boolean;
};
export const DEFAULT_CHART: ChartSettings = {
  gateFeature: true,
  statusShape: 'gate',
  leaderElection: true,
  compressed: false,
};

export type Installation = { release: string; namespace: string };

export function fullname(inst: Installation): string {
  return inst.release.includes('haptic') ? inst.release : `${inst.release}-haptic`;
}

export const TEMPLATE_CONFIG_NAME = 'haptic-config';
/** values.yaml ingressClass.name and gatewayClass.name, and their controllerName */
export const CLASS_NAME = 'haproxy';
const CONTROLLER_NAME = 'haproxy-haptic.org/controller';
export const HAPROXY_CFG_NAME = `${TEMPLATE_CONFIG_NAME}-haproxycfg`;

export function selectorLabels(inst: Installation, component: 'controller' | 'loadbalancer'): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'haptic',
    'app.kubernetes.io/instance': inst.release,
    'app.kubernetes.io/component': component,
  };
}

function labels(inst: Installation): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'haptic',
    'app.kubernetes.io/instance': inst.release,
    'app.kubernetes.io/version': '0.9.0',
  };
}

const read = ['get', 'list', 'watch'];
export const DATAPLANE_PORT = 5555;

/**
 * The controller's ClusterRole. Every released chart lets it read pods (namespaces and pods, clusterrole.yaml);
 * patch on pods/status comes only with the gate release's podReadinessGate.enabled=true (the seed: "The
 * controller's ClusterRole gains get, list, and watch on pods and patch on pods/status"). The dataplane
 * generation records no events, so its role has no events rule.
 */
export function clusterRole(inst: Installation, settings: ChartSettings): Obj {
  const gate = settings.gateFeature && settings.statusShape === 'gate';
  const rules = [
    {
      apiGroups: ['haproxy-haptic.org'],
      resources: ['haproxytemplateconfigs', 'haproxycfgs'],
      verbs: [...read, 'create', 'update', 'patch', 'delete'],
    },
    {
      apiGroups: ['haproxy-haptic.org'],
      resources: ['haproxytemplateconfigs/status', 'haproxycfgs/status'],
      verbs: ['get', 'update', 'patch'],
    },
    { apiGroups: [''], resources: ['services', 'endpoints', 'secrets', 'configmaps', 'namespaces'], verbs: read },
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingressclasses'], verbs: read },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses/status'], verbs: ['update', 'patch'] },
    {
      apiGroups: ['gateway.networking.k8s.io'],
      resources: [
        'gateways',
        'gatewayclasses',
        'httproutes',
        'grpcroutes',
        ...(settings.statusShape === 'dataplane' ? [] : ['tlsroutes', 'tcproutes', 'referencegrants']),
      ],
      verbs: read,
    },
    ...(settings.statusShape === 'dataplane'
      ? []
      : [{ apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] }]),
    { apiGroups: [''], resources: ['pods'], verbs: read },
    ...(gate ? [{ apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] }] : []),
  ];
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'ClusterRole',
    metadata: { name: fullname(inst), labels: labels(inst) },
    rules,
  };
}

function deployment(
  inst: Installation,
  component: 'controller' | 'loadbalancer',
  name: string,
  containers: object[],
  replicas = 2,
  volumes?: object[],
): Obj {
  const selector = selectorLabels(inst, component);
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      name,
      namespace: inst.namespace,
      labels: { ...labels(inst), 'app.kubernetes.io/component': component },
    },
    spec: {
      replicas,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...labels(inst), ...selector } },
        spec: {
          ...(component === 'controller' ? { serviceAccountName: fullname(inst) } : {}),
          terminationGracePeriodSeconds: 2,
          containers,
          ...(volumes ? { volumes } : {}),
        },
      },
    },
  };
}

/** The controller Deployment: one replica with leader election off (the chart's replicaCount then), else two. */
export function controllerDeployment(inst: Installation, settings: ChartSettings): Obj {
  return deployment(
    inst,
    'controller',
    `${fullname(inst)}-controller`,
    [
      {
        name: 'controller',
        image: 'ghcr.io/haproxy-haptic/haptic:0.9.0',
        ports: [
          { name: 'http', containerPort: 8080 },
          { name: 'metrics', containerPort: 9090 },
        ],
        // the chart names the one template config the controller uses (values controller.crdName)
        env: [
          { name: 'CRD_NAME', value: TEMPLATE_CONFIG_NAME },
          { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
        ],
      },
    ],
    settings.leaderElection ? 2 : 1,
  );
}

/**
 * The template config: the chart's podSelector (component: loadbalancer only), the Lease named after the fullname,
 * and a compression threshold below any config's size when compression is asked for (HAPTIC treats 0 as unset and
 * compresses only content longer than the threshold that compression makes shorter).
 */
export function templateConfig(inst: Installation, settings: ChartSettings): Obj {
  return {
    apiVersion: HAPTIC_API_VERSION,
    kind: 'HAProxyTemplateConfig',
    metadata: { name: TEMPLATE_CONFIG_NAME, namespace: inst.namespace, labels: labels(inst) },
    spec: {
      podSelector: { matchLabels: { 'app.kubernetes.io/component': 'loadbalancer' } },
      controller: {
        leaderElection: { enabled: settings.leaderElection, leaseName: fullname(inst) },
        configPublishing: { compressionThreshold: settings.compressed ? 1 : 1048576 },
      },
      // the libraries' watchedResources as charts/haptic/templates/_helpers.tpl merges them (libraries/ingress.yaml,
      // gateway.yaml), the class names injected as field selectors
      watchedResources: {
        ingresses: {
          apiVersion: 'networking.k8s.io/v1',
          resources: 'ingresses',
          indexBy: ['metadata.namespace', 'metadata.name'],
          enableValidationWebhook: true,
          fieldSelector: `spec.ingressClassName=${CLASS_NAME}`,
        },
        gateways: {
          apiVersion: GATEWAY_API_VERSION,
          resources: 'gateways',
          indexBy: ['metadata.namespace', 'metadata.name'],
          enableValidationWebhook: false,
          fieldSelector: `spec.gatewayClassName=${CLASS_NAME}`,
        },
        httproutes: {
          apiVersion: GATEWAY_API_VERSION,
          resources: 'httproutes',
          indexBy: ['metadata.namespace', 'metadata.name'],
          enableValidationWebhook: true,
        },
        grpcroutes: {
          apiVersion: GATEWAY_API_VERSION,
          resources: 'grpcroutes',
          indexBy: ['metadata.namespace', 'metadata.name'],
          enableValidationWebhook: true,
        },
        // the agent generation's gateway library also watches TLS and TCP routes and ReferenceGrants, without
        // selectors (charts/gateway/_index.yaml); the dataplane generation's does not
        ...(settings.statusShape === 'dataplane'
          ? {}
          : {
              // HAPTIC watches each kind at the apiVersion its watchedResources name (pkg/controller/resourcewatcher/
              // watcher.go parses it into the group and version it lists); this cluster serves these kinds at v1
              // only (gateway-api-crds.ts), so the template config names v1
              tlsroutes: { apiVersion: GATEWAY_API_VERSION, resources: 'tlsroutes' },
              tcproutes: { apiVersion: GATEWAY_API_VERSION, resources: 'tcproutes' },
              referencegrants: { apiVersion: GATEWAY_API_VERSION, resources: 'referencegrants' },
            }),
        services: { apiVersion: 'v1', resources: 'services', indexBy: ['metadata.namespace', 'metadata.name'] },
        endpoints: {
          apiVersion: 'discovery.k8s.io/v1',
          resources: 'endpointslices',
          indexBy: ['metadata.namespace', 'metadata.labels.kubernetes\\.io/service-name'],
        },
      },
      haproxyConfig: { template: '{% include "kubernetes-backends" %}' },
    },
  };
}

/**
 * The chart's IngressClass and GatewayClass (templates/ingressclass.yaml, gatewayclass.yaml; values.yaml: name
 * `haproxy`, controller `haproxy-haptic.org/controller`, not the default class). Cluster-scoped and named by the
 * values, so only the first installation creates them: a second one routing the same class is installed with
 * `ingressClass.enabled=false` and `gatewayClass.enabled=false`, or Helm would refuse objects another release owns.
 */
export function routeClasses(inst: Installation): Obj[] {
  return [
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IngressClass',
      metadata: { name: CLASS_NAME, labels: labels(inst) },
      spec: { controller: CONTROLLER_NAME },
    },
    {
      apiVersion: GATEWAY_API_VERSION,
      kind: 'GatewayClass',
      metadata: { name: CLASS_NAME, labels: labels(inst) },
      spec: {
        controllerName: CONTROLLER_NAME,
        parametersRef: {
          group: 'haproxy-haptic.org',
          kind: 'HAProxyTemplateConfig',
          name: TEMPLATE_CONFIG_NAME,
          namespace: inst.namespace,
        },
      },
    },
  ];
}

/** Everything but the CRDs, in apply order. */
export function installationObjects(inst: Installation, settings: ChartSettings): Obj[] {
  const name = fullname(inst);
  const ns = inst.namespace;
  const meta = (n: string) => ({ name: n, namespace: ns, labels: labels(inst) });
  const subject = [{ kind: 'ServiceAccount', name, namespace: ns }];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name) },
    clusterRole(inst, settings),
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'ClusterRoleBinding',
      metadata: { name, labels: labels(inst) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name },
      subjects: subject,
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: meta(name),
      rules: [
        { apiGroups: [''], resources: ['pods'], verbs: read },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: [...read, 'create', 'update', 'patch'] },
      ],
    },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'RoleBinding',
      metadata: meta(name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
      subjects: subject,
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: meta(name),
      spec: {
        selector: selectorLabels(inst, 'controller'),
        ports: [
          { name: 'http', port: 8080, targetPort: 8080 },
          { name: 'metrics', port: 9090, targetPort: 9090 },
        ],
      },
    },
    controllerDeployment(inst, settings),
    deployment(
      inst,
      'loadbalancer',
      `${name}-haproxy`,
      [
        {
          name: 'haproxy',
          image: 'haproxytech/haproxy-debian:3.2',
          // the chart's start (charts/haptic/templates/haproxy-deployment.yaml): master-worker with the master socket
          // in the runtime folder it shares with the agent, which writes the configuration there (the chart's copy of
          // a bootstrap config from its ConfigMap is left out: the agent writes the first one)
          command: ['/bin/sh', '-c'],
          args: [
            [
              'mkdir -p /etc/haproxy/maps /etc/haproxy/certs /etc/haproxy/errors /etc/haproxy/general',
              'exec /usr/local/sbin/haproxy -dr -W -db -S "/etc/haproxy/haproxy-master.sock,level,admin" -- /etc/haproxy/haproxy.cfg',
            ].join('\n'),
          ],
          ports: [
            { name: 'http', containerPort: 8080 },
            { name: 'https', containerPort: 8443 },
          ],
          volumeMounts: [{ name: 'haproxy-runtime', mountPath: '/etc/haproxy' }],
        },
        // the container HAPTIC deploys through exposes spec.dataplane.port (5555 by default): discovery looks for it
        // and waits for that container to be ready (pkg/controller/discovery/discovery.go, isDataplaneContainerReady)
        {
          name: 'agent',
          image: 'ghcr.io/haproxy-haptic/haptic-agent:0.9.0',
          ports: [{ name: 'dataplane', containerPort: DATAPLANE_PORT }],
          volumeMounts: [{ name: 'haproxy-runtime', mountPath: '/etc/haproxy' }],
        },
      ],
      2,
      [{ name: 'haproxy-runtime', emptyDir: {} }],
    ),
    templateConfig(inst, settings),
  ];
}
