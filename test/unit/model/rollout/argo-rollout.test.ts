// An Argo Rollout (argoproj.io/v1alpha1) as its controller decides it (github.com/argoproj/argo-rollouts v1.10): new
// pods by status.currentPodHash against the rollouts-pod-template-hash of the ReplicaSets it owns, the phase and
// message of GetRolloutPhase (utils/rollout/rolloututil.go), its steps and pauses, its fenceposts
// (utils/replicaset/replicaset.go resolveFenceposts), the labels its preview and canary Services select, and what
// the plugin sends and refuses for it (restart, spec.workloadRef).
import { describe, expect, it } from 'vitest';
import {
  argoPhase,
  argoRolloutKind,
  argoStrategy,
  pauseDurationMs,
  ROLLOUT_HASH_LABEL,
  stepText,
} from '../../../../src/model/rollout/kinds/argo-rollout.ts';
import { buildRollout } from '../../../../src/model/rollout/rollout.ts';
import { summaryLine } from '../../../../src/ui/status-rows.ts';
import type { ArgoRollout, CanaryStep, Pod, ReplicaSet } from '../../../../src/types/kube.ts';
import { at, GATE, hapticInputs, NOW, pod, service, snapshot } from '../../fixtures/rollout.ts';

type Tagged = ArgoRollout & { kind: 'Rollout' };
type Strategy = NonNullable<ArgoRollout['spec']['strategy']>;

const STABLE = '5d9c8b7f6';
const CURRENT = '74b6f8dc9';

/** The Rollout web in shop, uid ro-1, at generation 2, its canary mid-way (step 0 of [setWeight 50, pause {}]). */
const rollout = (
  spec: Partial<ArgoRollout['spec']> = {},
  status: NonNullable<ArgoRollout['status']> = {},
  generation = 2,
): Tagged => ({
  kind: 'Rollout',
  metadata: {
    name: 'web',
    namespace: 'shop',
    uid: 'ro-1',
    generation,
    annotations: { 'rollout.argoproj.io/revision': '2' },
  },
  spec: {
    replicas: 2,
    selector: { matchLabels: { app: 'web' } },
    template: {
      metadata: { labels: { app: 'web' } },
      spec: { containers: [{ name: 'app', image: 'web:2' }], readinessGates: [{ conditionType: GATE }] },
    },
    strategy: { canary: { maxSurge: 1, maxUnavailable: 0, steps: [{ setWeight: 50 }, { pause: {} }] } },
    ...spec,
  },
  status: {
    observedGeneration: '2',
    phase: 'Progressing',
    message: 'more replicas need to be updated',
    currentPodHash: CURRENT,
    stableRS: STABLE,
    currentStepIndex: 0,
    replicas: 3,
    updatedReplicas: 1,
    readyReplicas: 2,
    availableReplicas: 2,
    ...status,
  },
});

/** A ReplicaSet as Argo makes it: the template's labels and its hash, its revision, owned by the Rollout `owner`. */
const argoRS = (name: string, hash: string, revision: string, owner = 'ro-1'): ReplicaSet => ({
  metadata: {
    name,
    namespace: 'shop',
    uid: `uid-${name}`,
    labels: { app: 'web', [ROLLOUT_HASH_LABEL]: hash },
    annotations: { 'rollout.argoproj.io/revision': revision },
    ownerReferences: [
      { apiVersion: 'argoproj.io/v1alpha1', kind: 'Rollout', name: 'web', uid: owner, controller: true },
    ],
  },
  spec: {
    replicas: 1,
    selector: { matchLabels: { app: 'web', [ROLLOUT_HASH_LABEL]: hash } },
    template: { metadata: { labels: { app: 'web', [ROLLOUT_HASH_LABEL]: hash } }, spec: { containers: [] } },
  },
  status: { replicas: 1, readyReplicas: 1, availableReplicas: 1 },
});

/** A pod of the ReplicaSet `rs`. */
const argoPod = (name: string, rs: ReplicaSet, ip: string): Pod => {
  const p = pod({ name, rs: rs.metadata.labels![ROLLOUT_HASH_LABEL] === CURRENT ? '2' : '1', ip });
  return {
    ...p,
    metadata: {
      ...p.metadata,
      labels: { ...rs.metadata.labels },
      ownerReferences: [
        { apiVersion: 'apps/v1', kind: 'ReplicaSet', name: rs.metadata.name, uid: rs.metadata.uid!, controller: true },
      ],
    },
  };
};

