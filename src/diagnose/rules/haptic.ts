import { formatAge } from '../../model/time.ts';
import type { Installation } from '../../model/haptic.ts';
import { gateFeatureOff, installationId as id, leaderProblem, noInstallation } from '../checks/haptic.ts';
import { podList, relevantInstallations, waitingForGate, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../finding.ts';
import { finding } from '../make.ts';

/** HAPTIC's side, for pods whose containers are ready and that wait for the gate only. */
export function hapticRules(ctx: DiagnoseContext): Finding[] {
  const waiting = waitingForGate(ctx).filter((p) => p.services.length > 0);
  if (!waiting.length) return [];
  const m = ctx.model;
  if (!m.installations.length) {
    // unreadable but not absent (e.g. forbidden): HAPTIC may well be there; say so instead of "install HAPTIC"
    const absent = noInstallation(m.hapticUnreadable);
    return [finding('HS104', { gateType: m.gateType, pods: podList(waiting), name: m.name, namespace: m.namespace }, absent.evidence, { variant: absent.variant })];
  }
  const findings: Finding[] = [];
  for (const inst of relevantInstallations(ctx, waiting)) {
    const off = gateFeatureOff(inst);
    if (off) findings.push(finding('HS105', { installation: id(inst) }, off.evidence));
    const leader = leaderProblem(inst);
    if (leader) findings.push(finding('HS103', { installation: id(inst), namespace: inst.namespace }, leader.evidence, { variant: leader.variant }));
    const refused = inst.config?.configValidated?.status === 'False' || inst.config?.pinned || inst.validated?.status === 'False';
    if (refused) {
      const c = inst.config;
      findings.push(finding('HS107', { installation: id(inst), namespace: inst.namespace, templateConfig: inst.templateConfig }, [
        ...(c?.configValidated ? [`haproxycfg ${inst.namespace}/${c.name}: ConfigValidated=${c.configValidated.status} reason ${c.configValidated.reason}${c.configValidated.message ? `: ${c.configValidated.message}` : ''}`] : []),
        ...(c?.pinned ? [`haproxycfg ${inst.namespace}/${c.name}: ConfigPinned=True (renders are held)`] : []),
        ...(inst.validated ? [`haproxytemplateconfig ${id(inst)}: Validated=${inst.validated.status} reason ${inst.validated.reason}${inst.validated.message ? `: ${inst.validated.message}` : ''}`] : []),
      ]));
    }
    if (inst.leader.state === 'held' && !refused) findings.push(...deployRules(ctx, inst, waiting));
  }
  return findings;
}

function deployRules(ctx: DiagnoseContext, inst: Installation, waiting: ReturnType<typeof waitingForGate>): Finding[] {
  const live = inst.haproxyPods.filter((p) => p.phase === 'Running');
  const failing = live.filter((p) => !p.current && (p.entry?.lastError || !p.entry));
  if (failing.length) {
    return [finding('HS106', { podNoun: failing.length === 1 ? 'pod' : 'pods', haproxyPods: failing.map((p) => p.name).join(', '), installation: id(inst), pods: podList(waiting), namespace: inst.namespace, haproxyPod: failing[0]!.name },
      failing.map((p) => (p.entry
        ? `${p.name}: runs ${p.entry.checksum ?? 'no checksum'} (live config ${inst.config?.checksum}); lastError: ${p.entry.lastError}; consecutiveErrors ${p.entry.consecutiveErrors ?? '?'}`
        : `${p.name}: no entry in haproxycfg ${inst.namespace}/${inst.config?.name} status.deployedToPods (never deployed to)`)))];
  }
  const settled = waiting.filter((p) => p.haproxy.some((h) => h.installation === id(inst) && !h.disabled && h.runningOn === h.of && h.of > 0));
  const since = (p: (typeof settled)[number]) => p.containersReady.forMs ?? 0;
  const overdue = settled.filter((p) => since(p) > 30_000);
  if (!overdue.length) return [];
  return [finding('HS110', { pods: podList(overdue), installation: id(inst), gateType: ctx.model.gateType, age: formatAge(since(overdue[0]!)), namespace: inst.namespace },
    [`haproxycfg ${inst.namespace}/${inst.config?.name} (${inst.config?.checksum}) runs on ${live.length}/${live.length} HAProxy pods with the server enabled`, `gate feature: ${inst.gateFeature.state}`])];
}
