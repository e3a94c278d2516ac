// HAPTIC's custom resources (group haproxy-haptic.org, v1alpha1) as its released generations write them; see
// docs/haptic-compat.md for which generation writes which field. Every field is optional here: the plugin reads
// whatever generation a cluster runs.
import type { Condition, KubeObject, LabelSelector } from './kube.ts';

export interface HAProxyTemplateConfig extends KubeObject {
  spec?: {
    podSelector?: LabelSelector;
    controller?: {
      leaderElection?: { enabled?: boolean; leaseName?: string; leaseDuration?: string };
      configPublishing?: { compressionThreshold?: number };
    };
    /** the Dataplane API's port on HAProxy pods (default 5555): the container exposing it is the one discovery checks */
    dataplane?: { port?: number };
    libraryRefs?: { name: string; revision?: string }[];
    /** what the controller watches, by name (the chart merges its libraries' into this map) */
    watchedResources?: Record<string, WatchedResource>;
  };
  status?: {
    /** agent generation only */
    observedGeneration?: number;
    /** agent generation only: one condition, Validated */
    conditions?: Condition[];
    /** Valid, Invalid or Unknown (both generations) */
    validationStatus?: string;
    validationMessage?: string;
    validationErrors?: string[];
    lastValidated?: string;
  };
}

/** One watched resource type of a template config (pkg/apis/haproxytemplate/v1alpha1/types_config.go). */
export interface WatchedResource {
  apiVersion?: string;
  /** the plural, as in RBAC rules and API paths */
  resources?: string;
  /** `path=value`, matched by the controller itself (not the API server's field selectors) */
  fieldSelector?: string;
  /** `k=v,k2=v2` */
  labelSelector?: string;
}

/** One HAProxy pod's deploy status, keyed by podName. */
export interface DeployedToPod {
  podName: string;
  checksum?: string;
  lastError?: string;
  consecutiveErrors?: number;
  // dataplane-API generation
  deployedAt?: string;
  lastReloadAt?: string;
  lastReloadID?: string;
  syncDuration?: string;
  versionConflictRetries?: number;
  fallbackUsed?: boolean;
  lastOperationSummary?: Record<string, number>;
  lastErrorAt?: string;
  // agent generation
  podUID?: string;
  podRuntimeID?: string;
  appliedPlanID?: string;
  runningPlanID?: string;
  workerOpsPlanID?: string;
  /** runtime, file_only, reload, scheduled, noop or rejected */
  mode?: string;
  reasons?: string[];
}

export interface RetainedConfigReference {
  name: string;
  uid?: string;
  checksum: string;
}

export interface HAProxyCfg extends KubeObject {
  spec?: { content?: string; checksum?: string; compressed?: boolean; path?: string; retainedPlan?: string };
  status?: {
    deployedToPods?: DeployedToPod[];
    /** the gate release's ConfigValidated / ConfigPinned (not written by earlier releases) */
    conditions?: Condition[];
    /** on `<htc>-haproxycfg-invalid`: the first validation error */
    validationError?: string;
    /** agent generation: last-known-good checkpoints, newest first */
    retainedConfigs?: RetainedConfigReference[];
    /** when this content was rendered and validated (pkg/k8s/configpublisher/runtime_config.go, updateExistingStatus) */
    metadata?: { renderedAt?: string; validatedAt?: string; contentSize?: number };
  };
}
