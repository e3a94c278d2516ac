import type { Container, Probe } from '../../types/kube.ts';
import { formatAge } from '../../model/time.ts';
import type { PodView } from '../../model/rollout/pod.ts';
import { blockingPods, rawPod, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../../types/finding.ts';
import { finding, workloadArgs } from '../make.ts';

// A pod can stay not Ready for reasons neither HAPTIC nor a failing probe report. These rules name them once the
// wait is longer than the pod's own spec explains, so "progressing" is only said of waits that are still explained.

/** How long another readiness gate may stay unset after HAPTIC's gate before it counts as nobody setting it. */
const OTHER_GATE_GRACE_MS = 30_000;
/** Slack over a probe's budget: the kubelet's probe workers start with a random offset of up to one period. */
const PROBE_SLACK_MS = 10_000;

export function readinessRules(ctx: DiagnoseContext): Finding[] {
  const findings: Finding[] = [];
  const m = ctx.model;
  for (const p of blockingPods(ctx)) {
    const other = otherGateHolding(p);
    if (other) {
      findings.push(
        finding(
          'HS209',
          {
            pod: p.name,
            gateType: m.gateType,
            other: other.type,
            status: other.status,
            age: formatAge(p.containersReady.forMs ?? 0),
            ...workloadArgs(m),
          },
          [
            `readinessGates: ${p.readinessGates.map((g) => `${g.type}=${g.status}`).join(', ')}`,
            `Ready=${p.ready.status}${p.ready.message ? `: ${p.ready.message}` : ''}`,
          ],
          { pod: p.name },
        ),
      );
      continue;
    }
    const slow = containersOverBudget(ctx, p);
    if (slow)
      findings.push(
        finding(
          'HS210',
          {
            pod: p.name,
            namespace: m.namespace,
            age: formatAge(slow.notReadyMs),
            probe: slow.probe,
            budget: `${Math.round(slow.budgetMs / 1000)}s`,
            container: slow.container,
          },
          slow.evidence,
          { pod: p.name },
        ),
      );
  }
  return findings;
}

/** HAPTIC's gate is True and the containers ready, yet another readiness gate is not True, for longer than a grace. */
function otherGateHolding(p: PodView): { type: string; status: string } | undefined {
  if (p.gate.state !== 'True' || p.containersReady.status !== 'True') return undefined;
  if ((p.gate.forMs ?? 0) < OTHER_GATE_GRACE_MS) return undefined;
  return p.readinessGates.find((g) => g.type !== p.gate.type && g.status !== 'True');
}

/**
 * Running containers that are not ready, with no probe failure reported (HS201 names those), for longer than their
 * probes allow: startupProbe initialDelay + period × failureThreshold, then readinessProbe initialDelay + period ×
 * successThreshold + timeout. A container without a readiness probe is ready as soon as it started.
 */
function containersOverBudget(
  ctx: DiagnoseContext,
  p: PodView,
): { container: string; probe: string; budgetMs: number; notReadyMs: number; evidence: string[] } | undefined {
  if (p.phase !== 'Running' || p.containersReady.status !== 'False') return undefined;
  if (p.events.some((e) => e.reason === 'Unhealthy')) return undefined;
  // restarts with a last exit are a crash loop (HS202), not a slow probe
  if (p.containerProblems.some((c) => c.restarts > 0 && c.lastExit)) return undefined;
  const unready = p.containerProblems.filter((c) => c.reason === 'NotReady');
  const notReadyMs = p.containersReady.forMs ?? 0;
  for (const problem of unready) {
    const container = rawPod(ctx, p.name)?.spec.containers.find((c) => c.name === problem.container);
    if (!container) continue;
    const budgetMs = probeBudgetMs(container);
    if (notReadyMs <= budgetMs + PROBE_SLACK_MS) continue;
    const probe = container.readinessProbe
      ? 'readiness probe'
      : container.startupProbe
        ? 'startup probe'
        : 'missing readiness probe';
    return {
      container: container.name,
      probe,
      budgetMs,
      notReadyMs,
      evidence: [
        `ContainersReady False for ${formatAge(notReadyMs)}; container ${container.name} running, not ready, ${problem.restarts} restarts`,
        `container ${container.name}: ${describeProbes(container)}`,
        'no Unhealthy event: the kubelet reported no probe failure',
      ],
    };
  }
  return undefined;
}

function probeBudgetMs(c: Container): number {
  const startup = c.startupProbe
    ? (c.startupProbe.initialDelaySeconds ?? 0) +
      (c.startupProbe.periodSeconds ?? 10) * (c.startupProbe.failureThreshold ?? 3)
    : 0;
  const r = c.readinessProbe;
  const readiness = r
    ? (r.initialDelaySeconds ?? 0) + (r.periodSeconds ?? 10) * (r.successThreshold ?? 1) + (r.timeoutSeconds ?? 1)
    : 0;
  return (startup + readiness) * 1000;
}

function describeProbes(c: Container): string {
  const one = (name: string, p: Probe | undefined) =>
    p
      ? `${name} initialDelaySeconds ${p.initialDelaySeconds ?? 0}, periodSeconds ${p.periodSeconds ?? 10}, failureThreshold ${p.failureThreshold ?? 3}, successThreshold ${p.successThreshold ?? 1}`
      : undefined;
  return (
    [one('startupProbe', c.startupProbe), one('readinessProbe', c.readinessProbe)].filter(Boolean).join('; ') ||
    'no readiness or startup probe'
  );
}
