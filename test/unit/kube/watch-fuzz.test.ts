// Property-based, the watch stream (issue #21): an informer fed events of every kind a broken or hostile server could
// send — objects of the wrong shape, no name, null, ERROR events with odd codes, unknown types — keeps running, keeps
// only objects with a name in its cache, and never throws out of its loop. FUZZ_RUNS (default 300) / 10 streams, seeded
// as test/unit/fuzz.test.ts is (FUZZ_SEED replays).
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { Informer } from '../../../src/kube/informer.ts';
import { R } from '../../../src/kube/resources.ts';
import { answer, fakeApiServer, pod, statusBody, stream, until, type FakeApiServer } from './api-server.ts';

const RUNS = Math.max(10, Math.round(Number(process.env.FUZZ_RUNS ?? 300) / 10));
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

let api: FakeApiServer | undefined;
afterEach(async () => {
  await api?.close();
  api = undefined;
});

const weird = fc.oneof(
  fc.constant(null),
  fc.constant('x'),
  fc.constant(7),
  fc.constant([]),
  fc.constant({}),
  fc.constant({ metadata: {} }),
  fc.constant({ metadata: { name: 42 } }),
  fc.constant({ metadata: { name: 'p', namespace: 'ns' }, spec: 'x', status: { conditions: [null] } }),
  fc.constant({
    metadata: { name: 'q', namespace: 'ns', labels: 'x' },
    spec: { containers: 'x', readinessGates: [null] },
  }),
  fc.nat(9).map((i) => pod(`ok-${i}`, String(10 + i))),
);
const event = fc.record({
  type: fc.constantFrom('ADDED', 'MODIFIED', 'DELETED', 'BOOKMARK', 'ERROR', 'UNKNOWN', ''),
  object: fc.oneof(
    weird,
    fc.constant(statusBody(500, 'InternalError', 'x')),
    fc.constant(statusBody(410, 'Expired', 'old')),
  ),
});

describe('fuzz: watch streams', () => {
  it(`an informer survives any stream of events (${RUNS} streams, seed ${SEED})`, async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(event, { maxLength: 12 }), async (events) => {
        let watches = 0;
        api = await fakeApiServer((req, res) => {
          if (req.query.get('watch') !== 'true')
            return answer(res, { metadata: { resourceVersion: '1' }, items: [pod('a', '1')] });
          watches++;
          if (watches === 1) return stream(res, events, true);
          stream(res, []); // the second watch stays open: the stream above was read to its end
        });
        const crashes: unknown[] = [];
        const informer = new Informer(
          api.client,
          { resource: R.pods, namespace: 'ns' },
          // an error the informer retries after is fine (an ERROR event); a TypeError is code that broke on the data
          { onError: (err) => err instanceof TypeError && crashes.push(err) },
          { backoffMs: () => 5 },
        );
        informer.start();
        try {
          await until(() => watches >= 2, 'the stream to be read and the informer to watch again');
          expect(crashes).toEqual([]);
          for (const item of informer.items()) {
            expect(typeof item.metadata.name).toBe('string');
            expect(item.metadata.name.length).toBeGreaterThan(0);
          }
        } finally {
          informer.stop();
          await api.close();
          api = undefined;
        }
      }),
      { numRuns: RUNS, seed: SEED },
    );
  }, 60_000);
});
