// DR601–DR605: the gate and the rollout strategy. DR601–DR603 are the same checks as enable-gate's HG101,
// HG102/HG104 and HG111/HG112 (shared code in ../checks), run on a Deployment that already has the gate.
import type { Deployment, Workload } from '../../types/kube.ts';
import { metricsOnly } from '../../model/doctor/pod-template.ts';
import { buildHaptic } from '../../model/haptic/haptic.ts';
import { resolveStrategy } from '../../model/rollout/strategy.ts';
import { GATE_CONDITION } from '../../haptic/names.ts';
import { gateFeatureOff, installationId, noInstallation } from '../checks/haptic.ts';
import { serviceSelection } from '../checks/services.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';
import type { WorkloadFacts, DoctorEnv } from './context.ts';
import { locate, type Located } from './located.ts';

const HPA_MANAGER = 'kube-controller-manager';

/** DR601: gated, and no Service selects the pods. */
function unserved(d: WorkloadFacts): Finding[] {
  if (!d.gated || d.selecting.length) return [];
  const { misses, evidence } = serviceSelection('template', d.labels, d.services, d.namespace);
  return [
    finding('DR601', { name: d.name, workload: d.label, gate: GATE_CONDITION, namespace: d.namespace }, evidence, {
      variant: misses.length ? 'nearMiss' : 'none',
    }),
  ];
}

/** DR602 (live): gated, and no HAPTIC installation with the gate feature on. */
function nobodyGates(d: WorkloadFacts, env: DoctorEnv): Finding[] {
  const haptic = env.inputs.haptic;
  if (!d.gated || !haptic) return [];
  const model = buildHaptic(haptic, env.now);
  const args = { name: d.name, workload: d.label, gate: GATE_CONDITION, namespace: d.namespace };
  if (!model.installations.length) {
    const absent = noInstallation(model.unreadable);
    if (absent.variant === 'unreadable') {
      env.notes.push(`DR602 not judged for deployment ${d.namespace}/${d.name}: ${model.unreadable}`);
      return [];
    }
    return [finding('DR602', args, absent.evidence, { variant: 'absent' })];
  }
  const off = model.installations.map((i) => ({ i, off: gateFeatureOff(i) }));
  if (off.some((o) => !o.off)) return [];
  const first = off[0] as (typeof off)[number];
  return [
    finding(
      'DR602',
      { ...args, installation: installationId(first.i) },
      off.flatMap((o) => [`HAPTIC ${installationId(o.i)}: ${o.off?.evidence.join('; ')}`]),
      { variant: 'off' },
    ),
  ];
}

/**
 * DR603: one replica and a strategy that takes it down first. A StatefulSet's rolling update always does: its
 * controller deletes a pod and creates the replacement once it is gone (kubernetes/pkg/controller/statefulset,
 * the ordinal's identity cannot run twice), so one replica means no pod at each rollout.
 */
function singleReplicaDown(d: WorkloadFacts): Finding[] {
  if (d.replicas?.count !== 1) return [];
  // a gap matters where clients send requests: a singleton controller behind only a metrics Service has none
  if (!d.containers.some((v) => v.serves.some((p) => !metricsOnly(p)))) return [];
  if (d.kind === 'StatefulSet') {
    const update = d.workload.spec.updateStrategy?.type ?? 'RollingUpdate';
    if (update === 'OnDelete') return [];
    return [
      finding(
        'DR603',
        { name: d.name, workload: d.label, replicas: '1 replica', namespace: d.namespace, maxUnavailable: 1 },
        [`replicas: ${d.replicas.from}`, `spec.updateStrategy.type: ${update}`],
        { variant: 'statefulSet' },
      ),
    ];
  }
  if (d.kind !== 'Deployment') return [];
  const deployment = d.workload as unknown as Deployment;
  const asRun: Deployment = { ...deployment, spec: { ...deployment.spec, replicas: 1 } };
  const s = resolveStrategy(asRun);
  const args = {
    name: d.name,
    workload: d.label,
    replicas: '1 replica',
    namespace: d.namespace,
    maxUnavailable: s.maxUnavailable,
  };
  if (s.type === 'Recreate')
    return [
      finding('DR603', args, [`replicas: ${d.replicas.from}`, 'spec.strategy.type: Recreate'], { variant: 'recreate' }),
    ];
  if (s.maxUnavailable < 1) return [];
  const ru = deployment.spec.strategy?.rollingUpdate ?? {};
  const written = `spec.strategy.rollingUpdate: maxSurge ${ru.maxSurge ?? '25% (default)'}, maxUnavailable ${ru.maxUnavailable ?? '25% (default)'}`;
  return [
    finding(
      'DR603',
      args,
      [
        `replicas: ${d.replicas.from}`,
        written,
        `resolved for 1 replica: maxSurge ${s.maxSurge}, maxUnavailable ${s.maxUnavailable}`,
      ],
      { variant: 'rolling' },
    ),
  ];
}

