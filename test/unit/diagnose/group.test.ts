import { describe, expect, it } from 'vitest';
import { describeFinding } from '../../../src/diagnose/catalogue.ts';
import { diagnose } from '../../../src/diagnose/index.ts';
import { buildRollout } from '../../../src/model/rollout/rollout.ts';
import type { Pod } from '../../../src/types/kube.ts';
import { hapticInputs, NOW, pod, snapshot } from '../fixtures/rollout.ts';

function crashLooping(name: string, ip: string): Pod {
  const p = pod({ name, rs: '2', ip, containersReady: false });
  p.status!.containerStatuses = [
    {
      name: 'app',
      ready: false,
      restartCount: 4,
      state: { waiting: { reason: 'CrashLoopBackOff', message: 'back-off 40s' } },
      lastState: { terminated: { exitCode: 137, reason: 'OOMKilled' } },
    },
  ];
  return p;
}

describe('the same cause on many pods', () => {
  it('is reported once, naming the other pods', () => {
    const pods = Array.from({ length: 8 }, (_, i) => crashLooping(`web-new-${i}`, `10.0.1.${i}`));
    const snap = snapshot({ pods, haptic: hapticInputs() });
    const { findings, stalled } = diagnose({
      model: buildRollout(snap, NOW),
      services: snap.services,
      pods,
      events: [],
      now: NOW,
    });
    expect(stalled).toBe(true);
    expect(findings.map((f) => f.id)).toEqual(['HS202']);
    expect(describeFinding(findings[0]!)).toMatchObject({
      pod: 'web-new-0',
      title: 'pod web-new-0: container app is crash-looping',
    });
    expect(findings[0]!.evidence).toEqual([
      'restarts 4; last exit code 137 (OOMKilled); waiting CrashLoopBackOff',
      'the same on 7 more pods: web-new-1, web-new-2, web-new-3, web-new-4, web-new-5 (+2 more)',
    ]);
  });
});