const stable = argoRS('web-5d9c8b7f6', STABLE, '1');
const current = argoRS('web-74b6f8dc9', CURRENT, '2');
const older = argoRS('web-6f4c9d8b7', '6f4c9d8b7', '0');
/** another Rollout's ReplicaSet of the current template's hash (a copy of web under another name) */
const foreign = argoRS('web-copy-74b6f8dc9', CURRENT, '2', 'ro-2');
const pods = [
  argoPod('web-old-1', stable, '10.0.0.1'),
  argoPod('web-older-1', older, '10.0.0.2'),
  argoPod('web-new-1', current, '10.0.0.3'),
  argoPod('web-copy-1', foreign, '10.0.0.4'),
];
const names = (ps: { metadata: { name: string } }[]) => ps.map((p) => p.metadata.name);

describe('the pods of an Argo Rollout, split by status.currentPodHash', () => {
  it('new: the owned ReplicaSet whose rollouts-pod-template-hash is the current one; old: the other owned ones', () => {
    const split = argoRolloutKind.pods(rollout(), { pods, replicaSets: [stable, current, older, foreign] });
    expect(split.newReplicaSet?.metadata.name).toBe('web-74b6f8dc9');
    expect(names(split.oldReplicaSets)).toEqual(['web-5d9c8b7f6', 'web-6f4c9d8b7']);
    expect(names(split.newPods)).toEqual(['web-new-1']);
    expect(names(split.oldPods)).toEqual(['web-old-1', 'web-older-1']);
  });

  it("another owner's ReplicaSet is none of its business, even of the same hash", () => {
    const split = argoRolloutKind.pods(rollout(), { pods, replicaSets: [stable, foreign] });
    expect(split.newReplicaSet).toBeUndefined();
    expect(split.newPods).toEqual([]);
    expect(names(split.oldReplicaSets)).toEqual(['web-5d9c8b7f6']);
    expect(names(split.oldPods)).toEqual(['web-old-1']);
  });

  it('before the controller reports a current hash, every owned ReplicaSet is old', () => {
    const split = argoRolloutKind.pods(rollout({}, { currentPodHash: undefined }), {
      pods,
      replicaSets: [stable, current],
    });
    expect(split.newReplicaSet).toBeUndefined();
    expect(names(split.oldReplicaSets)).toEqual(['web-5d9c8b7f6', 'web-74b6f8dc9']);
  });
});

describe('argoPhase: GetRolloutPhase, then the model phase of it', () => {
  it.each<[string, Tagged, { phase: string; message: string; argo: string; argoMessage: string }]>([
    [
      'a generation not observed yet',
      rollout({}, { observedGeneration: '1', phase: 'Healthy', message: '' }),
      {
        phase: 'progressing',
        message: 'Progressing - waiting for rollout spec update to be observed',
        argo: 'Progressing',
        argoMessage: 'waiting for rollout spec update to be observed',
      },
    ],
    // a v0.9 hash in observedGeneration, or a number above the generation: observed (isGenerationObserved)
    [
      'an observedGeneration that is a hash',
      rollout({}, { observedGeneration: '7d8f9c6b5', phase: 'Healthy', message: '' }),
      { phase: 'complete', message: 'Healthy', argo: 'Healthy', argoMessage: '' },
    ],
    [
      'controllerPause with no pause condition left (promoted, not yet seen)',
      rollout({}, { phase: 'Paused', message: 'CanaryPauseStep', controllerPause: true, pauseConditions: [] }),
      {
        phase: 'progressing',
        message: 'Progressing - waiting for rollout to unpause',
        argo: 'Progressing',
        argoMessage: 'waiting for rollout to unpause',
      },
    ],
    [
      'Healthy',
      rollout({}, { phase: 'Healthy', message: '', currentStepIndex: 2, stableRS: CURRENT }),
      { phase: 'complete', message: 'Healthy', argo: 'Healthy', argoMessage: '' },
    ],
    [
      'Paused at a pause step',
      rollout(
        {},
        {
          phase: 'Paused',
          message: 'CanaryPauseStep',
          currentStepIndex: 1,
          controllerPause: true,
          pauseConditions: [{ reason: 'CanaryPauseStep', startTime: at(15) }],
        },
      ),
      { phase: 'paused', message: 'Paused - CanaryPauseStep', argo: 'Paused', argoMessage: 'CanaryPauseStep' },
    ],
    [
      'Degraded (aborted)',
      rollout({}, { phase: 'Degraded', message: 'RolloutAborted: Rollout aborted update to revision 2', abort: true }),
      {
        phase: 'failed',
        message: 'Degraded - RolloutAborted: Rollout aborted update to revision 2',
        argo: 'Degraded',
        argoMessage: 'RolloutAborted: Rollout aborted update to revision 2',
      },
    ],
    [
      'Progressing',
      rollout(),
      {
        phase: 'progressing',
        message: 'Progressing - more replicas need to be updated',
        argo: 'Progressing',
        argoMessage: 'more replicas need to be updated',
      },
    ],
  ])('%s', (_, r, expected) => {
    expect(argoPhase(r)).toEqual(expected);
    expect(argoRolloutKind.phase(r)).toEqual({ phase: expected.phase, message: expected.message });
  });
});

