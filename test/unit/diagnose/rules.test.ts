// The why-stalled rules on fixtures shaped like what the API server returns: for each id a case where it fires
// (title and key evidence pinned) and cases where it must not; the order of the findings; what counts as a stall;
// and the catalogue against the ids the rules use, with a case of its own for every id.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CATALOGUE, describeFinding } from '../../../src/diagnose/catalogue.ts';
import type { FindingText } from '../../../src/types/finding.ts';
import { diagnose, topFinding } from '../../../src/diagnose/index.ts';
import { ApiError } from '../../../src/kube/errors.ts';
import { OVERDUE_MS } from '../../../src/model/rollout/pod.ts';
import type {
  Condition,
  Deployment,
  EndpointSlice,
  KubeEvent,
  Pod,
  ReplicaSet,
  Service,
} from '../../../src/types/kube.ts';
import type { HapticInputs } from '../../../src/types/snapshot.ts';
import type { Gateway, GatewayRoute } from '../../../src/types/routes.ts';
import { buildRollout } from '../../../src/model/rollout/rollout.ts';
import { routingInstallations, withSessions } from '../../../src/model/rollout/sessions.ts';
import { mergeTargets, sessionTargets } from '../../../src/services/sessions.ts';
import type { HAProxyReading } from '../../../src/types/sessions.ts';
import { diagnoseContext } from '../../../src/diagnose/context.ts';
import { loadScenario, snapshotOf } from '../../fixtures/load.ts';
import {
  at,
  CHECKSUM,
  deployment,
  GATE,
  hapticInputs,
  type HapticOptions,
  ingress,
  mergeHapticInputs,
  NOW,
  pod,
  podEvent,
  replicaSet,
  replicaSetEvent,
  service,
  slice,
  snapshot,
} from '../fixtures/rollout.ts';

type Case = {
  /** a scenario folder's snapshot instead of the fixtures below (test/fixtures/scenarios: StatefulSets, Argo Rollouts) */
  scenario?: string;
  deployment?: Deployment;
  replicaSets?: ReplicaSet[];
  pods?: Pod[];
  services?: Service[];
  slices?: EndpointSlice[];
  events?: KubeEvent[];
  haptic?: HapticOptions;
  inputs?: HapticInputs;
  conditionType?: string;
  /** HAProxy's sessions as status --sessions reads them (one reading per HAProxy pod) */
  sessions?: HAProxyReading[];
};

const cond = (type: string, status: string, secondsAgo: number, extra: Partial<Condition> = {}): Condition => ({
  type,
  status,
  lastTransitionTime: at(secondsAgo),
  ...extra,
});

const oldPods = () => [
  pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
  pod({ name: 'web-old-2', rs: '1', ip: '10.0.0.2' }),
];
/** The new pod of revision 2: containers ready 20 s ago, waiting for the gate. */
const newPod = () => pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3' });
const listed = () =>
  slice([
    { pod: 'web-old-1', ip: '10.0.0.1', ready: true },
    { pod: 'web-old-2', ip: '10.0.0.2', ready: true },
    { pod: 'web-new-1', ip: '10.0.0.3', ready: false },
  ]);
/** A healthy rollout caught mid-way: HAPTIC routes the new pod; one HAProxy pod runs that config, one catches up. */
const midway: HapticOptions = {
  servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }],
  fleet: [
    { name: 'haptic-haproxy-a', runs: 'current' },
    { name: 'haptic-haproxy-b', runs: 'retained' },
  ],
};

/** Every HAProxy pod runs the config that routes the new pod. */
const routedEverywhere: HapticOptions = { servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] };
/** A second installation (haptic-2), routing the new pod or not. */
const second = (routes: boolean) =>
  hapticInputs({
    namespace: 'haptic-2',
    servers: routes ? [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] : [],
  });

function run(c: Case = {}) {
  const snap = c.scenario
    ? snapshotOf(loadScenario(c.scenario), 'web')
    : snapshot({
        deployment: c.deployment,
        replicaSets: c.replicaSets,
        pods: c.pods ?? [...oldPods(), newPod()],
        services: c.services,
        slices: c.slices ?? [listed()],
        events: c.events,
        haptic: c.inputs ?? hapticInputs(c.haptic ?? midway),
      });
  const built = buildRollout(snap, NOW, { gateType: c.conditionType ?? GATE });
  const model = c.sessions ? withSessions(built, { readings: c.sessions }, new Map()) : built;
  const ctx = diagnoseContext(snap, model, NOW);
  const diagnosis = diagnose(ctx);
  const top = topFinding(ctx);
  // in words, as every view prints them: a rule that forgets an argument of its title or fix fails here
  return {
    stalled: diagnosis.stalled,
    findings: diagnosis.findings.map(describeFinding),
    top: top && describeFinding(top),
  };
}

const ids = (c: Case = {}) => run(c).findings.map((f) => f.id);
const only = (c: Case, id: string): FindingText => {
  const found = run(c).findings.filter((f) => f.id === id);
  expect(found, `${id} once`).toHaveLength(1);
  return found[0]!;
};

// ---- raw pod states, as the kubelet writes them ----

function withStatus(p: Pod, status: Partial<NonNullable<Pod['status']>>): Pod {
  return { ...p, status: { ...p.status, ...status } };
}
function withSpec(p: Pod, spec: Partial<Pod['spec']>): Pod {
  return { ...p, spec: { ...p.spec, ...spec } };
}
const notReady = (secondsAgo = 20): Condition[] => [
  cond('ContainersReady', 'False', secondsAgo, {
    reason: 'ContainersNotReady',
    message: 'containers with unready status: [app]',
  }),
  cond('Ready', 'False', secondsAgo, {
    reason: 'ContainersNotReady',
    message: 'containers with unready status: [app]',
  }),
];
const crashLooping = (p: Pod): Pod =>
  withStatus(p, {
    phase: 'Running',
    conditions: notReady(),
    containerStatuses: [
      {
        name: 'app',
        ready: false,
        started: false,
        restartCount: 3,
        image: 'web:2',
        state: {
          waiting: {
            reason: 'CrashLoopBackOff',
            message: 'back-off 40s restarting failed container=app pod=web-new-1_shop(uid-web-new-1)',
          },
        },
        lastState: { terminated: { exitCode: 1, reason: 'Error', finishedAt: at(12) } },
      },
    ],
  });
const backOff = podEvent(
  'web-new-1',
  'BackOff',
  'Back-off restarting failed container app in pod web-new-1_shop(uid-web-new-1)',
  { count: 5 },
);
const probeFailing = (p: Pod): Pod =>
  withSpec(
    withStatus(p, {
      phase: 'Running',
      conditions: notReady(),
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          started: true,
          restartCount: 0,
          image: 'web:2',
          state: { running: { startedAt: at(21) } },
        },
      ],
    }),
    {
      containers: [
        {
          name: 'app',
          image: 'web:2',
          readinessProbe: { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5, failureThreshold: 3 },
        },
      ],
    },
  );
const unhealthy = podEvent('web-new-1', 'Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503', {
  count: 4,
});
const imagePull = (p: Pod): Pod =>
  withSpec(
    withStatus(p, {
      phase: 'Pending',
      conditions: notReady(),
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          restartCount: 0,
          image: 'web:2',
          state: {
            waiting: {
              reason: 'ImagePullBackOff',
              message:
                'Back-off pulling image "web:2": ErrImagePull: rpc error: code = NotFound desc = failed to resolve reference "docker.io/library/web:2": not found',
            },
          },
        },
      ],
    }),
    { containers: [{ name: 'app', image: 'web:2' }] },
  );
const unschedulable = (p: Pod): Pod => {
  const { nodeName: _, ...spec } = p.spec;
  return {
    ...p,
    spec,
    status: {
      phase: 'Pending',
      conditions: [
        cond('PodScheduled', 'False', 20, {
          reason: 'Unschedulable',
          message: "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.",
        }),
      ],
    },
  };
};
const failedScheduling = podEvent(
  'web-new-1',
  'FailedScheduling',
  "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are available: 2 Preemption is not helpful for scheduling.",
  { component: 'default-scheduler' },
);
const containersReadyFor = (p: Pod, seconds: number): Pod =>
  withStatus(p, {
    conditions: [
      cond('ContainersReady', 'True', seconds),
      cond('Ready', 'False', seconds, {
        reason: 'ReadinessGatesNotReady',
        message: `corresponding condition of pod readiness gate "${GATE}" does not exist.`,
      }),
    ],
  });
const gates = (types: string[]) => types.map((conditionType) => ({ conditionType }));

/** The Deployment, its new ReplicaSet and pod with other readiness gates (the template must match the ReplicaSet's). */
function withGates(types: string[]) {
  const d = deployment();
  d.spec.template.spec.readinessGates = gates(types);
  const rs = replicaSet('2');
  rs.spec.template.spec.readinessGates = gates(types);
  return {
    deployment: d,
    replicaSets: [replicaSet('1'), rs],
    pods: [...oldPods(), withSpec(newPod(), { readinessGates: gates(types) })],
  };
}

/** The installation's controller pod in another phase (leader election off: the one controller). */
function withController(inputs: HapticInputs, phase: string): HapticInputs {
  const pods = inputs.pods.items.map((p) =>
    p.metadata.labels?.['app.kubernetes.io/component'] === 'controller'
      ? { ...p, status: { ...p.status, phase, conditions: [{ type: 'Ready', status: 'False' }] } }
      : p,
  );
  return { ...inputs, pods: { items: pods } };
}
/** The template config edited (generation 4) but not yet processed by the controller (observedGeneration 3). */
function unobserved(inputs: HapticInputs): HapticInputs {
  const htc = structuredClone(inputs.templateConfigs.items[0]!);
  htc.metadata.generation = 4;
  return { ...inputs, templateConfigs: { items: [htc] } };
}
function withCfgCondition(inputs: HapticInputs, reason: string): HapticInputs {
  const cfgs = inputs.haproxyCfgs.items.map((c) => ({
    ...c,
    status: {
      ...c.status,
      conditions: [
        { type: 'ConfigValidated', status: 'False', reason, message: 'validation with haproxy -c could not run' },
      ],
    },
  }));
  return { ...inputs, haproxyCfgs: { items: cfgs } };
}
function noCfgConditions(inputs: HapticInputs): HapticInputs {
  return {
    ...inputs,
    haproxyCfgs: { items: inputs.haproxyCfgs.items.map((c) => ({ ...c, status: { ...c.status, conditions: [] } })) },
  };
}
function withValidated(inputs: HapticInputs, reason: string, errors: string[]): HapticInputs {
  const htcs = inputs.templateConfigs.items.map((h) => ({
    ...h,
    status: {
      ...h.status,
      conditions: [{ type: 'Validated', status: 'False', reason }],
      validationStatus: 'Invalid',
      validationErrors: errors,
    },
  }));
  return { ...inputs, templateConfigs: { items: htcs } };
}
/** The dataplane generation's refused edit: "N validation error(s)", no -invalid HAProxyCfg (nothing was rendered). */
function dataplaneTemplateInvalid(inputs: HapticInputs): HapticInputs {
  const d = dataplane(inputs);
  const htcs = d.templateConfigs.items.map((h) => ({
    ...h,
    status: {
      validationStatus: 'Invalid',
      validationMessage: '1 validation error(s)',
      validationErrors: ['watched_resources.ingresses.index_by[0]: empty JSONPath expression'],
    },
  }));
  return { ...d, templateConfigs: { items: htcs } };
}
function dataplaneInvalid(inputs: HapticInputs, message: string): HapticInputs {
  const d = dataplane(inputs);
  const htcs = d.templateConfigs.items.map((h) => ({
    ...h,
    status: {
      validationStatus: 'Invalid',
      validationMessage: message,
      validationErrors: ['backend shop_web_80: unknown keyword'],
    },
  }));
  // HAProxy's refusal is kept as <htc>-haproxycfg-invalid (configpublisher workers.go); a template error renders none
  const live = d.haproxyCfgs.items.find((c) => c.metadata.name === 'haptic-config-haproxycfg')!;
  const invalid = {
    ...live,
    metadata: { ...live.metadata, name: 'haptic-config-haproxycfg-invalid', uid: 'uid-invalid' },
    status: { validationError: 'backend shop_web_80: unknown keyword' },
  };
  const refused = message === 'HAProxy configuration validation failed';
  return {
    ...d,
    templateConfigs: { items: htcs },
    haproxyCfgs: { items: refused ? [...d.haproxyCfgs.items, invalid] : d.haproxyCfgs.items },
  };
}
/** The dataplane-API generation: deploy statuses with deployedAt, no podUID or plan IDs, no conditions anywhere. */
function dataplane(inputs: HapticInputs): HapticInputs {
  const cfgs = inputs.haproxyCfgs.items.map((c) => ({
    ...c,
    status: {
      deployedToPods: (c.status?.deployedToPods ?? []).map((e) => ({
        podName: e.podName,
        checksum: e.checksum,
        deployedAt: at(30),
        syncDuration: '0.12s',
        consecutiveErrors: e.consecutiveErrors,
        ...(e.lastError ? { lastError: e.lastError, lastErrorAt: at(3) } : {}),
      })),
    },
  }));
  const htcs = inputs.templateConfigs.items.map((h) => ({
    ...h,
    status: { validationStatus: 'Valid', validationMessage: 'Configuration validated successfully' },
  }));
  // its HAProxy pods run haproxy and the Dataplane API beside it, on port 5555 (charts/haptic/templates/haproxy-deployment.yaml)
  const pods = inputs.pods.items.map((p) =>
    p.metadata.labels?.['app.kubernetes.io/component'] === 'loadbalancer'
      ? {
          ...p,
          spec: {
            ...p.spec,
            containers: [
              { name: 'haproxy' },
              { name: 'dataplane', ports: [{ name: 'dataplane', containerPort: 5555 }] },
            ],
          },
          status: {
            ...p.status,
            containerStatuses: [
              { name: 'haproxy', ready: true, restartCount: 0 },
              { name: 'dataplane', ready: true, restartCount: 0 },
            ],
          },
        }
      : p,
  );
  return { ...inputs, haproxyCfgs: { items: cfgs }, templateConfigs: { items: htcs }, pods: { items: pods } };
}

