// HAPTIC's two CRDs (group haproxy-haptic.org, v1alpha1, namespaced, status subresource) with the status schemas
// its released generations publish, so that the API server prunes any field HAPTIC could not write, exactly as it
// would in a real cluster (docs/haptic-compat.md has the field-by-field table):
// - dataplane: HAProxy-Template-IC/haproxy-template-ingress-controller, charts/haptic/crds/haproxy-haptic.org_haproxycfgs.yaml
//   and ..._haproxytemplateconfigs.yaml (v0.1.0-alpha.11 .. HEAD 7a8cb67): deployedToPods entries with podName and
//   deployedAt required, sync telemetry, no podUID or plan IDs.
// - agent: gitlab.com/haproxy-haptic/haptic pkg/apis/haproxytemplate/v1alpha1/types_haproxycfg.go: entries keyed by
//   podName with podUID, podRuntimeID, plan IDs, mode and reasons (at most 8); status.retainedConfigs; spec.retainedPlan.
// - gate: the agent schema; the seed's release adds the readiness gate, not fields.
// Neither generation has deployedToPods[].observedGeneration: a stand-in that wrote it would see it pruned.
// Specs stay open (x-kubernetes-preserve-unknown-fields): the charts' template specs are large and the plugin reads
// only podSelector and controller settings from them.
import type { Obj } from './common.ts';
import type { StatusShape } from './knobs.ts';

export const HAPTIC_GROUP = 'haproxy-haptic.org';
export const HAPTIC_API_VERSION = `${HAPTIC_GROUP}/v1alpha1`;

const open = { type: 'object', 'x-kubernetes-preserve-unknown-fields': true };
const str = { type: 'string' };
const bool = { type: 'boolean' };
const int = { type: 'integer', format: 'int64' };
const time = { type: 'string', format: 'date-time' };
const strings = { type: 'array', items: str };
const conditions = {
  type: 'array',
  items: {
    type: 'object',
    required: ['type', 'status'],
    properties: {
      type: str,
      status: str,
      reason: str,
      message: str,
      observedGeneration: int,
      lastTransitionTime: time,
    },
  },
};

/** deployedToPods[] of the dataplane-API generation: podName and deployedAt required. */
const dataplaneEntry = {
  type: 'object',
  required: ['podName', 'deployedAt'],
  properties: {
    podName: { type: 'string', minLength: 1 },
    deployedAt: time,
    checksum: str,
    lastReloadAt: time,
    lastReloadID: str,
    syncDuration: str,
    versionConflictRetries: { type: 'integer', minimum: 0 },
    fallbackUsed: bool,
    lastOperationSummary: {
      type: 'object',
      properties: Object.fromEntries(
        [
          'totalAPIOperations',
          'backendsAdded',
          'backendsRemoved',
          'backendsModified',
          'serversAdded',
          'serversRemoved',
          'serversModified',
          'frontendsAdded',
          'frontendsRemoved',
          'frontendsModified',
        ].map((k) => [k, int]),
      ),
    },
    lastError: str,
    consecutiveErrors: { type: 'integer', minimum: 0 },
    lastErrorAt: time,
  },
};

/**
 * deployedToPods[] of the agent generation. HAPTIC declares it a list map keyed by podName (each pod applies its own
 * entry); the stand-in writes the whole status in one patch and switches shapes at run time, so the list stays
 * atomic here (a CRD update may not change a list's type): what is stored is the same.
 */
const agentEntry = {
  type: 'object',
  required: ['podName'],
  properties: {
    podName: { type: 'string', minLength: 1 },
    podUID: str,
    podRuntimeID: str,
    checksum: str,
    appliedPlanID: str,
    runningPlanID: str,
    workerOpsPlanID: str,
    mode: { type: 'string', enum: ['runtime', 'file_only', 'reload', 'scheduled', 'noop', 'rejected'] },
    reasons: { type: 'array', maxItems: 8, items: str },
    lastError: str,
    consecutiveErrors: { type: 'integer', minimum: 0 },
  },
};

function haproxyCfgStatus(shape: StatusShape): object {
  const agent = shape !== 'dataplane';
  return {
    type: 'object',
    properties: {
      observedGeneration: int,
      conditions,
      validationError: str,
      deployedToPods: { type: 'array', items: agent ? agentEntry : dataplaneEntry },
      auxiliaryFiles: open,
      ...(agent
        ? {
            retainedConfigs: {
              type: 'array',
              items: {
                type: 'object',
                required: ['name', 'checksum'],
                properties: { name: str, uid: str, checksum: str },
              },
            },
          }
        : {
            metadata: {
              type: 'object',
              properties: { totalSize: int, contentSize: int, renderedAt: time, validatedAt: time },
            },
          }),
    },
  };
}

const templateConfigStatus = {
  type: 'object',
  properties: {
    observedGeneration: int,
    lastValidated: time,
    validationStatus: { type: 'string', enum: ['Valid', 'Invalid', 'Unknown'] },
    validationMessage: str,
    validationErrors: strings,
    conditions,
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
      versions: [
        {
          name: 'v1alpha1',
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: [
            ...columns,
            { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
          ],
          schema: { openAPIV3Schema: { type: 'object', properties: { spec, status } } },
        },
      ],
    },
  };
}

export function hapticCrds(shape: StatusShape): Obj[] {
  return [
    crd('HAProxyTemplateConfig', 'haproxytemplateconfigs', ['htplcfg', 'haptpl'], open, templateConfigStatus, [
      { name: 'Status', type: 'string', jsonPath: '.status.validationStatus' },
    ]),
    crd(
      'HAProxyCfg',
      'haproxycfgs',
      ['hpcfg'],
      {
        ...open,
        properties: {
          content: str,
          checksum: str,
          compressed: bool,
          path: str,
          ...(shape === 'dataplane' ? {} : { retainedPlan: str }),
        },
      },
      haproxyCfgStatus(shape),
      [{ name: 'Checksum', type: 'string', jsonPath: '.spec.checksum' }],
    ),
  ];
}
