// A DaemonSet's rollout as kubectl rollout status (DaemonSetStatusViewer) and the DaemonSet controller decide it:
// the phase and its words, new pods by template generation (IsPodUpdated), maxSurge/maxUnavailable scaled to the
// nodes, the model's counts and texts, and what preflight says of its strategy.
import { describe, expect, it } from 'vitest';
import { daemonSetPhase, daemonSetStrategy } from '../../../../src/model/rollout/kinds/daemonset.ts';
import { buildRollout } from '../../../../src/model/rollout/rollout.ts';
import { buildHaptic } from '../../../../src/model/haptic/haptic.ts';
import { preflight } from '../../../../src/diagnose/preflight.ts';
import { describeFinding } from '../../../../src/diagnose/catalogue.ts';
import { newSetText, oldSetText, summaryLine } from '../../../../src/ui/status-rows.ts';
import type { DaemonSet, Pod, RolloutTarget } from '../../../../src/types/kube.ts';
import { GATE, hapticInputs, NOW, pod, service, snapshot } from '../../fixtures/rollout.ts';

const ds = (
  spec: Partial<DaemonSet['spec']> = {},
  status: DaemonSet['status'] = {},
  generation = 3,
): DaemonSet & { kind: 'DaemonSet' } => ({
  kind: 'DaemonSet',
  metadata: {
    name: 'edge',
    namespace: 'shop',
    uid: 'ds-uid',
    generation,
    annotations: { 'deprecated.daemonset.template.generation': '3' },
  },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [], readinessGates: [{ conditionType: GATE }] },
    },
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, maxSurge: 0 } },
    ...spec,
  },
  status: {
    observedGeneration: 3,
    desiredNumberScheduled: 3,
    currentNumberScheduled: 3,
    updatedNumberScheduled: 3,
    numberReady: 3,
    numberAvailable: 3,
    ...status,
  },
});

/** a pod of the DaemonSet, of a template generation */
const dsPod = (name: string, generation: string, gate: 'True' | 'missing' = 'True'): Pod => {
  const p = pod({ name, rs: generation === '3' ? '2' : '1', gate, ip: `10.0.${generation}.${name.length}` });
  return {
    ...p,
    metadata: {
      ...p.metadata,
      labels: { app: 'web', 'pod-template-generation': generation, 'controller-revision-hash': `h${generation}` },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'edge', uid: 'ds-uid', controller: true }],
    },
  };
};

describe('daemonSetPhase: kubectl rollout status daemonset, rule by rule', () => {
  it.each([
    [
      'OnDelete',
      ds({ updateStrategy: { type: 'OnDelete' } }),
      'paused',
      'rollout status is only available for RollingUpdate strategy type',
    ],
    [
      'not observed',
      ds({}, { observedGeneration: 2 }),
      'progressing',
      'Waiting for daemon set spec update to be observed...',
    ],
    [
      'nodes not updated',
      ds({}, { updatedNumberScheduled: 1 }),
      'progressing',
      'Waiting for daemon set "edge" rollout to finish: 1 out of 3 new pods have been updated...',
    ],
    [
      'updated, not available',
      ds({}, { numberAvailable: 2 }),
      'progressing',
      'Waiting for daemon set "edge" rollout to finish: 2 of 3 updated pods are available...',
    ],
    ['complete', ds(), 'complete', 'daemon set "edge" successfully rolled out'],
    // no node to run it: kubectl calls that rolled out (0 of 0)
    [
      'no node',
      ds({}, { desiredNumberScheduled: 0, updatedNumberScheduled: 0, numberAvailable: 0 }),
      'complete',
      'daemon set "edge" successfully rolled out',
    ],
  ])('%s', (_, set, phase, message) => {
    expect(daemonSetPhase(set)).toEqual({ phase, message });
  });
});