const complete = (): Deployment =>
  deployment({
    status: {
      observedGeneration: 2,
      replicas: 2,
      updatedReplicas: 2,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [{ type: 'Progressing', status: 'True', reason: 'NewReplicaSetAvailable' }],
    },
  });
const newPodsReady = () => [
  pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' }),
  pod({ name: 'web-new-2', rs: '2', ip: '10.0.0.4', gate: 'True' }),
];
const deadlineExceeded = () =>
  deployment({
    status: {
      observedGeneration: 2,
      replicas: 3,
      updatedReplicas: 1,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "web-rs2" has timed out progressing.',
        },
      ],
    },
  });
const quotaMessage =
  'pods "web-rs2-x7k2p" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=2, limited: pods=2';
const quotaRefused = () =>
  deployment({
    status: {
      observedGeneration: 2,
      replicas: 2,
      updatedReplicas: 0,
      readyReplicas: 2,
      availableReplicas: 2,
      conditions: [{ type: 'ReplicaFailure', status: 'True', reason: 'FailedCreate', message: quotaMessage }],
    },
  });

describe('HAPTIC-specific rules (HS1xx)', () => {
  it('HS101: a gated pod no Service selects, naming the near miss', () => {
    const f = only(
      { services: [service({ app: 'wbe' }, 'web'), service({ app: 'billing' }, 'billing')], slices: [], haptic: {} },
      'HS101',
    );
    expect(f).toMatchObject({
      severity: 'error',
      title: `web-new-1: no Service selects this gated pod, so HAPTIC never sets ${GATE}`,
    });
    expect(f.evidence).toEqual([
      'pod labels: app=web,pod-template-hash=h2',
      'Services in namespace shop: web (app=wbe), billing (app=billing)',
      'service/web almost matches: it wants app=wbe, the pod has app=web',
    ]);
    expect(f.fix).toBe(
      'create a Service that selects the pods (or fix the selector above), or remove the gate: kubectl haptic disable-gate web -n shop',
    );
    expect(ids({ services: [], slices: [], haptic: {} })).toEqual(['HS101']);
    expect(only({ services: [], slices: [], haptic: {} }, 'HS101').evidence).toContain(
      'namespace shop has no Services',
    );
  });

  it.each<[string, Case]>([
    ['a Service selects the pod', {}],
    [
      'the pod lists no readiness gate',
      { services: [], slices: [], pods: [...oldPods(), withSpec(newPod(), { readinessGates: [] })] },
    ],
    [
      'its containers are not ready yet',
      { services: [], slices: [], pods: [...oldPods(), withStatus(newPod(), { conditions: notReady(2) })] },
    ],
    [
      'the gate is already True',
      {
        services: [],
        slices: [],
        pods: [...oldPods(), pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' })],
      },
    ],
  ])('HS101 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS101'));

  // What the real EndpointSlice controller does with a named targetPort the pod lacks: it lists the pod, in a
  // slice with `ports: null`, so HAPTIC has no port to route it to.
  const namedService = (targetPorts: (string | number)[]): Service => ({
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      selector: { app: 'web' },
      ports: targetPorts.map((targetPort, i) => ({ name: `p${i}`, port: 80 + i, targetPort })),
    },
  });
  const withHttpPort = (p: Pod) =>
    withSpec(p, { containers: [{ name: 'app', image: 'web:2', ports: [{ name: 'http', containerPort: 8080 }] }] });
  const portless = (): EndpointSlice => ({ ...listed(), ports: null });

  it('HS102: selected but in no EndpointSlice', () => {
    const c: Case = { slices: [slice([{ pod: 'web-old-1', ip: '10.0.0.1', ready: true }])], haptic: {} };
    expect(ids(c)).toEqual(['HS102']);
    const f = only(c, 'HS102');
    expect(f.title).toBe('pod web-new-1 is selected by web but no EndpointSlice lists it');
    expect(f.evidence).toEqual([
      'service/web selector app=web, ports 80→80: no endpoint for web-new-1 (10.0.0.3)',
      'pod container ports: none',
    ]);
    expect(f.fix).toBe(
      'kubectl -n shop get endpointslices -l kubernetes.io/service-name=web -o yaml (the EndpointSlice controller lists every selected pod with an IP: is it running?)',
    );
  });

  it('HS102: selected by an ExternalName Service, which never gets EndpointSlices', () => {
    const external: Service = {
      metadata: { name: 'web', namespace: 'shop' },
      spec: { type: 'ExternalName', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    };
    const f = only(
      { services: [external], slices: [], pods: [...oldPods(), withHttpPort(newPod())], haptic: {} },
      'HS102',
    );
    expect(f.title).toBe('pod web-new-1 is selected by web but no EndpointSlice lists it');
    expect(f.evidence).toEqual([
      'service/web selector app=web, ports 80→http: no endpoint for web-new-1 (10.0.0.3) (type ExternalName: the EndpointSlice controller makes no slices for it)',
      'pod container ports: http:8080',
    ]);
    expect(f.fix).toBe(
      'an ExternalName Service never gets endpoints: route the pods through a ClusterIP Service, or remove the gate: kubectl haptic disable-gate web -n shop',
    );
  });

  it('HS102: selected and listed, but without a port (named targetPort the pod lacks)', () => {
    const f = only(
      {
        services: [namedService(['web'])],
        slices: [portless()],
        pods: [...oldPods(), withHttpPort(newPod())],
        haptic: {},
      },
      'HS102',
    );
    expect(f.title).toBe(
      'pod web-new-1 is selected by web but no EndpointSlice lists it with a port, so HAProxy has nothing to route to',
    );
    expect(f.evidence).toEqual([
      'service/web selector app=web, ports 80→web: EndpointSlice web-abc lists web-new-1 (10.0.0.3) without a port, since the pod has no container port named "web"',
      'pod container ports: http:8080',
    ]);
    expect(f.fix).toBe(
      'make the Service targetPort name or number match a container port of the pod (a named targetPort the pod lacks leaves it without a port)',
    );
  });

  it.each<[string, Case]>([
    ['the pod is listed', {}],
    [
      'the named targetPort is a port of the pod',
      { services: [namedService(['http'])], pods: [...oldPods(), withHttpPort(newPod())] },
    ],
    [
      'one of two named targetPorts resolves',
      { services: [namedService(['web', 'http'])], pods: [...oldPods(), withHttpPort(newPod())] },
    ],
    ['the targetPort is a number', { services: [namedService([8080])] }],
    [
      'the pod waits for its containers, not the gate',
      { slices: [], pods: [...oldPods(), withStatus(newPod(), { conditions: notReady(2) })] },
    ],
    [
      'its containers got ready a moment ago (the EndpointSlice controller has not listed it yet)',
      {
        slices: [],
        pods: [
          ...oldPods(),
          withStatus(newPod(), {
            conditions: [
              { type: 'ContainersReady', status: 'True', lastTransitionTime: at(2) },
              { type: 'Ready', status: 'False', lastTransitionTime: at(2) },
            ],
          }),
        ],
      },
    ],
  ])('HS102 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS102'));

  // HAPTIC renders backends only for Services its routes name (model/haptic/routes.ts)
  const gateway = (name: string, cls: string): Gateway => ({
    metadata: { name, namespace: 'shop' },
    spec: { gatewayClassName: cls },
  });
  const httpRoute = (parent: string, port = 80): GatewayRoute => ({
    metadata: { name: 'web', namespace: 'shop' },
    spec: { parentRefs: [{ name: parent }], rules: [{ backendRefs: [{ name: 'web', port }] }] },
  });

  it('HS113: a Service selects the pod, but its only Ingress is of another class: the near miss named, the fix an Ingress of class haproxy', () => {
    const c: Case = { haptic: { ingresses: [ingress('web', 'nginx')] } };
    expect(ids(c)[0]).toBe('HS113');
    const f = only(c, 'HS113');
    expect(f.title).toBe(
      `web-new-1: no route that HAPTIC renders reaches service/web, so HAPTIC never routes this gated pod and never sets ${GATE}`,
    );
    expect(f.evidence).toEqual([
      'ingress shop/web → service/web:80: has ingressClassName nginx; HAPTIC haptic/haptic-config watches Ingresses with spec.ingressClassName=haproxy',
      'HAPTIC haptic/haptic-config renders Ingresses with spec.ingressClassName=haproxy, and HTTPRoutes and GRPCRoutes whatever their parents',
      'no server for a pod of the workload in a backend of service/web in haproxycfg haptic/haptic-config-haproxycfg',
    ]);
    expect(f.fix).toBe(
      "fix the route above (its class, its namespace or ReferenceGrant, its listener), or create a route HAPTIC renders: kubectl -n shop create ingress web --class=haproxy --rule='/*=web:80'",
    );
  });

  it.each([
    [
      'no route at all',
      { ingresses: [] },
      'service/web: no Ingress, HTTPRoute, GRPCRoute, TLSRoute or TCPRoute names it',
    ],
    [
      'an Ingress without a class (the old annotation is not read)',
      {
        ingresses: [
          {
            ...ingress('web', null),
            metadata: { name: 'web', namespace: 'shop', annotations: { 'kubernetes.io/ingress.class': 'haproxy' } },
          },
        ],
      },
      'ingress shop/web → service/web:80: has no ingressClassName (the kubernetes.io/ingress.class: haproxy annotation is not read); HAPTIC haptic/haptic-config watches Ingresses with spec.ingressClassName=haproxy',
    ],
    [
      'an HTTPRoute in another namespace that no ReferenceGrant lets reach it',
      {
        ingresses: [],
        httpRoutes: [
          {
            metadata: { name: 'web', namespace: 'front' },
            spec: { rules: [{ backendRefs: [{ name: 'web', namespace: 'shop', port: 80 }] }] },
          },
        ],
      },
      'httproute front/web → service/web:80: references it from namespace front, and no ReferenceGrant in shop lets HTTPRoutes of front reach it',
    ],
  ] satisfies [string, HapticOptions, string][])('HS113 with %s', (_, haptic, line) => {
    const f = only({ haptic }, 'HS113');
    expect(f.evidence[0]).toBe(line);
  });

  it('an Ingress in another namespace to a Service of the same name is a near miss: it reaches its own namespace', () => {
    const elsewhere = { ...ingress('web'), metadata: { name: 'web', namespace: 'staging' } };
    const f = only({ haptic: { ingresses: [elsewhere] } }, 'HS113');
    expect(f.evidence).toContain('ingress staging/web names a Service web in its own namespace staging, not this one');
    expect(f.fix).toMatch(/^fix the route above/);
  });

  it.each([
    ['an Ingress of class haproxy routes it', {}],
    [
      'an HTTPRoute on a Gateway of class haproxy routes it',
      { ingresses: [], gateways: [gateway('public', 'haproxy')], httpRoutes: [httpRoute('public')] },
    ],
    ['one route of two routes it', { ingresses: [ingress('web', 'nginx'), ingress('web-2')] }],
    // HAPTIC's rules (model/haptic/routes.ts): servers whatever the port number, every HTTPRoute whatever its parents
    [
      'an Ingress names a port number the Service lacks',
      { ingresses: [ingress('web', 'haproxy', 'web', { number: 8080 })] },
    ],
    [
      'an HTTPRoute hangs off a Gateway of another class',
      { ingresses: [], gateways: [gateway('public', 'istio')], httpRoutes: [httpRoute('public')] },
    ],
    ['an HTTPRoute names a Gateway that does not exist', { ingresses: [], httpRoutes: [httpRoute('missing')] }],
    // the live config has a server for an old pod of the workload: HAPTIC routes the Service, whatever the routes say
    [
      'the live config routes an old pod, though no route of its class names the Service',
      { ingresses: [ingress('web', 'nginx')], servers: [{ pod: 'web-old-1', ip: '10.0.0.1', disabled: false }] },
    ],
  ] satisfies [string, HapticOptions][])('HS113 does not fire when %s', (_, haptic) =>
    expect(ids({ haptic })).not.toContain('HS113'),
  );

  it("HS113 per pod: the new template leaves the routed Service; the old pods' servers prove only that Service routed", () => {
    // service/web selects track=stable and is routed (its Ingress, and the old pods' servers in its backend); the new
    // template says track=canary, so only service/web-all, which no route names, selects the new pod
    const labelled = (p: Pod, track: string): Pod => ({
      ...p,
      metadata: { ...p.metadata, labels: { ...p.metadata.labels, track } },
    });
    const c: Case = {
      pods: [...oldPods().map((p) => labelled(p, 'stable')), labelled(newPod(), 'canary')],
      services: [service({ app: 'web', track: 'stable' }), service({ app: 'web' }, 'web-all')],
      haptic: {
        servers: [
          { pod: 'web-old-1', ip: '10.0.0.1', disabled: false },
          { pod: 'web-old-2', ip: '10.0.0.2', disabled: false },
        ],
      },
    };
    const f = only(c, 'HS113');
    expect(f.title).toBe(
      `web-new-1: no route that HAPTIC renders reaches service/web-all, so HAPTIC never routes this gated pod and never sets ${GATE}`,
    );
    expect(f.evidence).toEqual(
      expect.arrayContaining([
        'service/web-all: no Ingress, HTTPRoute, GRPCRoute, TLSRoute or TCPRoute names it',
        'no server for a pod of the workload in a backend of service/web-all in haproxycfg haptic/haptic-config-haproxycfg',
        expect.stringMatching(/server \S+ 10\.0\.0\.1:\d+ → pod web-old-1 \(service\/web, not the Services above\)$/),
      ]),
    );
    // the new pod's own server proves it routed, whatever Service's backend holds it
    const served = {
      ...c,
      haptic: { servers: [...(c.haptic?.servers ?? []), { pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] },
    };
    expect(ids(served)).not.toContain('HS113');
  });

  it('HS113 does not fire when the routes could not be read: that is not "no route"', () => {
    const inputs = {
      ...hapticInputs({ ingresses: [] }),
      ingresses: {
        items: [],
        error: {
          kind: 'Forbidden',
          message: 'ingresses.networking.k8s.io is forbidden: User "dev" cannot list resource "ingresses"',
        },
      },
    };
    expect(ids({ inputs })).not.toContain('HS113');
  });

  it('a cluster without the Gateway API serves no HTTPRoute: a Service without an Ingress is unrouted all the same', () => {
    const absent = {
      items: [],
      error: { kind: 'NotFound', message: 'the server could not find the requested resource' },
    };
    const inputs = { ...hapticInputs({ ingresses: [] }), gateways: absent, httpRoutes: absent, grpcRoutes: absent };
    const f = only({ inputs }, 'HS113');
    expect(f.evidence).toContain('the cluster serves no httproutes.gateway.networking.k8s.io (no such API)');
  });

  it('HS103: a stale Lease, with the holder and the controller pods as evidence', () => {
    const c: Case = { haptic: { leaseRenewedSecondsAgo: 40 } };
    expect(ids(c)).toEqual(['HS103']);
    const f = only(c, 'HS103');
    expect(f.title).toBe(
      'HAPTIC haptic/haptic-config has no controller leader, so nothing renders, deploys or sets the gate',
    );
    expect(f.evidence).toEqual([
      'lease haptic/haptic: holder haptic-controller-1, renewed 40s ago, leaseDurationSeconds 15 (stale)',
      'controller pod haptic-controller-1: Running, ready',
    ]);
    expect(f.fix).toBe('kubectl -n haptic logs -l app.kubernetes.io/component=controller --tail=50');
    expect(only({ haptic: { holder: 'haptic-controller-9' } }, 'HS103').evidence).toContain(
      'holder pod haptic-controller-9 does not exist',
    );
  });

  it.each<[string, Case]>([
    ['the Lease was renewed 2 s ago', { haptic: midway }],
    ['the holder carries a suffix after the pod name', { haptic: { ...midway, holder: 'haptic-controller-1_6f1c' } }],
    [
      'the Lease is stale but no pod waits for the gate',
      { haptic: { leaseRenewedSecondsAgo: 40 }, pods: [...oldPods(), probeFailing(newPod())], events: [unhealthy] },
    ],
  ])('HS103 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS103'));

  it('HS104: HAPTIC not installed (no CRD, or no HAProxyTemplateConfig)', () => {
    const notFound = new ApiError(
      'NotFound',
      'the server could not find the requested resource',
      { verb: 'list', resource: 'haproxytemplateconfigs.haproxy-haptic.org' },
      404,
    );
    const f = only({ inputs: { ...hapticInputs(), templateConfigs: { items: [], error: notFound } } }, 'HS104');
    expect(f.title).toBe(`no HAPTIC installation found, so nothing sets ${GATE} on web-new-1`);
    expect(f.evidence).toEqual([
      'HAPTIC is not installed: the HAProxyTemplateConfig CRD (haproxytemplateconfigs.haproxy-haptic.org) does not exist',
    ]);
    expect(f.fix).toBe(
      'install HAPTIC with controller.templateLibraries.kubernetesBackends.podReadinessGate.enabled=true, or remove the gate: kubectl haptic disable-gate web -n shop',
    );
    expect(only({ inputs: { ...hapticInputs(), templateConfigs: { items: [] } } }, 'HS104').evidence).toEqual([
      'no HAProxyTemplateConfig exists in any namespace',
    ]);
  });

  it('HS104: HAPTIC unreadable (forbidden) says so instead of "install HAPTIC"', () => {
    const forbidden = new ApiError(
      'Forbidden',
      'forbidden: cannot list haproxytemplateconfigs.haproxy-haptic.org',
      { verb: 'list', resource: 'haproxytemplateconfigs.haproxy-haptic.org' },
      403,
    );
    const f = only({ inputs: { ...hapticInputs(), templateConfigs: { items: [], error: forbidden } } }, 'HS104');
    expect(f.title).toBe(
      `no HAPTIC installation could be read, so nothing explains why ${GATE} is not set on web-new-1`,
    );
    expect(f.evidence).toEqual([
      'cannot read HAProxyTemplateConfigs: forbidden: cannot list haproxytemplateconfigs.haproxy-haptic.org',
    ]);
    expect(f.fix).toMatch(/^ask for cluster-wide read access to haproxytemplateconfigs/);
  });

  it.each<[string, Case]>([
    ['an installation exists', {}],
    [
      'no Service selects the pod (HS101 explains it)',
      { services: [], slices: [], inputs: { ...hapticInputs(), templateConfigs: { items: [] } } },
    ],
  ])('HS104 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS104'));

  it('HS105: the controller may not patch pods/status', () => {
    const c: Case = { haptic: { gateFeature: false, servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: true }] } };
    expect(ids(c)).toEqual(['HS105']);
    const f = only(c, 'HS105');
    expect(f.title).toBe(
      'HAPTIC haptic/haptic-config has the readiness-gate feature off: it may not patch pods/status',
    );
    expect(f.evidence).toEqual(['ClusterRoles bound to the controller: haptic; none allows patch on pods/status']);
  });

  it.each<[string, Case]>([
    ['the feature is on', {}],
    [
      'RBAC cannot be read (unknown is not off)',
      {
        inputs: {
          ...hapticInputs(midway),
          clusterRoles: {
            items: [],
            error: new ApiError('Forbidden', 'forbidden', { verb: 'list', resource: 'clusterroles' }, 403),
          },
        },
      },
    ],
  ])('HS105 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS105'));

  const syncError =
    'failed to sync configuration to pod haptic-haproxy-b: dataplane API: POST /v3/services/haproxy/configuration/raw: 503 Service Unavailable: agent not reachable';

  it('HS106: a HAProxy pod whose deploys fail, or that was never deployed to', () => {
    const c: Case = {
      haptic: {
        ...midway,
        fleet: [
          { name: 'haptic-haproxy-a', runs: 'current' },
          { name: 'haptic-haproxy-b', runs: 'old', lastError: syncError },
        ],
      },
    };
    expect(ids(c)).toEqual(['HS106']);
    const f = only(c, 'HS106');
    expect(f.title).toBe(
      "HAProxy pod haptic-haproxy-b did not get HAPTIC haptic/haptic-config's configuration, so web-new-1 cannot get the gate",
    );
    expect(f.evidence).toEqual([
      `haptic-haproxy-b: its last deploy failed (entry checksum ${CHECKSUM.old}, live config ${CHECKSUM.current}); lastError: ${syncError}; consecutiveErrors 3`,
    ]);
    expect(f.fix).toBe('kubectl -n haptic logs haptic-haproxy-b -c agent --tail=50');
    const never = only(
      {
        haptic: {
          ...midway,
          fleet: [
            { name: 'haptic-haproxy-a', runs: 'current' },
            { name: 'haptic-haproxy-b', runs: 'none' },
          ],
        },
      },
      'HS106',
    );
    expect(never.evidence).toEqual([
      'haptic-haproxy-b: no entry in haproxycfg haptic/haptic-config-haproxycfg status.deployedToPods (never deployed to)',
    ]);
  });

  it('HS106 waits for the first deploy of a new HAProxy pod whose /ready answers 503 until it, then fires', () => {
    // HAPTIC discovers the pod once the container exposing the Dataplane API port is ready (discovery.go); the
    // haproxy container's /ready answers 503 until the first config arrives, so the pod is not Ready: the grace
    // counts from that container's start
    const fleet = [
      { name: 'haptic-haproxy-a', runs: 'current' as const },
      { name: 'haptic-haproxy-b', runs: 'none' as const },
    ];
    const startedSecondsAgo = (seconds: number): Case => {
      const inputs = hapticInputs({ ...midway, fleet });
      const pods = inputs.pods.items.map((p) =>
        p.metadata.name !== 'haptic-haproxy-b'
          ? p
          : {
              ...p,
              spec: {
                ...p.spec,
                containers: [{ name: 'haproxy' }, { name: 'dataplane', ports: [{ containerPort: 5555 }] }],
              },
              status: {
                ...p.status,
                startTime: at(seconds + 1),
                conditions: [cond('Ready', 'False', seconds)],
                containerStatuses: [
                  { name: 'haproxy', ready: false, restartCount: 0, state: { running: { startedAt: at(seconds) } } },
                  { name: 'dataplane', ready: true, restartCount: 0, state: { running: { startedAt: at(seconds) } } },
                ],
              },
            },
      );
      return { inputs: { ...inputs, pods: { ...inputs.pods, items: pods } } };
    };
    expect(ids(startedSecondsAgo(5))).not.toContain('HS106');
    expect(only(startedSecondsAgo(60), 'HS106').evidence).toEqual([
      'haptic-haproxy-b: no entry in haproxycfg haptic/haptic-config-haproxycfg status.deployedToPods (never deployed to)',
    ]);
  });

  it.each<[string, Case]>([['a HAProxy pod is still catching up, without an error', { haptic: midway }]])(
    'HS106 does not fire when %s',
    (_, c) => expect(ids(c)).not.toContain('HS106'),
  );

  it('HS106: an error beside the live checksum is a deploy of the live config that failed, not a pod that runs it', () => {
    // the dataplane generation records the checksum it tried (deployer/component.go, publisher.go); the agent
    // generation's confirmsOutput rejects any entry with lastError; HAPTIC clears lastError on success
    const c: Case = {
      haptic: {
        ...midway,
        fleet: [
          { name: 'haptic-haproxy-a', runs: 'current' },
          { name: 'haptic-haproxy-b', runs: 'current', lastError: syncError },
        ],
      },
    };
    const f = only(c, 'HS106');
    expect(f.evidence).toEqual([
      `haptic-haproxy-b: its last deploy failed (entry checksum ${CHECKSUM.current}, live config ${CHECKSUM.current}); lastError: ${syncError}; consecutiveErrors 3`,
    ]);
    expect(f.fix).toBe('kubectl -n haptic logs haptic-haproxy-b -c agent --tail=50');
    // the gate waits: the pod counts as one of two, not both
    const model = buildRollout(
      snapshot({ pods: [...oldPods(), newPod()], slices: [listed()], haptic: hapticInputs(c.haptic) }),
      NOW,
      { gateType: GATE },
    );
    expect(model.newPods[0]!.haproxy[0]).toMatchObject({ runningOn: 1, of: 2 });
  });

  it("HS107: HAProxy refused the render, with both custom resources' conditions", () => {
    const c: Case = { haptic: { refused: true } };
    expect(ids(c)).toEqual(['HS107']);
    const f = only(c, 'HS107');
    expect(f.title).toBe(
      "HAProxy refused HAPTIC haptic/haptic-config's rendered configuration; HAProxy pods keep the last accepted one, which does not route the new pods",
    );
    expect(f.evidence).toEqual([
      "haproxycfg haptic/haptic-config-haproxycfg: ConfigValidated=False reason HAProxyRefused: [ALERT] parsing [haproxy.cfg:12]: unknown keyword 'servr'",
      'haproxycfg haptic/haptic-config-haproxycfg: ConfigPinned=True (renders are held)',
      'haproxytemplateconfig haptic/haptic-config: Validated=False reason HAProxyValidationFailed',
    ]);
  });

  it('HS107 does not fire when HAProxy accepts the render', () =>
    expect(ids({ haptic: midway })).not.toContain('HS107'));

  it("HS107 does not fire on a refusal the live config outlived: the template config's HAProxyValidationFailed stays until it is edited", () => {
    const c: Case = { haptic: { ...midway, refusedEarlier: true } };
    expect(ids(c)).not.toContain('HS107');
    const model = buildRollout(
      snapshot({ pods: [...oldPods(), newPod()], slices: [listed()], haptic: hapticInputs(c.haptic) }),
      NOW,
      { gateType: GATE },
    );
    expect(model.installations[0]!.validated).toMatchObject({ status: 'False', outlived: true });
    expect(ids({ haptic: { ...midway, refused: true } })).toContain('HS107');
  });

  it.each<[string, (i: HapticInputs) => HapticInputs]>([
    [
      'a refused template-config edit (ConfigInvalid)',
      (i) => withValidated(noCfgConditions(i), 'ConfigInvalid', ['watched_resources.ingresses.index_by[0]: x']),
    ],
    ['new controller pods failing the load gate (LoadGateFailed)', (i) => withValidated(i, 'LoadGateFailed', [])],
    ["the dataplane generation's template errors", (i) => dataplaneTemplateInvalid(i)],
  ])('%s holds nothing back: a healthy rollout is progress, a failed deploy under it is HS106 first', (_, change) => {
    const healthy = run({ inputs: change(hapticInputs(midway)) });
    expect(healthy.stalled).toBe(false);
    expect(healthy.findings.map((f) => f.id)).toEqual(['HS107', 'HS901']);
    expect(healthy.findings[0]!.severity).toBe('warning');
    const failing = change(
      hapticInputs({
        ...midway,
        fleet: [
          { name: 'haptic-haproxy-a', runs: 'current' },
          { name: 'haptic-haproxy-b', runs: 'retained', lastError: 'agent not reachable' },
        ],
      }),
    );
    const r = run({ inputs: failing });
    expect(r.stalled).toBe(true);
    expect(r.findings.map((f) => f.id)).toEqual(['HS106', 'HS107']);
  });

  it('LoadGateFailed: the crash-looping controller pods and the one that keeps leading are named', () => {
    const i = withValidated(hapticInputs(midway), 'LoadGateFailed', []);
    const crashing = structuredClone(i.pods.items.find((p) => p.metadata.name === 'haptic-controller-1')!);
    crashing.metadata.name = 'haptic-controller-2';
    crashing.status!.conditions = [{ type: 'Ready', status: 'False' }];
    crashing.status!.containerStatuses = [
      { name: 'controller', ready: false, restartCount: 4, state: { waiting: { reason: 'CrashLoopBackOff' } } },
    ];
    const f = only({ inputs: { ...i, pods: { items: [...i.pods.items, crashing] } } }, 'HS107');
    expect(f.title).toContain('crash-loop; the leading controller pod keeps rendering');
    expect(f.evidence).toEqual([
      'haproxytemplateconfig haptic/haptic-config: Validated=False reason LoadGateFailed',
      'controller pod haptic-controller-2: CrashLoopBackOff, 4 restarts',
      'controller pod haptic-controller-1 leads and keeps rendering with the configuration it loaded',
    ]);
  });

  const typo = 'haproxy-haptic.org/load-balancer-readyy';

  it("HS108: a gate type in HAPTIC's domain that HAPTIC does not write", () => {
    const c: Case = {
      ...withGates([typo]),
      haptic: { servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: true }] },
    };
    const d = run(c);
    expect(d.findings.map((f) => f.id)).toEqual(['HS108']);
    expect(d.stalled).toBe(true);
    const f = only(c, 'HS108');
    expect(f.title).toBe(`readiness gate "${typo}" is in HAPTIC's domain but HAPTIC writes "${GATE}"`);
    expect(f.evidence).toEqual([
      `spec.template.spec.readinessGates: ${typo}`,
      `no pod has a condition of type ${typo}`,
    ]);
    expect(f.fix).toBe(
      `kubectl haptic disable-gate web -n shop --condition-type ${typo} && kubectl haptic enable-gate web -n shop`,
    );
  });

  it.each<[string, Case]>([
    ['the gate is the known type', {}],
    ['the gate is in another domain', withGates(['example.com/other'])],
    [
      'the pod waits for its containers',
      (() => {
        const c = withGates([typo]);
        c.pods[2] = withStatus(c.pods[2]!, { conditions: notReady(2) });
        return c;
      })(),
    ],
    [
      'something sets the typo condition True',
      (() => {
        const c = withGates([typo]);
        c.pods[2] = withStatus(c.pods[2]!, {
          conditions: [cond('ContainersReady', 'True', 20), cond(typo, 'True', 5), cond('Ready', 'False', 20)],
        });
        return c;
      })(),
    ],
  ])('HS108 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS108'));

  it('HS109: two installations route the pod, with the condition they fight over', () => {
    const c: Case = { inputs: mergeHapticInputs(hapticInputs(midway), second(true)) };
    expect(ids(c)).toEqual(['HS109']);
    const f = only(c, 'HS109');
    expect(f.title).toBe(
      '2 HAPTIC installations route web-new-1; they write the same condition and overwrite each other',
    );
    expect(f.evidence).toEqual([
      'installation haptic/haptic-config has servers for these pods',
      'installation haptic-2/haptic-config has servers for these pods',
    ]);
    const fought = withStatus(newPod(), {
      conditions: [
        cond('ContainersReady', 'True', 20),
        cond(GATE, 'True', 1, {
          reason: 'RoutedByAllHAProxyPods',
          message: 'every HAProxy pod of haptic-2/haptic-config runs a configuration that routes to this pod',
        }),
        cond('Ready', 'True', 1),
      ],
    });
    expect(only({ ...c, pods: [...oldPods(), fought] }, 'HS109').evidence).toContain(
      `condition ${GATE}: True (every HAProxy pod of haptic-2/haptic-config runs a configuration that routes to this pod)`,
    );
  });

  it.each<[string, Case]>([
    ['one installation', {}],
    [
      'the second installation does not route the pod',
      { inputs: mergeHapticInputs(hapticInputs(midway), second(false)) },
    ],
  ])('HS109 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS109'));

  it('HS110: every HAProxy pod routes the pod for 45 s and the condition is still missing (a warning)', () => {
    const c: Case = { pods: [...oldPods(), containersReadyFor(newPod(), 45)], haptic: routedEverywhere };
    const d = run(c);
    expect(d.findings.map((f) => f.id)).toEqual(['HS110', 'HS901']);
    expect(d.stalled).toBe(false);
    const f = only(c, 'HS110');
    expect(f).toMatchObject({
      severity: 'warning',
      title: `every HAProxy pod routes to web-new-1, yet HAPTIC haptic/haptic-config has not set ${GATE} (containers ready for 45s)`,
    });
    expect(f.evidence).toEqual([
      `haproxycfg haptic/haptic-config-haproxycfg (${CHECKSUM.current}) runs on 2/2 HAProxy pods with the server enabled`,
      'gate feature: allowed',
    ]);
  });

  it.each<[string, Case]>([
    ['containers are ready for only 20 s', { haptic: routedEverywhere }],
    [
      'one of two HAProxy pods still catches up',
      { pods: [...oldPods(), containersReadyFor(newPod(), 45)], haptic: midway },
    ],
    [
      'the server is disabled',
      {
        pods: [...oldPods(), containersReadyFor(newPod(), 45)],
        haptic: { servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: true }] },
      },
    ],
  ])('HS110 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS110'));
});

