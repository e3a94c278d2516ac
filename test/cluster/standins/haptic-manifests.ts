// The objects a Helm install of HAPTIC creates, as haptic.md describes them (names from the Helm "fullname",
// HAPTIC's labels, RBAC with or without the readiness gate feature). Pure: installation in, objects out.
import type { Obj } from './common.ts';
import { HAPTIC_API_VERSION } from './haptic-crds.ts';

export type Installation = { release: string; namespace: string };

export function fullname(inst: Installation): string {
  return inst.release.includes('haptic') ? inst.release : `${inst.release}-haptic`;
}

export const TEMPLATE_CONFIG_NAME = 'haptic-config';
export const HAPROXY_CFG_NAME = `${TEMPLATE_CONFIG_NAME}-haproxycfg`;

export function selectorLabels(inst: Installation, component: 'controller' | 'loadbalancer'): Record<string, string> {
  return { 'app.kubernetes.io/name': 'haptic', 'app.kubernetes.io/instance': inst.release, 'app.kubernetes.io/component': component };
}

function labels(inst: Installation): Record<string, string> {
  return { 'app.kubernetes.io/name': 'haptic', 'app.kubernetes.io/instance': inst.release, 'app.kubernetes.io/version': '0.9.0' };
}

const read = ['get', 'list', 'watch'];

export function clusterRole(inst: Installation, gateFeature: boolean): Obj {
  const rules = [
    { apiGroups: ['haproxy-haptic.org'], resources: ['haproxytemplateconfigs', 'haproxycfgs'], verbs: [...read, 'create', 'update', 'patch', 'delete'] },
    { apiGroups: ['haproxy-haptic.org'], resources: ['haproxytemplateconfigs/status', 'haproxycfgs/status'], verbs: ['get', 'update', 'patch'] },
    { apiGroups: [''], resources: ['services', 'endpoints', 'secrets', 'configmaps', 'namespaces'], verbs: read },
    { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses', 'ingressclasses'], verbs: read },
    { apiGroups: ['networking.k8s.io'], resources: ['ingresses/status'], verbs: ['update', 'patch'] },
    { apiGroups: ['', 'events.k8s.io'], resources: ['events'], verbs: ['create', 'patch'] },
    // podReadinessGate.enabled=true adds a cluster-wide watch on pods and patch on pods/status.
    ...(gateFeature ? [
      { apiGroups: [''], resources: ['pods'], verbs: read },
      { apiGroups: [''], resources: ['pods/status'], verbs: ['patch'] },
    ] : []),
  ];
  return { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRole', metadata: { name: fullname(inst), labels: labels(inst) }, rules };
}

function deployment(inst: Installation, component: 'controller' | 'loadbalancer', name: string, containers: object[]): Obj {
  const selector = selectorLabels(inst, component);
  return {
    apiVersion: 'apps/v1', kind: 'Deployment',
    metadata: { name, namespace: inst.namespace, labels: { ...labels(inst), 'app.kubernetes.io/component': component } },
    spec: {
      replicas: 2,
      selector: { matchLabels: selector },
      template: {
        metadata: { labels: { ...labels(inst), ...selector } },
        spec: {
          ...(component === 'controller' ? { serviceAccountName: fullname(inst) } : {}),
          terminationGracePeriodSeconds: 2,
          containers,
        },
      },
    },
  };
}

/** Everything but the CRDs, in apply order. */
export function installationObjects(inst: Installation, gateFeature: boolean): Obj[] {
  const name = fullname(inst);
  const ns = inst.namespace;
  const meta = (n: string) => ({ name: n, namespace: ns, labels: labels(inst) });
  const subject = [{ kind: 'ServiceAccount', name, namespace: ns }];
  return [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } },
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: meta(name) },
    clusterRole(inst, gateFeature),
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'ClusterRoleBinding', metadata: { name, labels: labels(inst) },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name }, subjects: subject },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: meta(name), rules: [
      { apiGroups: [''], resources: ['pods'], verbs: read },
      { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: [...read, 'create', 'update', 'patch'] },
    ] },
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: meta(name),
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name }, subjects: subject },
    { apiVersion: 'v1', kind: 'Service', metadata: meta(name), spec: {
      selector: selectorLabels(inst, 'controller'),
      ports: [{ name: 'http', port: 8080, targetPort: 8080 }, { name: 'metrics', port: 9090, targetPort: 9090 }],
    } },
    deployment(inst, 'controller', `${name}-controller`, [{
      name: 'controller', image: 'ghcr.io/haproxy-haptic/haptic:0.9.0',
      ports: [{ name: 'http', containerPort: 8080 }, { name: 'metrics', containerPort: 9090 }],
    }]),
    deployment(inst, 'loadbalancer', `${name}-haproxy`, [
      { name: 'haproxy', image: 'haproxytech/haproxy-debian:3.2', ports: [{ name: 'http', containerPort: 8080 }, { name: 'https', containerPort: 8443 }] },
      { name: 'agent', image: 'ghcr.io/haproxy-haptic/haptic-agent:0.9.0' },
    ]),
    {
      apiVersion: HAPTIC_API_VERSION, kind: 'HAProxyTemplateConfig', metadata: meta(TEMPLATE_CONFIG_NAME),
      spec: {
        podSelector: { matchLabels: selectorLabels(inst, 'loadbalancer') },
        controller: { leaderElection: { enabled: true, leaseName: name } },
        haproxyConfig: { template: '{% include "kubernetes-backends" %}' },
      },
    },
  ];
}
