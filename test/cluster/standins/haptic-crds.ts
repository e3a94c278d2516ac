// HAPTIC's two CRDs (group haproxy-haptic.org, v1alpha1, namespaced, status subresource), with structural schemas
// that name the fields haptic.md lists and keep the rest open (x-kubernetes-preserve-unknown-fields).
import type { Obj } from './common.ts';

export const HAPTIC_GROUP = 'haproxy-haptic.org';
export const HAPTIC_API_VERSION = `${HAPTIC_GROUP}/v1alpha1`;

const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const str = { type: 'string' };
const int = { type: 'integer', format: 'int64' };
const strings = { type: 'array', items: str };
const conditions = {
  type: 'array',
  items: {
    type: 'object',
    required: ['type', 'status'],
    properties: {
      type: str, status: str, reason: str, message: str, observedGeneration: int,
      lastTransitionTime: { type: 'string', format: 'date-time' },
    },
  },
};

function crd(kind: string, plural: string, shortNames: string[], spec: object, status: object, columns: object[]): Obj {
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: `${plural}.${HAPTIC_GROUP}` },
    spec: {
      group: HAPTIC_GROUP,
      scope: 'Namespaced',
      names: { kind, listKind: `${kind}List`, plural, singular: kind.toLowerCase(), shortNames },
      versions: [{
        name: 'v1alpha1',
        served: true,
        storage: true,
        subresources: { status: {} },
        additionalPrinterColumns: [...columns, { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' }],
        schema: { openAPIV3Schema: { type: 'object', properties: { spec, status } } },
      }],
    },
  };
}

export const HAPTIC_CRDS: Obj[] = [
  crd('HAProxyTemplateConfig', 'haproxytemplateconfigs', ['htplcfg', 'haptpl'], {
    ...open,
    properties: {
      podSelector: { type: 'object', properties: { matchLabels: { type: 'object', additionalProperties: str } } },
    },
  }, {
    ...open,
    properties: { conditions, validationStatus: str, validationMessage: str, validationErrors: strings, observedGeneration: int },
  }, [{ name: 'Status', type: 'string', jsonPath: '.status.validationStatus' }]),
  crd('HAProxyCfg', 'haproxycfgs', ['hpcfg'], {
    ...open,
    properties: { content: str, checksum: str, compressed: { type: 'boolean' } },
  }, {
    ...open,
    properties: {
      conditions,
      deployedToPods: {
        type: 'array',
        items: {
          type: 'object',
          required: ['podName'],
          properties: {
            podName: str, podUID: str, podRuntimeID: str, checksum: str, appliedPlanID: str, runningPlanID: str,
            mode: str, reasons: strings, lastError: str, consecutiveErrors: int, observedGeneration: int,
          },
        },
      },
    },
  }, [{ name: 'Checksum', type: 'string', jsonPath: '.spec.checksum' }]),
];