describe('HAPTIC as its releases write it', () => {
  it('leader election off: no "no leader" finding while its one controller runs; HS111 once it does not', () => {
    expect(ids({ inputs: hapticInputs({ ...midway, leaderElectionOff: true }) })).toEqual(['HS901']);
    const f = only(
      { inputs: withController(hapticInputs({ ...midway, leaderElectionOff: true }), 'Pending') },
      'HS111',
    );
    expect(f.title).toBe(
      'HAPTIC haptic/haptic-config runs one controller without leader election, and it is not running, so nothing renders, deploys or sets the gate',
    );
    expect(f.evidence).toEqual([
      'haproxytemplateconfig haptic/haptic-config: spec.controller.leaderElection.enabled: false (one controller, no Lease)',
      'controller pod haptic-controller-1: Pending, not ready',
    ]);
    expect(f.fix).toBe('kubectl -n haptic describe pod haptic-controller-1');
    expect(
      ids({ inputs: withController(hapticInputs({ ...midway, leaderElectionOff: true }), 'Pending') }),
    ).not.toContain('HS103');
  });

  it('HS106 tells a rejected plan, a stale entry and the dataplane fields apart', () => {
    const rejected = only(
      {
        haptic: {
          ...midway,
          fleet: [
            { name: 'haptic-haproxy-a', runs: 'current' },
            { name: 'haptic-haproxy-b', runs: 'retained', mode: 'rejected', reasons: ['haproxy -c: unknown keyword'] },
          ],
        },
      },
      'HS106',
    );
    expect(rejected.evidence).toEqual([
      `haptic-haproxy-b: runs ${CHECKSUM.old} (live config ${CHECKSUM.current}); mode rejected (haproxy -c: unknown keyword)`,
    ]);
    const inputs = hapticInputs(midway);
    inputs.pods.items.find((p) => p.metadata.name === 'haptic-haproxy-b')!.metadata.uid = 'uid-new-b';
    expect(only({ inputs }, 'HS106').evidence).toEqual([
      'haptic-haproxy-b: no deploy status of this pod in haproxycfg haptic/haptic-config-haproxycfg: the deployedToPods entry under its name is of an earlier pod (podUID uid-haptic-haproxy-b, this pod is uid-new-b)',
    ]);
    const old = dataplane(
      hapticInputs({
        ...midway,
        fleet: [
          { name: 'haptic-haproxy-a', runs: 'current' },
          { name: 'haptic-haproxy-b', runs: 'retained', lastError: 'dataplane API: 503' },
        ],
      }),
    );
    expect(only({ inputs: old }, 'HS106').evidence).toEqual([
      `haptic-haproxy-b: its last deploy failed (entry checksum ${CHECKSUM.old}, live config ${CHECKSUM.current}); lastError: dataplane API: 503; consecutiveErrors 3 (last at 2026-11-29T11:59:57Z); last deployed at 2026-11-29T11:59:30Z`,
    ]);
    // the dataplane generation deploys through its dataplane container
    expect(only({ inputs: old }, 'HS106').fix).toBe('kubectl -n haptic logs haptic-haproxy-b -c dataplane --tail=50');
  });

  it('a reload still pending is progress, not a failed deploy', () => {
    const d = run({
      haptic: {
        ...midway,
        fleet: [
          { name: 'haptic-haproxy-a', runs: 'current' },
          { name: 'haptic-haproxy-b', runs: 'current', reloadPending: true },
        ],
      },
    });
    expect(d.findings.map((f) => f.id)).toEqual(['HS901']);
    // what the unsettled HAProxy pod waits for is said, so a reload that never finishes is visible
    expect(d.findings[0]!.evidence[0]).toBe(
      'pod web-new-1: HAProxy config routing to it runs on 1/2 HAProxy pods (containers ready 20s ago); haptic-haproxy-b: reload pending: running plan plan-6, applied plan plan-7',
    );
  });

  it('a leader that stopped renewing: still progress, and HS901 says when its Lease expires', () => {
    const late = run({ haptic: { ...midway, leaseRenewedSecondsAgo: 9 } });
    expect(late.findings.map((f) => f.id)).toEqual(['HS901']);
    expect(late.findings[0]!.evidence).toContain(
      'lease haptic/haptic: holder haptic-controller-1 not renewed for 9s; unless renewed it expires in 6s (leaseDurationSeconds 15), and then HAPTIC has no leader',
    );
    // renewed on time: nothing about the Lease
    const onTime = run({ haptic: { ...midway, leaseRenewedSecondsAgo: 2 } });
    expect(onTime.findings[0]!.evidence.some((l) => l.startsWith('lease '))).toBe(false);
  });

  it('an older config nobody keeps is said to be unknown, never counted as routing', () => {
    const d = run({
      haptic: {
        ...midway,
        fleet: [
          { name: 'haptic-haproxy-a', runs: 'current' },
          { name: 'haptic-haproxy-b', runs: 'old' },
        ],
      },
    });
    expect(d.findings.map((f) => f.id)).toEqual(['HS901']);
    expect(d.findings[0]!.evidence.slice(0, 2)).toEqual([
      'pod web-new-1: HAProxy config routing to it runs on 1/2 HAProxy pods (containers ready 20s ago)',
      `HAProxy pod haptic-haproxy-b runs an older config (${CHECKSUM.old}), cannot tell whether it routes web-new-1`,
    ]);
  });

  it.each<[string, (i: HapticInputs) => HapticInputs, string, string]>([
    [
      "HAProxy refused the render (the gate release's conditions)",
      (i) => i,
      'HAProxy refused HAPTIC',
      'fix the template or the Ingress/annotation',
    ],
    [
      'the render gate is unavailable',
      (i) => withCfgCondition(i, 'GateUnavailable'),
      'could not validate its rendered configuration',
      'kubectl -n haptic logs -l app.kubernetes.io/component=controller --tail=100 (why',
    ],
    [
      'a template-config edit was refused (agent: Validated=False ConfigInvalid)',
      (i) => withValidated(noCfgConditions(i), 'ConfigInvalid', ['template "backends": undefined variable "svc"']),
      'refused the latest edit of its template config',
      'fix the edit named in validationErrors',
    ],
    [
      'new controller pods fail the load gate',
      (i) => withValidated(noCfgConditions(i), 'LoadGateFailed', []),
      'refuse the configuration at start-up',
      'roll back the config change',
    ],
    [
      'the dataplane generation: HAProxy validation failed',
      (i) => dataplaneInvalid(i, 'HAProxy configuration validation failed'),
      'HAProxy refused HAPTIC',
      'fix the template or the Ingress/annotation',
    ],
    [
      'the dataplane generation: template errors',
      (i) => dataplaneInvalid(i, '2 validation error(s)'),
      'refused the latest edit of its template config',
      'fix the edit named in validationErrors',
    ],
  ])('HS107 when %s', (_, change, title, fix) => {
    const f = only({ inputs: change(hapticInputs({ refused: true })) }, 'HS107');
    expect(f.title).toContain(title);
    expect(f.fix).toContain(fix);
  });

  it("the dataplane generation's refusal stands while its refused render is kept, and is history once the released tags delete it on acceptance (the template config keeps Invalid)", () => {
    const refused = dataplaneInvalid(hapticInputs(midway), 'HAProxy configuration validation failed');
    expect(ids({ inputs: refused })).toContain('HS107');
    const accepted = {
      ...refused,
      haproxyCfgs: { items: refused.haproxyCfgs.items.filter((c) => !c.metadata.name.endsWith('-invalid')) },
    };
    expect(ids({ inputs: accepted })).not.toContain('HS107');
  });

  it('HS105 on the dataplane generation says the release has no readiness gate', () => {
    const f = only(
      {
        inputs: dataplane(
          hapticInputs({ gateFeature: false, servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] }),
        ),
      },
      'HS105',
    );
    expect(f.title).toBe(`HAPTIC haptic/haptic-config is a release without the readiness gate: nothing sets ${GATE}`);
    expect(f.evidence[1]).toBe(
      'haproxycfg haptic/haptic-config-haproxycfg: deploy statuses of the dataplane-API generation (deployedAt, no podUID): a HAPTIC release from before the readiness gate',
    );
  });

  it('HS112: the controller has not processed the latest edit of its template config', () => {
    const f = only({ inputs: unobserved(hapticInputs(midway)) }, 'HS112');
    expect(f).toMatchObject({
      severity: 'warning',
      title:
        'HAPTIC haptic/haptic-config has not processed the latest edit of its template config (generation 4, observed 3)',
    });
  });

  it("HS209: HAPTIC's gate is True, another readiness gate nobody sets holds the pod", () => {
    const held = withStatus(withSpec(newPod(), { readinessGates: gates([GATE, 'example.com/traffic-ready']) }), {
      conditions: [
        cond('ContainersReady', 'True', 60),
        cond(GATE, 'True', 45),
        cond('Ready', 'False', 60, {
          reason: 'ReadinessGatesNotReady',
          message: 'corresponding condition of pod readiness gate "example.com/traffic-ready" does not exist.',
        }),
      ],
    });
    const f = only({ ...withGates([GATE, 'example.com/traffic-ready']), pods: [...oldPods(), held] }, 'HS209');
    expect(f.title).toBe(
      `pod web-new-1: ${GATE} is True, but the pod waits for readiness gate example.com/traffic-ready, which is missing 60s after its containers got ready`,
    );
    expect(f.evidence).toEqual([
      `readinessGates: ${GATE}=True, example.com/traffic-ready=missing`,
      'Ready=False: corresponding condition of pod readiness gate "example.com/traffic-ready" does not exist.',
    ]);
    // within the grace after HAPTIC's gate, it is progress
    const fresh = withStatus(held, {
      conditions: [cond('ContainersReady', 'True', 60), cond(GATE, 'True', 5), cond('Ready', 'False', 60)],
    });
    expect(ids({ ...withGates([GATE, 'example.com/traffic-ready']), pods: [...oldPods(), fresh] })).toEqual(['HS901']);
  });

  it('HS210: containers unready longer than their probes allow, with no Unhealthy event', () => {
    const slow = withStatus(probeFailing(newPod()), { conditions: notReady(90) });
    const f = only({ pods: [...oldPods(), slow], haptic: {} }, 'HS210');
    expect(f.title).toBe('pod web-new-1: containers not ready for 90s, longer than the readiness probe allows (6s)');
    expect(f.evidence).toEqual([
      'ContainersReady False for 90s; container app running, not ready, 0 restarts',
      'container app: readinessProbe initialDelaySeconds 0, periodSeconds 5, failureThreshold 3, successThreshold 1',
      'no Unhealthy event: the kubelet reported no probe failure',
    ]);
    // within the probes' budget (and its slack), it is still starting
    expect(
      ids({ pods: [...oldPods(), withStatus(probeFailing(newPod()), { conditions: notReady(10) })], haptic: {} }),
    ).toEqual(['HS901']);
  });
});

