import { formatAge } from '../model/time.ts';
import type { PodView } from '../model/rollout/pod.ts';
import { blockingPods, type DiagnoseContext } from './context.ts';
import type { Finding } from '../types/finding.ts';
import { finding, workloadArgs } from './make.ts';

/** When no rule found a fault: what a healthy rollout is waiting for, or that it is done. */
export function progressNote(ctx: DiagnoseContext): Finding {
  const m = ctx.model;
  if (m.phase === 'complete') {
    const draining = [...m.oldPods, ...m.newPods].filter((p) => p.terminating);
    return finding(
      'HS902',
      { ...workloadArgs(m), count: draining.length, podNoun: draining.length === 1 ? 'pod' : 'pods' },
      [
        m.message,
        ...draining.map(
          (p) => `pod ${p.name}: terminating, ${formatAge(p.terminating?.graceRemainingMs ?? 0)} of grace left`,
        ),
      ],
      { variant: draining.length ? 'draining' : 'drained' },
    );
  }
  const blocking = blockingPods(ctx);
  const lines = blocking.flatMap((p) => [waitingFor(p), ...olderConfigs(ctx, p)]);
  if (blocking.some((p) => p.containersReady.status === 'True' && p.gate.state !== 'True'))
    lines.push(...leasesGoingStale(ctx));
  const missing = m.counts.desired - m.newPods.filter((p) => !p.terminating).length;
  const plural = missing === 1 ? '' : 's';
  if (m.argo) lines.push(...argoProgress(m, ctx.now));
  else if (missing > 0 && m.strategy.type === 'OnDelete')
    lines.push(`${missing} pod${plural} of an older revision, replaced only when deleted (OnDelete)`);
  else if (missing > 0 && m.statefulSet)
    lines.push(
      `${missing} pod${plural} not of the update revision yet (replaced from the highest ordinal, maxUnavailable ${m.strategy.maxUnavailable} at a time)`,
    );
  else if (missing > 0)
    lines.push(
      `${missing} new pod${plural} not created yet (maxSurge ${m.strategy.maxSurge}, maxUnavailable ${m.strategy.maxUnavailable})`,
    );
  const draining = m.oldPods.filter((p) => p.terminating);
  if (draining.length) lines.push(`${draining.length} old pod${draining.length === 1 ? '' : 's'} terminating`);
  if (!lines.length) lines.push(m.message);
  const state =
    m.strategy.type === 'OnDelete'
      ? 'waiting for its pods to be deleted'
      : m.phase === 'paused'
        ? 'paused'
        : 'progressing';
  return finding('HS901', { ...workloadArgs(m), state }, lines);
}

function waitingFor(p: PodView): string {
  if (p.phase === 'Pending') return `pod ${p.name}: Pending (being scheduled or started)`;
  if (p.containersReady.status !== 'True') return `pod ${p.name}: containers starting (not ready yet)`;
  const started =
    p.containersReady.forMs !== undefined ? ` (containers ready ${formatAge(p.containersReady.forMs)} ago)` : '';
  if (p.gate.state === 'True') {
    // the kubelet marks the pod Ready right after the gate, unless another readiness gate holds it
    const others = p.readinessGates.filter((g) => g.type !== p.gate.type && g.status !== 'True');
    return `pod ${p.name}: ${others.length ? `gate set, but Ready=${p.ready.status}: ${p.ready.message}` : 'Ready soon (gate set)'}`;
  }
  if (p.haproxyUnreadable)
    return `pod ${p.name}: waiting for the gate; whether HAProxy routes to it cannot be told (${p.haproxyUnreadable})${started}`;
  const route = p.haproxy[0];
  if (!route) return `pod ${p.name}: waiting for HAPTIC to render a config routing to it${started}`;
  if (route.disabled) return `pod ${p.name}: HAPTIC's config has its server disabled${started}`;
  // a deploy the agent has not confirmed (a reload queued, a plan rejected) is why it is not counted yet: say so
  const pending = route.pods.filter((h) => !h.settled && h.pending).map((h) => `${h.name}: ${h.pending}`);
  return `pod ${p.name}: HAProxy config routing to it runs on ${route.runningOn}/${route.of} HAProxy pods${started}${pending.length ? `; ${pending.join('; ')}` : ''}`;
}

/**
 * A leader that stopped renewing still leads until its Lease expires (renewTime + leaseDurationSeconds,
 * docs/haptic-compat.md): say when, so a rollout that waits on HAPTIC meanwhile is not a surprise. HAPTIC's leader
 * renews every retry period, 2 s of a 15 s lease or 5 s of a 30 s one (docs/haptic-compat.md, "Leader election"), so
 * a renewal older than a third of the lease means renewals were missed.
 */
function leasesGoingStale(ctx: DiagnoseContext): string[] {
  return ctx.model.installations.flatMap(({ namespace, leader }) => {
    const durationMs = (leader.leaseDurationSeconds ?? 15) * 1000;
    if (leader.state !== 'held' || leader.renewAgeMs === undefined || leader.renewAgeMs <= durationMs / 3) return [];
    return [
      `lease ${namespace}/${leader.lease}: holder ${leader.holder} not renewed for ${formatAge(leader.renewAgeMs)}; unless renewed it expires in ${formatAge(durationMs - leader.renewAgeMs)} (leaseDurationSeconds ${durationMs / 1000}), and then HAPTIC has no leader`,
    ];
  });
}

/**
 * HAProxy pods whose config cannot be read (an older one, neither live nor retained): never counted as routing the
 * pod, and said so, with the checksum they run.
 */
function olderConfigs(ctx: DiagnoseContext, p: PodView): string[] {
  return p.haproxy
    .filter((route) => route.unknown > 0)
    .flatMap((route) => {
      const inst = ctx.model.installations.find((i) => `${i.namespace}/${i.templateConfig}` === route.installation);
      return (inst?.haproxyPods ?? [])
        .filter((h) => h.discovered && h.entry && h.runs.source === 'unknown')
        .map(
          (h) =>
            `HAProxy pod ${h.name} runs an older config (${h.runs.checksum}), cannot tell whether it routes ${p.name}`,
        );
    });
}

/** Where an Argo Rollout's controller stands when nothing holds it: its step, a pause that ends by itself, promotion. */
function argoProgress(m: DiagnoseContext['model'], now: number): string[] {
  const a = m.argo!;
  const lines: string[] = [];
  const endsIn = a.pause?.endsAt ? formatAge(Math.max(0, Date.parse(a.pause.endsAt) - now)) : undefined;
  if (a.step && a.step.index < a.step.count)
    lines.push(
      `step ${a.step.index}/${a.step.count}: ${a.step.text ?? '?'}${endsIn ? `, resumes by itself in ${endsIn}` : ''}`,
    );
  else if (a.pause?.reason === 'BlueGreenPause' && endsIn)
    lines.push(`promotes by itself in ${endsIn} (autoPromotionSeconds)`);
  if (a.strategy === 'blueGreen' && m.phase !== 'complete') {
    const ready = m.newPods.filter((p) => p.ready.status === 'True').length;
    lines.push(
      `preview pods Ready: ${ready}/${m.newPods.length}; Argo points service/${a.services.active ?? '?'} at them once they all are`,
    );
  }
  return lines;
}
