// The doctor's checks that concern the gate, for enable-gate's preflight: run on the pod template as it will be
// once the gate is added, shown as warnings — they say what the gate will not fix, and must not block the write.
// Only those enable-gate does not already make itself: DR601 is its HG101, DR602 its HG102/HG104, DR603 its
// HG111/HG112 (the same code, see rollout.ts), so what is left is DR103 (no readinessProbe: the gate then waits for
// HAProxy only) and DR501 (publishNotReadyAddresses: clients get the pods before the gate).
import type { Deployment, RolloutTarget, Service, StatefulSet, Workload } from '../../types/kube.ts';
import { GATE_CONDITION } from '../../haptic/names.ts';
import type { Finding } from '../../types/finding.ts';
import { workloadFacts, type DoctorEnv } from './context.ts';
import { endpointRules } from './endpoints.ts';
import { probeRules } from './probes.ts';

export const GATE_WARNING_IDS = ['DR103', 'DR501'];

export function gateWarnings(deployment: RolloutTarget, services: Service[]): Finding[] {
  const spec = deployment.spec.template.spec;
  const gates = spec.readinessGates ?? [];
  const gated = {
    ...deployment,
    spec: {
      ...deployment.spec,
      template: {
        ...deployment.spec.template,
        spec: {
          ...spec,
          readinessGates: gates.some((g) => g.conditionType === GATE_CONDITION)
            ? gates
            : [...gates, { conditionType: GATE_CONDITION }],
        },
      },
    },
  } as unknown as Workload;
  const env: DoctorEnv = {
    inputs: {
      mode: 'live',
      targets: [gated],
      deployments: deployment.kind === 'Deployment' ? [gated as unknown as Deployment] : [],
      statefulSets: deployment.kind === 'StatefulSet' ? [gated as unknown as StatefulSet] : [],
      services,
      slices: [],
      pdbs: [],
      hpas: [],
      configMaps: [],
      events: [],
      pods: [],
      sources: {},
      notes: [],
    },
    // none of the rules run here reads the clock or the namespaces' names
    now: 0,
    namespaces: new Set(),
    notes: [],
  };
  const facts = workloadFacts(gated, env);
  return (
    [...probeRules(facts), ...endpointRules(facts, env)]
      .filter((f) => GATE_WARNING_IDS.includes(f.id))
      // a preflight warning, whatever the doctor's severity: the words and the id stay the doctor's
      .map(({ object: _object, ...f }) => ({ ...f, severity: 'warning' as const }))
  );
}
