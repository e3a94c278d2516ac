// Static mode: the doctor's inputs from parsed manifests. Every Deployment is a target; objects without a
// namespace get the one given (-n, else "default"), as `kubectl apply -f` would place them; objects of a kind the
// doctor reads but with a shape the API would refuse are skipped with a note.
import type { DoctorInputs, SourceRef } from '../../types/doctor.ts';
import type {
  ConfigMap,
  Deployment,
  HorizontalPodAutoscaler,
  PodDisruptionBudget,
  Service,
  StatefulSet,
} from '../../types/kube.ts';
import type { ManifestObject, ParsedManifests } from './manifests.ts';
import { DOCTOR_KINDS, shapeProblem } from './manifest-shapes.ts';

export function manifestInputs(files: ParsedManifests[], defaultNamespace: string): DoctorInputs {
  const notes = files.flatMap((f) => f.notes);
  const sources: Record<string, SourceRef> = {};
  const kept: ManifestObject[] = [];
  for (const { object, source } of files.flatMap((f) => f.objects)) {
    if (!DOCTOR_KINDS.has(object.kind)) continue;
    const placed = {
      ...object,
      metadata: { ...object.metadata, namespace: object.metadata.namespace ?? defaultNamespace },
    } as ManifestObject;
    const key = `${placed.kind}/${placed.metadata.namespace}/${placed.metadata.name}`;
    const where = `${source.file}:${source.line}`;
    const problem = shapeProblem(placed);
    if (problem) {
      notes.push(`${where}: ${placed.kind} ${placed.metadata.name}: ${problem}; skipped`);
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
  const of = <T>(kind: string) => kept.filter((o) => o.kind === kind) as unknown as T[];
  const deployments = of<Deployment>('Deployment');
  return {
    mode: 'static',
    targets: deployments,
    deployments,
    statefulSets: of<StatefulSet>('StatefulSet'),
    services: of<Service>('Service'),
    slices: [],
    pdbs: of<PodDisruptionBudget>('PodDisruptionBudget'),
    hpas: of<HorizontalPodAutoscaler>('HorizontalPodAutoscaler'),
    configMaps: of<ConfigMap>('ConfigMap'),
    events: [],
    pods: [],
    sources,
    notes,
  };
}
