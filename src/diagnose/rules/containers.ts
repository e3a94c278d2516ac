import { formatAge } from '../../model/time.ts';
import type { Container, Probe } from '../../types/kube.ts';
import type { PodView } from '../../model/rollout/pod.ts';
import { blockingPods, rawPod, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';

// Generic causes: the gate is innocent when the containers never become ready or the pod never runs.

function lastEvent(p: PodView, reason: string) {
  return p.events.find((e) => e.reason === reason);
}

function describeProbe(probe: Probe | undefined): string {
  if (!probe) return 'no readinessProbe in the pod spec';
  const timing = `period ${probe.periodSeconds ?? 10}s, failureThreshold ${probe.failureThreshold ?? 3}`;
  if (probe.httpGet)
    return `readinessProbe httpGet ${probe.httpGet.scheme ?? 'HTTP'} :${probe.httpGet.port}${probe.httpGet.path ?? '/'} (${timing})`;
  if (probe.tcpSocket) return `readinessProbe tcpSocket :${probe.tcpSocket.port} (${timing})`;
  if (probe.exec) return `readinessProbe exec ${JSON.stringify(probe.exec.command)} (${timing})`;
  return `readinessProbe grpc :${probe.grpc?.port} (${timing})`;
}

/**
 * How long a starting container may fail its readiness probe within its own settings: the startup probe's
 * initialDelaySeconds + periodSeconds × failureThreshold, then the readiness probe's (a container that is not ready
 * after failureThreshold failures past its initial delay has used what its author allowed it).
 */
export function readinessAllowanceMs(c: Container): number {
  const budget = (probe: Probe | undefined) =>
    probe ? (probe.initialDelaySeconds ?? 0) + (probe.periodSeconds ?? 10) * (probe.failureThreshold ?? 3) : 0;
  return (budget(c.startupProbe) + budget(c.readinessProbe)) * 1000;
}

export function containerRules(ctx: DiagnoseContext): Finding[] {
  const found: Finding[] = [];
  const ns = ctx.model.namespace;
  for (const p of blockingPods(ctx)) {
    const findings: Finding[] = [];
    const problem = p.containerProblems[0];
    const reason = problem?.reason ?? '';
    const scheduling = lastEvent(p, 'FailedScheduling');
    if (p.phase === 'Pending' && !p.node && scheduling) {
      findings.push(
        finding('HS204', { pod: p.name }, [
          `phase Pending, no node; event FailedScheduling (x${scheduling.count}): ${scheduling.message}`,
        ]),
      );
    } else if (['ErrImagePull', 'ImagePullBackOff', 'InvalidImageName', 'ErrImageNeverPull'].includes(reason)) {
      const image = rawPod(ctx, p.name)?.spec.containers.find((c) => c.name === problem?.container)?.image;
      const failed = lastEvent(p, 'Failed');
      findings.push(
        finding('HS203', { pod: p.name, image: image ?? '?' }, [
          `container ${problem?.container}: waiting ${reason}${problem?.message ? ` (${problem.message})` : ''}`,
          ...(failed ? [`event Failed (x${failed.count}): ${failed.message}`] : []),
        ]),
      );
    } else if (
      reason === 'CrashLoopBackOff' ||
      (problem?.lastExit && problem.restarts > 0 && p.containersReady.status !== 'True')
    ) {
      const exit = problem?.lastExit;
      const backoff = lastEvent(p, 'BackOff');
      // the kubelet's words when its liveness probe restarts the container (kuberuntime_manager.go)
      const killed = p.events.find((e) => e.reason === 'Killing' && /failed liveness probe/.test(e.message));
      const f = finding(
        'HS202',
        { pod: p.name, container: problem?.container ?? '?', namespace: ns },
        [
          `restarts ${problem?.restarts}; last exit code ${exit?.exitCode ?? '?'}${exit?.reason ? ` (${exit.reason})` : ''}; ${reason === 'NotReady' ? 'running, not ready' : `waiting ${reason}`}`,
          ...(killed ? [`event Killing (x${killed.count}): ${killed.message}`] : []),
          ...(backoff ? [`event BackOff (x${backoff.count}): ${backoff.message}`] : []),
        ],
        { variant: killed ? 'liveness' : 'exits' },
      );
      findings.push({ ...f, restarts: problem?.restarts ?? 0 });
    } else if (p.containersReady.status !== 'True' && p.phase === 'Running') {
      const unhealthy = p.events.find((e) => e.reason === 'Unhealthy' && /readiness probe/i.test(e.message));
      if (!unhealthy) continue;
      const container =
        rawPod(ctx, p.name)?.spec.containers.find((c) => c.name === problem?.container) ??
        rawPod(ctx, p.name)?.spec.containers[0];
      const since = p.containersReady.forMs !== undefined ? ` for ${formatAge(p.containersReady.forMs)}` : '';
      const f = finding('HS201', { pod: p.name, namespace: ns, container: container?.name ?? '?' }, [
        `ContainersReady False${since}`,
        `container ${container?.name}: ${describeProbe(container?.readinessProbe)}`,
        `event Unhealthy (x${unhealthy.count}): ${unhealthy.message}`,
      ]);
      // a container may fail its readiness probe for as long as its probes allow before that is a stall to end on
      const allowanceMs = container ? readinessAllowanceMs(container) : 0;
      findings.push({ ...f, withinMs: Math.max(0, allowanceMs - (p.containersReady.forMs ?? 0)) });
    }
    found.push(...findings.map((f) => ({ ...f, pod: p.name })));
  }
  return found;
}