describe('stepText: each kind of canary step', () => {
  it.each<[CanaryStep | undefined, string | undefined]>([
    [{ setWeight: 20 }, 'setWeight: 20'],
    [{ setWeight: 0 }, 'setWeight: 0'],
    [{ pause: {} }, 'pause'],
    [{ pause: { duration: '30s' } }, 'pause: 30s'],
    [{ pause: { duration: 45 } }, 'pause: 45'],
    [{ setCanaryScale: { replicas: 3 } }, 'setCanaryScale{replicas: 3}'],
    [{ setCanaryScale: { weight: 20 } }, 'setCanaryScale{weight: 20}'],
    [{ setCanaryScale: { matchTrafficWeight: true } }, 'setCanaryScale{matchTrafficWeight: true}'],
    [{ analysis: { templates: [{ templateName: 'success-rate' }] } }, 'analysis'],
    [{ experiment: { templates: [] } }, 'experiment'],
    [{ setHeaderRoute: { name: 'canary-header' } }, 'setHeaderRoute: canary-header'],
    [{ setMirrorRoute: { name: 'mirror' } }, 'setMirrorRoute: mirror'],
    [{ plugin: { name: 'argoproj-labs/step-exec' } }, 'plugin: argoproj-labs/step-exec'],
    [{ plugin: {} }, 'plugin: '],
    [{}, 'invalid'],
    [undefined, undefined],
  ])('%j → %s', (step, text) => {
    expect(stepText(step)).toBe(text);
  });
});

describe('pauseDurationMs: a pause step duration as Argo reads it (a bare number is seconds)', () => {
  it.each<[string | number | undefined, number | undefined]>([
    ['30s', 30_000],
    ['1m', 60_000],
    ['2h', 7_200_000],
    ['45', 45_000],
    [10, 10_000],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['1500ms', 1_000],
    ['500ms', 0],
    ['bad', undefined],
    ['30x', undefined],
    [undefined, undefined],
  ])('%j → %s', (duration, ms) => {
    expect(pauseDurationMs(duration)).toBe(ms);
  });
});

