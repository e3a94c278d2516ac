// The fields of Kubernetes objects this plugin reads, as the API server sends them (plain JSON, timestamps as
// RFC 3339 strings). Anything not listed is still there at run time and passed through untouched.

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
}

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  ownerReferences?: OwnerReference[];
  finalizers?: string[];
  /** who set which fields (server-side field management) */
  managedFields?: {
    manager?: string;
    operation?: string;
    subresource?: string;
    /** when the manager's last write changed the object (the API server leaves it on a write that changes nothing) */
    time?: string;
    fieldsV1?: Record<string, unknown>;
  }[];
}

export interface KubeObject {
  apiVersion?: string;
  kind?: string;
  metadata: ObjectMeta;
}

export interface List<T> {
  metadata?: { resourceVersion?: string; continue?: string };
  items: T[];
}

export interface Condition {
  type: string;
  status: 'True' | 'False' | 'Unknown' | string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  lastUpdateTime?: string;
  lastProbeTime?: string | null;
}

export interface LabelSelector {
  matchLabels?: Record<string, string>;
  matchExpressions?: { key: string; operator: string; values?: string[] }[];
}

export interface Probe {
  httpGet?: {
    path?: string;
    port: number | string;
    scheme?: string;
    host?: string;
    httpHeaders?: { name: string; value: string }[];
  };
  tcpSocket?: { port: number | string; host?: string };
  exec?: { command: string[] };
  grpc?: { port: number; service?: string };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  timeoutSeconds?: number;
  failureThreshold?: number;
  successThreshold?: number;
}

/** A lifecycle handler (preStop): one of exec, httpGet, tcpSocket (deprecated), sleep. */
export interface LifecycleHandler {
  exec?: { command?: string[] };
  httpGet?: { path?: string; port: number | string; scheme?: string };
  tcpSocket?: { port: number | string };
  sleep?: { seconds: number };
}

export interface Container {
  name: string;
  image?: string;
  command?: string[];
  args?: string[];
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  ports?: { containerPort: number; name?: string; protocol?: string; hostPort?: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  startupProbe?: Probe;
  /** stopSignal: the ContainerStopSignals feature (Kubernetes 1.33+) */
  lifecycle?: { preStop?: LifecycleHandler; stopSignal?: string };
  volumeMounts?: { name: string; mountPath: string; subPath?: string }[];
  /** `Always` on an init container makes it a restartable sidecar (native sidecars) */
  restartPolicy?: string;
}

export interface Volume {
  name: string;
  configMap?: { name?: string; items?: { key: string; path: string }[] };
  projected?: { sources?: { configMap?: { name?: string; items?: { key: string; path: string }[] } }[] };
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes?: Volume[];
  readinessGates?: { conditionType: string }[];
  terminationGracePeriodSeconds?: number;
  nodeName?: string;
  serviceAccountName?: string;
  nodeSelector?: Record<string, string>;
  hostNetwork?: boolean;
}

export interface PodTemplate {
  metadata?: { labels?: Record<string, string>; annotations?: Record<string, string> };
  spec: PodSpec;
}

export interface ContainerStatus {
  name: string;
  ready: boolean;
  containerID?: string;
  restartCount: number;
  image?: string;
  started?: boolean;
  state?: {
    running?: { startedAt?: string };
    waiting?: { reason?: string; message?: string };
    terminated?: { exitCode: number; reason?: string; message?: string; finishedAt?: string };
  };
  lastState?: { terminated?: { exitCode: number; reason?: string; message?: string; finishedAt?: string } };
}

export interface Pod extends KubeObject {
  spec: PodSpec;
  status?: {
    phase?: string;
    podIP?: string;
    podIPs?: { ip: string }[];
    startTime?: string;
    conditions?: Condition[];
    containerStatuses?: ContainerStatus[];
    /** the init containers', restartable ones (native sidecars) among them */
    initContainerStatuses?: ContainerStatus[];
  };
}

export interface RollingUpdate {
  maxSurge?: number | string;
  maxUnavailable?: number | string;
}

export interface Deployment extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplate;
    strategy?: { type?: 'RollingUpdate' | 'Recreate'; rollingUpdate?: RollingUpdate };
    minReadySeconds?: number;
    progressDeadlineSeconds?: number;
    paused?: boolean;
    revisionHistoryLimit?: number;
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    unavailableReplicas?: number;
    terminatingReplicas?: number;
    conditions?: Condition[];
  };
}

