import { GATE_CONDITION, HAPTIC_DOMAIN } from '../../haptic/names.ts';
import { formatSelector } from '../../model/selectors.ts';
import { nearMisses } from '../../model/services.ts';
import { podList, rawPod, waitingForGate, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../finding.ts';
import { finding } from '../make.ts';

/** Why HAPTIC never sees the pod: no Service selects it, or no EndpointSlice lists it; and gate types nobody writes. */
export function routingRules(ctx: DiagnoseContext): Finding[] {
  const findings: Finding[] = [];
  const m = ctx.model;
  const waiting = waitingForGate(ctx);
  const unselected = waiting.filter((p) => p.services.length === 0);
  if (unselected.length) {
    const labels = rawPod(ctx, unselected[0]!.name)?.metadata.labels ?? {};
    const evidence = [`pod labels: ${formatSelector(labels)}`];
    const listed = ctx.services.map((s) => (s.spec.selector && Object.keys(s.spec.selector).length ? `${s.metadata.name} (${formatSelector(s.spec.selector)})` : `${s.metadata.name} (no selector: its EndpointSlices are managed by hand)`));
    evidence.push(listed.length ? `Services in namespace ${m.namespace}: ${listed.join(', ')}` : `namespace ${m.namespace} has no Services`);
    for (const miss of nearMisses(ctx.services, labels)) {
      const x = miss.mismatches[0]!;
      evidence.push(`service/${miss.service} almost matches: it wants ${x.key}=${x.want}, the pod has ${x.have === undefined ? `no ${x.key} label` : `${x.key}=${x.have}`}`);
    }
    findings.push(finding('HS101', `${podList(unselected)}: no Service selects ${unselected.length === 1 ? 'this gated pod' : 'these gated pods'}, so HAPTIC never sets ${m.gateType}`, evidence,
      'create a Service that selects the pods (or fix the selector above), or remove the gate: kubectl haptic disable-gate ' + m.name + ' -n ' + m.namespace));
  }
  for (const p of waiting.filter((w) => w.services.length > 0 && w.ip)) {
    const missing = p.services.filter((s) => !p.endpoints.some((e) => e.service === s));
    if (!missing.length) continue;
    const pod = rawPod(ctx, p.name);
    const ports = (pod?.spec.containers ?? []).flatMap((c) => (c.ports ?? []).map((port) => `${port.name ?? '-'}:${port.containerPort}`));
    const evidence = missing.map((name) => {
      const svc = ctx.services.find((s) => s.metadata.name === name);
      return `service/${name} selector ${formatSelector(svc?.spec.selector)}, ports ${(svc?.spec.ports ?? []).map((sp) => `${sp.port}→${sp.targetPort ?? sp.port}`).join(', ')}: no endpoint for ${p.name} (${p.ip})`;
    });
    evidence.push(`pod container ports: ${ports.join(', ') || 'none'}`);
    findings.push(finding('HS102', `pod ${p.name} is selected by ${missing.join(', ')} but no EndpointSlice lists it`, evidence,
      'make the Service targetPort name or number match a container port of the pod (a named targetPort the pod lacks leaves it out)'));
  }
  const gates = new Set((rawPod(ctx, waiting[0]?.name ?? '')?.spec.readinessGates ?? []).map((g) => g.conditionType));
  for (const type of gates) {
    if (type.startsWith(HAPTIC_DOMAIN) && type !== GATE_CONDITION) {
      findings.push(finding('HS108', `readiness gate "${type}" is in HAPTIC's domain but HAPTIC writes "${GATE_CONDITION}"`, [`spec.template.spec.readinessGates: ${[...gates].join(', ')}`, `no pod has a condition of type ${type}`],
        `kubectl haptic disable-gate ${m.name} -n ${m.namespace} --condition-type ${type} && kubectl haptic enable-gate ${m.name} -n ${m.namespace}`));
    }
  }
  return findings;
}

/** Two installations route the same pod: both write the condition. */
export function twoInstallationsRule(ctx: DiagnoseContext): Finding[] {
  const pods = [...ctx.model.newPods, ...ctx.model.oldPods].filter((p) => p.haproxy.length > 1);
  if (!pods.length) return [];
  const installs = [...new Set(pods.flatMap((p) => p.haproxy.map((h) => h.installation)))];
  const gate = pods.find((p) => p.gate.message)?.gate;
  return [finding('HS109', `${installs.length} HAPTIC installations route ${podList(pods.slice(0, 3))}${pods.length > 3 ? ` and ${pods.length - 3} more` : ''}; they write the same condition and overwrite each other`,
    [...installs.map((i) => `installation ${i} has servers for these pods`), ...(gate ? [`condition ${ctx.model.gateType}: ${gate.status}${gate.message ? ` (${gate.message})` : ''}`] : [])],
    'route the Service through one installation only (restrict the other one\'s watched namespaces or ingress class)')];
}
