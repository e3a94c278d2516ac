// DR201–DR205: how a serving container stops. The kubelet runs the preStop first and sends the stop signal when it
// returns (lifecycle.stopSignal, else the image's STOPSIGNAL, else SIGTERM), SIGKILL at terminationGracePeriodSeconds.
// Meanwhile endpoints drop the pod asynchronously, so a hook should wait before anything stops listening. HAProxy
// hard-stops on SIGTERM and soft-stops on SIGUSR1 (unbind, drain, exit when idle or at hard-stop-after); in
// master-worker mode the master forwards both to its workers unchanged (src/mworker.c, mworker_catch_sigterm).
import { longestSessionMs } from '../../model/haptic/sessions.ts';
import { firstSignal, preStopPlan, signalAt, totalSleep, type PreStopPlan } from '../../model/doctor/prestop.ts';
import {
  controllerWait,
  masterWorkerFlag,
  stopSignalOf,
  type ContainerView,
  type StopSignal,
} from '../../model/doctor/pod-template.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';
import type { DoctorEnv, TemplateFacts } from './context.ts';
import { locate, type Located } from './located.ts';

const serving = (v: ContainerView) => v.haproxy || v.serves.length > 0;

/** Seconds the hook takes, when the doctor can tell: a linear exec or the sleep action (an httpGet's is unknown). */
export function preStopSeconds(plan: PreStopPlan): number | undefined {
  if (plan.handler === 'none') return 0;
  return (plan.handler === 'exec' || plan.handler === 'sleep') && plan.linear ? totalSleep(plan) : undefined;
}

interface Stop {
  view: ContainerView;
  plan: PreStopPlan;
  stop: StopSignal;
  preStopEnds: number | undefined;
  /** when HAProxy first gets SIGUSR1, and from whom */
  usr1: { at: number; how: string } | undefined;
}

function stopOf(view: ContainerView): Stop {
  const plan = preStopPlan(view.container.lifecycle?.preStop);
  const stop = stopSignalOf(view.container);
  const preStopEnds = preStopSeconds(plan);
  const fromHook = signalAt(plan, 'SIGUSR1');
  const usr1 =
    fromHook && plan.linear
      ? { at: fromHook.before, how: `preStop ${fromHook.step.text}` }
      : stop.signal === 'SIGUSR1' && preStopEnds !== undefined
        ? { at: preStopEnds, how: `stop signal (${stop.from})` }
        : undefined;
  return { view, plan, stop, preStopEnds, usr1 };
}

const fmt = (s: number) => (Number.isFinite(s) ? `${Math.round(s * 10) / 10}` : '∞');

/** The shutdown as a timeline of evidence lines, in time order. */
function timeline(s: Stop, grace: number, hardStopS: number | undefined): string[] {
  const events: { t: number; text: string }[] = [
    { t: 0, text: `pod deleted: endpoints start to drop it; preStop starts (${s.plan.text})` },
  ];
  let t = 0;
  for (const step of s.plan.steps) {
    if (step.kind === 'sleep') t += step.seconds;
    if (step.kind === 'signal')
      events.push({
        t,
        text: `${step.text}${s.view.haproxy && step.signal === 'SIGUSR1' ? ': HAProxy stops listening and drains' : ''}`,
      });
  }
  if (s.preStopEnds !== undefined)
    events.push({ t: s.preStopEnds, text: `preStop ends: the kubelet sends ${s.stop.signal} (${s.stop.from})` });
  if (s.view.haproxy && s.usr1 && hardStopS !== undefined)
    events.push({
      t: s.usr1.at + hardStopS,
      text: `hard-stop-after ${fmt(hardStopS)}s: HAProxy exits, closing the connections still open`,
    });
  events.push({ t: grace, text: `terminationGracePeriodSeconds ${grace}: SIGKILL` });
  return events.sort((a, b) => a.t - b.t).map((e) => `t=${fmt(e.t)}s ${e.text}`);
}

function masterWorkerNote(t: TemplateFacts, view: ContainerView): string[] {
  const on = masterWorkerFlag(view.container) || !!t.config?.facts.masterWorkerKeyword;
  return on
    ? [
        'master-worker mode: the master forwards SIGTERM to its workers (a hard stop) and SIGUSR1 (a soft stop) unchanged',
      ]
    : [];
}

