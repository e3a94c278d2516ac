// The boundary between what a server sends and what the model reads: an API server only ever sends objects of the
// shapes in src/types, but a proxy, a broken aggregated API or a hostile endpoint may not. Every object is conformed
// here as it arrives (list pages, gets, watch events), before it is trimmed: an item that is not an object with a
// name is left out (a list holding one is refused by the client as a bad answer before this, exit 4; a watch event
// holding one changes nothing); a field the model reads that has the wrong type is removed (a list keeps its
// entries of the right shape), so that the model sees "not set" instead of crashing on a string where a list
// belongs. Pure; unknown fields pass untouched, and an object that needs nothing is returned as it is.
import type { KubeObject } from '../types/kube.ts';

/** Repairs a value: the value itself, a repaired copy, or undefined when it cannot be that shape. */
export type Shape = (value: unknown) => unknown;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export const str: Shape = (v) => (typeof v === 'string' ? v : undefined);
/**
 * A number the API could send: finite and within ±10^12 (a count, seconds, a port): seconds turned into a date stay
 * a date (1e308 seconds of grace would not).
 */
export const num: Shape = (v) => (typeof v === 'number' && Number.isFinite(v) && Math.abs(v) <= 1e12 ? v : undefined);
export const bool: Shape = (v) => (typeof v === 'boolean' ? v : undefined);
export const intOrStr: Shape = (v) => (typeof v === 'string' ? v : num(v));
/** An RFC 3339 time: a string the model can turn into a date (a string that is not one is left out). */
export const time: Shape = (v) => (typeof v === 'string' && Number.isFinite(Date.parse(v)) ? v : undefined);
const nullableTime: Shape = (v) => (v === null ? null : time(v));
/** a boolean the API writes as null when unknown (EndpointConditions) */
const nullableBool: Shape = (v) => (v === null || typeof v === 'boolean' ? v : undefined);
const nullableStr: Shape = (v) => (v === null || typeof v === 'string' ? v : undefined);
const any: Shape = (v) => v;

/** A list of items of a shape; entries that cannot be that shape are left out. */
export const list =
  (item: Shape): Shape =>
  (v) => {
    if (!Array.isArray(v)) return undefined;
    const out: unknown[] = [];
    let same = true;
    for (const x of v) {
      const y = item(x);
      if (y !== x) same = false;
      if (y !== undefined) out.push(y);
    }
    // a list that needed nothing is kept as it is: an answer that is fine is not copied
    return same ? v : out;
  };

/** A map of values of one shape (watchedResources by name): entries that cannot be that shape are left out. */
const mapOf =
  (value: Shape): Shape =>
  (v) => {
    if (!isObj(v)) return undefined;
    const out: Record<string, unknown> = {};
    let same = true;
    for (const [k, x] of Object.entries(v)) {
      const y = value(x);
      if (y !== x) same = false;
      if (y !== undefined) out[k] = y;
    }
    return same ? v : out;
  };

/** A list the API may send as null (EndpointSlice.endpoints): null stays null. */
const nullableList =
  (item: Shape): Shape =>
  (v) =>
    v === null ? null : list(item)(v);

/** A map of strings (labels, annotations, selectors): entries that are not strings are left out. */
export const strings: Shape = (v) => {
  if (!isObj(v)) return undefined;
  if (Object.values(v).every((x) => typeof x === 'string')) return v;
  const out: Record<string, string> = {};
  for (const [k, x] of Object.entries(v)) if (typeof x === 'string') out[k] = x;
  return out;
};

/** A shape with a value for when the field is missing or cannot be repaired (a Deployment's template). */
type Defaulted = Shape & { fallback?: () => unknown };

const withDefault = (shape: Shape, fallback: () => unknown): Defaulted =>
  Object.assign((v: unknown) => shape(v) ?? fallback(), { fallback });

/**
 * An object with these fields repaired (a field that cannot be its shape is removed, or given its default) and its
 * other fields as they are; `required` fields that cannot be repaired make the whole object unusable (undefined).
 */
export function obj(fields: Record<string, Defaulted>, required: string[] = []): Shape {
  // the fields listed once, not at every object (this runs for every object of every list)
  const entries = Object.entries(fields).map(([k, shape]) => [k, shape, required.includes(k)] as const);
  return (v) => {
    if (!isObj(v)) return undefined;
    let out: Record<string, unknown> | undefined;
    for (const [k, shape, isRequired] of entries) {
      if (!(k in v) || v[k] === undefined) {
        if (isRequired) return undefined;
        if (shape.fallback) {
          out ??= { ...v };
          out[k] = shape.fallback();
        }
        continue;
      }
      const before = v[k];
      const after = before === undefined ? undefined : shape(before);
      if (after === undefined && isRequired) return undefined;
      if (after !== before) {
        out ??= { ...v };
        if (after === undefined) delete out[k];
        else out[k] = after;
      }
    }
    return out ?? v;
  };
}

