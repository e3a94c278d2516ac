// status --wait's fail fast over followers a test drives: a cause past its hold ends the wait with exit 1 even when
// nothing else changes; one that clears first ends nothing; --no-fail-fast waits on.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { finding } from '../../../src/diagnose/make.ts';
import type { KubeClient } from '../../../src/kube/client.ts';
import type { RolloutUpdate } from '../../../src/model/rollout/report.ts';
import type { FollowOptions } from '../../../src/services/live-rollout.ts';
import { waitForRollouts } from '../../../src/services/wait.ts';
import type { RolloutTarget } from '../../../src/types/kube.ts';

const target = (name: string) =>
  ({ kind: 'Deployment', metadata: { name, namespace: 'shop' }, spec: {} }) as unknown as RolloutTarget;
const noRoute = finding('HS113', {}, [], { variant: 'none', pod: 'web-1' });

function update(o: { finding?: typeof noRoute; done?: boolean }): RolloutUpdate {
  return {
    model: { phase: o.done ? 'complete' : 'progressing', strategy: { type: 'RollingUpdate' }, message: 'Waiting…' },
    transitions: [],
    history: {},
    findings: o.finding ? [o.finding] : [],
    finding: o.finding,
    done: o.done ?? false,
  } as unknown as RolloutUpdate;
}

/** Followers whose updates the test sends. */
function driven() {
  const sinks = new Map<string, FollowOptions['onUpdate']>();
  return {
    follow: (t: RolloutTarget, o: FollowOptions) => ({
      start: () => sinks.set(t.metadata.name, o.onUpdate),
      stop: () => {},
    }),
    send: (name: string, u: RolloutUpdate) => sinks.get(name)!(u),
  };
}

const client = {} as KubeClient;
const base = { conditionType: 'g', drained: false, timeoutMs: 0, onEntry: () => {} };

beforeEach(() => vi.useFakeTimers({ now: 1_000_000 }));
afterEach(() => vi.useRealTimers());

describe('waitForRollouts fails fast', () => {
  it('on a cause that holds past its hold, by the clock alone, naming the others as they were', async () => {
    const d = driven();
    const done = waitForRollouts(client, [target('web'), target('api')], { ...base, follow: d.follow });
    d.send('api', update({ done: true }));
    d.send('web', update({ finding: noRoute }));
    await vi.advanceTimersByTimeAsync(19_000);
    let settled = false;
    void done.then(() => (settled = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1_000);
    const r = await done;
    expect(r.outcome).toBe('failed');
    expect(r.failure).toMatchObject({
      reason: 'cause',
      heldMs: 20_000,
      workload: { name: 'web' },
      finding: { id: 'HS113' },
      others: [{ name: 'api', complete: true }],
    });
  });

  it('not on a cause that clears before its hold, nor with --no-fail-fast', async () => {
    const d = driven();
    const done = waitForRollouts(client, [target('web')], { ...base, follow: d.follow });
    d.send('web', update({ finding: noRoute }));
    await vi.advanceTimersByTimeAsync(15_000);
    d.send('web', update({}));
    await vi.advanceTimersByTimeAsync(15_000);
    d.send('web', update({ finding: noRoute }));
    await vi.advanceTimersByTimeAsync(10_000);
    d.send('web', update({ done: true }));
    expect((await done).outcome).toBe('complete');

    const patient = driven();
    const waited = waitForRollouts(client, [target('web')], {
      ...base,
      timeoutMs: 60_000,
      failFast: false,
      follow: patient.follow,
    });
    patient.send('web', update({ finding: noRoute }));
    await vi.advanceTimersByTimeAsync(60_000);
    expect((await waited).outcome).toBe('timeout');
  });
});
