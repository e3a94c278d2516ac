import { formatAge } from '../model/time.ts';
import type { HAProxyPodInfo, Installation } from '../model/haptic/haptic.ts';
import type { PodView } from '../model/rollout/pod.ts';
import type { RolloutModel } from '../model/rollout/rollout.ts';
import { kindOf } from '../model/rollout/kinds/index.ts';
import { renderProblem } from '../diagnose/checks/haptic.ts';

/** How a cell should look; the text and Ink views map tones to colours. */
export type Tone = 'good' | 'wait' | 'bad' | 'muted' | 'plain';
export interface Cell {
  text: string;
  tone: Tone;
}

const cell = (text: string, tone: Tone = 'plain'): Cell => ({ text, tone });
const since = (time: string | undefined, now: number) => (time ? formatAge(now - Date.parse(time)) : '');
/** `✓ 20s ago`: a state reached, and how long ago (just `✓` when its time is not known) */
const doneAgo = (time: string | undefined, now: number) => (time ? `✓ ${since(time, now)} ago` : '✓');

export const NEW_POD_HEADER = ['NAME', 'CONTAINERS', 'GATE', 'READY', 'ENDPOINTS', 'HAPROXY', 'AGE'];
export const OLD_POD_HEADER = ['NAME', 'STATE', 'ENDPOINTS', 'HAPROXY', 'AGE'];

/** Waiting reasons of a container that is simply starting. */
const STARTING = new Set(['ContainerCreating', 'PodInitializing']);

function containersCell(p: PodView, now: number): Cell {
  const problem = p.containerProblems.find((c) => c.reason !== 'NotReady') ?? p.containerProblems[0];
  if (p.containersReady.status === 'True') return cell(doneAgo(p.containersReady.since, now), 'good');
  if (problem && STARTING.has(problem.reason)) return cell(`… ${problem.reason}`, 'wait');
  if (problem && problem.reason !== 'NotReady')
    return cell(`✗ ${problem.reason}${problem.restarts ? ` (${problem.restarts} restarts)` : ''}`, 'bad');
  if (p.phase === 'Pending') return cell('… Pending', 'wait');
  return cell('… not ready', 'wait');
}

function gateCell(p: PodView, now: number): Cell {
  switch (p.gate.state) {
    case 'not-gated':
      return cell('— not gated', 'muted');
    case 'True':
      return cell(
        `${doneAgo(p.gate.since, now)}${p.gateLatencyMs !== undefined ? ` (+${Math.round(p.gateLatencyMs / 1000)}s)` : ''}`,
        'good',
      );
    case 'missing':
      return cell('… waiting', 'wait');
    default:
      return cell(`… ${p.gate.state}`, 'wait');
  }
}

export function endpointsCell(p: PodView): Cell {
  if (p.services.length === 0 && p.endpoints.length === 0)
    return cell('✗ no Service', p.gate.state === 'not-gated' ? 'muted' : 'bad');
  const parts = p.services.map((svc) => {
    const ep = p.endpoints.find((e) => e.service === svc);
    if (!ep) return `${svc}: not listed`;
    if (ep.terminating) return `${svc}: terminating${ep.serving ? ', serving' : ''}`;
    return `${svc}: ${ep.ready ? 'ready' : ep.serving ? 'serving' : 'not ready'}`;
  });
  const tone: Tone = p.endpoints.some((e) => e.ready) ? 'good' : p.terminating ? 'muted' : 'wait';
  return cell(parts.join('; '), tone);
}

/** A gated pod that is not Ready and not going away: one whose gate a missing route would hold. */
const waitsForGate = (p: PodView) => p.gate.state !== 'not-gated' && p.ready.status !== 'True' && !p.terminating;

