import { describe, expect, it } from 'vitest';
import { buildRollout } from '../../../../src/model/rollout/rollout.ts';
import { transitions } from '../../../../src/model/rollout/transitions.ts';
import { deployment, hapticInputs, NOW, pod, snapshot } from '../../fixtures/rollout.ts';

const haptic = hapticInputs({ servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] });

describe('transitions (status --wait lines)', () => {
  it('says what changed for new and old pods, and nothing when nothing changed', () => {
    const before = buildRollout(
      snapshot({
        pods: [
          pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
          pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'missing' }),
        ],
        haptic,
      }),
      NOW,
    );
    const after = buildRollout(
      snapshot({
        deployment: deployment({
          status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
        }),
        pods: [
          pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: 30 }),
          pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' }),
          pod({ name: 'web-new-2', rs: '2', ip: '10.0.0.4', gate: 'missing' }),
        ],
        haptic,
      }),
      NOW,
    );
    expect(transitions(before, after)).toEqual([
      'rollout: deployment "web" successfully rolled out',
      'pod/web-new-1 gate haproxy-haptic.org/load-balancer-ready: True (2s after containers ready)',
      'pod/web-new-1 Ready',
      'pod/web-new-2 created',
      'pod/web-new-2 containers ready',
      'pod/web-new-2 gate haproxy-haptic.org/load-balancer-ready: missing',
      'pod/web-old-1 (old) terminating, 30s grace period',
    ]);
    expect(transitions(after, after)).toEqual([]);
    const gone = buildRollout(
      snapshot({
        deployment: deployment({
          status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 },
        }),
        pods: [pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' })],
        haptic,
      }),
      NOW,
    );
    expect(transitions(after, gone)).toEqual(['pod/web-new-2 gone', 'pod/web-old-1 (old) gone']);
  });
});