const condition = obj(
  { type: str, status: str, reason: str, message: str, lastTransitionTime: time, lastUpdateTime: time },
  ['type', 'status'],
);
const conditions = list(condition);
const selector = obj({
  matchLabels: strings,
  matchExpressions: list(obj({ key: str, operator: str, values: list(str) }, ['key', 'operator'])),
});
const probe = obj({
  httpGet: obj({ path: str, port: intOrStr, scheme: str, host: str }, ['port']),
  tcpSocket: obj({ port: intOrStr, host: str }, ['port']),
  exec: obj({ command: list(str) }),
  grpc: obj({ port: num, service: str }, ['port']),
  initialDelaySeconds: num,
  periodSeconds: num,
  timeoutSeconds: num,
  failureThreshold: num,
  successThreshold: num,
});
const container = obj(
  {
    name: str,
    image: str,
    command: list(str),
    args: list(str),
    ports: list(obj({ containerPort: num, name: str, protocol: str, hostPort: num }, ['containerPort'])),
    readinessProbe: probe,
    livenessProbe: probe,
    startupProbe: probe,
    lifecycle: obj({ stopSignal: str }),
    restartPolicy: str,
  },
  ['name'],
);
const containerStatus = obj(
  {
    name: str,
    ready: bool,
    restartCount: num,
    started: bool,
    image: str,
    state: obj({
      running: obj({ startedAt: time }),
      waiting: obj({ reason: str, message: str }),
      terminated: obj({ exitCode: num, reason: str, message: str, finishedAt: time }),
    }),
    lastState: obj({ terminated: obj({ exitCode: num, reason: str, message: str, finishedAt: time }) }),
  },
  ['name'],
);
const podSpec = obj({
  containers: withDefault(list(container), () => []),
  initContainers: list(container),
  readinessGates: list(obj({ conditionType: str }, ['conditionType'])),
  terminationGracePeriodSeconds: num,
  nodeName: str,
  serviceAccountName: str,
  nodeSelector: strings,
  hostNetwork: bool,
});
const template = obj({
  metadata: obj({ labels: strings, annotations: strings }),
  spec: withDefault(podSpec, () => ({ containers: [] })),
});
const templateOrEmpty = withDefault(template, () => ({ spec: { containers: [] } }));
const selectorOrEmpty = withDefault(selector, () => ({}));

const ingressBackend = obj({
  service: obj({ name: str, port: obj({ name: str, number: num }) }),
  resource: obj({ apiGroup: str, kind: str, name: str }),
});
const gatewayRoute = obj({
  spec: obj({
    parentRefs: list(obj({ group: str, kind: str, namespace: str, name: str, sectionName: str, port: num }, ['name'])),
    hostnames: list(str),
    rules: list(
      obj({
        backendRefs: list(obj({ group: str, kind: str, name: str, namespace: str, port: num, weight: num }, ['name'])),
      }),
    ),
  }),
});

const meta = obj(
  {
    name: str,
    namespace: str,
    uid: str,
    resourceVersion: str,
    generation: num,
    creationTimestamp: time,
    deletionTimestamp: time,
    deletionGracePeriodSeconds: num,
    labels: strings,
    annotations: strings,
    ownerReferences: list(obj({ kind: str, name: str, uid: str, controller: bool }, ['kind', 'name'])),
    finalizers: list(str),
  },
  ['name'],
);