export function haproxyCell(p: PodView): Cell {
  if (p.haproxyUnreadable) return cell('? cannot read configs', 'muted');
  // the cause of a stall on a new gated pod; on a pod already Ready (an old one, served by another path) a fact
  if (p.haproxy.length === 0 && p.notRouted)
    return cell(`${waitsForGate(p) ? '✗ ' : ''}not routed (${p.notRouted})`, waitsForGate(p) ? 'bad' : 'muted');
  if (p.haproxy.length === 0) return cell('not in config', p.terminating ? 'muted' : 'wait');
  const parts = p.haproxy.map(
    (h) => `${h.disabled ? 'disabled' : 'enabled'} ${h.runningOn}/${h.of}${h.unknown ? ` (${h.unknown} unknown)` : ''}`,
  );
  const converged = p.haproxy.every((h) => h.runningOn === h.of);
  const tone: Tone = p.terminating ? 'muted' : p.haproxy.every((h) => !h.disabled) && converged ? 'good' : 'wait';
  return cell(parts.join(', '), tone);
}

export function newPodRow(p: PodView, now: number): Cell[] {
  return [
    cell(p.name),
    containersCell(p, now),
    gateCell(p, now),
    p.ready.status === 'True' ? cell(doneAgo(p.ready.since, now), 'good') : cell('✗', 'wait'),
    endpointsCell(p),
    haproxyCell(p),
    cell(since(p.createdAt, now), 'muted'),
  ];
}

export function oldPodRow(p: PodView, now: number): Cell[] {
  let state: Cell;
  if (p.terminating) {
    const t = p.terminating;
    state = t.pastDeadline
      ? cell(
          `✗ Terminating, ${since(t.deadline, now)} past its grace period${t.finalizers.length ? ` (finalizers: ${t.finalizers.join(', ')})` : ''}`,
          'bad',
        )
      : t.graceRemainingMs
        ? cell(`↓ Terminating, ${formatAge(t.graceRemainingMs)} of grace left`, 'wait')
        : cell(`↓ Terminating, grace period ended ${since(t.deadline, now)} ago`, 'wait');
  } else {
    state = p.ready.status === 'True' ? cell('● Running, Ready', 'good') : cell(`● ${p.phase}, not Ready`, 'wait');
  }
  return [cell(p.name), state, endpointsCell(p), haproxyCell(p), cell(since(p.createdAt, now), 'muted')];
}

export function headline(m: RolloutModel): Cell {
  const tone: Tone = m.phase === 'complete' ? (m.drained ? 'good' : 'wait') : m.phase === 'failed' ? 'bad' : 'wait';
  const icon =
    m.phase === 'complete' ? (m.drained ? '✓' : '↓') : m.phase === 'failed' ? '✗' : m.phase === 'paused' ? '‖' : '…';
  const drain =
    m.phase === 'complete' && !m.drained
      ? ` (${m.counts.terminating} old pod${m.counts.terminating === 1 ? '' : 's'} still draining)`
      : '';
  return cell(`${icon} ${m.message}${drain}`, tone);
}

/** How the rollout replaces pods, in a few words: a Deployment's strategy, a StatefulSet's update strategy. */
export function strategyText(m: RolloutModel, short = false): string {
  const s = m.strategy;
  if (m.argo) return argoStrategyText(m.argo, short);
  if (s.type === 'Recreate' || s.type === 'OnDelete') return s.type;
  const set = m.statefulSet;
  if (!set) return `${short ? '' : 'RollingUpdate '}maxSurge ${s.maxSurge}, maxUnavailable ${s.maxUnavailable}`;
  const partition = set.partition > 0 ? `, partition ${set.partition}` : '';
  return `${short ? '' : 'RollingUpdate '}maxUnavailable ${s.maxUnavailable}, ${set.podManagementPolicy}${partition}`;
}

/**
 * An Argo Rollout's strategy and where it stands, as `kubectl argo rollouts get rollout` says it: a canary's step
 * (the steps done, of all) and the one it is at; a blue-green's Services.
 */
