// What the rollout model keeps of each object, cut as objects arrive (list pages, watch events), so that a follower
// of a 500-replica rollout does not hold every pod's managed fields, volumes and environment.
//
// Each trimmer keeps exactly what a reader in src/model (rollout.ts, pod.ts, endpoints.ts, services.ts, haptic.ts)
// or src/diagnose (context.ts, rules/, checks/) reads of that kind, and copies nothing: a kept part is the parsed
// object's own, the rest is left to the garbage collector. A new reader of a field dropped here must add it here;
// test/unit/kube/trim.test.ts runs every scenario fixture through these and compares models, findings and output.
// Only the status, why-stalled and --wait/--watch reads use them: the doctor and the gate commands read whole objects.
import type {
  Container,
  ContainerStatus,
  Endpoint,
  EndpointSlice,
  KubeEvent,
  KubeObject,
  ObjectMeta,
  Pod,
} from '../types/kube.ts';

/** kubectl apply's copy of the whole applied manifest, often an object's largest part; nothing here reads it. */
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';

/** The metadata without managedFields and kubectl apply's copy of the manifest; everything else is kept. */
function lightMeta(meta: ObjectMeta): ObjectMeta {
  const { managedFields: _, ...rest } = meta;
  if (rest.annotations && LAST_APPLIED in rest.annotations) {
    const { [LAST_APPLIED]: __, ...annotations } = rest.annotations;
    rest.annotations = annotations;
  }
  return rest;
}

/**
 * Any object minus managedFields and the last-applied annotation: for the Deployment, its ReplicaSets (whose pod
 * templates are compared whole with the Deployment's to find the new one), Services and HAPTIC's objects.
 */
export function trimObject<T extends KubeObject>(object: T): T {
  if (!object.metadata.managedFields && !object.metadata.annotations?.[LAST_APPLIED]) return object;
  return { ...object, metadata: lightMeta(object.metadata) };
}

/**
 * A HAProxyCfg as trimObject leaves it, but for when its spec was last written: of managedFields, the entries that
 * own spec fields, each cut to its manager, operation and time (model/haptic/haptic.ts, specWrittenAt: a render's
 * time, the agent generation writing no other).
 */
export function trimHAProxyCfg<T extends KubeObject>(cfg: T): T {
  const writers = (cfg.metadata.managedFields ?? [])
    .filter((f) => !f.subresource && f.fieldsV1 && 'f:spec' in f.fieldsV1)
    .map((f) => ({ manager: f.manager, operation: f.operation, time: f.time, fieldsV1: { 'f:spec': {} } }));
  const light = trimObject(cfg);
  return writers.length ? { ...light, metadata: { ...light.metadata, managedFields: writers } } : light;
}

/** Identity and lifecycle: what buildPodView, ownership, endpoints and selectors read of a pod's metadata. */
const POD_META = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'labels',
  'ownerReferences',
  'finalizers',
] as const;
/** A container as the rules quote it: image (HS203), ports (HS102), probes (HS201, HS210). No env, mounts, resources. */
const CONTAINER = ['name', 'image', 'ports', 'readinessProbe', 'startupProbe'] as const;
/** What containerProblems and containersFinishedAt read of each container's status. */
const CONTAINER_STATUS = ['name', 'ready', 'restartCount', 'state', 'lastState'] as const;
const POD_STATUS = ['phase', 'podIP', 'conditions'] as const;
const SLICE_META = ['name', 'namespace', 'uid', 'resourceVersion', 'labels', 'ownerReferences'] as const;
const ENDPOINT = ['addresses', 'conditions', 'targetRef', 'nodeName'] as const;
const EVENT_META = ['name', 'namespace', 'uid', 'resourceVersion', 'creationTimestamp'] as const;
const EVENT = [
  'apiVersion',
  'kind',
  'involvedObject',
  'reason',
  'message',
  'type',
  'count',
  'firstTimestamp',
  'lastTimestamp',
  'eventTime',
  'series',
] as const;

/** A pod of a followed Deployment: its gates, containers, placement, conditions and container states. */
export function trimPod(pod: Pod): Pod {
  const out = pick(pod, ['apiVersion', 'kind']) as Pod;
  out.metadata = pick(pod.metadata, POD_META);
  const spec = pick(pod.spec ?? { containers: [] }, [
    'readinessGates',
    'terminationGracePeriodSeconds',
    'nodeName',
  ]) as Pod['spec'];
  spec.containers = (pod.spec?.containers ?? []).map((c) => pick(c, CONTAINER) as Container);
  out.spec = spec;
  if (pod.status) {
    const status: NonNullable<Pod['status']> = pick(pod.status, POD_STATUS);
    if (pod.status.containerStatuses)
      status.containerStatuses = pod.status.containerStatuses.map((s) => pick(s, CONTAINER_STATUS) as ContainerStatus);
    out.status = status;
  }
  return out;
}

/** An EndpointSlice: which Service it belongs to (its label), and per endpoint the pod it points at and its conditions. */
export function trimSlice(slice: EndpointSlice): EndpointSlice {
  const out = pick(slice, ['apiVersion', 'kind', 'addressType']) as EndpointSlice;
  out.metadata = pick(slice.metadata, SLICE_META);
  // null (a slice of a Service with no endpoints, as the API server may send it) stays null
  if (slice.endpoints !== undefined)
    out.endpoints = slice.endpoints === null ? null : slice.endpoints.map((e) => pick(e, ENDPOINT) as Endpoint);
  if (slice.ports !== undefined) out.ports = slice.ports;
  return out;
}

/** An Event: what it is about, its reason, message, type, count and times. */
export function trimEvent(event: KubeEvent): KubeEvent {
  const out = pick(event, EVENT) as KubeEvent;
  out.metadata = pick(event.metadata, EVENT_META);
  return out;
}

/**
 * The listed keys of an object that are set, added in the list's order: objects trimmed alike share one shape, and
 * none grows a key its source did not have.
 */
function pick<T extends object, K extends keyof T>(source: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const key of keys) if (source[key] !== undefined) out[key] = source[key];
  return out;
}
