// The Gateway API's CRDs as a cluster with a current Gateway API installed serves them (kubernetes-sigs/gateway-api,
// config/crd: gateway.networking.k8s.io, GatewayClass cluster-scoped, Gateway, HTTPRoute and GRPCRoute namespaced at
// v1; TLSRoute at v1 in the standard channel since v1.5, its v1alpha2 left in the experimental channel only and
// removed in v1.6, TCPRoute at v1 since v1.6; ReferenceGrant at v1 since v1.5 with v1beta1 still served (release
// notes v1.5.0), each with a status subresource). HAPTIC's chart enables its gateway library only when the cluster
// serves `gateway.networking.k8s.io/v1/GatewayClass` (charts/haptic/templates/_helpers.tpl), so the test cluster
// serves them. Schemas stay open: neither HAPTIC's stand-in nor the plugin depends on the API server
// validating these objects, only on their group, kinds, versions and scope.
import type { Obj } from './common.ts';

export const GATEWAY_API_VERSION = 'gateway.networking.k8s.io/v1';
const GROUP = 'gateway.networking.k8s.io';

function crd(
  kind: string,
  plural: string,
  scope: 'Cluster' | 'Namespaced',
  shortNames: string[],
  versions: string[] = ['v1'],
  channel = 'standard',
): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${plural}.${GROUP}`,
      annotations: {
        // a *.k8s.io group needs the approval annotation (the API server refuses the CRD without it); the project's
        // CRDs carry this one
        'api-approved.kubernetes.io': 'https://github.com/kubernetes-sigs/gateway-api/pull/2466',
        'gateway.networking.k8s.io/bundle-version': 'v1.6.0',
        'gateway.networking.k8s.io/channel': channel,
      },
    },
    spec: {
      group: GROUP,
      scope,
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames },
      // the first version is stored, the others served beside it
      versions: versions.map((name, i) => ({
        name,
        served: true,
        storage: i === 0,
        subresources: { status: {} },
        schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
      })),
    },
  };
}

export function gatewayApiCrds(): Obj[] {
  return [
    crd('GatewayClass', 'gatewayclasses', 'Cluster', ['gc']),
    crd('Gateway', 'gateways', 'Namespaced', ['gtw']),
    crd('HTTPRoute', 'httproutes', 'Namespaced', []),
    crd('GRPCRoute', 'grpcroutes', 'Namespaced', []),
    crd('ReferenceGrant', 'referencegrants', 'Namespaced', ['refgrant'], ['v1', 'v1beta1']),
    crd('TLSRoute', 'tlsroutes', 'Namespaced', []),
    crd('TCPRoute', 'tcproutes', 'Namespaced', []),
  ];
}
