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
  httpGet?: { path?: string; port: number | string; scheme?: string };
  tcpSocket?: { port: number | string };
  exec?: { command: string[] };
  grpc?: { port: number };
  initialDelaySeconds?: number;
  periodSeconds?: number;
  failureThreshold?: number;
  successThreshold?: number;
  timeoutSeconds?: number;
}

export interface Container {
  name: string;
  image?: string;
  env?: { name: string; value?: string; valueFrom?: unknown }[];
  ports?: { containerPort: number; name?: string; protocol?: string }[];
  readinessProbe?: Probe;
  startupProbe?: Probe;
  lifecycle?: { preStop?: unknown };
}

export interface PodSpec {
  containers: Container[];
  readinessGates?: { conditionType: string }[];
  terminationGracePeriodSeconds?: number;
  nodeName?: string;
  serviceAccountName?: string;
  nodeSelector?: Record<string, string>;
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
  spec: { selector?: Record<string, string>; ports?: ServicePort[]; publishNotReadyAddresses?: boolean; type?: string };
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
  spec?: { holderIdentity?: string | null; leaseDurationSeconds?: number; renewTime?: string | null; acquireTime?: string | null };
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
