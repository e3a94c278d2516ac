import { formatAge } from '../../model/time.ts';
import {
  configAge,
  frozenSince,
  missLines,
  portNameFailures,
  routesWorkload,
  unjudgedLines,
  unrendered,
} from '../checks/frozen-render.ts';
import type { HAProxyPodInfo, Installation } from '../../model/haptic/haptic.ts';
import {
  gateFeatureOff,
  installationId as id,
  leaderProblem,
  noInstallation,
  renderProblem,
  standaloneControllerDown,
} from '../checks/haptic.ts';
import { podList, relevantInstallations, waitingForGate, type DiagnoseContext } from '../context.ts';
import type { PodView } from '../../model/rollout/pod.ts';
import type { Finding } from '../../types/finding.ts';
import { finding, workloadArgs } from '../make.ts';

/** How long a new HAProxy pod may run without a deploy status before its missing entry counts as a failure. */
const FIRST_DEPLOY_GRACE_MS = 20_000;

/** HAPTIC's side, for pods whose containers are ready and that wait for the gate only. */
export function hapticRules(ctx: DiagnoseContext): Finding[] {
  const waiting = waitingForGate(ctx).filter((p) => p.services.length > 0);
  if (!waiting.length) return [];
  const m = ctx.model;
  if (!m.installations.length) {
    // unreadable but not absent (e.g. forbidden): HAPTIC may well be there; say so instead of "install HAPTIC"
    const absent = noInstallation(m.hapticUnreadable);
    return [
      finding('HS104', { gateType: m.gateType, pods: podList(waiting), ...workloadArgs(m) }, absent.evidence, {
        variant: absent.variant,
      }),
    ];
  }
  const findings: Finding[] = [];
  for (const inst of relevantInstallations(ctx, waiting)) {
    const installation = id(inst);
    const namespace = inst.namespace;
    const off = gateFeatureOff(inst);
    if (off)
      findings.push(
        finding('HS105', { installation, gateType: m.gateType, ...workloadArgs(m) }, off.evidence, {
          variant: off.variant,
        }),
      );
    const leader = leaderProblem(inst);
    if (leader)
      findings.push(finding('HS103', { installation, namespace }, leader.evidence, { variant: leader.variant }));
    const down = standaloneControllerDown(inst);
    if (down)
      findings.push(
        finding('HS111', { installation, namespace, pod: down.pod ?? '' }, down.evidence, { variant: down.variant }),
      );
    const leads = inst.leader.state === 'held' || (inst.leader.state === 'disabled' && !down);
    const render = renderProblem(inst);
    if (leads && !render?.blocking) findings.push(...frozenRenderRule(ctx, inst, waiting));
    const problem = () =>
      finding('HS107', { installation, namespace, templateConfig: inst.templateConfig }, render!.evidence, {
        variant: render!.variant,
      });
    if (render?.blocking) findings.push(problem());
    const lag = inst.unobservedGeneration;
    if (lag)
      findings.push(
        finding('HS112', { installation, namespace, generation: lag.generation, observed: lag.observedGeneration }, [
          `haproxytemplateconfig ${installation}: metadata.generation ${lag.generation}, status.observedGeneration ${lag.observedGeneration}`,
        ]),
      );
    if (leads && !render?.blocking) findings.push(...deployRules(ctx, inst, waiting));
    // a refused edit, or new controller pods refusing the config, holds nothing back: said after what does
    if (render && !render.blocking) findings.push(problem());
  }
  return findings;
}

/**
 * HS115: nothing renders, and HAPTIC writes nothing about it (checks/frozen-render.ts): a route of this installation
 * names a port name its Service lacks, or its live config has stayed as it was since before the waiting pods existed.
 * Only for pods a route of this installation reaches that it has no server for.
 */
function frozenRenderRule(ctx: DiagnoseContext, inst: Installation, waiting: PodView[]): Finding[] {
  const m = ctx.model;
  if (!routesWorkload(inst, m.routing)) return [];
  const pods = unrendered(inst, waiting);
  if (!pods.length) return [];
  const installation = id(inst);
  const names = portNameFailures(inst, ctx.services, m.namespace);
  const age = configAge(inst, pods, ctx.now);
  const first = names?.misses[0];
  if (first)
    return [
      finding(
        'HS115',
        {
          installation,
          route: first.route,
          routeResource: first.resource,
          port: first.port,
          service: first.service,
          serviceNamespace: first.namespace,
          pods: podList(pods),
          namespace: inst.namespace,
        },
        [...missLines(inst, names.misses), ...age.lines],
        { variant: 'portName' },
      ),
    ];
  const frozen = frozenSince(inst, pods, ctx.now);
  if (!frozen.length) return [];
  return [
    finding(
      'HS115',
      { installation, pods: podList(frozen), namespace: inst.namespace },
      [
        ...configAge(inst, frozen, ctx.now).lines,
        `the template config says ${inst.validated ? `Validated=${inst.validated.status}${inst.validated.reason ? ` ${inst.validated.reason}` : ''}` : 'nothing'}: HAPTIC's status updater does not hear of a render that fails`,
        ...(names ? unjudgedLines(names) : []),
      ],
      { variant: 'unexplained' },
    ),
  ];
}