function argoStrategyText(a: NonNullable<RolloutModel['argo']>, short: boolean): string {
  if (a.strategy === 'blueGreen')
    return `${short ? '' : 'BlueGreen '}active ${a.services.active ?? '?'}, preview ${a.services.preview ?? 'none'}`;
  if (!a.step) return 'Canary';
  const at = a.step.index < a.step.count && a.step.text ? ` · ${a.step.text}` : '';
  return `Canary step ${a.step.index}/${a.step.count}${at}`;
}

/** The workload as kubectl names it in output: deployment.apps/web, statefulset.apps/db. */
export function workloadRef(w: { workloadKind: RolloutModel['workloadKind']; name: string }): string {
  return `${kindOf(w.workloadKind).noun}/${w.name}`;
}

/**
 * Where the workload's template stands, with its word: a Deployment's revision number, a StatefulSet's update
 * revision (a ControllerRevision's name), a DaemonSet's template generation (its ControllerRevisions' numbers are
 * not on the DaemonSet).
 */
export function revisionText(m: RolloutModel): string {
  if (m.daemonSet) return `template generation ${m.daemonSet.templateGeneration ?? '?'}`;
  return `revision ${m.statefulSet ? (m.statefulSet.updateRevision ?? '?') : (m.revision ?? '?')}`;
}

/**
 * What the new pods belong to: the new ReplicaSet, the StatefulSet's update revision, the DaemonSet's template
 * generation; undefined when none yet.
 */
export function newSetText(m: RolloutModel): string | undefined {
  if (m.newReplicaSet) return `replicaset/${m.newReplicaSet.name} (revision ${m.newReplicaSet.revision ?? '?'})`;
  if (m.statefulSet?.updateRevision) return `revision ${m.statefulSet.updateRevision} (update revision)`;
  if (m.daemonSet?.templateGeneration) return `template generation ${m.daemonSet.templateGeneration}`;
  return undefined;
}

/** What stands for the new pods when there are none: not created yet, or scaled to 0 by an Argo abort. */
export function noNewPodsText(m: RolloutModel): string {
  return m.argo?.aborted ? 'none: scaled to 0 (aborted)' : 'no pods yet';
}

/** What the old pods belong to: the old ReplicaSets, the revisions of a StatefulSet's other pods, a DaemonSet's older template generations. */
export function oldSetText(m: RolloutModel): string {
  if (m.daemonSet)
    return m.daemonSet.oldGenerations.length ? `template generation ${m.daemonSet.oldGenerations.join(', ')}` : '';
  const set = m.statefulSet;
  if (!set) {
    // an old ReplicaSet scaled to 0 with no pod left is history (kubectl keeps revisionHistoryLimit of them): only
    // those that still hold pods are named, or a header grows past the terminal after a few revisions
    const holding = new Set(m.oldPods.map((p) => p.replicaSet));
    const named = m.oldReplicaSets.filter((rs) => rs.replicas > 0 || holding.has(rs.name));
    return (named.length ? named : m.oldReplicaSets)
      .map((rs) => `replicaset/${rs.name} (revision ${rs.revision ?? '?'})`)
      .join(', ');
  }
  const revisions = [...new Set(m.oldPods.map((p) => p.revision ?? '?'))];
  const held = set.heldByPartition.length ? `; ${set.heldByPartition.length} held by partition ${set.partition}` : '';
  return `revision ${revisions.join(', ')}${held}`;
}

export function summaryLine(m: RolloutModel): string {
  const gate = m.gated ? `gate ${m.gateType}` : `not gated (no ${m.gateType} in readinessGates)`;
  return `${workloadRef(m)} -n ${m.namespace} · ${revisionText(m)} · ${strategyText(m)} · ${gate}`;
}

export function countsLine(m: RolloutModel): string {
  const c = m.counts;
  return `desired ${c.desired} · updated ${c.updated} · ready ${c.ready} · available ${c.available} · terminating ${c.terminating}`;
}

