// The test cluster runs the real Argo Rollouts controller (build.sh builds it from Go modules; the harness applies
// its CRDs and starts it): a gated canary Rollout behind a Service HAPTIC routes goes through its steps to Healthy,
// each new pod through the gate, and an indefinite pause holds it Paused until promoted. This is the ground the
// plugin's Rollout kind stands on: the controller, not a stand-in, decides steps, pauses and promotion.
import { describe, expect, it } from 'vitest';
import { adminApi, argoRollout, GATE, getRollout, newNamespace, routedService, waitFor } from './support.ts';

const api = () => adminApi();
const canary = (ns: string, name: string, steps: object[], image = 'example/app:1') =>
  argoRollout(ns, name, { canary: { steps } }, { image });

/** Argo's own verdict: Healthy at this generation (observedGeneration is a string in a Rollout's status). */
const healthy = (ns: string, name: string) =>
  waitFor(() => getRollout(ns, name), {
    what: `rollout ${name} Healthy`,
    timeoutMs: 90_000,
    intervalMs: 250,
    until: (r) => r.status?.phase === 'Healthy' && r.status?.observedGeneration === String(r.metadata.generation),
  });

describe('the real Argo Rollouts controller on the test cluster', () => {
  it('takes a gated canary through its steps to Healthy; an indefinite pause holds it Paused', async () => {
    const ns = await newNamespace('argo');
    const steps = [{ setWeight: 50 }, { pause: { duration: '1s' } }];
    await api().apply([
      canary(ns, 'web', steps),
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
    ]);
    // the first revision has no stable one to step from: Argo scales it up at once
    const first = await healthy(ns, 'web');
    expect(first.status.stableRS).toBe(first.status.currentPodHash);

    await api().apply([canary(ns, 'web', steps, 'example/app:2')]);
    const second = await healthy(ns, 'web');
    expect(second.status.currentPodHash).not.toBe(first.status.currentPodHash);
    expect(second.status.stableRS).toBe(second.status.currentPodHash);
    expect(second.status.currentStepIndex).toBe(steps.length);
    // every pod of the new revision went through the gate HAPTIC's stand-in sets
    const pods = await waitFor(
      () =>
        api().list<any>('v1', 'Pod', {
          namespace: ns,
          labelSelector: `rollouts-pod-template-hash=${second.status.currentPodHash}`,
        }),
      { what: 'the new pods Ready', until: (ps) => ps.length === 2 },
    );
    for (const p of pods)
      expect(p.status.conditions.find((c: { type: string }) => c.type === GATE)?.status).toBe('True');

    await api().apply([canary(ns, 'web', [{ setWeight: 50 }, { pause: {} }], 'example/app:3')]);
    const paused = await waitFor(() => getRollout(ns, 'web'), {
      what: 'rollout web Paused at its indefinite step',
      timeoutMs: 90_000,
      intervalMs: 250,
      until: (r) => r.status?.phase === 'Paused' && r.status?.currentStepIndex === 1,
    });
    expect(paused.status.pauseConditions?.[0]?.reason).toBe('CanaryPauseStep');
  });
});
