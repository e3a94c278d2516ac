// Manifests are not checked by an API server: before the doctor reads one, the fields it reads must have the
// shape the API would have enforced. The first field that does not is named (never its value), and the object is
// skipped with that note instead of crashing a check. Pure.

type Check = (v: unknown, path: string) => string | undefined;

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

const optional =
  (check: Check): Check =>
  (v, path) =>
    v === undefined || v === null ? undefined : check(v, path);
const str: Check = (v, path) => (typeof v === 'string' ? undefined : `${path} is not a string`);
const num: Check = (v, path) => (typeof v === 'number' ? undefined : `${path} is not a number`);
const bool: Check = (v, path) => (typeof v === 'boolean' ? undefined : `${path} is not true or false`);
const intOrString: Check = (v, path) =>
  typeof v === 'number' || typeof v === 'string' ? undefined : `${path} is not a number or a name`;
const strings: Check = (v, path) =>
  Array.isArray(v) ? v.map((x, i) => str(x, `${path}[${i}]`)).find(Boolean) : `${path} is not a list`;
const stringMap: Check = (v, path) =>
  isObj(v)
    ? Object.entries(v)
        .map(([k, x]) => str(x, `${path}.${k}`))
        .find(Boolean)
    : `${path} is not a map`;

function object(fields: Record<string, Check>): Check {
  return (v, path) => {
    if (!isObj(v)) return `${path} is not an object`;
    for (const [k, check] of Object.entries(fields)) {
      const problem = check(v[k], `${path}.${k}`);
      if (problem) return problem;
    }
    return undefined;
  };
}

const list =
  (item: Check): Check =>
  (v, path) =>
    Array.isArray(v) ? v.map((x, i) => item(x, `${path}[${i}]`)).find(Boolean) : `${path} is not a list`;
const required =
  (check: Check): Check =>
  (v, path) =>
    v === undefined || v === null ? `${path} is missing` : check(v, path);

const selector = object({
  matchLabels: optional(stringMap),
  matchExpressions: optional(list(object({ key: required(str), operator: required(str), values: optional(strings) }))),
});
const handlerPort = object({
  port: required(intOrString),
  path: optional(str),
  scheme: optional(str),
  host: optional(str),
});
const probe = object({
  httpGet: optional(
    object({
      port: required(intOrString),
      path: optional(str),
      scheme: optional(str),
      host: optional(str),
      httpHeaders: optional(list(object({ name: required(str), value: required(str) }))),
    }),
  ),
  tcpSocket: optional(object({ port: required(intOrString), host: optional(str) })),
  exec: optional(object({ command: optional(strings) })),
  grpc: optional(object({ port: required(num), service: optional(str) })),
  periodSeconds: optional(num),
  failureThreshold: optional(num),
});
const container = object({
  name: required(str),
  image: optional(str),
  command: optional(strings),
  args: optional(strings),
  ports: optional(
    list(
      object({ containerPort: required(num), name: optional(str), protocol: optional(str), hostPort: optional(num) }),
    ),
  ),
  livenessProbe: optional(probe),
  readinessProbe: optional(probe),
  startupProbe: optional(probe),
  lifecycle: optional(
    object({
      preStop: optional(
        object({
          exec: optional(object({ command: optional(strings) })),
          httpGet: optional(handlerPort),
          tcpSocket: optional(handlerPort),
          sleep: optional(object({ seconds: required(num) })),
        }),
      ),
      stopSignal: optional(str),
    }),
  ),
  volumeMounts: optional(list(object({ name: required(str), mountPath: required(str), subPath: optional(str) }))),
  restartPolicy: optional(str),
});
const items = optional(list(object({ key: required(str), path: required(str) })));
const podSpec = object({
  containers: required(list(container)),
  initContainers: optional(list(container)),
  volumes: optional(
    list(
      object({
        name: required(str),
        configMap: optional(object({ name: optional(str), items })),
        projected: optional(
          object({ sources: optional(list(object({ configMap: optional(object({ name: optional(str), items })) }))) }),
        ),
      }),
    ),
  ),
  readinessGates: optional(list(object({ conditionType: required(str) }))),
  terminationGracePeriodSeconds: optional(num),
  hostNetwork: optional(bool),
});
const template = object({
  metadata: optional(object({ labels: optional(stringMap), annotations: optional(stringMap) })),
  spec: required(podSpec),
});