export interface ReplicaSet extends KubeObject {
  spec: { replicas?: number; selector: LabelSelector; template: PodTemplate };
  status?: { replicas?: number; readyReplicas?: number; availableReplicas?: number; conditions?: Condition[] };
}

export interface ServicePort {
  name?: string;
  port: number;
  targetPort?: number | string;
  protocol?: string;
}

export interface Service extends KubeObject {
  spec: {
    selector?: Record<string, string>;
    ports?: ServicePort[];
    publishNotReadyAddresses?: boolean;
    type?: string;
    clusterIP?: string;
  };
}

export interface Endpoint {
  addresses: string[];
  conditions?: { ready?: boolean | null; serving?: boolean | null; terminating?: boolean | null };
  targetRef?: { kind?: string; name?: string; namespace?: string; uid?: string };
  nodeName?: string;
}

export interface EndpointSlice extends KubeObject {
  addressType: string;
  endpoints?: Endpoint[] | null;
  ports?: { name?: string; port?: number; protocol?: string }[] | null;
}

export interface KubeEvent extends KubeObject {
  involvedObject: { kind?: string; name?: string; namespace?: string; uid?: string };
  reason?: string;
  message?: string;
  type?: string;
  count?: number;
  firstTimestamp?: string | null;
  lastTimestamp?: string | null;
  eventTime?: string | null;
  series?: { count?: number; lastObservedTime?: string };
}

export interface Lease extends KubeObject {
  spec?: {
    holderIdentity?: string | null;
    leaseDurationSeconds?: number;
    renewTime?: string | null;
    acquireTime?: string | null;
  };
}

export interface PolicyRule {
  apiGroups?: string[];
  resources?: string[];
  verbs: string[];
  resourceNames?: string[];
}

export interface ClusterRole extends KubeObject {
  rules?: PolicyRule[] | null;
  aggregationRule?: { clusterRoleSelectors?: LabelSelector[] } | null;
}

export interface RoleBinding extends KubeObject {
  roleRef: { apiGroup: string; kind: string; name: string };
  subjects?: { kind: string; name: string; namespace?: string }[];
}

export interface StatefulSet extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    serviceName?: string;
    template: PodTemplate;
    minReadySeconds?: number;
    /** OrderedReady (the default): one pod at a time, each waiting for the one before to be Ready; or Parallel */
    podManagementPolicy?: string;
    /** RollingUpdate (the default) or OnDelete; the API server defaults rollingUpdate to {partition: 0} */
    updateStrategy?: { type?: string; rollingUpdate?: { partition?: number; maxUnavailable?: number | string } };
    volumeClaimTemplates?: { metadata: { name: string }; spec?: { storageClassName?: string | null } }[];
    /** the first ordinal (StatefulSetStartOrdinal): pods are NAME-start … NAME-(start+replicas-1) */
    ordinals?: { start?: number };
  };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    currentReplicas?: number;
    updatedReplicas?: number;
    availableReplicas?: number;
    /** ControllerRevision names: the pods' controller-revision-hash label holds one of them */
    currentRevision?: string;
    updateRevision?: string;
    conditions?: Condition[];
  };
}

export interface DaemonSet extends KubeObject {
  spec: {
    selector: LabelSelector;
    template: PodTemplate;
    minReadySeconds?: number;
    /** RollingUpdate (the default) or OnDelete; the API server defaults maxUnavailable to 1 and maxSurge to 0 */
    updateStrategy?: {
      type?: string;
      rollingUpdate?: { maxUnavailable?: number | string; maxSurge?: number | string };
    };
  };
  status?: {
    observedGeneration?: number;
    /** the nodes that should run a pod */
    desiredNumberScheduled?: number;
    /** the nodes that run one */
    currentNumberScheduled?: number;
    /** the nodes that run one of the current template */
    updatedNumberScheduled?: number;
    numberReady?: number;
    numberAvailable?: number;
    numberUnavailable?: number;
    /** the nodes that run one but should not */
    numberMisscheduled?: number;
    conditions?: Condition[];
  };
}

/** A step of an Argo Rollout's canary: one of these keys (pkg/apis/rollouts/v1alpha1/types.go, CanaryStep). */
export interface CanaryStep {
  setWeight?: number;
  /** `{}`: until promoted; `{duration: 30s}` (a number is seconds) */
  pause?: { duration?: string | number };
  setCanaryScale?: { replicas?: number; weight?: number; matchTrafficWeight?: boolean };
  analysis?: { templates?: { templateName?: string }[] };
  experiment?: Record<string, unknown>;
  setHeaderRoute?: Record<string, unknown>;
  setMirrorRoute?: Record<string, unknown>;
  plugin?: { name?: string };
}

