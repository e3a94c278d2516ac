import { formatAge } from '../../model/time.ts';
import type { Installation } from '../../model/haptic.ts';
import { leaderEvidence } from '../evidence.ts';
import { podList, relevantInstallations, waitingForGate, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../finding.ts';
import { finding } from '../make.ts';

const id = (i: Installation) => `${i.namespace}/${i.templateConfig}`;

/** HAPTIC's side, for pods whose containers are ready and that wait for the gate only. */
export function hapticRules(ctx: DiagnoseContext): Finding[] {
  const waiting = waitingForGate(ctx).filter((p) => p.services.length > 0);
  if (!waiting.length) return [];
  const m = ctx.model;
  if (!m.installations.length) {
    // unreadable but not absent (e.g. forbidden): HAPTIC may well be there; say so instead of "install HAPTIC"
    const unreadable = m.hapticUnreadable && !m.hapticUnreadable.startsWith('HAPTIC is not installed') ? m.hapticUnreadable : undefined;
    if (unreadable) {
      return [finding('HS104', `no HAPTIC installation could be read, so nothing explains why ${m.gateType} is not set on ${podList(waiting)}`, [unreadable],
        'ask for cluster-wide read access to haproxytemplateconfigs and haproxycfgs (haproxy-haptic.org) and to HAPTIC\'s pods and leases, then run why-stalled again')];
    }
    return [finding('HS104', `no HAPTIC installation found, so nothing sets ${m.gateType} on ${podList(waiting)}`, [m.hapticUnreadable ?? 'no HAProxyTemplateConfig exists in any namespace'],
      'install HAPTIC with controller.templateLibraries.kubernetesBackends.podReadinessGate.enabled=true, or remove the gate: kubectl haptic disable-gate ' + m.name + ' -n ' + m.namespace)];
  }
  const findings: Finding[] = [];
  for (const inst of relevantInstallations(ctx, waiting)) {
    if (inst.gateFeature.state === 'off') {
      findings.push(finding('HS105', `HAPTIC ${id(inst)} has the readiness-gate feature off: it may not patch pods/status`, [`ClusterRoles bound to the controller: ${inst.gateFeature.clusterRoles.join(', ') || 'none'}; none allows patch on pods/status`],
        'helm upgrade with --set controller.templateLibraries.kubernetesBackends.podReadinessGate.enabled=true'));
    }
    if (inst.leader.state !== 'held' && inst.leader.state !== 'unknown') {
      const replicas = inst.controllerPods.length;
      findings.push(finding('HS103', `HAPTIC ${id(inst)} has no controller leader, so nothing renders, deploys or sets the gate`, leaderEvidence(inst),
        replicas === 0 ? `kubectl -n ${inst.namespace} scale deployment -l app.kubernetes.io/component=controller --replicas=2` : `kubectl -n ${inst.namespace} logs -l app.kubernetes.io/component=controller --tail=50`));
    }
    const refused = inst.config?.configValidated?.status === 'False' || inst.config?.pinned || inst.validated?.status === 'False';
    if (refused) {
      const c = inst.config;
      findings.push(finding('HS107', `HAProxy refused HAPTIC ${id(inst)}'s rendered configuration; HAProxy pods keep the last accepted one, which does not route the new pods`,
        [
          ...(c?.configValidated ? [`haproxycfg ${inst.namespace}/${c.name}: ConfigValidated=${c.configValidated.status} reason ${c.configValidated.reason}${c.configValidated.message ? `: ${c.configValidated.message}` : ''}`] : []),
          ...(c?.pinned ? [`haproxycfg ${inst.namespace}/${c.name}: ConfigPinned=True (renders are held)`] : []),
          ...(inst.validated ? [`haproxytemplateconfig ${id(inst)}: Validated=${inst.validated.status} reason ${inst.validated.reason}${inst.validated.message ? `: ${inst.validated.message}` : ''}`] : []),
        ],
        `fix the template or the Ingress/annotation that produces the refused line; kubectl -n ${inst.namespace} describe haproxytemplateconfig ${inst.templateConfig}`));
    }
    if (inst.leader.state === 'held' && !refused) findings.push(...deployRules(ctx, inst, waiting));
  }
  return findings;
}

function deployRules(ctx: DiagnoseContext, inst: Installation, waiting: ReturnType<typeof waitingForGate>): Finding[] {
  const live = inst.haproxyPods.filter((p) => p.phase === 'Running');
  const failing = live.filter((p) => !p.current && (p.entry?.lastError || !p.entry));
  if (failing.length) {
    return [finding('HS106', `HAProxy ${failing.length === 1 ? 'pod' : 'pods'} ${failing.map((p) => p.name).join(', ')} did not get HAPTIC ${id(inst)}'s configuration, so ${podList(waiting)} cannot get the gate`,
      failing.map((p) => (p.entry
        ? `${p.name}: runs ${p.entry.checksum ?? 'no checksum'} (live config ${inst.config?.checksum}); lastError: ${p.entry.lastError}; consecutiveErrors ${p.entry.consecutiveErrors ?? '?'}`
        : `${p.name}: no entry in haproxycfg ${inst.namespace}/${inst.config?.name} status.deployedToPods (never deployed to)`)),
      `kubectl -n ${inst.namespace} logs ${failing[0]!.name} -c agent --tail=50`)];
  }
  const settled = waiting.filter((p) => p.haproxy.some((h) => h.installation === id(inst) && !h.disabled && h.runningOn === h.of && h.of > 0));
  const since = (p: (typeof settled)[number]) => (p.containersReady.since ? ctx.now - Date.parse(p.containersReady.since) : 0);
  const overdue = settled.filter((p) => since(p) > 30_000);
  if (!overdue.length) return [];
  return [finding('HS110', `every HAProxy pod routes to ${podList(overdue)}, yet HAPTIC ${id(inst)} has not set ${ctx.model.gateType} (containers ready for ${formatAge(since(overdue[0]!))})`,
    [`haproxycfg ${inst.namespace}/${inst.config?.name} (${inst.config?.checksum}) runs on ${live.length}/${live.length} HAProxy pods with the server enabled`, `gate feature: ${inst.gateFeature.state}`],
    `kubectl -n ${inst.namespace} logs -l app.kubernetes.io/component=controller --tail=100 | grep -i readiness`)];
}
