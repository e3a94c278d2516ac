// (c) Watch-mode redraw delay: how long after a change reaches the API server the live model shows it. A rollout stream
// (the pipeline behind `status --watch` and `--wait`) runs in this process; the benchmark flips a harmless custom pod
// condition through the status subresource and times PATCH response → the update whose model carries the new
// status. The stream follows that condition type as its "gate"; the pods list only HAPTIC's gate in
// readinessGates, so neither the kubelet stand-in, the endpoint controller nor HAPTIC reacts: one watch event per
// flip. Measured on a 1-replica and a 300-replica Deployment (the recompute builds the whole model each time).
// kubectl's counterpart is `kubectl get pod -w`, timed the same way to the line that shows the flip.
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { KubeClient } from '../src/kube/client.ts';
import { connect } from '../src/kube/config.ts';
import { followRollout } from '../src/services/live-rollout.ts';
import type { Deployment } from '../src/types/kube.ts';
import type { RolloutModel } from '../src/model/rollout/rollout.ts';
import { KUBECTL, sleep, summarize, table, waitFor, type BenchContext, type Summary } from './lib.ts';

export const PROBE_APP = { name: 'probe', replicas: 1 };
export const PROBE_CONDITION = 'bench.kubectl-haptic.dev/probe';

type Status = 'True' | 'False';

export interface RedrawTarget {
  label: string;
  name: string;
  namespace: string;
  replicas: number;
}

export interface RedrawResult {
  flips: number;
  /** target label → PATCH response → onModel with the change */
  plugin: Record<string, Summary & { replicas: number }>;
  /** PATCH response → `kubectl get pod -w` prints the change (1-replica target) */
  kubectl: Summary;
  note: string;
}

export async function benchRedraw(
  ctx: BenchContext,
  targets: RedrawTarget[],
  options: { flips?: number } = {},
): Promise<RedrawResult> {
  const flips = options.flips ?? 20;
  const result: RedrawResult = {
    flips,
    plugin: {},
    kubectl: summarize([]),
    note: 'LiveRollout recomputes 100 ms after the last event of a burst (trailing debounce) or on its 1 s tick, whichever comes first',
  };
  for (const target of targets) {
    const ms = await pluginDelays(ctx, target, flips);
    result.plugin[target.label] = { replicas: target.replicas, ...summarize(ms) };
    ctx.log(
      `redraw: plugin, ${target.replicas} replicas: ${result.plugin[target.label]!.medianMs} ms median over ${flips} flips`,
    );
  }
  result.kubectl = summarize(await kubectlDelays(ctx, targets[0]!, flips));
  return result;
}

async function probePod(
  ctx: BenchContext,
  target: RedrawTarget,
): Promise<{ pod: string; flip: (status: Status) => Promise<number> }> {
  const pods = await ctx.kube.list<any>('v1', 'Pod', {
    namespace: target.namespace,
    labelSelector: `app=${target.name}`,
  });
  const pod = pods.find((p) => !p.metadata.deletionTimestamp)?.metadata.name as string | undefined;
  if (!pod) throw new Error(`no pod of ${target.namespace}/${target.name}`);
  const flip = async (status: Status) => {
    const condition = {
      type: PROBE_CONDITION,
      status,
      reason: 'Bench',
      lastTransitionTime: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    };
    await ctx.kube.patch(
      'v1',
      'Pod',
      pod,
      target.namespace,
      { status: { conditions: [condition] } },
      { type: 'strategic', subresource: 'status' },
    );
    return performance.now();
  };
  return { pod, flip };
}