describe('generic rollout rules (HS2xx)', () => {
  it('HS201: a failing readiness probe, with the probe and the Unhealthy event', () => {
    const c: Case = { pods: [...oldPods(), probeFailing(newPod())], events: [unhealthy], haptic: {} };
    expect(ids(c)).toEqual(['HS201']);
    const f = only(c, 'HS201');
    expect(f.title).toBe(
      'pod web-new-1: readiness probe fails, so its containers never become ready (the gate is not the blocker)',
    );
    expect(f.evidence).toEqual([
      'ContainersReady False for 20s',
      'container app: readinessProbe httpGet HTTP :8080/healthz (period 5s, failureThreshold 3)',
      'event Unhealthy (x4): Readiness probe failed: HTTP probe failed with statuscode: 503',
    ]);
    expect(f.fix).toBe(
      'check what the probe calls: kubectl -n shop logs web-new-1 -c app; fix the application or the probe',
    );
  });

  it.each<[string, Case]>([
    [
      'the containers are still starting (no Unhealthy event)',
      { pods: [...oldPods(), probeFailing(newPod())], haptic: {} },
    ],
    [
      'only a liveness probe fails',
      {
        pods: [...oldPods(), probeFailing(newPod())],
        events: [podEvent('web-new-1', 'Unhealthy', 'Liveness probe failed: HTTP probe failed with statuscode: 500')],
        haptic: {},
      },
    ],
    [
      'the event is about another pod',
      {
        pods: [...oldPods(), probeFailing(newPod())],
        events: [podEvent('web-new-9', 'Unhealthy', 'Readiness probe failed: HTTP probe failed with statuscode: 503')],
        haptic: {},
      },
    ],
  ])('HS201 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS201'));

  it('HS202: a crash loop, waiting in CrashLoopBackOff or running between crashes', () => {
    const c: Case = { pods: [...oldPods(), crashLooping(newPod())], events: [backOff], haptic: {} };
    expect(ids(c)).toEqual(['HS202']);
    const f = only(c, 'HS202');
    expect(f.title).toBe('pod web-new-1: container app is crash-looping');
    expect(f.evidence).toEqual([
      'restarts 3; last exit code 1 (Error); waiting CrashLoopBackOff',
      'event BackOff (x5): Back-off restarting failed container app in pod web-new-1_shop(uid-web-new-1)',
    ]);
    expect(f.fix).toBe('kubectl -n shop logs web-new-1 -c app --previous');
    const between = withStatus(crashLooping(newPod()), {
      containerStatuses: [
        {
          name: 'app',
          ready: false,
          started: true,
          restartCount: 2,
          state: { running: { startedAt: at(1) } },
          lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
        },
      ],
    });
    expect(only({ pods: [...oldPods(), between], haptic: {} }, 'HS202').evidence).toEqual([
      'restarts 2; last exit code 137 (OOMKilled); running, not ready',
    ]);
  });

  it.each<[string, Case]>([
    [
      'a container restarted once and is ready now',
      {
        pods: [
          ...oldPods(),
          withStatus(newPod(), {
            containerStatuses: [
              {
                name: 'app',
                ready: true,
                restartCount: 1,
                state: { running: {} },
                lastState: { terminated: { exitCode: 1, reason: 'Error' } },
              },
            ],
          }),
        ],
      },
    ],
    [
      'an old pod crash-loops (it does not hold the rollout)',
      { pods: [crashLooping(pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' })), newPod()] },
    ],
  ])('HS202 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS202'));

  it('HS203: an image that cannot be pulled', () => {
    const c: Case = {
      pods: [...oldPods(), imagePull(newPod())],
      events: [
        podEvent(
          'web-new-1',
          'Failed',
          'Failed to pull image "web:2": rpc error: code = NotFound desc = failed to resolve reference "docker.io/library/web:2": not found',
          { count: 2 },
        ),
      ],
      haptic: {},
    };
    expect(ids(c)).toEqual(['HS203']);
    const f = only(c, 'HS203');
    expect(f.title).toBe('pod web-new-1: image web:2 cannot be pulled');
    expect(f.evidence).toEqual([
      'container app: waiting ImagePullBackOff (Back-off pulling image "web:2": ErrImagePull: rpc error: code = NotFound desc = failed to resolve reference "docker.io/library/web:2": not found)',
      'event Failed (x2): Failed to pull image "web:2": rpc error: code = NotFound desc = failed to resolve reference "docker.io/library/web:2": not found',
    ]);
  });

  it('HS203 does not fire while the container is being created', () => {
    const creating = withStatus(imagePull(newPod()), {
      containerStatuses: [
        { name: 'app', ready: false, restartCount: 0, state: { waiting: { reason: 'ContainerCreating' } } },
      ],
    });
    expect(ids({ pods: [...oldPods(), creating], haptic: {} })).not.toContain('HS203');
  });

  it('HS204: a pod the scheduler cannot place', () => {
    const c: Case = { pods: [...oldPods(), unschedulable(newPod())], events: [failedScheduling], haptic: {} };
    expect(ids(c)).toEqual(['HS204']);
    const f = only(c, 'HS204');
    expect(f.title).toBe('pod web-new-1 cannot be scheduled');
    expect(f.evidence).toEqual([`phase Pending, no node; event FailedScheduling (x1): ${failedScheduling.message}`]);
  });

  it.each<[string, Case]>([
    ['the pod was just created (no FailedScheduling yet)', { pods: [...oldPods(), unschedulable(newPod())] }],
    [
      'the pod has a node by now (an old FailedScheduling event stays)',
      {
        pods: [...oldPods(), withStatus(newPod(), { phase: 'Pending', conditions: notReady(1) })],
        events: [failedScheduling],
      },
    ],
  ])('HS204 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS204'));

  it('HS205: the new ReplicaSet cannot create pods (quota)', () => {
    const c: Case = {
      deployment: quotaRefused(),
      pods: oldPods(),
      events: [replicaSetEvent('web-rs2', 'FailedCreate', `Error creating: ${quotaMessage}`, 3)],
    };
    expect(ids(c)).toEqual(['HS205']);
    const f = only(c, 'HS205');
    expect(f.title).toBe('replicaset/web-rs2 cannot create pods');
    expect(f.evidence).toEqual([
      `condition ReplicaFailure=True reason FailedCreate: ${quotaMessage}`,
      `event FailedCreate (x3): Error creating: ${quotaMessage}`,
    ]);
    expect(f.fix).toBe(
      'raise the ResourceQuota in namespace shop (kubectl -n shop describe resourcequota) or lower the requests of the pods, or maxSurge',
    );
    const webhook = only(
      {
        pods: oldPods(),
        events: [
          replicaSetEvent(
            'web-rs2',
            'FailedCreate',
            'Error creating: admission webhook "policy.example.com" denied the request: no latest tag',
          ),
        ],
      },
      'HS205',
    );
    expect(webhook.evidence).toEqual([
      'event FailedCreate (x1): Error creating: admission webhook "policy.example.com" denied the request: no latest tag',
    ]);
    expect(webhook.fix).toBe('fix what the API server refused (message above)');
  });

  it.each<[string, Case]>([
    [
      'the rollout is complete (an old FailedCreate event stays)',
      {
        deployment: complete(),
        pods: newPodsReady(),
        events: [replicaSetEvent('web-rs2', 'FailedCreate', `Error creating: ${quotaMessage}`)],
      },
    ],
    [
      'the event is about an old ReplicaSet',
      { events: [replicaSetEvent('web-rs1', 'FailedCreate', `Error creating: ${quotaMessage}`)] },
    ],
  ])('HS205 does not fire when %s', (_, c) => expect(ids(c)).not.toContain('HS205'));

  it('HS206: a paused Deployment mid-rollout (a warning; the note says paused)', () => {
    const d = run({
      deployment: deployment({
        paused: true,
        status: { observedGeneration: 2, replicas: 2, updatedReplicas: 0, readyReplicas: 2, availableReplicas: 2 },
      }),
      pods: oldPods(),
    });
    expect(d.findings.map((f) => [f.id, f.severity])).toEqual([
      ['HS206', 'warning'],
      ['HS901', 'info'],
    ]);
    expect(d.stalled).toBe(false);
    expect(d.findings[0]).toMatchObject({
      title: 'deployment web is paused: the rollout does not progress until it is resumed',
      evidence: ['spec.paused: true'],
      fix: 'kubectl -n shop rollout resume deployment/web',
    });
    expect(d.findings[1]).toMatchObject({
      title: 'deployment web is paused, not stalled',
      evidence: ['2 new pods not created yet (maxSurge 1, maxUnavailable 0)'],
    });
  });

  it('HS206 does not fire for a paused Deployment that is rolled out', () => {
    const paused = complete();
    paused.spec.paused = true;
    expect(ids({ deployment: paused, pods: newPodsReady() })).toEqual(['HS902']);
  });

  it('HS207: the progress deadline, after its cause', () => {
    const d = run({
      deployment: deadlineExceeded(),
      pods: [...oldPods(), crashLooping(newPod())],
      events: [backOff],
      haptic: {},
    });
    expect(d.findings.map((f) => f.id)).toEqual(['HS202', 'HS207']);
    expect(d.findings.at(-1)).toMatchObject({
      title: 'deployment web exceeded its progress deadline (600s); the cause is above',
      evidence: [
        'condition Progressing=False reason ProgressDeadlineExceeded: ReplicaSet "web-rs2" has timed out progressing.',
        'the Deployment controller only reports this; the rollout resumes by itself once the cause is fixed',
      ],
    });
    const alone = run({ deployment: deadlineExceeded() });
    expect(alone.findings.map((f) => f.id)).toEqual(['HS207']);
    expect(alone.findings[0]?.title).toBe('deployment web exceeded its progress deadline (600s)');
    expect(alone.stalled).toBe(true);
  });

  it('HS207 does not fire while the Deployment is within its deadline', () => expect(ids({})).not.toContain('HS207'));

  it('HS208: an old pod terminating past its grace period, held by a finalizer or not (a warning)', () => {
    const stuck = pod({
      name: 'web-old-1',
      rs: '1',
      ip: '10.0.0.1',
      terminatingDeadlineIn: -40,
      finalizers: ['example.com/cleanup'],
    });
    const d = run({ deployment: complete(), pods: [stuck, ...newPodsReady()] });
    expect(d.findings.map((f) => [f.id, f.severity])).toEqual([
      ['HS208', 'warning'],
      ['HS902', 'ok'],
    ]);
    expect(d.stalled).toBe(false);
    expect(d.findings[0]).toMatchObject({
      title: 'pod web-old-1 is still terminating 40s past its grace period',
      evidence: ['deletionTimestamp 2026-11-29T11:59:20Z', 'finalizers: example.com/cleanup'],
      fix: 'find the controller that owns the finalizer; as a last resort: kubectl -n shop patch pod web-old-1 --type=merge -p \'{"metadata":{"finalizers":null}}\'',
    });
    expect(d.findings[1]).toMatchObject({ title: 'deployment web is rolled out; 1 old pod still draining' });
    const gone = run({
      deployment: complete(),
      pods: [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: -40 }), ...newPodsReady()],
    }).findings[0]!;
    expect(gone).toMatchObject({
      id: 'HS208',
      evidence: ['deletionTimestamp 2026-11-29T11:59:20Z', 'no finalizers: the node may be unreachable'],
      fix: 'kubectl -n shop delete pod web-old-1 --grace-period=0 --force',
    });
  });

  it("HS208 with --sessions: HAProxy's open sessions to the stuck pod tell a process its node never stopped", () => {
    const stuck = pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: -40 });
    const reading = (pod: string, scur: number): HAProxyReading => ({
      pod: `haptic/${pod}`,
      at: NOW,
      workers: [
        {
          pid: 7,
          leaving: true,
          servers: [
            {
              backend: 'be',
              server: 'web-old-1',
              addr: '10.0.0.1:8080',
              scur,
              qcur: 0,
              status: 'MAINT',
              failed: 0,
              retried: 0,
            },
          ],
        },
      ],
    });
    const stuckWith = (sessions: HAProxyReading[]) =>
      only({ deployment: complete(), pods: [stuck, ...newPodsReady()], haptic: routedEverywhere, sessions }, 'HS208');
    const serving = stuckWith([reading('haptic-haproxy-a', 2), reading('haptic-haproxy-b', 1)]);
    expect(serving).toMatchObject({
      evidence: [
        'deletionTimestamp 2026-11-29T11:59:20Z',
        'no finalizers',
        'HAProxy still holds 3 sessions to it (haptic/haptic-haproxy-a 2, haptic/haptic-haproxy-b 1)',
      ],
      fix: `its process still serves HAProxy past the grace period: node ${stuck.spec.nodeName} never stopped it (kubectl get node ${stuck.spec.nodeName}); kubectl -n shop delete pod web-old-1 --grace-period=0 --force cuts those 3 sessions`,
    });
    // none left: the node may be gone with it, as without sessions read
    const idle = stuckWith([reading('haptic-haproxy-a', 0), reading('haptic-haproxy-b', 0)]);
    expect(idle.evidence).toEqual([
      'deletionTimestamp 2026-11-29T11:59:20Z',
      'no finalizers: the node may be unreachable',
      'HAProxy holds no session to it',
    ]);
    expect(idle.fix).toBe('kubectl -n shop delete pod web-old-1 --grace-period=0 --force');
    // one HAProxy pod unreadable: never "none"
    const partial = stuckWith([
      reading('haptic-haproxy-a', 0),
      { pod: 'haptic/haptic-haproxy-b', at: NOW, workers: [], problem: 'no socat' },
    ]);
    expect(partial.evidence[2]).toBe('HAProxy could not be read on every HAProxy pod');
  });

  it("--sessions reads only the installations that route the rollout: another HTC's HAProxy pods add nothing", () => {
    const stuck = pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: -40 });
    const reading = (pod: string, scur: number): HAProxyReading => ({
      pod,
      at: NOW,
      workers: [
        {
          pid: 7,
          leaving: false,
          servers: [
            { backend: 'be', server: 's1', addr: '10.0.0.1:8080', scur, qcur: 0, status: 'UP', failed: 0, retried: 0 },
          ],
        },
      ],
    });
    const inputs = mergeHapticInputs(
      hapticInputs(routedEverywhere),
      // another tenant's installation, of another Ingress class, whose HAProxy has a server at the same address
      hapticInputs({ namespace: 'tenant-lb', ingressClass: 'internal', servers: [] }),
    );
    const snap = snapshot({ deployment: complete(), pods: [stuck, ...newPodsReady()], haptic: inputs });
    const built = buildRollout(snap, NOW, { gateType: GATE });
    expect(routingInstallations(built).map((i) => i.namespace)).toEqual(['haptic']);
    const readings = [
      reading('haptic/haptic-haproxy-a', 2),
      reading('haptic/haptic-haproxy-b', 1),
      reading('tenant-lb/haptic-haproxy-a', 6),
    ];
    const model = withSessions(built, { readings }, new Map());
    expect(model.oldPods.find((p) => p.name === 'web-old-1')?.sessions).toMatchObject({ sessions: 3, servers: 2 });
    const targets = sessionTargets(built, snap.haptic.pods.items);
    expect(new Set(targets.map((t) => t.namespace))).toEqual(new Set(['haptic']));
    // each is asked for the backends that hold the rollout's servers in its installation's config, nothing else
    const own = new Set([...built.newPods, ...built.oldPods].map((p) => p.name));
    const backends = built.installations
      .find((i) => i.namespace === 'haptic')!
      .config!.servers.filter((s) => own.has(s.pod))
      .map((s) => s.backend);
    expect(backends.length).toBeGreaterThan(0);
    for (const t of targets) expect(t.backends).toEqual([...new Set(backends)]);
    // followers naming the same HAProxy pod: the union of their backends, or every server when one knows none
    const [a] = targets;
    expect(mergeTargets([a!, { ...a!, backends: ['be_x'] }])).toEqual([
      { ...a!, backends: [...new Set(backends), 'be_x'] },
    ]);
    expect(mergeTargets([a!, { ...a!, backends: undefined }, { ...a!, backends: ['be_x'] }])).toEqual([
      { ...a!, backends: undefined },
    ]);
    expect(mergeTargets([{ ...a!, backends: undefined }, a!])).toEqual([{ ...a!, backends: undefined }]);
  });

  it('HS208 does not fire while an old pod is within its grace period', () => {
    expect(
      ids({
        deployment: complete(),
        pods: [
          pod({
            name: 'web-old-1',
            rs: '1',
            ip: '10.0.0.1',
            terminatingDeadlineIn: 12,
            finalizers: ['example.com/cleanup'],
          }),
          ...newPodsReady(),
        ],
      }),
    ).toEqual(['HS902']);
  });

  it('HS208 waits out the seconds a kubelet takes to kill a pod and have it deleted after its deadline', () => {
    const at = (s: number) =>
      ids({
        deployment: complete(),
        pods: [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: s }), ...newPodsReady()],
      });
    expect(at(0)).toEqual(['HS902']);
    expect(at(-14)).toEqual(['HS902']);
    expect(at(-16)).toEqual(['HS208', 'HS902']);
    // the catalogue (and docs/checks.md, made from it) says how long that is
    expect(CATALOGUE.HS208.summary).toContain(`over ${OVERDUE_MS / 1000} s past their grace period`);
  });
});

