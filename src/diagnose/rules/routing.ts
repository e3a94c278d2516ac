import type { Pod, Service } from '../../types/kube.ts';
import { GATE_CONDITION, HAPTIC_DOMAIN } from '../../haptic/names.ts';
import { formatSelector } from '../../model/selectors.ts';
import { nearMisses } from '../../model/services.ts';
import { blockingPods, podList, rawPod, waitingForGate, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../finding.ts';
import { finding } from '../make.ts';

/** How long the EndpointSlice controller may take to list a new pod before its absence counts. */
const SLICE_LAG_MS = 10_000;

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
    const pod = rawPod(ctx, p.name);
    // The EndpointSlice controller adds a pod a moment after it gets its IP: not listed yet is only a fault once the
    // pod has had ready containers for a while.
    const settled = p.containersReady.since !== undefined && ctx.now - Date.parse(p.containersReady.since) > SLICE_LAG_MS;
    const unlisted = settled ? p.services.filter((s) => !p.endpoints.some((e) => e.service === s)) : [];
    // The EndpointSlice controller lists a pod that lacks every named targetPort of a Service, but in a slice
    // without ports (`ports: null`): HAPTIC has no port to route it to, so it is as good as unlisted.
    const portless = p.services.filter((s) => !unlisted.includes(s) && unresolvedPorts(ctx.services.find((x) => x.metadata.name === s), pod).length > 0);
    if (!unlisted.length && !portless.length) continue;
    const ports = (pod?.spec.containers ?? []).flatMap((c) => (c.ports ?? []).map((port) => `${port.name ?? '-'}:${port.containerPort}`));
    const evidence = [...unlisted, ...portless].map((name) => {
      const svc = ctx.services.find((s) => s.metadata.name === name);
      const head = `service/${name} selector ${formatSelector(svc?.spec.selector)}, ports ${(svc?.spec.ports ?? []).map((sp) => `${sp.port}→${sp.targetPort ?? sp.port}`).join(', ')}`;
      if (unlisted.includes(name)) return `${head}: no endpoint for ${p.name} (${p.ip})${svc?.spec.type === 'ExternalName' ? ' (type ExternalName: the EndpointSlice controller makes no slices for it)' : ''}`;
      const slices = [...new Set(p.endpoints.filter((e) => e.service === name).map((e) => e.slice))].join(', ');
      return `${head}: EndpointSlice ${slices} lists ${p.name} (${p.ip}) without a port, since the pod has no container port named ${unresolvedPorts(svc, pod).map((t) => `"${t}"`).join(' or ')}`;
    });
    evidence.push(`pod container ports: ${ports.join(', ') || 'none'}`);
    const title = unlisted.length
      ? `pod ${p.name} is selected by ${unlisted.join(', ')} but no EndpointSlice lists it`
      : `pod ${p.name} is selected by ${portless.join(', ')} but no EndpointSlice lists it with a port, so HAProxy has nothing to route to`;
    const externalName = unlisted.filter((name) => ctx.services.find((s) => s.metadata.name === name)?.spec.type === 'ExternalName');
    const fix = !unlisted.length
      ? 'make the Service targetPort name or number match a container port of the pod (a named targetPort the pod lacks leaves it without a port)'
      : externalName.length === unlisted.length
        ? `an ExternalName Service never gets endpoints: route the pods through a ClusterIP Service, or remove the gate: kubectl haptic disable-gate ${m.name} -n ${m.namespace}`
        : `kubectl -n ${m.namespace} get endpointslices -l kubernetes.io/service-name=${unlisted[0]} -o yaml (the EndpointSlice controller lists every selected pod with an IP: is it running?)`;
    findings.push({ ...finding('HS102', title, evidence, fix), pod: p.name });
  }
  // A gate type nobody writes: the pod is not "gated" by the known type, so look at every pod that waits with ready containers.
  const stuck = blockingPods(ctx).filter((p) => p.containersReady.status === 'True');
  const gates = new Set(stuck.flatMap((p) => rawPod(ctx, p.name)?.spec.readinessGates ?? []).map((g) => g.conditionType));
  for (const type of gates) {
    if (!type.startsWith(HAPTIC_DOMAIN) || type === GATE_CONDITION) continue;
    const conditionOf = (p: (typeof stuck)[number]) => rawPod(ctx, p.name)?.status?.conditions?.find((c) => c.type === type);
    const lists = (p: (typeof stuck)[number]) => (rawPod(ctx, p.name)?.spec.readinessGates ?? []).some((g) => g.conditionType === type);
    const unset = stuck.filter((p) => lists(p) && conditionOf(p)?.status !== 'True');
    if (!unset.length) continue;
    findings.push(finding('HS108', `readiness gate "${type}" is in HAPTIC's domain but HAPTIC writes "${GATE_CONDITION}"`,
      [`spec.template.spec.readinessGates: ${[...gates].join(', ')}`, unset.some(conditionOf) ? `${podList(unset)}: condition ${type} is not True` : `no pod has a condition of type ${type}`],
      `kubectl haptic disable-gate ${m.name} -n ${m.namespace} --condition-type ${type} && kubectl haptic enable-gate ${m.name} -n ${m.namespace}`));
  }
  return findings;
}

/** Named targetPorts of a Service's ports that no container of the pod declares (numbers always resolve). */
function unresolvedPorts(svc: Service | undefined, pod: Pod | undefined): string[] {
  const names = new Set((pod?.spec.containers ?? []).flatMap((c) => (c.ports ?? []).map((port) => port.name)));
  const ports = svc?.spec.ports ?? [];
  const named = ports.map((sp) => sp.targetPort).filter((t): t is string => typeof t === 'string' && !names.has(t));
  return ports.length > 0 && named.length === ports.length ? named : [];
}

/** Two installations route the same pod: both write the condition. */
export function twoInstallationsRule(ctx: DiagnoseContext): Finding[] {
  const pods = [...ctx.model.newPods, ...ctx.model.oldPods].filter((p) => p.haproxy.length > 1);
  if (!pods.length) return [];
  const installs = [...new Set(pods.flatMap((p) => p.haproxy.map((h) => h.installation)))];
  const gate = pods.find((p) => p.gate.message)?.gate;
  return [finding('HS109', `${installs.length} HAPTIC installations route ${podList(pods)}; they write the same condition and overwrite each other`,
    [...installs.map((i) => `installation ${i} has servers for these pods`), ...(gate ? [`condition ${ctx.model.gateType}: ${gate.status}${gate.message ? ` (${gate.message})` : ''}`] : [])],
    'route the Service through one installation only (restrict the other one\'s watched namespaces or ingress class)')];
}