/** Whether someone other than the HPA's controller set spec.replicas (server-side field management). */
function replicasSetter(d: Workload): string | undefined {
  for (const m of d.metadata.managedFields ?? []) {
    const spec = m.fieldsV1?.['f:spec'] as Record<string, unknown> | undefined;
    if (spec && 'f:replicas' in spec && !m.subresource && m.manager !== HPA_MANAGER)
      return `field manager ${m.manager ?? '?'} (${m.operation ?? '?'})`;
  }
  return undefined;
}

/** DR605: an HPA scales the Deployment and the manifest sets spec.replicas too. */
function replicasFight(d: WorkloadFacts, env: DoctorEnv): Finding[] {
  const replicas = d.workload.spec.replicas;
  if (!d.hpa || typeof replicas !== 'number') return [];
  const setter = env.inputs.mode === 'static' ? 'the manifest' : replicasSetter(d.workload);
  if (!setter) return [];
  return [
    finding('DR605', { hpa: d.hpa.metadata.name, name: d.name, workload: d.label, setter, replicas }, [
      `horizontalpodautoscaler/${d.hpa.metadata.name}: scaleTargetRef Deployment ${d.name}, minReplicas ${d.hpa.spec?.minReplicas ?? 1}, maxReplicas ${d.hpa.spec?.maxReplicas ?? '?'}`,
      `spec.replicas: ${replicas}, set by ${setter}`,
    ]),
  ];
}

/**
 * DR606: a DaemonSet that serves traffic and rolls with no surge (maxSurge 0, the default: each node's pod is
 * deleted before its replacement starts, pkg/controller/daemon/update.go). With a hostPort or hostNetwork a
 * second pod cannot run on the node, so surge is not possible: the node must be drained from the load balancer
 * by its health check instead, which the doctor cannot see; that form is not reported.
 */
function daemonSetNoSurge(d: WorkloadFacts): Finding[] {
  if (d.kind !== 'DaemonSet') return [];
  const update = d.workload.spec.updateStrategy;
  if ((update?.type ?? 'RollingUpdate') !== 'RollingUpdate') return [];
  const serving = d.containers.filter((v) => v.serves.length || v.haproxy);
  if (!serving.length) return [];
  const hostPort =
    (d.spec.hostNetwork ?? false) || serving.some((v) => (v.container.ports ?? []).some((p) => p?.hostPort));
  const surge = update?.rollingUpdate?.maxSurge ?? 0;
  if (hostPort || !(surge === 0 || surge === '0' || surge === '0%')) return [];
  const maxUnavailable = update?.rollingUpdate?.maxUnavailable ?? 1;
  const served = serving.flatMap((v) =>
    v.serves.length
      ? v.serves.map(
          (x) => `service/${x.service} port ${x.port} → container ${v.container.name} port ${x.containerPort}`,
        )
      : [`container ${v.container.name} runs HAProxy`],
  );
  return [
    finding('DR606', { name: d.name, workload: d.label, namespace: d.namespace, maxUnavailable }, [
      `spec.updateStrategy: RollingUpdate, maxSurge ${update?.rollingUpdate?.maxSurge ?? '0 (default)'}, maxUnavailable ${update?.rollingUpdate?.maxUnavailable ?? '1 (default)'}`,
      'no hostPort or hostNetwork: a second pod can run on a node while the first one serves',
      ...served,
    ]),
  ];
}