describe('progress notes (HS9xx): no false alarms', () => {
  it('HS901: a healthy gated rollout caught mid-way says what it waits for', () => {
    const d = run();
    expect(d.stalled).toBe(false);
    expect(d.top).toBeUndefined();
    expect(d.findings).toEqual([
      {
        id: 'HS901',
        severity: 'info',
        title: 'deployment web is progressing, not stalled',
        fix: undefined,
        evidence: [
          'pod web-new-1: HAProxy config routing to it runs on 1/2 HAProxy pods (containers ready 20s ago)',
          '1 new pod not created yet (maxSurge 1, maxUnavailable 0)',
        ],
        docs: 'docs/checks.md#hs901',
      },
    ]);
  });

  it.each<[string, Case, string]>([
    [
      'not rendered yet',
      { haptic: {} },
      'pod web-new-1: waiting for HAPTIC to render a config routing to it (containers ready 20s ago)',
    ],
    [
      'still Pending',
      { pods: [...oldPods(), withStatus(newPod(), { phase: 'Pending', conditions: notReady(1) })] },
      'pod web-new-1: Pending (being scheduled or started)',
    ],
    [
      'containers starting',
      { pods: [...oldPods(), withStatus(newPod(), { conditions: notReady(1) })] },
      'pod web-new-1: containers starting (not ready yet)',
    ],
    [
      'gate just set',
      {
        pods: [
          ...oldPods(),
          withStatus(newPod(), {
            conditions: [
              cond('ContainersReady', 'True', 20),
              cond(GATE, 'True', 0),
              cond('Ready', 'False', 20, {
                reason: 'ReadinessGatesNotReady',
                message: `corresponding condition of pod readiness gate "${GATE}" does not exist.`,
              }),
            ],
          }),
        ],
      },
      'pod web-new-1: Ready soon (gate set)',
    ],
    [
      'gate set but another gate holds the pod',
      {
        pods: [
          ...oldPods(),
          withStatus(withSpec(newPod(), { readinessGates: gates([GATE, 'example.com/other']) }), {
            conditions: [
              cond('ContainersReady', 'True', 20),
              cond(GATE, 'True', 15),
              cond('Ready', 'False', 20, {
                reason: 'ReadinessGatesNotReady',
                message: 'corresponding condition of pod readiness gate "example.com/other" does not exist.',
              }),
            ],
          }),
        ],
      },
      'pod web-new-1: gate set, but Ready=False: corresponding condition of pod readiness gate "example.com/other" does not exist.',
    ],
  ])('HS901 when %s', (_, c, line) => {
    const d = run(c);
    expect(d.findings.map((f) => f.id)).toEqual(['HS901']);
    expect(d.findings[0]?.evidence[0]).toBe(line);
  });

  it('HS902: a complete rollout says so and is not a stall', () => {
    const d = run({ deployment: complete(), pods: newPodsReady() });
    expect(d.stalled).toBe(false);
    expect(d.findings).toEqual([
      {
        id: 'HS902',
        severity: 'ok',
        title: 'deployment web is rolled out',
        evidence: ['deployment "web" successfully rolled out'],
        fix: undefined,
        docs: 'docs/checks.md#hs902',
      },
    ]);
  });
});