/** Shapes of the kinds the model reads, by kind; `metadata` is conformed for every object. */
export const KIND_SHAPES: Record<string, Shape> = {
  Deployment: obj({
    spec: withDefault(
      obj({
        replicas: num,
        selector: selectorOrEmpty,
        template: templateOrEmpty,
        strategy: obj({ type: str, rollingUpdate: obj({ maxSurge: intOrStr, maxUnavailable: intOrStr }) }),
        minReadySeconds: num,
        progressDeadlineSeconds: num,
        paused: bool,
        revisionHistoryLimit: num,
      }),
      () => ({ selector: {}, template: { spec: { containers: [] } } }),
    ),
    status: obj({
      observedGeneration: num,
      replicas: num,
      updatedReplicas: num,
      readyReplicas: num,
      availableReplicas: num,
      unavailableReplicas: num,
      terminatingReplicas: num,
      conditions,
    }),
  }),
  StatefulSet: obj({
    spec: withDefault(
      obj({
        replicas: num,
        selector: selectorOrEmpty,
        serviceName: str,
        template: templateOrEmpty,
        minReadySeconds: num,
        podManagementPolicy: str,
        updateStrategy: obj({ type: str, rollingUpdate: obj({ partition: num, maxUnavailable: intOrStr }) }),
        volumeClaimTemplates: list(
          obj({ metadata: obj({ name: str }, ['name']), spec: obj({ storageClassName: str }) }, ['metadata']),
        ),
        ordinals: obj({ start: num }),
      }),
      () => ({ selector: {}, template: { spec: { containers: [] } } }),
    ),
    status: obj({
      observedGeneration: num,
      replicas: num,
      readyReplicas: num,
      currentReplicas: num,
      updatedReplicas: num,
      availableReplicas: num,
      currentRevision: str,
      updateRevision: str,
      conditions,
    }),
  }),
  DaemonSet: obj({
    spec: withDefault(
      obj({
        selector: selectorOrEmpty,
        template: templateOrEmpty,
        minReadySeconds: num,
        updateStrategy: obj({ type: str, rollingUpdate: obj({ maxUnavailable: intOrStr, maxSurge: intOrStr }) }),
      }),
      () => ({ selector: {}, template: { spec: { containers: [] } } }),
    ),
    status: obj({
      observedGeneration: num,
      desiredNumberScheduled: num,
      currentNumberScheduled: num,
      updatedNumberScheduled: num,
      numberReady: num,
      numberAvailable: num,
      numberUnavailable: num,
      numberMisscheduled: num,
      conditions,
    }),
  }),
  // an Argo Rollout (argoproj.io/v1alpha1): observedGeneration is a string there; with spec.workloadRef it has no
  // template of its own (the targets put the referenced Deployment's in its place)
  Rollout: obj({
    spec: withDefault(
      obj({
        replicas: num,
        selector: selectorOrEmpty,
        template: templateOrEmpty,
        workloadRef: obj({ apiVersion: str, kind: str, name: str, scaleDown: str }),
        minReadySeconds: num,
        progressDeadlineSeconds: num,
        paused: bool,
        restartAt: time,
        strategy: obj({
          canary: obj({
            steps: list(
              obj({
                setWeight: num,
                pause: obj({ duration: intOrStr }),
                setCanaryScale: obj({ replicas: num, weight: num, matchTrafficWeight: bool }),
                analysis: any,
                experiment: any,
                setHeaderRoute: any,
                setMirrorRoute: any,
                plugin: obj({ name: str }),
              }),
            ),
            canaryService: str,
            stableService: str,
            trafficRouting: any,
            maxSurge: intOrStr,
            maxUnavailable: intOrStr,
          }),
          blueGreen: obj({
            activeService: str,
            previewService: str,
            autoPromotionEnabled: bool,
            autoPromotionSeconds: num,
            previewReplicaCount: num,
            maxUnavailable: intOrStr,
          }),
        }),
      }),
      () => ({ selector: {}, template: { spec: { containers: [] } } }),
    ),
    status: obj({
      phase: str,
      message: str,
      observedGeneration: str,
      currentPodHash: str,
      stableRS: str,
      currentStepIndex: num,
      pauseConditions: nullableList(obj({ reason: str, startTime: time })),
      controllerPause: bool,
      abort: bool,
      restartedAt: time,
      replicas: num,
      updatedReplicas: num,
      readyReplicas: num,
      availableReplicas: num,
      conditions,
      blueGreen: obj({ activeSelector: str, previewSelector: str }),
      canary: obj({ currentStepAnalysisRunStatus: obj({ name: str, status: str, message: str }) }),
      workloadObservedGeneration: str,
    }),
  }),
  PersistentVolumeClaim: obj({ spec: obj({ storageClassName: str, volumeName: str }), status: obj({ phase: str }) }),
  ReplicaSet: obj({
    spec: withDefault(obj({ replicas: num, selector: selectorOrEmpty, template: templateOrEmpty }), () => ({
      selector: {},
      template: { spec: { containers: [] } },
    })),
    status: obj({ replicas: num, readyReplicas: num, availableReplicas: num, conditions }),
  }),
  Pod: obj({
    spec: withDefault(podSpec, () => ({ containers: [] })),
    status: obj({
      phase: str,
      podIP: str,
      podIPs: list(obj({ ip: str }, ['ip'])),
      startTime: time,
      conditions,
      containerStatuses: list(containerStatus),
      initContainerStatuses: list(containerStatus),
    }),
  }),
  Service: obj({
    spec: withDefault(
      obj({
        selector: strings,
        ports: list(obj({ name: str, port: num, targetPort: intOrStr, protocol: str }, ['port'])),
        publishNotReadyAddresses: bool,
        type: str,
        clusterIP: str,
      }),
      () => ({}),
    ),
  }),
  EndpointSlice: obj({
    addressType: str,
    endpoints: nullableList(
      obj(
        {
          addresses: list(str),
          conditions: obj({ ready: nullableBool, serving: nullableBool, terminating: nullableBool }),
          targetRef: obj({ kind: str, name: str, namespace: str, uid: str }),
          nodeName: str,
        },
        ['addresses'],
      ),
    ),
    ports: nullableList(obj({ name: str, port: num, protocol: str })),
  }),
  Event: obj({
    involvedObject: withDefault(obj({ kind: str, name: str, namespace: str, uid: str }), () => ({})),
    reason: str,
    message: str,
    type: str,
    count: num,
    firstTimestamp: nullableTime,
    lastTimestamp: nullableTime,
    eventTime: nullableTime,
    series: obj({ count: num, lastObservedTime: time }),
  }),
  Lease: obj({
    spec: obj({
      holderIdentity: nullableStr,
      leaseDurationSeconds: num,
      renewTime: nullableTime,
      acquireTime: nullableTime,
    }),
  }),
  ClusterRole: obj({
    rules: nullableList(
      obj({ apiGroups: list(str), resources: list(str), verbs: list(str), resourceNames: list(str) }, ['verbs']),
    ),
    aggregationRule: obj({ clusterRoleSelectors: list(selector) }),
  }),
  ClusterRoleBinding: obj(
    {
      roleRef: obj({ apiGroup: str, kind: str, name: str }, ['kind', 'name']),
      subjects: list(obj({ kind: str, name: str, namespace: str }, ['kind', 'name'])),
    },
    ['roleRef'],
  ),
  HAProxyTemplateConfig: obj({
    spec: obj({
      podSelector: selector,
      controller: obj({
        leaderElection: obj({ enabled: bool, leaseName: str, leaseDuration: str }),
        configPublishing: obj({ compressionThreshold: num }),
      }),
      dataplane: obj({ port: num }),
      libraryRefs: list(obj({ name: str, revision: str }, ['name'])),
      watchedResources: mapOf(obj({ apiVersion: str, resources: str, fieldSelector: str, labelSelector: str })),
    }),
    status: obj({
      observedGeneration: num,
      conditions,
      validationStatus: str,
      validationMessage: str,
      validationErrors: list(str),
      lastValidated: time,
    }),
  }),
  HAProxyCfg: obj({
    spec: obj({ content: str, checksum: str, compressed: bool, path: str, retainedPlan: str }),
    status: obj({
      deployedToPods: list(
        obj(
          {
            podName: str,
            checksum: str,
            lastError: str,
            consecutiveErrors: num,
            deployedAt: time,
            lastReloadAt: time,
            lastReloadID: str,
            syncDuration: str,
            versionConflictRetries: num,
            fallbackUsed: bool,
            lastOperationSummary: mapOf(num),
            lastErrorAt: time,
            podUID: str,
            podRuntimeID: str,
            appliedPlanID: str,
            runningPlanID: str,
            workerOpsPlanID: str,
            mode: str,
            reasons: list(str),
          },
          ['podName'],
        ),
      ),
      conditions,
      validationError: str,
      retainedConfigs: list(obj({ name: str, uid: str, checksum: str }, ['name', 'checksum'])),
      metadata: obj({ renderedAt: time, validatedAt: time, contentSize: num }),
    }),
  }),
  Ingress: obj({
    spec: obj({
      ingressClassName: str,
      defaultBackend: ingressBackend,
      rules: list(
        obj({ host: str, http: obj({ paths: list(obj({ path: str, pathType: str, backend: ingressBackend })) }) }),
      ),
    }),
  }),
  Gateway: obj({
    spec: obj({ gatewayClassName: str, listeners: list(obj({ name: str, protocol: str, port: num }, ['name'])) }),
  }),
  HTTPRoute: gatewayRoute,
  GRPCRoute: gatewayRoute,
  TLSRoute: gatewayRoute,
  TCPRoute: gatewayRoute,
  ReferenceGrant: obj({
    spec: obj({
      from: list(obj({ group: str, kind: str, namespace: str }, ['kind', 'namespace'])),
      to: list(obj({ group: str, kind: str, name: str }, ['kind'])),
    }),
  }),
  Any: any,
};

/**
 * An object as the model may read it: undefined when it is not an object with a name (left out of its list), else
 * its metadata and the fields of its kind that the model reads repaired.
 */
export function conform<T extends KubeObject>(item: unknown, kind = 'Any'): T | undefined {
  if (!isObj(item)) return undefined;
  const metadata = meta(item.metadata);
  if (metadata === undefined || (metadata as { name: string }).name === '') return undefined;
  const withMeta = metadata === item.metadata ? item : { ...item, metadata };
  return (KIND_SHAPES[kind] ?? any)(withMeta) as T | undefined;
}