/** Flips the condition `flips + 1` times (the first is a warm-up), each time waiting until `seen` resolves. */
async function flipLoop(
  flips: number,
  start: Status,
  flip: (s: Status) => Promise<number>,
  expect: (s: Status) => Promise<number>,
  what: string,
): Promise<number[]> {
  const delays: number[] = [];
  let status = start;
  for (let i = 0; i < flips + 1; i++) {
    const seen = expect(status);
    const patched = await flip(status);
    const at = await withTimeout(seen, 10_000, `${what} to show ${PROBE_CONDITION}=${status}`);
    if (i > 0) delays.push(Math.max(0, at - patched));
    status = status === 'True' ? 'False' : 'True';
    await sleep(150 + Math.random() * 200); // off the 1 s recompute tick's rhythm
  }
  return delays;
}

async function pluginDelays(ctx: BenchContext, target: RedrawTarget, flips: number): Promise<number[]> {
  const { pod, flip } = await probePod(ctx, target);
  const client = new KubeClient(connect({ kubeconfig: ctx.cluster.adminKubeconfig }));
  const deployment = await ctx.kube.get<Deployment>('apps/v1', 'Deployment', target.name, target.namespace);
  let latest: RolloutModel | undefined;
  let waiter: { want: Status; resolve: (at: number) => void } | undefined;
  const shown = (m: RolloutModel | undefined) => m?.newPods.find((p) => p.name === pod)?.gate.status;
  const live = followRollout(
    client,
    { ...deployment, kind: 'Deployment' },
    {
      conditionType: PROBE_CONDITION,
      drained: false,
      onUpdate: ({ model }) => {
        const at = performance.now();
        latest = model;
        if (waiter && shown(model) === waiter.want) waiter.resolve(at);
      },
    },
  );
  live.start();
  try {
    await waitFor(() => latest, `the first model of ${target.namespace}/${target.name}`, 30_000, 50);
    const expect = (want: Status) => new Promise<number>((resolve) => (waiter = { want, resolve }));
    return await flipLoop(flips, shown(latest) === 'True' ? 'False' : 'True', flip, expect, 'the model');
  } finally {
    live.stop();
  }
}

async function kubectlDelays(ctx: BenchContext, target: RedrawTarget, flips: number): Promise<number[]> {
  const { pod, flip } = await probePod(ctx, target);
  const jsonpath = `{.metadata.name}{" "}{.status.conditions[?(@.type=="${PROBE_CONDITION}")].status}{"\\n"}`;
  const child = spawn(KUBECTL, ['get', 'pod', pod, '-n', target.namespace, '-w', '-o', `jsonpath=${jsonpath}`], {
    env: ctx.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    let first: string | undefined;
    let waiter: { want: Status; resolve: (at: number) => void } | undefined;
    createInterface({ input: child.stdout }).on('line', (line) => {
      const at = performance.now();
      first ??= line.trim();
      if (waiter && line.trim().endsWith(` ${waiter.want}`)) waiter.resolve(at);
    });
    await waitFor(() => first, 'kubectl get -w to print the pod', 30_000, 50);
    const expect = (want: Status) => new Promise<number>((resolve) => (waiter = { want, resolve }));
    return await flipLoop(flips, first!.endsWith(' True') ? 'False' : 'True', flip, expect, 'kubectl get -w');
  } finally {
    child.kill('SIGTERM');
  }
}

export function redrawTable(r: RedrawResult): string {
  const k = r.kubectl.medianMs;
  const plus = (ms: number) => `+${(ms - k).toFixed(1)} ms`;
  const rows: (string | number)[][] = Object.values(r.plugin).map((s) => [
    `kubectl haptic, ${s.replicas} replica${s.replicas === 1 ? '' : 's'} (onModel)`,
    s.medianMs.toFixed(1),
    s.minMs.toFixed(1),
    s.p90Ms.toFixed(1),
    plus(s.medianMs),
  ]);
  rows.push([
    'kubectl get pod -w (line printed)',
    k.toFixed(1),
    r.kubectl.minMs.toFixed(1),
    r.kubectl.p90Ms.toFixed(1),
    '',
  ]);
  return table(['PATCH response → change shown', 'median ms', 'min ms', 'p90 ms', 'vs kubectl'], rows);
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<T>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms waiting for ${what}`)), ms)),
  );
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
