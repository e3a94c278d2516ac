import type { Pod, RolloutTarget, Service } from '../types/kube.ts';
import { GATE_CONDITION } from '../haptic/names.ts';
import type { HapticModel, Installation } from '../model/haptic/haptic.ts';
import { formatSelector, mapSelects, selectorMatches } from '../model/selectors.ts';
import { renderedFor, routedBackends } from '../model/haptic/rendered.ts';
import { servicesSelecting } from '../model/services.ts';
import { resolveStrategy } from '../model/rollout/strategy.ts';
import { statefulSetStrategy } from '../model/rollout/statefulset.ts';
import { daemonSetStrategy } from '../model/rollout/kinds/daemonset.ts';
import { kindOf, podLabelsOf } from '../model/rollout/kinds/index.ts';
import { ROLLOUT_HASH_LABEL } from '../model/rollout/kinds/argo-rollout.ts';
import {
  foreignGateTypes,
  gateFeatureOff,
  installationId,
  leaderProblem,
  leaderUnknown,
  noInstallation,
  renderProblem,
  standaloneControllerDown,
} from './checks/haptic.ts';
import { frozenRenderChecks } from './checks/frozen-render.ts';
import { routeCheck } from './checks/routes.ts';
import { serviceSelection } from './checks/services.ts';
import { routeInstallations, routingFor, routingOf, type RouteLists, type Routing } from '../model/haptic/routes.ts';
import { gateWarnings } from './doctor/gate-warnings.ts';
import { leaderEvidence } from './evidence.ts';
import type { Finding } from '../types/finding.ts';
import { finding } from './make.ts';

export interface PreflightInput {
  workload: RolloutTarget;
  services: Service[];
  haptic: HapticModel;
  /** the cluster's routes (Ingresses, Gateways, HTTP, GRPC, TLS and TCP routes), as read with HAPTIC's objects */
  routes: RouteLists;
  /**
   * pods of the namespace, among them the workload's: a server for one in HAPTIC's live config proves the workload
   * routed whatever the routes say. Undefined when they could not be read (the routes alone then decide).
   */
  pods?: Pod[] | undefined;
  conditionType: string;
}

/**
 * Checks before adding the gate. Blockers refuse the write unless --force; warnings are shown and do not block.
 * The doctor's gate-related errors that no HG check makes already come last, as warnings (doctor/gate-warnings.ts).
 */
export function preflight({
  workload: deployment,
  services,
  haptic,
  routes,
  pods,
  conditionType,
}: PreflightInput): Finding[] {
  const selection = serviceCheck(deployment, services);
  const own = pods?.filter(
    (p) =>
      (p.metadata.namespace ?? '') === (deployment.metadata.namespace ?? '') &&
      selectorMatches(deployment.spec.selector, p.metadata.labels),
  );
  const judged = routingFor(podLabelsOf(deployment), services, routes, routeInstallations(haptic.installations));
  const routing: Routing = {
    ...judged,
    // with no pod to look for, the routes alone decide; a pod's server proves only the Service of its backend routed
    // (routeCheck): an old pod's, in a Service the template no longer matches, proves nothing for the new pods
    rendered: own?.length
      ? renderedFor(
          haptic.installations,
          own.map((p) => ({
            name: p.metadata.name,
            ip: p.status?.podIP,
            services: servicesSelecting(services, p.metadata.labels).map((s) => s.metadata.name),
          })),
          routedBackends(judged.services),
        )
      : undefined,
  };
  const reached =
    selection.id === 'HG100' && haptic.installations.length ? [routesCheck(deployment, services, routing, haptic)] : [];
  return [
    selection,
    ...reached,
    ...(haptic.installations.length ? ownServiceChecks(deployment, services, routes, haptic) : []),
    ...frozenRenderChecks(haptic, services, deployment.metadata.namespace ?? ''),
    ...hapticChecks(haptic),
    ...strategyChecks(deployment, conditionType),
    ...gateWarnings(deployment, services),
  ];
}