describe("argoStrategy: Argo's fenceposts", () => {
  const canary = (c: NonNullable<Strategy['canary']>, replicas = 4) =>
    argoStrategy(rollout({ replicas, strategy: { canary: c } }));
  it('a canary: maxSurge rounds up, maxUnavailable down, on spec.replicas', () => {
    expect(canary({ maxSurge: '25%', maxUnavailable: 0 })).toEqual({ type: 'Canary', maxSurge: 1, maxUnavailable: 0 });
    expect(canary({ maxSurge: '10%', maxUnavailable: '30%' }, 10)).toEqual({
      type: 'Canary',
      maxSurge: 1,
      maxUnavailable: 3,
    });
  });
  it('both 0 is maxUnavailable 1 (resolveFenceposts), never above the replicas', () => {
    expect(canary({ maxSurge: 0, maxUnavailable: 0 })).toEqual({ type: 'Canary', maxSurge: 0, maxUnavailable: 1 });
    expect(canary({ maxSurge: 0, maxUnavailable: 0 }, 0)).toEqual({ type: 'Canary', maxSurge: 0, maxUnavailable: 0 });
  });
  it('unset: the controller resolves its defaults "25" (not a percentage to intstr) to 0 and 0, and so does this', () => {
    expect(canary({})).toEqual({ type: 'Canary', maxSurge: 0, maxUnavailable: 0 });
    // one of them unset is enough: the error of the other discards both
    expect(canary({ maxSurge: '25%' })).toEqual({ type: 'Canary', maxSurge: 0, maxUnavailable: 0 });
  });
  it('a blue-green: no surge, its maxUnavailable only', () => {
    expect(argoStrategy(rollout({ strategy: { blueGreen: { activeService: 'web' } } }))).toEqual({
      type: 'BlueGreen',
      maxSurge: 0,
      maxUnavailable: 0,
    });
    expect(
      argoStrategy(rollout({ replicas: 4, strategy: { blueGreen: { activeService: 'web', maxUnavailable: '50%' } } })),
    ).toEqual({ type: 'BlueGreen', maxSurge: 0, maxUnavailable: 2 });
  });
});

describe("the argo view: Argo's phase, step, pause and Services", () => {
  const paused = (duration?: string) =>
    rollout(
      { strategy: { canary: { steps: [{ setWeight: 50 }, { pause: duration ? { duration } : {} }] } } },
      {
        phase: 'Paused',
        message: 'CanaryPauseStep',
        currentStepIndex: 1,
        controllerPause: true,
        pauseConditions: [{ reason: 'CanaryPauseStep', startTime: at(15) }],
      },
    );

  it('a timed pause ends at its start time plus its duration', () => {
    const view = argoRolloutKind.argo!(paused('1m'), NOW);
    expect(view.step).toEqual({ index: 1, count: 2, text: 'pause: 1m' });
    expect(view.pause).toEqual({
      reason: 'CanaryPauseStep',
      since: at(15),
      endsAt: '2026-11-29T12:00:45Z',
      manual: false,
    });
  });

  it('an indefinite pause has no end: it waits to be promoted', () => {
    const view = argoRolloutKind.argo!(paused(), NOW);
    expect(view.pause).toEqual({ reason: 'CanaryPauseStep', since: at(15), endsAt: undefined, manual: false });
    expect(view.step).toEqual({ index: 1, count: 2, text: 'pause' });
  });

  it('spec.paused with no pause condition is a manual pause', () => {
    const view = argoRolloutKind.argo!(rollout({ paused: true }, { phase: 'Paused', message: 'manually paused' }), NOW);
    expect(view.pause).toEqual({ reason: 'manually paused', since: undefined, endsAt: undefined, manual: true });
  });

  it('a blue-green before promotion: its Services, and an auto-promotion that ends the pause', () => {
    const r = rollout(
      {
        strategy: {
          blueGreen: { activeService: 'web', previewService: 'web-preview', autoPromotionSeconds: 30 },
        },
      },
      {
        phase: 'Paused',
        message: 'BlueGreenPause',
        currentStepIndex: undefined,
        controllerPause: true,
        pauseConditions: [{ reason: 'BlueGreenPause', startTime: at(10) }],
      },
    );
    const view = argoRolloutKind.argo!(r, NOW);
    expect(view).toMatchObject({
      strategy: 'blueGreen',
      phase: 'Paused',
      message: 'BlueGreenPause',
      currentPodHash: CURRENT,
      stableHash: STABLE,
      step: undefined,
      pause: { reason: 'BlueGreenPause', since: at(10), endsAt: '2026-11-29T12:00:20Z', manual: false },
      aborted: false,
      services: { canary: undefined, stable: undefined, active: 'web', preview: 'web-preview' },
      trafficRouting: false,
    });
  });

  it('through buildRollout: the model of a canary, its revisions from rollout.argoproj.io/revision', () => {
    const w = rollout(
      {
        strategy: {
          canary: {
            canaryService: 'web-canary',
            stableService: 'web-stable',
            steps: [{ setWeight: 50 }, { pause: {} }],
          },
        },
      },
      { abort: true, phase: 'Degraded', message: 'RolloutAborted: Rollout aborted update to revision 2' },
    );
    const m = buildRollout(
      snapshot({
        workload: w,
        replicaSets: [stable, current],
        pods: pods.slice(0, 3),
        services: [service()],
        haptic: hapticInputs(),
      }),
      NOW,
    );
    expect(m.workloadKind).toBe('Rollout');
    expect(m.revision).toBe('2');
    expect(m.observedGeneration).toBe(2);
    expect(m.phase).toBe('failed');
    expect(m.newReplicaSet).toMatchObject({ name: 'web-74b6f8dc9', revision: '2' });
    expect(m.oldReplicaSets.map((rs) => [rs.name, rs.revision])).toEqual([['web-5d9c8b7f6', '1']]);
    expect(m.newPods.map((p) => p.name)).toEqual(['web-new-1']);
    expect(m.argo).toMatchObject({
      strategy: 'canary',
      step: { index: 0, count: 2, text: 'setWeight: 50' },
      aborted: true,
      services: { canary: 'web-canary', stable: 'web-stable' },
    });
    expect(summaryLine(m)).toContain('rollout.argoproj.io/web -n shop · revision 2');
  });
});

