// DR601–DR605: the gate and the rollout strategy. DR601–DR603 are the same checks as enable-gate's HG101,
// HG102/HG104 and HG111/HG112 (shared code in ../checks), run on a Deployment that already has the gate.
import type { Deployment } from '../../types/kube.ts';
import { buildHaptic } from '../../model/haptic/haptic.ts';
import { resolveStrategy } from '../../model/rollout/strategy.ts';
import { GATE_CONDITION } from '../../haptic/names.ts';
import { gateFeatureOff, installationId, noInstallation } from '../checks/haptic.ts';
import { serviceSelection } from '../checks/services.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';
import type { DeploymentFacts, DoctorEnv } from './context.ts';
import { locate, type Located } from './located.ts';

const HPA_MANAGER = 'kube-controller-manager';

/** DR601: gated, and no Service selects the pods. */
function unserved(d: DeploymentFacts): Finding[] {
  if (!d.gated || d.selecting.length) return [];
  const { misses, evidence } = serviceSelection('template', d.labels, d.services, d.namespace);
  return [
    finding('DR601', { name: d.name, gate: GATE_CONDITION, namespace: d.namespace }, evidence, {
      variant: misses.length ? 'nearMiss' : 'none',
    }),
  ];
}

/** DR602 (live): gated, and no HAPTIC installation with the gate feature on. */
function nobodyGates(d: DeploymentFacts, env: DoctorEnv): Finding[] {
  const haptic = env.inputs.haptic;
  if (!d.gated || !haptic) return [];
  const model = buildHaptic(haptic, env.now);
  const args = { name: d.name, gate: GATE_CONDITION, namespace: d.namespace };
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

/** DR603: one replica and a strategy that takes it down first. */
function singleReplicaDown(d: DeploymentFacts): Finding[] {
  if (d.replicas.count !== 1) return [];
  const asRun: Deployment = { ...d.deployment, spec: { ...d.deployment.spec, replicas: 1 } };
  const s = resolveStrategy(asRun);
  const args = { name: d.name, replicas: '1 replica', namespace: d.namespace, maxUnavailable: s.maxUnavailable };
  if (s.type === 'Recreate')
    return [
      finding('DR603', args, [`replicas: ${d.replicas.from}`, 'spec.strategy.type: Recreate'], { variant: 'recreate' }),
    ];
  if (s.maxUnavailable < 1) return [];
  const ru = d.deployment.spec.strategy?.rollingUpdate ?? {};
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
function replicasSetter(d: Deployment): string | undefined {
  for (const m of d.metadata.managedFields ?? []) {
    const spec = m.fieldsV1?.['f:spec'] as Record<string, unknown> | undefined;
    if (spec && 'f:replicas' in spec && !m.subresource && m.manager !== HPA_MANAGER)
      return `field manager ${m.manager ?? '?'} (${m.operation ?? '?'})`;
  }
  return undefined;
}

/** DR605: an HPA scales the Deployment and the manifest sets spec.replicas too. */
function replicasFight(d: DeploymentFacts, env: DoctorEnv): Finding[] {
  const replicas = d.deployment.spec.replicas;
  if (!d.hpa || typeof replicas !== 'number') return [];
  const setter = env.inputs.mode === 'static' ? 'the manifest' : replicasSetter(d.deployment);
  if (!setter) return [];
  return [
    finding('DR605', { hpa: d.hpa.metadata.name, name: d.name, setter, replicas }, [
      `horizontalpodautoscaler/${d.hpa.metadata.name}: scaleTargetRef Deployment ${d.name}, minReplicas ${d.hpa.spec?.minReplicas ?? 1}, maxReplicas ${d.hpa.spec?.maxReplicas ?? '?'}`,
      `spec.replicas: ${replicas}, set by ${setter}`,
    ]),
  ];
}

export function rolloutRules(d: DeploymentFacts, env: DoctorEnv): Located[] {
  const found = [...unserved(d), ...nobodyGates(d, env), ...singleReplicaDown(d)];
  if (d.gated && !(d.deployment.spec.minReadySeconds ?? 0)) {
    found.push(
      finding('DR604', { name: d.name }, [
        `spec.minReadySeconds: ${d.deployment.spec.minReadySeconds ?? 'not set (0)'}`,
        `spec.template.spec.readinessGates: ${GATE_CONDITION}`,
      ]),
    );
  }
  return locate(d.ref, [...found, ...replicasFight(d, env)]);
}