/**
 * HG116–HG118: HAPTIC routes a Service that selects the pod template. Its live config's servers for the workload's
 * pods prove it first; a route HAPTIC renders, by its rules, otherwise. HG116 refuses only when neither does.
 */
function routesCheck(deployment: RolloutTarget, services: Service[], routing: Routing, haptic: HapticModel): Finding {
  const selecting = services.filter((s) => routing.services.some((r) => r.service === s.metadata.name));
  const check = routeCheck(routing, selecting, haptic.installations);
  const args = {
    services: selecting.map((s) => `service/${s.metadata.name}`).join(', '),
    namespace: deployment.metadata.namespace ?? '',
    ...check.fixArgs,
  };
  if (check.rendered.length || check.routed.length)
    return finding('HG118', args, [...check.rendered, ...check.routed, ...check.warnings]);
  if (check.unrouted) return finding('HG116', args, check.evidence, { variant: check.nearMiss ? 'nearMiss' : 'none' });
  return finding('HG117', args, check.evidence);
}

/**
 * HG123: the Services a kind's controller points at its new pods alone (an Argo blue-green's preview Service, a
 * canary's canary Service). During a rollout the new pods are selected by those and by the Services that select no
 * pod-template hash, not by the stable ones (active, stable), which keep the promoted pods: when no route HAPTIC
 * renders reaches any of them, HAPTIC never routes the new pods, and Argo, which waits for them to be Ready, never
 * promotes. The routes decide: the live config's servers are for the promoted pods.
 */
function ownServiceChecks(
  workload: RolloutTarget,
  services: Service[],
  routes: RouteLists,
  haptic: HapticModel,
): Finding[] {
  const own = kindOf(workload.kind).ownServices?.(workload);
  if (!own?.newPods.length) return [];
  const labels = workload.spec.template?.metadata?.labels ?? {};
  const withoutHash = (selector: Record<string, string> | undefined) =>
    Object.fromEntries(Object.entries(selector ?? {}).filter(([k]) => k !== ROLLOUT_HASH_LABEL));
  const reaching = services.filter(
    (s) => !own.stable.includes(s.metadata.name) && mapSelects(withoutHash(s.spec.selector), labels),
  );
  const mine = own.newPods.filter((o) => reaching.some((s) => s.metadata.name === o.service));
  if (!mine.length) return [];
  const routing = routingOf(reaching, routes, routeInstallations(haptic.installations));
  const check = routeCheck(routing, reaching, haptic.installations);
  if (!check.unrouted) return [];
  const first = mine[0]!;
  const svc = reaching.find((s) => s.metadata.name === first.service);
  return [
    finding(
      'HG123',
      {
        ...check.fixArgs,
        service: first.service,
        port: String(svc?.spec.ports?.[0]?.port ?? check.fixArgs.port),
        role: first.role,
        namespace: workload.metadata.namespace ?? '',
      },
      [
        `spec.strategy.${first.role === 'preview' ? 'blueGreen.previewService' : 'canary.canaryService'}: ${first.service}`,
        ...check.evidence,
      ],
      { variant: first.role },
    ),
  ];
}

function serviceCheck(deployment: RolloutTarget, services: Service[]): Finding {
  const labels = podLabelsOf(deployment) ?? {};
  const namespace = deployment.metadata.namespace ?? '';
  const { selecting, misses, evidence } = serviceSelection('template', labels, services, namespace);
  if (selecting.length) {
    return finding(
      'HG100',
      { services: selecting.map((s) => s.metadata.name).join(', ') },
      selecting.map((s) => `service/${s.metadata.name} selector ${formatSelector(s.spec.selector)}`),
    );
  }
  return finding('HG101', { namespace }, evidence, { variant: misses.length ? 'nearMiss' : 'none' });
}

function hapticChecks(haptic: HapticModel): Finding[] {
  if (haptic.installations.length === 0) {
    const absent = noInstallation(haptic.unreadable);
    return [finding('HG102', {}, absent.evidence, { variant: absent.variant })];
  }
  const findings: Finding[] = [];
  if (haptic.installations.length > 1) {
    findings.push(finding('HG115', { count: haptic.installations.length }, haptic.installations.map(installationId)));
  }
  for (const inst of haptic.installations) findings.push(...installationChecks(inst));
  return findings;
}

