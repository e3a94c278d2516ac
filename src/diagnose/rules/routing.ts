import type { Pod, Service } from '../../types/kube.ts';
import { GATE_CONDITION } from '../../haptic/names.ts';
import { formatSelector } from '../../model/selectors.ts';
import { foreignGateTypes } from '../checks/haptic.ts';
import { routeCheck } from '../checks/routes.ts';
import { serviceSelection } from '../checks/services.ts';
import { blockingPods, podList, rawPod, waitingForGate, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../../types/finding.ts';
import { finding, workloadArgs } from '../make.ts';

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
    const { evidence } = serviceSelection('pod', labels, ctx.services, m.namespace);
    findings.push(
      finding(
        'HS101',
        {
          pods: podList(unselected),
          which: unselected.length === 1 ? 'this gated pod' : 'these gated pods',
          gateType: m.gateType,
          ...workloadArgs(m),
        },
        evidence,
      ),
    );
  }
  // a pod an Argo Rollout's own Service (preview, canary) selects is HS114's, with Argo's fix (rules/argo.ts)
  const argoOwn = [m.argo?.services.preview, m.argo?.services.canary].filter((s): s is string => !!s);
  const unrouted = waiting.filter(
    (p) => p.services.length > 0 && p.notRouted && !p.services.some((s) => argoOwn.includes(s)),
  );
  if (unrouted.length) {
    const services = ctx.services.filter((s) => unrouted[0]!.services.includes(s.metadata.name));
    const check = routeCheck(m.routing, services, m.installations);
    const args = {
      pods: podList(unrouted),
      which: unrouted.length === 1 ? 'this gated pod' : 'these gated pods',
      gateType: m.gateType,
      services: services.map((s) => `service/${s.metadata.name}`).join(', '),
      namespace: m.namespace,
      ...check.fixArgs,
    };
    findings.push(finding('HS113', args, check.evidence, { variant: check.nearMiss ? 'nearMiss' : 'none' }));
  }
  for (const p of waiting.filter((w) => w.services.length > 0 && w.ip)) {
    const pod = rawPod(ctx, p.name);
    // The EndpointSlice controller adds a pod a moment after it gets its IP: not listed yet is only a fault once the
    // pod has had ready containers for a while.
    const settled = (p.containersReady.forMs ?? 0) > SLICE_LAG_MS;
    const unlisted = settled ? p.services.filter((s) => !p.endpoints.some((e) => e.service === s)) : [];
    // The EndpointSlice controller lists a pod that lacks every named targetPort of a Service, but in a slice
    // without ports (`ports: null`): HAPTIC has no port to route it to, so it is as good as unlisted.
    const portless = p.services.filter(
      (s) =>
        !unlisted.includes(s) &&
        unresolvedPorts(
          ctx.services.find((x) => x.metadata.name === s),
          pod,
        ).length > 0,
    );
    if (!unlisted.length && !portless.length) continue;
    const ports = (pod?.spec.containers ?? []).flatMap((c) =>
      (c.ports ?? []).map((port) => `${port.name ?? '-'}:${port.containerPort}`),
    );
    const evidence = [...unlisted, ...portless].map((name) => {
      const svc = ctx.services.find((s) => s.metadata.name === name);
      const head = `service/${name} selector ${formatSelector(svc?.spec.selector)}, ports ${(svc?.spec.ports ?? []).map((sp) => `${sp.port}→${sp.targetPort ?? sp.port}`).join(', ')}`;
      if (unlisted.includes(name))
        return `${head}: no endpoint for ${p.name} (${p.ip})${svc?.spec.type === 'ExternalName' ? ' (type ExternalName: the EndpointSlice controller makes no slices for it)' : ''}`;
      const slices = [...new Set(p.endpoints.filter((e) => e.service === name).map((e) => e.slice))].join(', ');
      return `${head}: EndpointSlice ${slices} lists ${p.name} (${p.ip}) without a port, since the pod has no container port named ${unresolvedPorts(
        svc,
        pod,
      )
        .map((t) => `"${t}"`)
        .join(' or ')}`;
    });
    evidence.push(`pod container ports: ${ports.join(', ') || 'none'}`);
    const externalName = unlisted.filter(
      (name) => ctx.services.find((s) => s.metadata.name === name)?.spec.type === 'ExternalName',
    );
    const variant = !unlisted.length
      ? 'portless'
      : externalName.length === unlisted.length
        ? 'externalName'
        : 'unlisted';
    const args = {
      pod: p.name,
      services: (unlisted.length ? unlisted : portless).join(', '),
      service: unlisted[0] ?? portless[0] ?? '',
      ...workloadArgs(m),
    };
    findings.push(finding('HS102', args, evidence, { variant, pod: p.name }));
  }
  // A gate type nobody writes: the pod is not "gated" by the known type, so look at every pod that waits with ready containers.
  const stuck = blockingPods(ctx).filter((p) => p.containersReady.status === 'True');
  const gates = new Set(stuck.flatMap((p) => p.readinessGates.map((g) => g.type)));
  for (const type of foreignGateTypes(gates)) {
    const statusOf = (p: (typeof stuck)[number]) => p.readinessGates.find((g) => g.type === type)?.status;
    const unset = stuck.filter((p) => statusOf(p) !== undefined && statusOf(p) !== 'True');
    if (!unset.length) continue;
    findings.push(
      finding('HS108', { type, gate: GATE_CONDITION, ...workloadArgs(m) }, [
        `spec.template.spec.readinessGates: ${[...gates].join(', ')}`,
        unset.some((p) => statusOf(p) !== 'missing')
          ? `${podList(unset)}: condition ${type} is not True`
          : `no pod has a condition of type ${type}`,
      ]),
    );
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
  return [
    finding('HS109', { count: installs.length, pods: podList(pods) }, [
      ...installs.map((i) => `installation ${i} has servers for these pods`),
      ...(gate ? [`condition ${ctx.model.gateType}: ${gate.status}${gate.message ? ` (${gate.message})` : ''}`] : []),
    ]),
  ];
}