function containerFindings(t: TemplateFacts, s: Stop, env: DoctorEnv): Finding[] {
  const { view, plan, stop } = s;
  const c = view.container;
  const found: Finding[] = [];
  const hardStop = t.config?.facts.hardStopAfter;
  const hardStopS = hardStop ? hardStop.ms / 1000 : undefined;
  const served = view.serves.map(
    (x) => `service/${x.service} port ${x.port} → container ${c.name} port ${x.containerPort}`,
  );
  const waits = controllerWait(c);
  const noHook = plan.handler === 'none' && waits === undefined;
  if (noHook) {
    const effect = view.controller
      ? `${view.controller} shuts HAProxy down`
      : stop.signal === 'SIGUSR1'
        ? 'unbinds its ports (new connections are refused)'
        : 'hard-stops (established connections are reset)';
    const args = { container: c.name, service: view.serves[0]?.service ?? '', signal: stop.signal, effect };
    found.push(
      finding(
        'DR201',
        args,
        [
          `container ${c.name}: no lifecycle.preStop`,
          `stop signal: ${stop.from}`,
          ...served,
          ...masterWorkerNote(t, view),
        ],
        { variant: view.haproxy ? 'haproxy' : 'app' },
      ),
    );
  }
  if (!plan.linear)
    env.notes.push(
      `${t.ref.kind.toLowerCase()} ${t.ref.namespace}/${t.ref.name}: container ${c.name}'s preStop has loops or conditionals (${plan.text}); DR202–DR204 not judged`,
    );
  // an ingress controller stops its HAProxy itself: the signal its container gets is not the one HAProxy gets. A
  // HAProxy container with no preStop at all is DR201's (its fix is the preStop that sends SIGUSR1): one missing
  // hook is one error, not two
  if (view.haproxy && !view.controller && !noHook) {
    const fromHook = signalAt(plan, 'SIGUSR1');
    const evidence = [
      `container ${c.name} preStop: ${plan.text}`,
      `stop signal: ${stop.from}`,
      ...masterWorkerNote(t, view),
    ];
    if (!fromHook && stop.signal !== 'SIGUSR1')
      found.push(finding('DR203', { container: c.name }, evidence, { variant: 'sigterm' }));
    else if (fromHook && plan.linear && fromHook.after === 0 && stop.signal !== 'SIGUSR1')
      found.push(finding('DR203', { container: c.name }, evidence, { variant: 'noWait' }));
  }
  const first = plan.linear && plan.handler === 'exec' ? firstSignal(plan) : undefined;
  if (first && first.before === 0 && first.step.signal !== 'SIG0') {
    const effect =
      view.haproxy && first.step.signal === 'SIGUSR1'
        ? 'HAProxy unbinds its ports at once'
        : view.haproxy && first.step.signal === 'SIGTERM'
          ? 'HAProxy hard-stops at once'
          : `the process gets ${first.step.signal} at once`;
    const order = plan.steps.map((x) => x.text).join('; ');
    found.push(
      finding(
        'DR204',
        { container: c.name, signal: first.step.signal, command: order, effect },
        [`container ${c.name} preStop: ${plan.text}`, `runs: ${order}`],
        { variant: view.haproxy ? 'haproxy' : 'app' },
      ),
    );
  }
  const preStopS = s.preStopEnds;
  if (preStopS !== undefined && plan.handler !== 'none' && preStopS >= t.grace) {
    found.push(
      finding(
        'DR202',
        { container: c.name, preStop: fmt(preStopS), grace: t.grace, needed: fmt(preStopS) },
        timeline(s, t.grace, hardStopS),
        { variant: 'preStop' },
      ),
    );
  } else if (view.haproxy && s.usr1 && hardStopS !== undefined && s.usr1.at + hardStopS >= t.grace) {
    const end = s.usr1.at + hardStopS;
    const args = {
      container: c.name,
      end: fmt(end),
      signalAt: fmt(s.usr1.at),
      hardStop: fmt(hardStopS),
      grace: t.grace,
      needed: fmt(end),
    };
    found.push(
      finding(
        'DR202',
        args,
        [
          `${t.config?.label} line ${hardStop?.line}: ${hardStop?.text}`,
          `SIGUSR1 from the ${s.usr1.how}`,
          ...timeline(s, t.grace, hardStopS),
        ],
        { variant: 'drain' },
      ),
    );
  }
  if (view.haproxy && t.config && !hardStop) {
    const signalled = s.usr1?.at ?? preStopS ?? 0;
    const budget = Number.isFinite(signalled) ? Math.max(0, t.grace - signalled) : 0;
    found.push(
      finding('DR205', { config: t.config.label, grace: t.grace, budget: fmt(budget) }, [
        `${t.config.label}: global has no hard-stop-after (${t.config.how})`,
        ...timeline(s, t.grace, undefined),
      ]),
    );
  }
  return found;
}

/**
 * DR207: HAPTIC's HAProxy, read live (--sessions): the longest average session time a server reports (`ttime`)
 * against the config's hard-stop-after. HAPTIC reloads HAProxy on changes; the leaving worker is hard-stopped after
 * hard-stop-after, and so is a soft stop, whatever sessions are still running.
 */
function sessionsOutlastHardStop(t: TemplateFacts, env: DoctorEnv): Finding[] {
  const hardStop = t.config?.facts.hardStopAfter;
  const readings = env.inputs.sessions?.readings.filter((r) => r.pod.startsWith(`${t.namespace}/`)) ?? [];
  if (!t.haptic || !t.config || !hardStop || !readings.length) return [];
  const longest = longestSessionMs(readings);
  if (!longest || longest.ms <= hardStop.ms) return [];
  return [
    finding(
      'DR207',
      {
        config: t.config.label,
        hardStop: fmt(hardStop.ms / 1000),
        ttime: fmt(longest.ms / 1000),
        server: longest.server,
        pod: longest.pod,
      },
      [
        `${t.config.label} line ${hardStop.line}: ${hardStop.text}`,
        `${longest.pod}: show stat ttime ${longest.ms} ms on ${longest.server} (the average total time of its last 1024 sessions)`,
      ],
    ),
  ];
}

export function shutdownRules(t: TemplateFacts, env: DoctorEnv): Located[] {
  const found = [
    ...t.containers.filter(serving).flatMap((view) => containerFindings(t, stopOf(view), env)),
    ...sessionsOutlastHardStop(t, env),
  ];
  // haproxy.cfg findings point at the ConfigMap (or HAProxyCfg) that holds it, the others at the pod template
  return found.flatMap((f) => locate((f.id === 'DR205' || f.id === 'DR207') && t.config ? t.config.ref : t.ref, [f]));
}
