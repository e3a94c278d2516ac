import type { GatewayRoute, Ingress } from './routes.ts';
// The raw objects `kubectl haptic doctor` reads, from manifests (static mode) or a cluster (live mode), as src/kube
// and the manifest reader return them; src/diagnose/doctor builds its checks on them.
import type {
  ConfigMap,
  Deployment,
  EndpointSlice,
  HorizontalPodAutoscaler,
  KubeEvent,
  Pod,
  PodDisruptionBudget,
  Secret,
  Service,
  StatefulSet,
  Workload,
} from './kube.ts';
import type { HapticInputs, Read } from './snapshot.ts';
import type { HAProxyReading } from './sessions.ts';

/** Where a manifest object came from: file and line of its document. */
export interface SourceRef {
  file: string;
  line: number;
  /** the object is item N (from 1) of a List at that line (`kubectl get -o yaml` writes one List for every object) */
  item?: number | undefined;
  /** a ConfigMap's block-scalar data keys: the file line of each one's first line of text */
  dataLines?: Record<string, number> | undefined;
}

export interface HelmHistoryInput {
  release: string;
  namespace: string;
  /** the release's revision Secrets (label owner=helm,name=<release>), or why they could not be read */
  secrets: Read<Secret>;
}

export interface DoctorInputs {
  mode: 'static' | 'live';
  /** the workloads to check: live, Deployments; from manifests, Deployments, StatefulSets, DaemonSets, Rollouts */
  targets: Workload[];
  /** every Deployment read (targets included): HAProxy in front of a target, the apps behind a HAProxy */
  deployments: Deployment[];
  statefulSets: StatefulSet[];
  services: Service[];
  slices: EndpointSlice[];
  pdbs: PodDisruptionBudget[];
  hpas: HorizontalPodAutoscaler[];
  configMaps: ConfigMap[];
  events: KubeEvent[];
  /** the targets' pods (live) */
  pods: Pod[];
  /** HAPTIC's objects (live) */
  haptic?: HapticInputs | undefined;
  /** static: the Ingresses and HTTPRoutes of the manifests (live, HAPTIC's objects hold the cluster's) */
  ingresses?: Ingress[] | undefined;
  httpRoutes?: GatewayRoute[] | undefined;
  /** live with --sessions: one read of each HAPTIC HAProxy pod's workers (pods/exec), or why there is none */
  sessions?: { readings: HAProxyReading[]; unavailable?: string | undefined } | undefined;
  /** only with --helm-history */
  helm?: HelmHistoryInput[] | undefined;
  /** static mode: where each object came from, by `Kind/namespace/name` */
  sources: Record<string, SourceRef>;
  /** objects skipped, in words */
  notes: string[];
  /** static: documents that could not be read at all, in words (the check is incomplete: exit 3) */
  unreadable?: string[] | undefined;
  /** live: optional lists that could not be read, with why; the checks that need them are not run */
  unread?: Partial<Record<UnreadList, string>> | undefined;
}

export type UnreadList = 'pdbs' | 'hpas' | 'events' | 'configMaps' | 'statefulSets';