describe('rule order and what counts as a stall', () => {
  it.each<[string, Case, string[]]>([
    [
      'crash loop past the deadline: the cause first, the deadline last',
      { deployment: deadlineExceeded(), pods: [...oldPods(), crashLooping(newPod())], events: [backOff], haptic: {} },
      ['HS202', 'HS207'],
    ],
    [
      'ReplicaSet failure before container problems',
      { deployment: quotaRefused(), pods: [...oldPods(), crashLooping(newPod())], events: [backOff], haptic: {} },
      ['HS205', 'HS202'],
    ],
    [
      'routing before HAPTIC itself',
      { slices: [slice([{ pod: 'web-old-1', ip: '10.0.0.1', ready: true }])], haptic: { leaseRenewedSecondsAgo: 40 } },
      ['HS102', 'HS103'],
    ],
    [
      'HAPTIC itself before two installations',
      { inputs: mergeHapticInputs(hapticInputs({ ...midway, refused: true }), second(true)) },
      ['HS107', 'HS109'],
    ],
    [
      'drains after causes, before the deadline',
      {
        deployment: deadlineExceeded(),
        pods: [
          pod({
            name: 'web-old-1',
            rs: '1',
            ip: '10.0.0.1',
            terminatingDeadlineIn: -40,
            finalizers: ['example.com/cleanup'],
          }),
          crashLooping(newPod()),
        ],
        events: [backOff],
        haptic: {},
      },
      ['HS202', 'HS208', 'HS207'],
    ],
  ])('%s', (_, c, order) => {
    const d = run(c);
    expect(d.findings.map((f) => f.id)).toEqual(order);
    expect(d.top?.id).toBe(order[0]);
  });

  it('stalled (exit 1) with any error; warnings and notes alone are not a stall (exit 0), and then a note follows', () => {
    const cases: [Case, boolean][] = [
      [{ haptic: { refused: true } }, true],
      [{ deployment: deadlineExceeded() }, true],
      [{ pods: [...oldPods(), containersReadyFor(newPod(), 45)], haptic: routedEverywhere }, false],
      [{ deployment: deployment({ paused: true }) }, false],
      [{}, false],
    ];
    for (const [c, stalled] of cases) {
      const d = run(c);
      expect(d.stalled).toBe(stalled);
      expect(d.findings.some((f) => f.severity === 'error' || f.severity === 'blocker')).toBe(stalled);
      expect(['HS901', 'HS902'].includes(d.findings.at(-1)!.id)).toBe(!stalled);
      expect(d.top).toEqual(stalled ? d.findings[0] : undefined);
    }
  });
});