const updateStrategy = object({
  type: optional(str),
  rollingUpdate: optional(
    object({ maxSurge: optional(intOrString), maxUnavailable: optional(intOrString), partition: optional(num) }),
  ),
});

const SHAPES: Record<string, Check> = {
  Deployment: object({
    spec: required(
      object({
        replicas: optional(num),
        selector: required(selector),
        template: required(template),
        minReadySeconds: optional(num),
        strategy: optional(
          object({
            type: optional(str),
            rollingUpdate: optional(object({ maxSurge: optional(intOrString), maxUnavailable: optional(intOrString) })),
          }),
        ),
      }),
    ),
  }),
  StatefulSet: object({
    spec: required(
      object({
        replicas: optional(num),
        selector: required(selector),
        template: required(template),
        minReadySeconds: optional(num),
        updateStrategy: optional(updateStrategy),
      }),
    ),
  }),
  DaemonSet: object({
    spec: required(
      object({
        selector: required(selector),
        template: required(template),
        minReadySeconds: optional(num),
        updateStrategy: optional(updateStrategy),
      }),
    ),
  }),
  // Argo Rollouts (argoproj.io/v1alpha1): a Deployment's template and selector, its own canary or blueGreen strategy;
  // a Rollout with spec.workloadRef takes its template from another object, so it has none of its own to check
  Rollout: object({
    spec: required(
      object({
        replicas: optional(num),
        selector: optional(selector),
        template: optional(template),
        minReadySeconds: optional(num),
        strategy: optional(
          object({
            canary: optional(object({ canaryService: optional(str), stableService: optional(str) })),
            blueGreen: optional(object({ activeService: optional(str), previewService: optional(str) })),
          }),
        ),
      }),
    ),
  }),
  Service: object({
    spec: required(
      object({
        selector: optional(stringMap),
        ports: optional(
          list(object({ port: required(num), targetPort: optional(intOrString), protocol: optional(str) })),
        ),
        publishNotReadyAddresses: optional(bool),
        clusterIP: optional(str),
      }),
    ),
  }),
  PodDisruptionBudget: object({
    spec: optional(
      object({
        selector: optional(selector),
        minAvailable: optional(intOrString),
        maxUnavailable: optional(intOrString),
      }),
    ),
  }),
  HorizontalPodAutoscaler: object({
    spec: required(
      object({
        scaleTargetRef: required(object({ kind: optional(str), name: optional(str) })),
        minReplicas: optional(num),
        maxReplicas: optional(num),
      }),
    ),
  }),
  ConfigMap: object({ data: optional(stringMap) }),
  // the Services routes name (an Argo Rollout's preview or canary Service must be one, DR607)
  Ingress: object({
    spec: optional(
      object({
        defaultBackend: optional(object({ service: optional(object({ name: optional(str) })) })),
        rules: optional(
          list(
            object({
              http: optional(
                object({
                  paths: optional(
                    list(object({ backend: optional(object({ service: optional(object({ name: optional(str) })) })) })),
                  ),
                }),
              ),
            }),
          ),
        ),
      }),
    ),
  }),
  HTTPRoute: object({
    spec: optional(
      object({
        rules: optional(
          list(
            object({
              backendRefs: optional(
                list(
                  object({ name: required(str), namespace: optional(str), kind: optional(str), group: optional(str) }),
                ),
              ),
            }),
          ),
        ),
      }),
    ),
  }),
};

/** The kinds the doctor reads from manifests; other kinds are passed over. */
export const DOCTOR_KINDS = new Set(Object.keys(SHAPES));

/** The first field of an object of a kind the doctor reads that has not the shape the API would enforce. */
export function shapeProblem(object: { kind: string; metadata?: unknown }): string | undefined {
  const check = SHAPES[object.kind];
  return check?.(object, '')?.replace(/^\./, '');
}