describe('what the kind module says beside its pods', () => {
  it("podLabels: the template's labels and the current hash, which preview and canary Services select", () => {
    expect(argoRolloutKind.podLabels!(rollout())).toEqual({ app: 'web', [ROLLOUT_HASH_LABEL]: CURRENT });
    expect(argoRolloutKind.podLabels!(rollout({}, { currentPodHash: undefined }))).toEqual({ app: 'web' });
  });

  it('ownServices: preview and canary select the new pods, active and stable the promoted ones', () => {
    expect(
      argoRolloutKind.ownServices!(
        rollout({ strategy: { blueGreen: { activeService: 'web', previewService: 'web-preview' } } }),
      ),
    ).toEqual({ newPods: [{ role: 'preview', service: 'web-preview' }], stable: ['web'] });
    expect(
      argoRolloutKind.ownServices!(
        rollout({ strategy: { canary: { canaryService: 'web-canary', stableService: 'web-stable' } } }),
      ),
    ).toEqual({ newPods: [{ role: 'canary', service: 'web-canary' }], stable: ['web-stable'] });
    expect(argoRolloutKind.ownServices!(rollout())).toEqual({ newPods: [], stable: [] });
  });

  it('restart: spec.restartAt, RFC 3339 without milliseconds, as a merge patch (kubectl argo rollouts restart)', () => {
    expect(argoRolloutKind.restart!(Date.parse('2026-11-29T12:00:00.123Z'))).toEqual({
      body: { spec: { restartAt: '2026-11-29T12:00:00Z' } },
      contentType: 'application/merge-patch+json',
      patchType: 'merge',
      as: 'kubectl argo rollouts restart',
    });
  });

  it('unfollowable: a template held by a workloadRef to anything but a Deployment (which the targets read)', () => {
    const ref = (kind: string | undefined) =>
      argoRolloutKind.unfollowable!(rollout({ workloadRef: { apiVersion: 'apps/v1', kind, name: 'web-template' } }));
    expect(ref('ReplicaSet')).toBe(
      'rollout/web takes its pod template from replicaset/web-template (spec.workloadRef); kubectl haptic reads a workloadRef to a Deployment only',
    );
    expect(ref('PodTemplate')).toContain('from podtemplate/web-template (spec.workloadRef)');
    expect(ref('Deployment')).toBeUndefined();
    expect(ref(undefined)).toBeUndefined();
    expect(argoRolloutKind.unfollowable!(rollout())).toBeUndefined();
  });

  it('its revision, generation and deadline as Argo writes them', () => {
    expect(argoRolloutKind.revision(rollout())).toBe('2');
    expect(argoRolloutKind.replicaSetRevision!(stable)).toBe('1');
    expect(argoRolloutKind.observedGeneration!(rollout())).toBe(2);
    expect(argoRolloutKind.observedGeneration!(rollout({}, { observedGeneration: '7d8f9c6b5' }))).toBe(0);
    expect(argoRolloutKind.progressDeadlineSeconds(rollout())).toBe(600);
    expect(argoRolloutKind.progressDeadlineSeconds(rollout({ progressDeadlineSeconds: 120 }))).toBe(120);
  });
});
