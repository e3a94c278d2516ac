import type { Deployment, Service } from '../types/kube.ts';
import { GATE_CONDITION, HAPTIC_DOMAIN } from '../haptic/names.ts';
import type { HapticModel, Installation } from '../model/haptic.ts';
import { formatSelector } from '../model/selectors.ts';
import { nearMisses, servicesSelecting } from '../model/services.ts';
import { resolveStrategy } from '../model/strategy.ts';
import { leaderEvidence } from './evidence.ts';
import type { Finding } from './finding.ts';
import { finding } from './make.ts';

export interface PreflightInput {
  deployment: Deployment;
  services: Service[];
  haptic: HapticModel;
  conditionType: string;
}

/** Checks before adding the gate. Blockers refuse the write unless --force; warnings are shown and do not block. */
export function preflight({ deployment, services, haptic, conditionType }: PreflightInput): Finding[] {
  return [serviceCheck(deployment, services), ...hapticChecks(haptic), ...strategyChecks(deployment, conditionType)];
}

function serviceCheck(deployment: Deployment, services: Service[]): Finding {
  const labels = deployment.spec.template.metadata?.labels ?? {};
  const selecting = servicesSelecting(services, labels);
  const ns = deployment.metadata.namespace;
  if (selecting.length) {
    return finding('HG100', `Service ${selecting.map((s) => s.metadata.name).join(', ')} selects the pod template`, selecting.map((s) => `service/${s.metadata.name} selector ${formatSelector(s.spec.selector)}`));
  }
  const evidence = [`pod template labels: ${formatSelector(labels)}`];
  const withSelector = services.filter((s) => s.spec.selector && Object.keys(s.spec.selector).length);
  evidence.push(withSelector.length ? `Services in namespace ${ns}: ${withSelector.map((s) => `${s.metadata.name} (${formatSelector(s.spec.selector)})`).join(', ')}` : `namespace ${ns} has no Service with a selector`);
  const misses = nearMisses(services, labels);
  for (const miss of misses) {
    const m = miss.mismatches[0];
    if (m) evidence.push(`service/${miss.service} almost matches: it wants ${m.key}=${m.want}, the template has ${m.have === undefined ? `no ${m.key} label` : `${m.key}=${m.have}`}`);
  }
  return finding('HG101', `No Service in namespace ${ns} selects the pod template; HAPTIC only sets the gate on pods listed in a Service's EndpointSlice, so new pods would never become Ready`, evidence,
    `${misses.length ? 'fix the near-miss selector above, or create' : 'create'} a Service whose selector matches the pod template labels, then run enable-gate again`);
}

function hapticChecks(haptic: HapticModel): Finding[] {
  if (haptic.installations.length === 0) {
    return [finding('HG102', 'No HAPTIC installation found: nothing would set the gate', [haptic.unreadable ?? 'no HAProxyTemplateConfig exists in any namespace'],
      'install HAPTIC with controller.templateLibraries.kubernetesBackends.podReadinessGate.enabled=true')];
  }
  const findings: Finding[] = [];
  if (haptic.installations.length > 1) {
    findings.push(finding('HG115', `${haptic.installations.length} HAPTIC installations: if more than one routes this Service they write the same condition and overwrite each other`,
      haptic.installations.map((i) => `${i.namespace}/${i.templateConfig}`), 'route each gated Service through exactly one installation'));
  }
  for (const inst of haptic.installations) findings.push(...installationChecks(inst));
  return findings;
}

function installationChecks(inst: Installation): Finding[] {
  const where = `${inst.namespace}/${inst.templateConfig}`;
  const findings: Finding[] = [];
  if (inst.leader.state !== 'held' && inst.leader.state !== 'unknown') {
    findings.push(finding('HG103', `HAPTIC installation ${where} has no controller leader: new gated pods would stay NotReady`, leaderEvidence(inst),
      `check the controller: kubectl -n ${inst.namespace} get pods -l app.kubernetes.io/component=controller`));
  }
  const gate = inst.gateFeature;
  if (gate.state === 'off') {
    findings.push(finding('HG104', `HAPTIC installation ${where} cannot set the gate: no ClusterRole bound to its controller allows patch on pods/status`,
      [`ClusterRoles bound to the controller: ${gate.clusterRoles.join(', ') || 'none'}`],
      'helm upgrade with --set controller.templateLibraries.kubernetesBackends.podReadinessGate.enabled=true'));
  } else if (gate.state === 'unknown') {
    findings.push(finding('HG105', `Could not check whether ${where} has the gate feature on`, [gate.reason]));
  }
  if (findings.length === 0 || findings.every((f) => f.severity === 'warning')) {
    findings.push(finding('HG106', `HAPTIC installation ${where}: leader ${inst.leader.holder ?? 'unknown'}, gate feature ${gate.state}`, leaderEvidence(inst)));
  }
  return findings;
}

function strategyChecks(deployment: Deployment, conditionType: string): Finding[] {
  const findings: Finding[] = [];
  const strategy = resolveStrategy(deployment);
  const replicas = deployment.spec.replicas ?? 1;
  if (strategy.type === 'Recreate') {
    findings.push(finding('HG112', 'Strategy Recreate stops every old pod before new ones start; the gate cannot keep an old pod serving', ['spec.strategy.type: Recreate'],
      'use strategy RollingUpdate with maxUnavailable: 0'));
  } else if (replicas === 1 && strategy.maxUnavailable >= 1) {
    findings.push(finding('HG111', 'replicas: 1 with a strategy that takes the only pod down before its replacement is Ready', [`spec.replicas: 1, resolved maxSurge: ${strategy.maxSurge}, maxUnavailable: ${strategy.maxUnavailable}`],
      `kubectl -n ${deployment.metadata.namespace} patch deployment ${deployment.metadata.name} -p '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}'`));
  }
  if (deployment.spec.paused) {
    findings.push(finding('HG113', 'The Deployment is paused: the rollout that adds the gate starts only when it is resumed', ['spec.paused: true'],
      `kubectl -n ${deployment.metadata.namespace} rollout resume deployment/${deployment.metadata.name}`));
  }
  const types = new Set([conditionType, ...(deployment.spec.template.spec.readinessGates ?? []).map((g) => g.conditionType)]);
  for (const type of types) {
    if (type.startsWith(HAPTIC_DOMAIN) && type !== GATE_CONDITION) {
      findings.push(finding('HG114', `Gate type "${type}" is in HAPTIC's domain but is not the condition HAPTIC writes ("${GATE_CONDITION}")`, [`readinessGates conditionType: ${type}`],
        `use --condition-type ${GATE_CONDITION} (the default)`));
    }
  }
  return findings;
}
