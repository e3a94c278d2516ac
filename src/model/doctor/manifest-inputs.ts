// Static mode: the doctor's inputs from parsed manifests. Every workload (Deployment, StatefulSet, DaemonSet, Argo
// Rollout) is a target; objects without a namespace get the one given (-n, else "default"), as `kubectl apply -f`
// would place them; objects of a kind the doctor reads but with a shape the API would refuse are skipped as
// unreadable, and the kinds it does not read are named in one note.
import type { DoctorInputs, SourceRef } from '../../types/doctor.ts';
import type {
  ConfigMap,
  Deployment,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  Service,
  StatefulSet,
  Workload,
  WorkloadKind,
} from '../../types/kube.ts';
import type { GatewayRoute, Ingress } from '../../types/routes.ts';
import type { ManifestObject, ParsedManifests } from './manifests.ts';
import { sourceText } from './source.ts';
import { DOCTOR_KINDS, shapeProblem } from './manifest-shapes.ts';

export const WORKLOAD_KINDS: readonly WorkloadKind[] = ['Deployment', 'StatefulSet', 'DaemonSet', 'Rollout'];

/** `ClusterRole (3), CustomResourceDefinition (2)`: the kinds passed over, most frequent first. */
function skippedKinds(counts: Map<string, number>): string | undefined {
  if (!counts.size) return undefined;
  const total = [...counts.values()].reduce((a, b) => a + b, 0);
  const kinds = [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([kind, n]) => `${kind} (${n})`)
    .join(', ');
  return `${total} ${total === 1 ? 'object' : 'objects'} of kinds the doctor does not check: ${kinds}`;
}

export function manifestInputs(files: ParsedManifests[], defaultNamespace: string): DoctorInputs {
  const notes: string[] = files.flatMap((f) => f.notes);
  const unreadable = files.flatMap((f) => f.unreadable);
  const sources: Record<string, SourceRef> = {};
  const kept: ManifestObject[] = [];
  const passedOver = new Map<string, number>();
  for (const { object, source } of files.flatMap((f) => f.objects)) {
    if (!DOCTOR_KINDS.has(object.kind)) {
      passedOver.set(object.kind, (passedOver.get(object.kind) ?? 0) + 1);
      continue;
    }
    const placed = {
      ...object,
      metadata: { ...object.metadata, namespace: object.metadata.namespace ?? defaultNamespace },
    } as ManifestObject;
    const key = `${placed.kind}/${placed.metadata.namespace}/${placed.metadata.name}`;
    const where = sourceText(source);
    const problem = shapeProblem(placed);
    if (problem) {
      // an object the API server would refuse is not checked: as good as unreadable
      unreadable.push(`${where}: ${placed.kind} ${placed.metadata.name}: ${problem}; skipped`);
      continue;
    }
    if (placed.kind === 'Rollout' && !(placed.spec as { template?: unknown }).template) {
      notes.push(
        `${where}: Rollout ${placed.metadata.name} has no pod template of its own (spec.workloadRef); check the workload it names`,
      );
      continue;
    }
    if (sources[key]) {
      notes.push(
        `${where}: ${placed.kind} ${placed.metadata.namespace}/${placed.metadata.name} is also at ${sources[key]!.file}:${sources[key]!.line}; the first one is checked`,
      );
      continue;
    }
    sources[key] = source;
    kept.push(placed);
  }
  const skipped = skippedKinds(passedOver);
  if (skipped) notes.push(skipped);
  const of = <T>(kind: string) => kept.filter((o) => o.kind === kind) as unknown as T[];
  return {
    mode: 'static',
    targets: kept.filter((o) => (WORKLOAD_KINDS as readonly string[]).includes(o.kind)) as unknown as Workload[],
    deployments: of<Deployment>('Deployment'),
    statefulSets: of<StatefulSet>('StatefulSet'),
    services: of<Service>('Service'),
    slices: [],
    pdbs: of<PodDisruptionBudget>('PodDisruptionBudget'),
    hpas: of<HorizontalPodAutoscaler>('HorizontalPodAutoscaler'),
    configMaps: of<ConfigMap>('ConfigMap'),
    ingresses: of<Ingress>('Ingress'),
    httpRoutes: of<GatewayRoute>('HTTPRoute'),
    events: [],
    pods: [],
    sources,
    notes,
    unreadable,
  };
}