function installationChecks(inst: Installation): Finding[] {
  const installation = installationId(inst);
  const namespace = inst.namespace;
  const findings: Finding[] = [];
  const leader = leaderProblem(inst);
  if (leader)
    findings.push(finding('HG103', { installation, namespace }, leader.evidence, { variant: leader.variant }));
  const down = standaloneControllerDown(inst);
  if (down)
    findings.push(
      finding('HG108', { installation, namespace, pod: down.pod ?? '' }, down.evidence, { variant: down.variant }),
    );
  const render = renderProblem(inst);
  if (render)
    findings.push(
      finding('HG122', { installation, namespace, templateConfig: inst.templateConfig }, render.evidence, {
        variant: render.variant,
      }),
    );
  const unknown = leaderUnknown(inst);
  if (unknown) findings.push(finding('HG107', { installation, namespace }, unknown.evidence));
  const off = gateFeatureOff(inst);
  if (off) findings.push(finding('HG104', { installation }, off.evidence));
  else if (inst.gateFeature.state === 'unknown')
    findings.push(finding('HG105', { installation }, [inst.gateFeature.reason]));
  if (findings.length === 0 || findings.every((f) => f.severity === 'warning')) {
    findings.push(
      finding(
        'HG106',
        { installation, leader: leaderText(inst), gateFeature: gateFeatureText(inst) },
        leaderEvidence(inst),
      ),
    );
  }
  return findings;
}

export function leaderText(inst: Installation): string {
  const l = inst.leader;
  if (l.state === 'disabled') return `leader election off (single controller ${l.holder ?? 'none'})`;
  return l.state === 'held' ? `leader ${l.holder}` : `no leader (lease ${l.state})`;
}

export function gateFeatureText(inst: Installation): string {
  const g = inst.gateFeature;
  switch (g.state) {
    case 'on':
      return `on (${g.proof})`;
    case 'allowed':
      return `allowed by ClusterRole ${g.clusterRoles.join(', ')}`;
    case 'off':
      return 'off';
    case 'unknown':
      return `unknown (${g.reason})`;
  }
}

function strategyChecks(workload: RolloutTarget, conditionType: string): Finding[] {
  const findings: Finding[] = [];
  const at = { namespace: workload.metadata.namespace ?? '', name: workload.metadata.name };
  findings.push(...(KIND_CHECKS[workload.kind] as (w: RolloutTarget, a: typeof at) => Finding[])(workload, at));
  for (const type of foreignGateTypes([
    conditionType,
    ...(workload.spec.template.spec.readinessGates ?? []).map((g) => g.conditionType),
  ])) {
    findings.push(finding('HG114', { type, gate: GATE_CONDITION }, [`readinessGates conditionType: ${type}`]));
  }
  return findings;
}

/** What a Deployment's strategy does to the gate: Recreate stops every pod first, one replica leaves a gap. */
function deploymentChecks(
  deployment: Extract<RolloutTarget, { kind: 'Deployment' }>,
  at: { namespace: string; name: string },
): Finding[] {
  const findings: Finding[] = [];
  const replicas = deployment.spec.replicas ?? 1;
  const strategy = resolveStrategy(deployment);
  if (strategy.type === 'Recreate') {
    findings.push(finding('HG112', {}, ['spec.strategy.type: Recreate']));
  } else if (replicas === 1 && strategy.maxUnavailable >= 1) {
    findings.push(
      finding(
        'HG111',
        at,
        [`spec.replicas: 1, resolved maxSurge: ${strategy.maxSurge}, maxUnavailable: ${strategy.maxUnavailable}`],
        { variant: 'deployment' },
      ),
    );
  }
  if (deployment.spec.paused) findings.push(finding('HG113', at, ['spec.paused: true'], { variant: 'deployment' }));
  return findings;
}

