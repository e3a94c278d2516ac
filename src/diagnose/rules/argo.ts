import { routeCheck } from '../checks/routes.ts';
import { podList, waitingForGate, type DiagnoseContext } from '../context.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';

// What an Argo Rollout's controller does that holds its pods (github.com/argoproj/argo-rollouts v1.10): the Service
// it points at the new pods alone, its pauses, and its Degraded verdict. Each reads the model's `argo` view, which
// only an Argo Rollout has.

/**
 * HS114: the new pods wait for the gate, Argo selects them with a Service of its own (the preview, the canary
 * Service) and no route HAPTIC renders reaches any Service that selects them: no server for them in any live config,
 * and the routes say none will come. The old pods' servers (through the active Service) prove nothing for them.
 */
export function argoServiceRule(ctx: DiagnoseContext): Finding[] {
  const m = ctx.model;
  if (!m.argo || !m.routing.conclusive) return [];
  const { preview, canary } = m.argo.services;
  const own = [
    ...(preview ? [{ role: 'preview', service: preview, field: 'spec.strategy.blueGreen.previewService' }] : []),
    ...(canary ? [{ role: 'canary', service: canary, field: 'spec.strategy.canary.canaryService' }] : []),
  ];
  const unrouted = waitingForGate(ctx).filter(
    (p) =>
      p.haproxy.length === 0 &&
      own.some((o) => p.services.includes(o.service)) &&
      m.routing.services.filter((s) => p.services.includes(s.service)).every((s) => !s.routed),
  );
  if (!unrouted.length) return [];
  const selecting = unrouted[0]!.services;
  const first = own.find((o) => selecting.includes(o.service))!;
  const services = ctx.services.filter((s) => selecting.includes(s.metadata.name));
  // the routes decide: the servers the live config has are the promoted pods'
  const check = routeCheck({ ...m.routing, rendered: undefined }, services, m.installations);
  const service = ctx.services.find((s) => s.metadata.name === first.service);
  return [
    finding(
      'HS114',
      {
        ...check.fixArgs,
        name: m.name,
        namespace: m.namespace,
        service: first.service,
        port: String(service?.spec.ports?.[0]?.port ?? check.fixArgs.port),
        role: first.role,
        pods: podList(unrouted),
        gateType: m.gateType,
      },
      [
        `${first.field}: ${first.service}, which Argo points at the new pods (rollouts-pod-template-hash=${m.argo.currentPodHash ?? '?'})`,
        `no HAPTIC config has a server for ${podList(unrouted)}`,
        ...check.evidence,
      ],
      { variant: first.role },
    ),
  ];
}

/**
 * HS215: paused until a person acts (rollout/pause.go, the pause conditions): an indefinite pause step, a
 * blue-green without auto-promotion, an inconclusive analysis, spec.paused. A timed pause ends by itself, and an
 * auto-promoted blue-green by its autoPromotionSeconds: those are progress (progress.ts), not a stall.
 */
export function argoPauseRule(ctx: DiagnoseContext): Finding[] {
  const m = ctx.model;
  const a = m.argo;
  if (!a?.pause || a.pause.endsAt || m.phase === 'complete' || m.phase === 'failed') return [];
  const at = { name: m.name, namespace: m.namespace };
  const since = a.pause.since ? `, since ${a.pause.since}` : '';
  const evidence = [`Argo: ${m.message}`, `status.pauseConditions: ${a.pause.reason}${since}`];
  if (a.pause.manual) return [finding('HS215', at, ['spec.paused: true', `Argo: ${m.message}`], { variant: 'manual' })];
  if (a.pause.reason === 'CanaryPauseStep' && a.step)
    return [
      finding(
        'HS215',
        // numbered as `kubectl argo rollouts get rollout` does: the steps done, of all
        { ...at, step: `${a.step.index}/${a.step.count}`, stepText: a.step.text ?? '?' },
        [...evidence, `status.currentStepIndex: ${a.step.index} (steps[${a.step.index}]: ${a.step.text ?? '?'})`],
        { variant: 'step' },
      ),
    ];
  if (a.pause.reason === 'BlueGreenPause')
    return [
      finding('HS215', at, [...evidence, 'spec.strategy.blueGreen.autoPromotionEnabled: false'], {
        variant: 'blueGreen',
      }),
    ];
  if (a.pause.reason.startsWith('Inconclusive'))
    return [finding('HS215', { ...at, reason: a.pause.reason }, evidence, { variant: 'inconclusive' })];
  return [];
}

/**
 * HS216, in the deadline's place for an Argo Rollout: Degraded, in Argo's words (utils/conditions: RolloutAborted,
 * ProgressDeadlineExceeded, InvalidSpec), after the cause when one is found.
 */
export function argoDegradedRule(ctx: DiagnoseContext): Finding[] {
  const m = ctx.model;
  const a = m.argo;
  if (!a || m.phase !== 'failed') return [];
  const message = a.message || 'no message';
  const run = a.analysisRun;
  const variant =
    run?.status === 'Failed' || run?.status === 'Error'
      ? 'analysis'
      : /^RolloutAborted/.test(message) || a.aborted
        ? 'aborted'
        : /^ProgressDeadlineExceeded/.test(message)
          ? 'deadline'
          : /^InvalidSpec/.test(message)
            ? 'invalidSpec'
            : 'degraded';
  return [
    finding(
      'HS216',
      { name: m.name, namespace: m.namespace, message, run: run?.name ?? '?', seconds: m.progressDeadlineSeconds },
      [
        `Argo: ${m.message}`,
        ...(a.aborted ? ['status.abort: true'] : []),
        ...(run?.name
          ? [`analysis run ${run.name}: ${run.status ?? '?'}${run.message ? `: ${run.message}` : ''}`]
          : []),
      ],
      { variant },
    ),
  ];
}