function leaderWords(i: Installation, brief = false): { text: string; ok: boolean } {
  const l = i.leader;
  switch (l.state) {
    case 'held':
      return { text: `leader ${l.holder}${brief ? '' : ` (renewed ${formatAge(l.renewAgeMs ?? 0)} ago)`}`, ok: true };
    case 'disabled':
      return l.holderPhase === 'Running'
        ? { text: `leader election off (single controller ${l.holder})`, ok: true }
        : {
            text: `leader election off, controller ${l.holder ? `${l.holder} ${l.holderPhase ?? 'not running'}` : 'not running'}`,
            ok: false,
          };
    case 'unknown':
      return { text: 'leader unknown (lease unreadable)', ok: false };
    default:
      return { text: `no leader (lease ${l.state})`, ok: false };
  }
}

function configWords(i: Installation): string {
  if (!i.config) return 'no config';
  const c = i.config;
  if (c.unreadable) return `config unreadable (haproxycfg/${c.name}: ${c.unreadable})`;
  // what HAProxy runs decides (renderProblem): a refused template edit, or new controller pods refusing the config at
  // start-up, leave the previous config rendering and deploying
  const problem = renderProblem(i);
  if (!problem) return 'config ok';
  if (problem.blocking) return 'config refused';
  return problem.variant === 'loadGateFailed'
    ? 'config ok (new controller pods refuse it)'
    : 'config ok (template edit refused)';
}

/**
 * What the HAProxy pods that do not run the live config yet do, after "HAProxy 1/2 on <live>": taking it (its
 * checksum deployed, not settled: "(deploying to 1)") or still running an earlier one (", 1 on <previous>"). While a
 * new render deploys, "0/2 on <new>" alone reads as an outage; ", 2 on <previous>" says the previous one serves.
 */
function notYet(live: HAProxyPodInfo[]): string {
  // a pod whose deploy fails is not taking the config: "deploy failing on" names it
  const deploying = live.filter((p) => !p.current && p.runs.source === 'live' && !failingDeploy(p)).length;
  const earlier = new Map<string, number>();
  for (const p of live) {
    if (p.current || p.runs.source === 'live') continue;
    // a checksum a failed deploy tried is not one the pod runs: "deploy failing on" names the pod
    if (p.runs.tried) continue;
    const what = p.runs.checksum ? shortChecksum(p.runs.checksum) : 'none reported';
    earlier.set(what, (earlier.get(what) ?? 0) + 1);
  }
  return `${deploying ? ` (deploying to ${deploying})` : ''}${[...earlier].map(([checksum, n]) => `, ${n} on ${checksum}`).join('')}`;
}

/** HAPTIC's last deploy to the pod failed (lastError), or its agent rejected the config. */
const failingDeploy = (p: HAProxyPodInfo): boolean => Boolean(p.entry?.lastError || p.entry?.mode === 'rejected');

/** HAPTIC's state in one line; `brief` leaves out the lease's renewal age, for a narrow terminal. */
export function installationLine(i: Installation, options: { brief?: boolean } = {}): Cell {
  const leader = leaderWords(i, options.brief);
  const live = i.haproxyPods.filter((p) => p.discovered);
  const converged = live.filter((p) => p.current).length;
  const failing = live.filter(failingDeploy);
  const validated = configWords(i);
  const text = `HAPTIC ${i.namespace}/${i.templateConfig}: ${leader.text} · ${validated} · HAProxy ${converged}/${live.length} on ${shortChecksum(i.config?.checksum)}${notYet(live)}${failing.length ? ` · deploy failing on ${failing.map((p) => p.name).join(', ')}` : ''}`;
  const tone: Tone =
    leader.ok && !failing.length && validated === 'config ok' ? (converged === live.length ? 'good' : 'wait') : 'bad';
  return cell(text, tone);
}

/** HAPTIC's checksums are 16 hex characters (older tools wrote `sha256:<hex>`): the first 12 are enough to tell. */
export function shortChecksum(c: string | undefined): string {
  if (!c) return 'no checksum';
  const colon = c.indexOf(':');
  return colon < 0 ? c.slice(0, 12) : `${c.slice(0, colon)}:${c.slice(colon + 1, colon + 13)}`;
}