describe('daemonSetStrategy: the controller scales to the nodes, rounding up', () => {
  it.each([
    ['defaults (the API server sets maxUnavailable 1, maxSurge 0)', {}, 10, { maxSurge: 0, maxUnavailable: 1 }],
    ['percentages round up', { maxUnavailable: '25%' }, 10, { maxSurge: 0, maxUnavailable: 3 }],
    ['surge', { maxSurge: '10%', maxUnavailable: 0 }, 15, { maxSurge: 2, maxUnavailable: 0 }],
    ['both 0 counts as maxUnavailable 1', { maxSurge: 0, maxUnavailable: 0 }, 4, { maxSurge: 0, maxUnavailable: 1 }],
  ])('%s', (_, rollingUpdate, nodes, expected) => {
    expect(
      daemonSetStrategy(
        ds({ updateStrategy: { type: 'RollingUpdate', rollingUpdate } }, { desiredNumberScheduled: nodes }),
      ),
    ).toEqual({ type: 'RollingUpdate', ...expected });
  });
  it('OnDelete replaces nothing by itself', () => {
    expect(daemonSetStrategy(ds({ updateStrategy: { type: 'OnDelete' } }))).toEqual({
      type: 'OnDelete',
      maxSurge: 0,
      maxUnavailable: 0,
    });
  });
});

describe('the model of a DaemonSet', () => {
  const build = (w: RolloutTarget, pods: Pod[]) =>
    buildRollout(snapshot({ workload: w, replicaSets: [], pods, haptic: hapticInputs() }), NOW);

  it('tells new pods from old by template generation, counts nodes, and says so', () => {
    const pods = [dsPod('edge-a', '3'), dsPod('edge-b', '2', 'missing'), dsPod('edge-c', '1', 'missing')];
    const other = { ...dsPod('stray', '3'), metadata: { ...dsPod('stray', '3').metadata, ownerReferences: [] } };
    const m = build(ds({}, { updatedNumberScheduled: 1, numberAvailable: 2, numberReady: 2 }), [...pods, other]);
    expect(m.workloadKind).toBe('DaemonSet');
    expect(m.newPods.map((p) => p.name)).toEqual(['edge-a']);
    expect(m.oldPods.map((p) => p.name)).toEqual(['edge-b', 'edge-c']);
    expect(m.counts).toEqual({ desired: 3, current: 3, updated: 1, ready: 2, available: 2, terminating: 0 });
    expect(m.phase).toBe('progressing');
    expect(m.message).toBe('Waiting for daemon set "edge" rollout to finish: 1 out of 3 new pods have been updated...');
    expect(m.revision).toBe('3');
    expect(m.progressDeadlineSeconds).toBe(0);
    expect(m.newReplicaSet).toBeUndefined();
    expect(newSetText(m)).toBe('template generation 3');
    expect(oldSetText(m)).toBe('template generation 1, 2');
    expect(summaryLine(m)).toBe(
      `daemonset.apps/edge -n shop · template generation 3 · RollingUpdate maxSurge 0, maxUnavailable 1 · gate ${GATE}`,
    );
  });

  it('is drained once complete with no pod of an older generation left', () => {
    expect(build(ds(), [dsPod('edge-a', '3'), dsPod('edge-b', '3')]).drained).toBe(true);
    expect(build(ds(), [dsPod('edge-a', '3'), dsPod('edge-b', '2')]).drained).toBe(false);
  });
});

describe('preflight of a DaemonSet', () => {
  const ids = (w: RolloutTarget) => {
    const inputs = hapticInputs();
    return preflight({
      workload: w,
      services: [service()],
      haptic: buildHaptic(inputs, NOW),
      routes: inputs,
      conditionType: GATE,
    })
      .filter((f) => f.id === 'HG111' || f.id === 'HG119')
      .map(describeFinding)
      .map((f) => `${f.id} ${f.title}`);
  };
  it('one node and no surge: its only pod goes before the new one is Ready (HG111)', () => {
    expect(ids(ds({}, { desiredNumberScheduled: 1 }))).toEqual([
      'HG111 one node runs the pod, and the strategy takes it down before its replacement is Ready',
    ]);
    // with a surge, or on more nodes (others serve while one node's pod is replaced), nothing
    expect(
      ids(ds({ updateStrategy: { rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }, { desiredNumberScheduled: 1 })),
    ).toEqual([]);
    expect(ids(ds())).toEqual([]);
  });
  it('OnDelete: no pod gets the gate until deleted by hand (HG119)', () => {
    expect(ids(ds({ updateStrategy: { type: 'OnDelete' } }))).toEqual([
      'HG119 daemonset edge updates on delete (OnDelete): no pod gets the gate until it is deleted by hand, and then each replacement waits for HAProxy',
    ]);
  });
});
