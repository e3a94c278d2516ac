import { describe, expect, it } from 'vitest';
import { buildRollout } from '../../../../src/model/rollout/rollout.ts';
import { transitions as changes, transitionText } from '../../../../src/model/rollout/transitions.ts';
import { deployment, hapticInputs, NOW, pod, snapshot } from '../../fixtures/rollout.ts';

/** the transitions' words, as --wait prints them */
const transitions = (...a: Parameters<typeof changes>) => changes(...a).map(transitionText);

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
      'pod/web-old-1 (old) terminating, 30s of grace left',
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

  it('stamps the backlog found at start with the times the objects give, oldest first; the rest is marked as found', () => {
    const first = buildRollout(
      snapshot({
        pods: [
          pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: 10 }),
          pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' }),
        ],
        haptic,
      }),
      NOW,
    );
    const seen = changes(undefined, first, { history: { pods: {} } as never, now: NOW });
    const iso = (t: { at?: number | undefined }) => (t.at === undefined ? undefined : new Date(t.at).toISOString());
    expect(seen.map((t) => [transitionText(t), iso(t)])).toEqual([
      // the fixture's conditions: containers ready 20 s ago, the gate and Ready 18 s ago; the old pod's deletion
      // asked 30 s of grace and has 10 left, so it was asked 20 s ago
      ['pod/web-new-1 containers ready', new Date(NOW - 20_000).toISOString()],
      ['pod/web-old-1 (old) terminating, 10s of grace left', new Date(NOW - 20_000).toISOString()],
      [
        'pod/web-new-1 gate haproxy-haptic.org/load-balancer-ready: True (2s after containers ready)',
        new Date(NOW - 18_000).toISOString(),
      ],
      ['pod/web-new-1 Ready', new Date(NOW - 18_000).toISOString()],
      [expect.stringMatching(/^rollout: (?!.*already so)/), undefined],
      ['pod/web-new-1 HAProxy: enabled on 2/2 HAProxy pods (already so at start)', undefined],
    ]);
    // what happens later is live: its time is the object's where it has one, and never "at start"
    expect(changes(first, first)).toEqual([]);
  });
});