/**
 * What a StatefulSet's own way of rolling does to the gate (kubernetes/pkg/controller/statefulset): it never surges,
 * so one replica means a gap; OnDelete rolls nothing by itself; Parallel scales without waiting; a partition holds
 * the pods below it on their template.
 */
function statefulSetChecks(
  set: Extract<RolloutTarget, { kind: 'StatefulSet' }>,
  at: { namespace: string; name: string },
): Finding[] {
  const findings: Finding[] = [];
  const replicas = set.spec.replicas ?? 1;
  const start = set.spec.ordinals?.start ?? 0;
  const strategy = statefulSetStrategy(set);
  if (strategy.type === 'OnDelete')
    findings.push(
      finding(
        'HG119',
        { ...at, lastPod: `${at.name}-${start + replicas - 1}` },
        [`spec.updateStrategy.type: ${set.spec.updateStrategy?.type}`],
        { variant: 'statefulSet' },
      ),
    );
  else if (replicas === 1)
    findings.push(
      finding('HG111', at, ['spec.replicas: 1, a StatefulSet deletes its pod before it creates the replacement'], {
        variant: 'statefulSet',
      }),
    );
  if (set.spec.podManagementPolicy === 'Parallel')
    findings.push(
      finding('HG120', { ...at, maxUnavailable: strategy.maxUnavailable || 1 }, ['spec.podManagementPolicy: Parallel']),
    );
  const partition = set.spec.updateStrategy?.rollingUpdate?.partition ?? 0;
  if (strategy.type === 'RollingUpdate' && partition > 0) {
    const heldCount = Math.min(partition, replicas);
    const held =
      heldCount === 1 ? `pod ${at.name}-${start}` : `pods ${at.name}-${start} to ${at.name}-${start + heldCount - 1}`;
    findings.push(
      finding('HG121', { ...at, partition, held, s: heldCount === 1 ? 's' : '' }, [
        `spec.updateStrategy.rollingUpdate.partition: ${partition}`,
      ]),
    );
  }
  return findings;
}

/**
 * What a DaemonSet's way of rolling does to the gate (kubernetes/pkg/controller/daemon/update.go): on each node the
 * old pod goes before the new one starts unless maxSurge is set, which leaves a node without a pod, and the
 * workload without any when one node runs it; OnDelete rolls nothing by itself.
 */
function daemonSetChecks(
  set: Extract<RolloutTarget, { kind: 'DaemonSet' }>,
  at: { namespace: string; name: string },
): Finding[] {
  const strategy = daemonSetStrategy(set);
  if (strategy.type === 'OnDelete')
    return [
      finding('HG119', at, [`spec.updateStrategy.type: ${set.spec.updateStrategy?.type}`], { variant: 'daemonSet' }),
    ];
  const nodes = set.status?.desiredNumberScheduled;
  if (nodes === 1 && strategy.maxSurge === 0)
    return [
      finding(
        'HG111',
        at,
        [
          `status.desiredNumberScheduled: 1, resolved maxSurge: ${strategy.maxSurge}, maxUnavailable: ${strategy.maxUnavailable}`,
        ],
        { variant: 'daemonSet' },
      ),
    ];
  return [];
}

/**
 * What an Argo Rollout's way of rolling does to the gate: a canary keeps its stable pods until the canary ones are
 * Ready, a blue-green switches its active Service only once the preview pods are, so neither leaves a gap by
 * itself; what can stop it is its own Services (ownServiceChecks) and a pause.
 */
function rolloutChecks(
  rollout: Extract<RolloutTarget, { kind: 'Rollout' }>,
  at: { namespace: string; name: string },
): Finding[] {
  return rollout.spec.paused ? [finding('HG113', at, ['spec.paused: true'], { variant: 'rollout' })] : [];
}

/** Each kind's own checks of how it rolls. */
const KIND_CHECKS: {
  [K in RolloutTarget['kind']]: (
    w: Extract<RolloutTarget, { kind: K }>,
    at: { namespace: string; name: string },
  ) => Finding[];
} = {
  Deployment: deploymentChecks,
  StatefulSet: statefulSetChecks,
  DaemonSet: daemonSetChecks,
  Rollout: rolloutChecks,
};