describe('the catalogue', () => {
  const dir = join(import.meta.dirname, '../../../src/diagnose');
  const sources = ['progress.ts', ...readdirSync(join(dir, 'rules')).map((f) => `rules/${f}`)].map((f) =>
    readFileSync(join(dir, f), 'utf8'),
  );
  const used = new Set(sources.flatMap((s) => [...s.matchAll(/finding\(\s*'(H[SG]\d{3})'/g)].map((m) => m[1]!)));
  const hs = Object.keys(CATALOGUE).filter((id) => id.startsWith('HS'));

  it('has every id the rules use, and no HS id that no rule produces', () => {
    expect(used.size).toBeGreaterThan(15);
    for (const id of used) expect(Object.keys(CATALOGUE), id).toContain(id);
    expect(
      hs.filter((id) => !used.has(id)),
      'catalogue ids no rule produces',
    ).toEqual([]);
  });

  /** One case per id, where that id fires: the table must name every HS id of the catalogue. */
  const fires: [string, Case][] = [
    ['HS101', { services: [], slices: [], haptic: {} }],
    ['HS102', { slices: [slice([{ pod: 'web-old-1', ip: '10.0.0.1', ready: true }])], haptic: {} }],
    ['HS103', { haptic: { leaseRenewedSecondsAgo: 40 } }],
    ['HS104', { inputs: { ...hapticInputs(), templateConfigs: { items: [] } } }],
    ['HS105', { haptic: { gateFeature: false, servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: true }] } }],
    [
      'HS106',
      {
        haptic: {
          ...midway,
          fleet: [
            { name: 'haptic-haproxy-a', runs: 'current' },
            { name: 'haptic-haproxy-b', runs: 'none' },
          ],
        },
      },
    ],
    ['HS107', { haptic: { refused: true } }],
    [
      'HS108',
      {
        ...withGates(['haproxy-haptic.org/load-balancer-readyy']),
        haptic: { servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: true }] },
      },
    ],
    ['HS109', { inputs: mergeHapticInputs(hapticInputs(midway), second(true)) }],
    ['HS110', { pods: [...oldPods(), containersReadyFor(newPod(), 45)], haptic: routedEverywhere }],
    [
      'HS111',
      {
        haptic: { ...midway, leaderElectionOff: true },
        inputs: withController(hapticInputs({ ...midway, leaderElectionOff: true }), 'Pending'),
      },
    ],
    ['HS112', { inputs: unobserved(hapticInputs(midway)) }],
    ['HS113', { haptic: { ingresses: [] } }],
    ['HS114', { scenario: 'hs114-argo-preview-unrouted' }],
    ['HS115', { haptic: { ingresses: [ingress('web', 'haproxy', 'web', { name: 'http' })] } }],
    ['HS201', { pods: [...oldPods(), probeFailing(newPod())], events: [unhealthy], haptic: {} }],
    ['HS202', { pods: [...oldPods(), crashLooping(newPod())], events: [backOff], haptic: {} }],
    ['HS203', { pods: [...oldPods(), imagePull(newPod())], haptic: {} }],
    ['HS204', { pods: [...oldPods(), unschedulable(newPod())], events: [failedScheduling], haptic: {} }],
    ['HS205', { deployment: quotaRefused(), pods: oldPods() }],
    ['HS206', { deployment: deployment({ paused: true }), pods: oldPods() }],
    ['HS207', { deployment: deadlineExceeded() }],
    [
      'HS209',
      {
        ...withGates([GATE, 'example.com/traffic-ready']),
        pods: [
          ...oldPods(),
          withStatus(withSpec(newPod(), { readinessGates: gates([GATE, 'example.com/traffic-ready']) }), {
            conditions: [cond('ContainersReady', 'True', 60), cond(GATE, 'True', 45), cond('Ready', 'False', 60)],
          }),
        ],
      },
    ],
    ['HS210', { pods: [...oldPods(), withStatus(probeFailing(newPod()), { conditions: notReady(90) })], haptic: {} }],
    [
      'HS208',
      {
        deployment: complete(),
        pods: [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: -40 }), ...newPodsReady()],
      },
    ],
    ['HS211', { scenario: 'hs211-broken-revision' }],
    ['HS212', { scenario: 'hs212-claim-pending' }],
    ['HS213', { scenario: 'hs213-partition' }],
    ['HS214', { scenario: 'hs214-on-delete' }],
    ['HS215', { scenario: 'hs215-argo-paused' }],
    ['HS216', { scenario: 'hs216-argo-aborted' }],
    ['HS901', {}],
    ['HS902', { deployment: complete(), pods: newPodsReady() }],
  ];

  it('every HS id has a case of its own in the table', () => {
    expect(fires.map(([id]) => id).sort()).toEqual([...hs].sort());
  });

  it.each(fires)('%s fires on its case', (id, c) => expect(ids(c)).toContain(id));
});

