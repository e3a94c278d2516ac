// DR102 (live): liveness restarts that hit several replicas at once. The kubelet records a Warning `Unhealthy`
// "Liveness probe failed: …" for each failed probe and, once failureThreshold is reached, a Normal `Killing`
// "Container <c> failed liveness probe, will be restarted" (pkg/kubelet/prober/prober.go and
// kuberuntime_manager.go computePodActions). Kills of two pods within one probe window (periodSeconds ×
// failureThreshold) mean the probe failed on something they share.
import type { KubeEvent, Pod } from '../../types/kube.ts';
import { formatAge } from '../../model/time.ts';
import { selectorMatches } from '../../model/selectors.ts';
import { finding } from '../make.ts';
import type { WorkloadFacts, DoctorEnv } from './context.ts';
import { locate, type Located } from './located.ts';
import { probeWindow } from './probes.ts';

const LIVENESS_KILL = /failed liveness probe/;

const eventTimes = (e: KubeEvent) =>
  [e.firstTimestamp, e.lastTimestamp ?? e.eventTime ?? e.series?.lastObservedTime]
    .map((t) => (t ? Date.parse(t) : NaN))
    .filter((t) => !Number.isNaN(t));

/** The largest set of distinct pods with a kill inside one window (the latest such window on a tie), and when. */
function correlated(
  kills: { pod: string; at: number }[],
  windowMs: number,
): { pods: string[]; from: number; to: number } | undefined {
  let best: { pods: string[]; from: number; to: number } | undefined;
  for (const start of kills) {
    const inside = kills.filter((k) => k.at >= start.at && k.at - start.at <= windowMs);
    const pods = [...new Set(inside.map((k) => k.pod))].sort();
    const to = inside.reduce((m, k) => Math.max(m, k.at), -Infinity);
    if (
      pods.length >= 2 &&
      (!best || pods.length > best.pods.length || (pods.length === best.pods.length && to > best.to))
    )
      best = { pods, from: start.at, to };
  }
  return best;
}

export function restartRules(d: WorkloadFacts, env: DoctorEnv): Located[] {
  if (env.inputs.unread?.events) return [];
  const pods = env.inputs.pods.filter(
    (p: Pod) => p.metadata.namespace === d.namespace && selectorMatches(d.workload.spec.selector, p.metadata.labels),
  );
  const names = new Set(pods.map((p) => p.metadata.name));
  const events = env.inputs.events.filter(
    (e) =>
      e.involvedObject?.kind === 'Pod' &&
      names.has(e.involvedObject.name ?? '') &&
      e.metadata.namespace === d.namespace,
  );
  const killings = events.filter((e) => e.reason === 'Killing' && LIVENESS_KILL.test(e.message ?? ''));
  if (!killings.length) return [];
  const container = d.containers.find((v) => v.container.livenessProbe)?.container;
  const windowS = container?.livenessProbe ? probeWindow(container.livenessProbe) : 30;
  const kills = killings.flatMap((e) => eventTimes(e).map((at) => ({ pod: e.involvedObject.name as string, at })));
  const group = correlated(kills, windowS * 1000);
  if (!group) return [];
  const evidence = [
    `liveness probe window: container ${container?.name ?? '?'} periodSeconds ${container?.livenessProbe?.periodSeconds ?? 10} × failureThreshold ${container?.livenessProbe?.failureThreshold ?? 3} = ${windowS}s`,
  ];
  for (const name of group.pods) {
    const pod = pods.find((p) => p.metadata.name === name);
    const restarts = (pod?.status?.containerStatuses ?? []).map(
      (s) =>
        `${s.name} restartCount ${s.restartCount}${s.lastState?.terminated ? ` (last exit ${s.lastState.terminated.exitCode}${s.lastState.terminated.reason ? ` ${s.lastState.terminated.reason}` : ''})` : ''}`,
    );
    evidence.push(`pod ${name}: ${restarts.join(', ') || 'no container statuses'}`);
    for (const reason of ['Unhealthy', 'Killing']) {
      const e = events
        .filter(
          (x) =>
            x.involvedObject.name === name &&
            x.reason === reason &&
            (reason === 'Killing' ? LIVENESS_KILL.test(x.message ?? '') : /^Liveness probe/.test(x.message ?? '')),
        )
        .at(-1);
      const last = e && eventTimes(e).at(-1);
      if (e)
        evidence.push(
          `  event ${reason} (x${e.count ?? 1}${last ? `, last ${formatAge(env.now - last)} ago` : ''}): ${e.message}`,
        );
    }
  }
  evidence.push(
    `kills of ${group.pods.length} pods within ${Math.round((group.to - group.from) / 1000)}s of each other`,
  );
  return locate(d.ref, [
    finding(
      'DR102',
      { count: group.pods.length, name: d.name, workload: d.label, window: windowS, namespace: d.namespace },
      evidence,
    ),
  ]);
}
