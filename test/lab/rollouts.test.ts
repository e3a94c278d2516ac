// The proof with real connections: the lab's rollouts under a steady load through HAProxy's frontend (scenarios.ts,
// the same that `npm run lab` prints). A single-replica rollout drops requests without the readiness gate and none
// with it, and so does a StatefulSet's, ordinal by ordinal; seed 004's HAProxy shutdown trap drops requests and its
// fix none.
import { describe, expect, it } from 'vitest';
import { cluster } from '../e2e/support.ts';
import { resultsTable, runScenario, type ScenarioResult } from './scenarios.ts';

const results: ScenarioResult[] = [];
const run = async (name: Parameters<typeof runScenario>[1]) => {
  const result = await runScenario(cluster().adminKubeconfig, name, undefined, (line) =>
    process.stderr.write(`[lab] ${line}\n`),
  );
  results.push(result);
  process.stderr.write(resultsTable([result]));
  return result;
};
/** A scenario that must drop nothing: when it does, the failures beside the pods' deletions and readiness say why. */
const none = (r: ScenarioResult) => {
  expect(r.counts.requests).toBeGreaterThanOrEqual(2000);
  expect(r.counts, r.timeline.join('\n')).toMatchObject({
    failed: 0,
    refused: 0,
    reset: 0,
    timeout: 0,
    http5xx: 0,
    other: 0,
  });
};

describe('rollouts under load, real connections', () => {
  it('single replica without the gate: requests fail while HAProxy still routes only to the stopped pod', async () => {
    const { counts } = await run('ungated');
    expect(counts.requests).toBeGreaterThanOrEqual(2000);
    expect(counts.failed).toBeGreaterThan(0);
  });

  it('single replica with the gate: not one of at least 2,000 requests fails', async () => {
    none(await run('gated'));
  });

  it('a StatefulSet of 2 without the gate: its controller deletes web-0 while HAProxy does not route the new web-1 yet', async () => {
    const { counts } = await run('sts-ungated');
    expect(counts.requests).toBeGreaterThanOrEqual(2000);
    expect(counts.failed).toBeGreaterThan(0);
  });

  it('a StatefulSet of 2 with the gate: each ordinal waits for HAProxy, not one of at least 2,000 requests fails', async () => {
    none(await run('sts-gated'));
  });

  it("seed 004's trap: HAProxy rolled with SIGTERM and no preStop drops requests", async () => {
    const { counts } = await run('haproxy-trap');
    expect(counts.failed).toBeGreaterThan(0);
  });

  it('its fix: preStop sleep, SIGUSR1, hard-stop-after: no request fails', async () => {
    none(await run('haproxy-fixed'));
  });
});