/** Everything HAPTIC wrote about one HAProxy pod's deploys, as one evidence line. */
export function deployEvidence(inst: Installation, p: HAProxyPodInfo): string {
  const cfg = `haproxycfg ${inst.namespace}/${inst.config?.name}`;
  if (!p.entry && p.staleEntry) {
    return `${p.name}: no deploy status of this pod in ${cfg}: the deployedToPods entry under its name is of an earlier pod (podUID ${p.staleEntry.podUID}, this pod is ${p.uid})`;
  }
  if (!p.entry) return `${p.name}: no entry in ${cfg} status.deployedToPods (never deployed to)`;
  const e = p.entry;
  // an entry with lastError names the config a deploy tried, not one the pod runs
  const parts = [
    e.lastError
      ? `${p.name}: its last deploy failed (entry checksum ${e.checksum ?? 'none'}, live config ${inst.config?.checksum})`
      : `${p.name}: runs ${e.checksum ?? 'no checksum'} (live config ${inst.config?.checksum})`,
  ];
  if (e.lastError)
    parts.push(
      `lastError: ${e.lastError}`,
      `consecutiveErrors ${e.consecutiveErrors ?? '?'}${e.lastErrorAt ? ` (last at ${e.lastErrorAt})` : ''}`,
    );
  if (p.runs.pending) parts.push(p.runs.pending);
  if (e.deployedAt) parts.push(`last deployed at ${e.deployedAt}${e.fallbackUsed ? ' (fallback used)' : ''}`);
  return parts.join('; ');
}

function deployRules(ctx: DiagnoseContext, inst: Installation, waiting: ReturnType<typeof waitingForGate>): Finding[] {
  const live = inst.haproxyPods.filter((p) => p.discovered);
  // a deploy that failed, was rejected, or never happened; a pod still catching up without an error is progress, and
  // so is a HAProxy pod that started a moment ago and waits for its first deploy
  const neverDeployed = (p: HAProxyPodInfo) =>
    !p.entry && (p.upForMs === undefined || p.upForMs > FIRST_DEPLOY_GRACE_MS);
  const failing = live.filter(
    (p) => !p.current && (neverDeployed(p) || !!p.entry?.lastError || p.entry?.mode === 'rejected'),
  );
  if (failing.length) {
    // the container that takes the deploys: dataplane in the dataplane generation, the agent in the agent one
    const container = failing[0]!.deployContainer ?? (inst.statusShape === 'dataplane' ? 'dataplane' : 'agent');
    return [
      finding(
        'HS106',
        {
          podNoun: failing.length === 1 ? 'pod' : 'pods',
          haproxyPods: failing.map((p) => p.name).join(', '),
          installation: id(inst),
          pods: podList(waiting),
          namespace: inst.namespace,
          haproxyPod: failing[0]!.name,
          container,
        },
        failing.map((p) => deployEvidence(inst, p)),
      ),
    ];
  }
  const settled = waiting.filter((p) =>
    p.haproxy.some((h) => h.installation === id(inst) && !h.disabled && h.runningOn === h.of && h.of > 0),
  );
  const since = (p: (typeof settled)[number]) => p.containersReady.forMs ?? 0;
  const overdue = settled.filter((p) => since(p) > 30_000);
  if (!overdue.length) return [];
  return [
    finding(
      'HS110',
      {
        pods: podList(overdue),
        installation: id(inst),
        gateType: ctx.model.gateType,
        age: formatAge(since(overdue[0]!)),
        namespace: inst.namespace,
      },
      [
        `haproxycfg ${inst.namespace}/${inst.config?.name} (${inst.config?.checksum}) runs on ${live.length}/${live.length} HAProxy pods with the server enabled`,
        `gate feature: ${inst.gateFeature.state}`,
      ],
    ),
  ];
}
