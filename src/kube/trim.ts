// What the rollout model keeps of each object, cut as objects arrive (list pages, watch events), so that a follower
// of a 500-replica rollout does not hold every pod's managed fields, volumes and environment.
//
// Each trimmer keeps exactly what a reader in src/model (rollout.ts, pod.ts, endpoints.ts, services.ts, haptic.ts)
// or src/diagnose (context.ts, rules/, checks/) reads of that kind, and copies nothing: a kept part is the parsed
// object's own, the rest is left to the garbage collector. A new reader of a field dropped here must add it here;
// test/unit/kube/trim.test.ts runs every scenario fixture through these and compares models, findings and output.
// Only the status, why-stalled and --wait/--watch reads use them: the doctor and the gate commands read whole objects.
import type { Container, ContainerStatus, EndpointSlice, KubeEvent, KubeObject, ObjectMeta, Pod } from '../types/kube.ts';

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

/** Identity and lifecycle: what buildPodView, ownership, endpoints and selectors read of a pod's metadata. */
function podMeta(m: ObjectMeta): ObjectMeta {
  return {
    name: m.name,
    namespace: m.namespace,
    uid: m.uid,
    resourceVersion: m.resourceVersion,
    creationTimestamp: m.creationTimestamp,
    deletionTimestamp: m.deletionTimestamp,
    deletionGracePeriodSeconds: m.deletionGracePeriodSeconds,
    labels: m.labels,
    ownerReferences: m.ownerReferences,
    finalizers: m.finalizers,
  };
}

/** A container as the rules quote it: image (HS203), ports (HS102), probes (HS201, HS210). No env, mounts, resources. */
function container(c: Container): Container {
  return { name: c.name, image: c.image, ports: c.ports, readinessProbe: c.readinessProbe, startupProbe: c.startupProbe };
}

function containerStatus(s: ContainerStatus): ContainerStatus {
  return { name: s.name, ready: s.ready, started: s.started, restartCount: s.restartCount, image: s.image, containerID: s.containerID, state: s.state, lastState: s.lastState };
}

/** A pod of a followed Deployment: its gates, containers, placement, conditions and container states. */
export function trimPod(pod: Pod): Pod {
  const { spec, status } = pod;
  return dropUndefined({
    apiVersion: pod.apiVersion,
    kind: pod.kind,
    metadata: dropUndefined(podMeta(pod.metadata)),
    spec: dropUndefined({
      containers: (spec?.containers ?? []).map((c) => dropUndefined(container(c))),
      readinessGates: spec?.readinessGates,
      terminationGracePeriodSeconds: spec?.terminationGracePeriodSeconds,
      nodeName: spec?.nodeName,
    }),
    status: status && dropUndefined({
      phase: status.phase,
      podIP: status.podIP,
      podIPs: status.podIPs,
      startTime: status.startTime,
      conditions: status.conditions,
      containerStatuses: status.containerStatuses?.map((s) => dropUndefined(containerStatus(s))),
    }),
  });
}

/** An EndpointSlice: which Service it belongs to (its label), and per endpoint the pod it points at and its conditions. */
export function trimSlice(slice: EndpointSlice): EndpointSlice {
  return dropUndefined({
    apiVersion: slice.apiVersion,
    kind: slice.kind,
    metadata: dropUndefined({ name: slice.metadata.name, namespace: slice.metadata.namespace, uid: slice.metadata.uid, resourceVersion: slice.metadata.resourceVersion, labels: slice.metadata.labels, ownerReferences: slice.metadata.ownerReferences }),
    addressType: slice.addressType,
    endpoints: slice.endpoints?.map((e) => dropUndefined({ addresses: e.addresses, conditions: e.conditions, targetRef: e.targetRef, nodeName: e.nodeName })) ?? slice.endpoints,
    ports: slice.ports,
  });
}

/** An Event: what it is about, its reason, message, type, count and times. */
export function trimEvent(event: KubeEvent): KubeEvent {
  const m = event.metadata;
  return dropUndefined({
    apiVersion: event.apiVersion,
    kind: event.kind,
    metadata: dropUndefined({ name: m.name, namespace: m.namespace, uid: m.uid, resourceVersion: m.resourceVersion, creationTimestamp: m.creationTimestamp }),
    involvedObject: event.involvedObject,
    reason: event.reason,
    message: event.message,
    type: event.type,
    count: event.count,
    firstTimestamp: event.firstTimestamp,
    lastTimestamp: event.lastTimestamp,
    eventTime: event.eventTime,
    series: event.series,
  });
}

/** The object without keys whose value is undefined, so a trimmed object never grows keys its source did not have. */
function dropUndefined<T extends object>(object: T): T {
  for (const key of Object.keys(object) as (keyof T)[]) if (object[key] === undefined) delete object[key];
  return object;
}