/**
 * The Services that the routes of the namespace name: an Ingress's backends (its default one too) and an HTTPRoute's
 * backendRefs to a Service of the namespace. From the manifests, or live from the cluster's routes.
 */
function routedServices(env: DoctorEnv, namespace: string): Map<string, string> {
  const i = env.inputs;
  const ingresses = (i.mode === 'static' ? i.ingresses : i.haptic?.ingresses.items) ?? [];
  const httpRoutes = (i.mode === 'static' ? i.httpRoutes : i.haptic?.httpRoutes.items) ?? [];
  const named = new Map<string, string>();
  for (const ing of ingresses) {
    if ((ing.metadata.namespace ?? '') !== namespace) continue;
    const backends = [
      ing.spec?.defaultBackend,
      ...(ing.spec?.rules ?? []).flatMap((r) => (r.http?.paths ?? []).map((p) => p.backend)),
    ];
    for (const b of backends)
      if (b?.service?.name && !named.has(b.service.name)) named.set(b.service.name, `ingress/${ing.metadata.name}`);
  }
  for (const route of httpRoutes)
    for (const ref of (route.spec?.rules ?? []).flatMap((r) => r.backendRefs ?? [])) {
      const service = (ref.group ?? '') === '' && (ref.kind ?? 'Service') === 'Service';
      const where = ref.namespace ?? route.metadata.namespace ?? '';
      if (service && where === namespace && !named.has(ref.name))
        named.set(ref.name, `httproute/${route.metadata.name}`);
    }
  return named;
}

/**
 * DR607: a gated Argo Rollout's own Service for the new pods (preview, canary) is named by no route while its
 * stable one (active, stable) is: Argo points the former at the new pods alone (rollout/service.go), so they are
 * never routed, never gated, and never promoted. Without a route to either, the routes are elsewhere: not judged.
 */
function argoServiceUnrouted(d: WorkloadFacts, env: DoctorEnv): Finding[] {
  // only an Argo Rollout's strategy has a blueGreen or a canary
  if (!d.gated) return [];
  const strategy = d.workload.spec.strategy as
    | {
        canary?: { canaryService?: string; stableService?: string };
        blueGreen?: { activeService?: string; previewService?: string };
      }
    | undefined;
  const own = strategy?.blueGreen?.previewService
    ? { role: 'preview', service: strategy.blueGreen.previewService, field: 'spec.strategy.blueGreen.previewService' }
    : strategy?.canary?.canaryService
      ? { role: 'canary', service: strategy.canary.canaryService, field: 'spec.strategy.canary.canaryService' }
      : undefined;
  const stable = strategy?.blueGreen?.activeService ?? strategy?.canary?.stableService;
  if (!own || !stable) return [];
  const named = routedServices(env, d.namespace);
  const stableRoute = named.get(stable);
  if (named.has(own.service) || !stableRoute) return [];
  const where = env.inputs.mode === 'static' ? 'in the manifests' : `in namespace ${d.namespace}`;
  return [
    finding(
      'DR607',
      {
        workload: d.label,
        name: d.name,
        namespace: d.namespace,
        role: own.role,
        service: own.service,
        stable: `service ${stable}`,
      },
      [
        `${own.field}: ${own.service}`,
        `${stableRoute} routes service ${stable}`,
        `no Ingress or HTTPRoute ${where} names service ${own.service}`,
      ],
    ),
  ];
}

export function rolloutRules(d: WorkloadFacts, env: DoctorEnv): Located[] {
  const found = [
    ...unserved(d),
    ...nobodyGates(d, env),
    ...singleReplicaDown(d),
    ...daemonSetNoSurge(d),
    ...argoServiceUnrouted(d, env),
  ];
  if (d.gated && !(d.workload.spec.minReadySeconds ?? 0)) {
    found.push(
      finding('DR604', { name: d.name, workload: d.label }, [
        `spec.minReadySeconds: ${d.workload.spec.minReadySeconds ?? 'not set (0)'}`,
        `spec.template.spec.readinessGates: ${GATE_CONDITION}`,
      ]),
    );
  }
  return locate(d.ref, [...found, ...replicasFight(d, env)]);
}