/**
 * An Argo Rollout (argoproj.io/v1alpha1): the fields the plugin reads, as the controller writes them
 * (github.com/argoproj/argo-rollouts pkg/apis/rollouts/v1alpha1/types.go). Its template is absent when
 * `spec.workloadRef` names a Deployment that holds it.
 */
export interface ArgoRollout extends KubeObject {
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplate;
    workloadRef?: { apiVersion?: string; kind?: string; name?: string; scaleDown?: string };
    minReadySeconds?: number;
    progressDeadlineSeconds?: number;
    paused?: boolean;
    restartAt?: string;
    strategy?: {
      canary?: {
        steps?: CanaryStep[];
        canaryService?: string;
        stableService?: string;
        trafficRouting?: Record<string, unknown>;
        maxSurge?: number | string;
        maxUnavailable?: number | string;
      };
      blueGreen?: {
        activeService?: string;
        previewService?: string;
        autoPromotionEnabled?: boolean;
        autoPromotionSeconds?: number;
        previewReplicaCount?: number;
        maxUnavailable?: number | string;
      };
    };
  };
  status?: {
    phase?: string;
    message?: string;
    /** a string (`"5"`) since v0.10, a hash before */
    observedGeneration?: string;
    currentPodHash?: string;
    stableRS?: string;
    currentStepIndex?: number;
    pauseConditions?: { reason?: string; startTime?: string }[] | null;
    controllerPause?: boolean;
    abort?: boolean;
    restartedAt?: string;
    replicas?: number;
    updatedReplicas?: number;
    readyReplicas?: number;
    availableReplicas?: number;
    conditions?: Condition[];
    blueGreen?: { activeSelector?: string; previewSelector?: string };
    canary?: { currentStepAnalysisRunStatus?: { name?: string; status?: string; message?: string } };
    workloadObservedGeneration?: string;
  };
}

/** A workload whose rollout the plugin follows, tagged with its kind (the items of a list carry none). */
export type RolloutTarget =
  | (Deployment & { kind: 'Deployment' })
  | (StatefulSet & { kind: 'StatefulSet' })
  | (DaemonSet & { kind: 'DaemonSet' })
  | (ArgoRollout & { kind: 'Rollout' });

/** A workload named on the command line: NAME (either kind) or KIND/NAME. */
export interface TargetName {
  kind?: RolloutTarget['kind'] | undefined;
  name: string;
}

export interface PersistentVolumeClaim extends KubeObject {
  spec?: { storageClassName?: string | null; volumeName?: string };
  status?: { phase?: string };
}

export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet' | 'Rollout';

/**
 * What the doctor reads of a workload of any kind: its pods' template and selector, how many it runs and how it
 * rolls them. `strategy` is a Deployment's (type, rollingUpdate) or an Argo Rollout's (canary, blueGreen);
 * `updateStrategy` a StatefulSet's or a DaemonSet's.
 */
export interface Workload extends KubeObject {
  kind: WorkloadKind;
  spec: {
    replicas?: number;
    selector: LabelSelector;
    template: PodTemplate;
    minReadySeconds?: number;
    strategy?: {
      type?: 'RollingUpdate' | 'Recreate';
      rollingUpdate?: RollingUpdate;
      canary?: Record<string, unknown>;
      blueGreen?: Record<string, unknown>;
    };
    updateStrategy?: {
      type?: string;
      rollingUpdate?: RollingUpdate & { partition?: number };
    };
  };
}

export interface PodDisruptionBudget extends KubeObject {
  spec?: { selector?: LabelSelector | null; minAvailable?: number | string; maxUnavailable?: number | string };
  status?: { disruptionsAllowed?: number; currentHealthy?: number; desiredHealthy?: number; expectedPods?: number };
}

export interface HorizontalPodAutoscaler extends KubeObject {
  spec?: {
    scaleTargetRef?: { apiVersion?: string; kind?: string; name?: string };
    minReplicas?: number;
    maxReplicas?: number;
  };
}

export interface ConfigMap extends KubeObject {
  data?: Record<string, string>;
}

/** Only what the doctor reads of a Helm release Secret: its labels and data.release. Never printed. */
export interface Secret extends KubeObject {
  type?: string;
  data?: Record<string, string>;
}