describe("a StatefulSet's own stalls and holds", () => {
  /** A scenario's StatefulSet snapshot, changed by `edit` (objects are plain copies). */
  const sts = (name: string, edit: (s: ReturnType<typeof snapshotOf>) => void = () => {}) => {
    const snap = snapshotOf(loadScenario(name), 'web');
    edit(snap);
    const ctx = diagnoseContext(snap, buildRollout(snap, NOW, { gateType: GATE }), NOW);
    const d = diagnose(ctx);
    return { stalled: d.stalled, findings: d.findings.map(describeFinding) };
  };
  const set = (s: ReturnType<typeof snapshotOf>) => s.workload as Extract<typeof s.workload, { kind: 'StatefulSet' }>;

  it('HS211 comes before the crash loop it explains, names the pod to delete and that there is no rollback', () => {
    const r = sts('hs211-broken-revision');
    expect(r.findings.map((f) => f.id)).toEqual(['HS211', 'HS202']);
    expect(r.findings[0]).toMatchObject({
      severity: 'error',
      title: expect.stringContaining('waits on pod web-2 of the new revision web-7f5b4'),
      fix: expect.stringContaining('kubectl -n shop rollout undo statefulset/web), then delete the pod'),
    });
  });

  it('HS211 after a rollback: the broken pod is of an older revision now, and only deleting it moves on', () => {
    const r = sts('hs211-broken-revision', (s) => {
      set(s).status = { ...set(s).status, updateRevision: 'web-6c8d9', currentRevision: 'web-6c8d9' };
    });
    expect(r.findings[0]).toMatchObject({
      id: 'HS211',
      title: expect.stringContaining('pod web-2 of the older revision web-7f5b4'),
      fix: 'delete the pod so that it is made again from the update revision: kubectl -n shop delete pod web-2',
    });
  });

  it('HS211 waits on the first pod by ordinal that is not Ready; Parallel and OnDelete do not wait, so no HS211', () => {
    const broken = (s: ReturnType<typeof snapshotOf>) => {
      // web-1 (older revision) crash-loops too: the controller waits on it before web-2
      const web1 = s.pods.find((p) => p.metadata.name === 'web-1')!;
      const web2 = s.pods.find((p) => p.metadata.name === 'web-2')!;
      web1.status = structuredClone(web2.status);
    };
    expect(sts('hs211-broken-revision', broken).findings[0]?.title).toContain('pod web-1 of the older revision');
    const parallel = sts('hs211-broken-revision', (s) => {
      set(s).spec.podManagementPolicy = 'Parallel';
    });
    expect(parallel.findings.map((f) => f.id)).toEqual(['HS202']);
  });

  it('HS212 names the claim and the way out by what the events say; a bound claim is none of its business', () => {
    const pending = sts('hs212-claim-pending');
    expect(pending.findings.map((f) => f.id)).toEqual(['HS212', 'HS204']);
    expect(pending.findings[0]!.fix).toContain('create a PersistentVolume that fits the claim');
    const missingClass = sts('hs212-claim-pending', (s) => {
      const event = s.events.find((e) => e.involvedObject.kind === 'PersistentVolumeClaim')!;
      event.reason = 'ProvisioningFailed';
      event.message = 'storageclass.storage.k8s.io "fast" not found';
      s.claims.find((c) => c.metadata.name === 'data-web-2')!.spec!.storageClassName = 'fast';
    });
    expect(missingClass.findings[0]).toMatchObject({
      id: 'HS212',
      title: 'pod web-2 waits for its claim data-web-2, which is Pending: storageclass.storage.k8s.io "fast" not found',
      fix: expect.stringContaining('create the StorageClass fast'),
    });
    // bound, to a volume in a zone none of the nodes are in: the scheduler's event says so, and that is the way out
    const zoned = sts('hs212-claim-pending', (s) => {
      s.claims.find((c) => c.metadata.name === 'data-web-2')!.status = { phase: 'Bound' };
      const event = s.events.find((e) => e.reason === 'FailedScheduling')!;
      event.message = "0/2 nodes are available: 2 node(s) didn't match PersistentVolume's node affinity.";
    });
    expect(zoned.findings[0]).toMatchObject({
      id: 'HS212',
      title:
        "pod web-2 waits for its claim data-web-2, which is Bound: 0/2 nodes are available: 2 node(s) didn't match PersistentVolume's node affinity.",
      fix: expect.stringContaining('the volume can only be used where no node for the pod is'),
    });
    // a class that binds on the first consumer: the claim waits for the pod, not the other way round
    const delayed = sts('hs212-claim-pending', (s) => {
      const event = s.events.find((e) => e.involvedObject.kind === 'PersistentVolumeClaim')!;
      event.reason = 'WaitForFirstConsumer';
      event.message = 'waiting for first consumer to be created before binding';
      s.claims.find((c) => c.metadata.name === 'data-web-2')!.spec!.storageClassName = 'local';
    });
    expect(delayed.findings.map((f) => f.id)).not.toContain('HS212');
    const bound = sts('hs212-claim-pending', (s) => {
      s.claims.find((c) => c.metadata.name === 'data-web-2')!.status = { phase: 'Bound' };
    });
    expect(bound.findings.map((f) => f.id)).not.toContain('HS212');
  });

  it('HS213 and HS214 are warnings, never a stall; neither fires when no pod is held', () => {
    expect(sts('hs213-partition')).toMatchObject({
      stalled: false,
      findings: [{ id: 'HS213', severity: 'warning' }, { id: 'HS902' }],
    });
    expect(sts('hs214-on-delete')).toMatchObject({
      stalled: false,
      findings: [{ id: 'HS214', severity: 'warning' }, { id: 'HS901' }],
    });
    const lowered = sts('hs213-partition', (s) => {
      set(s).spec.updateStrategy = { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
    });
    expect(lowered.findings.map((f) => f.id)).not.toContain('HS213');
    const replaced = sts('hs214-on-delete', (s) => {
      for (const p of s.pods) p.metadata.labels!['controller-revision-hash'] = 'web-7f5b4';
    });
    expect(replaced.findings.map((f) => f.id)).not.toContain('HS214');
  });
});

describe("an Argo Rollout's own stalls: its preview or canary Service, its pauses, its Degraded verdict", () => {
  type Snap = ReturnType<typeof snapshotOf>;
  /** A scenario's Argo Rollout snapshot, changed by `edit` (objects are plain copies). */
  const argo = (name: string, edit: (s: Snap) => void = () => {}) => {
    const snap = snapshotOf(loadScenario(name), 'web');
    edit(snap);
    const ctx = diagnoseContext(snap, buildRollout(snap, NOW, { gateType: GATE }), NOW);
    const d = diagnose(ctx);
    return { stalled: d.stalled, findings: d.findings.map(describeFinding) };
  };
  const rollout = (s: Snap) => s.workload as Extract<Snap['workload'], { kind: 'Rollout' }>;
  const ids = (r: ReturnType<typeof argo>) => r.findings.map((f) => f.id);

  it('HS114 (preview): the new pod only the preview Service selects, which no route reaches; the fix routes that Service', () => {
    const r = argo('hs114-argo-preview-unrouted');
    expect(r.stalled).toBe(true);
    expect(r.findings[0]).toMatchObject({
      id: 'HS114',
      severity: 'error',
      title: expect.stringContaining('Argo points the preview Service service/web-preview at the new pods'),
      fix: "route the preview Service too: kubectl -n shop create ingress web-preview --class=haproxy --rule='/*=web-preview:80' (HAPTIC sets the gate only on pods its configs route)",
    });
    expect(r.findings[0]!.evidence).toEqual(
      expect.arrayContaining([
        'spec.strategy.blueGreen.previewService: web-preview, which Argo points at the new pods (rollouts-pod-template-hash=74b6f8dc9)',
        'no HAPTIC config has a server for web-new-1',
      ]),
    );
  });

  it('HS114 (canary): the same with a canary Service, said as the step it never goes past', () => {
    const r = argo('hs114-argo-preview-unrouted', (s) => {
      rollout(s).spec.strategy = {
        canary: { canaryService: 'web-preview', stableService: 'web', steps: [{ setWeight: 50 }, { pause: {} }] },
      };
      rollout(s).status!.currentStepIndex = 0;
    });
    expect(r.findings[0]).toMatchObject({
      id: 'HS114',
      title: expect.stringContaining('Argo points the canary Service service/web-preview at the new pods'),
      fix: expect.stringContaining('route the canary Service too'),
    });
    expect(r.findings[0]!.evidence[0]).toBe(
      'spec.strategy.canary.canaryService: web-preview, which Argo points at the new pods (rollouts-pod-template-hash=74b6f8dc9)',
    );
  });

  it('HS114 does not fire once an Ingress HAPTIC renders reaches the preview Service', () => {
    const r = argo('hs114-argo-preview-unrouted', (s) => {
      s.haptic.ingresses.items.push(ingress('web-preview', 'haproxy', 'web-preview'));
    });
    expect(ids(r)).not.toContain('HS114');
  });

  it('HS215 (step): an indefinite pause step, numbered as kubectl argo rollouts get rollout does, with the way on', () => {
    const r = argo('hs215-argo-paused');
    expect(r.stalled).toBe(true);
    expect(r.findings[0]).toMatchObject({
      id: 'HS215',
      severity: 'error',
      title: expect.stringContaining('rollout web is paused at step 1/2'),
      fix: 'kubectl argo rollouts promote web -n shop (or abort it: kubectl argo rollouts abort web -n shop)',
    });
    expect(r.findings[0]!.evidence).toEqual([
      'Argo: Paused - CanaryPauseStep',
      'status.pauseConditions: CanaryPauseStep, since 2026-11-29T11:59:45Z',
      'status.currentStepIndex: 1 (steps[1]: pause)',
    ]);
  });

  it('HS215 does not fire on a timed pause: it ends by itself, and the progress note says when', () => {
    const r = argo('hs215-argo-paused', (s) => {
      rollout(s).spec.strategy!.canary!.steps![1] = { pause: { duration: '1m' } };
    });
    expect(r.stalled).toBe(false);
    expect(ids(r)).toEqual(['HS901']);
    // paused at 11:59:45 for a minute: 45 s to go at NOW
    expect(r.findings[0]!.evidence).toContain('step 1/2: pause: 1m, resumes by itself in 45s');
  });

  it('HS215 (manual): spec.paused, with the resume command', () => {
    const r = argo('hs215-argo-paused', (s) => {
      rollout(s).spec.paused = true;
      rollout(s).status = {
        ...rollout(s).status,
        pauseConditions: null,
        controllerPause: false,
        phase: 'Paused',
        message: 'manually paused',
      };
    });
    expect(r.findings[0]).toMatchObject({
      id: 'HS215',
      title: 'rollout web is paused (spec.paused): it does not progress until it is resumed',
      fix: 'kubectl argo rollouts resume web -n shop',
    });
  });

  it('HS215 (blueGreen): a blue-green without auto-promotion waits to be promoted', () => {
    const r = argo('hs114-argo-preview-unrouted', (s) => {
      // the preview is routed and its pod Ready: all that is left is the promotion
      s.haptic.ingresses.items.push(ingress('web-preview', 'haproxy', 'web-preview'));
      const p = s.pods.find((x) => x.metadata.name === 'web-new-1')!;
      p.status!.conditions = [cond('ContainersReady', 'True', 20), cond(GATE, 'True', 16), cond('Ready', 'True', 16)];
      rollout(s).spec.strategy!.blueGreen!.autoPromotionEnabled = false;
      rollout(s).status = {
        ...rollout(s).status,
        phase: 'Paused',
        message: 'BlueGreenPause',
        controllerPause: true,
        pauseConditions: [{ reason: 'BlueGreenPause', startTime: at(15) }],
      };
    });
    expect(r.findings[0]).toMatchObject({
      id: 'HS215',
      title: expect.stringContaining('rollout web is paused before promotion (autoPromotionEnabled: false)'),
      fix: 'kubectl argo rollouts promote web -n shop',
    });
  });

  it("HS216 (aborted): Degraded in Argo's words, with status.abort; the rollout is stalled", () => {
    const r = argo('hs216-argo-aborted');
    expect(r.stalled).toBe(true);
    expect(ids(r)).toEqual(['HS216']);
    expect(r.findings[0]).toMatchObject({
      title: 'rollout web was aborted: RolloutAborted: Rollout aborted update to revision 2',
      fix: 'fix what the new revision got wrong and apply it, or retry the same one: kubectl argo rollouts retry rollout web -n shop',
      evidence: ['Argo: Degraded - RolloutAborted: Rollout aborted update to revision 2', 'status.abort: true'],
    });
  });

  it('HS216 comes after the cause it reports, when one is found (the canary pod crash-looping still)', () => {
    const r = argo('hs216-argo-aborted', (s) => {
      s.pods.push(crashLooping(newPod()));
      s.pods.at(-1)!.metadata.labels = { app: 'web', 'rollouts-pod-template-hash': '74b6f8dc9' };
      s.events.push(backOff);
    });
    expect(ids(r)).toEqual(['HS202', 'HS216']);
  });

  it.each<[string, (s: Snap) => void, string, string]>([
    [
      'a failed analysis run',
      // rollout/analysis.go: a step's failed run aborts the rollout with its message after Argo's own
      (s) => {
        rollout(s).spec.strategy!.canary!.steps![1] = { analysis: { templates: [{ templateName: 'success-rate' }] } };
        const failed = 'Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)';
        rollout(s).status = {
          ...rollout(s).status,
          message: `RolloutAborted: Rollout aborted update to revision 2: Step-based analysis phase error/failed: ${failed}`,
          canary: { currentStepAnalysisRunStatus: { name: 'web-74b6f8dc9-2-1', status: 'Failed', message: failed } },
        };
      },
      'rollout web was aborted by a failed analysis run web-74b6f8dc9-2-1: RolloutAborted: Rollout aborted update to revision 2: Step-based analysis phase error/failed: Metric "success-rate" assessed Failed due to failed (1) > failureLimit (0)',
      'kubectl -n shop get analysisrun web-74b6f8dc9-2-1 -o yaml (which metric failed); then kubectl argo rollouts retry rollout web -n shop',
    ],
    [
      'the progress deadline',
      (s) => {
        rollout(s).status = {
          ...rollout(s).status,
          abort: false,
          message: 'ProgressDeadlineExceeded: ReplicaSet "web-rs2" has timed out progressing.',
        };
      },
      'rollout web exceeded its progress deadline (600s): ProgressDeadlineExceeded: ReplicaSet "web-rs2" has timed out progressing.',
      'the cause is above, when one was found; kubectl argo rollouts get rollout web -n shop',
    ],
    [
      'an invalid spec',
      (s) => {
        rollout(s).status = {
          ...rollout(s).status,
          abort: false,
          message:
            'InvalidSpec: The Rollout "web" is invalid: spec.strategy.canary.steps[0].setWeight: Invalid value: 150: must be between 0 and 100',
        };
      },
      'rollout web has an invalid spec: InvalidSpec: The Rollout "web" is invalid: spec.strategy.canary.steps[0].setWeight: Invalid value: 150: must be between 0 and 100',
      'fix the Rollout spec as the message says: kubectl -n shop edit rollout web',
    ],
  ])('HS216 for %s', (_, edit, title, fix) => {
    const r = argo('hs216-argo-aborted', edit);
    expect(r.findings.find((f) => f.id === 'HS216')).toMatchObject({ title, fix });
  });
});
