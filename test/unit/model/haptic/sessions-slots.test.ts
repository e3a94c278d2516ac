// Sessions on the dataplane generation's SRV_<n> slots when HAPTIC changes them through HAProxy's runtime API, in the
// running worker and without a reload: the slot keeps counting the sessions it held (`scur`) while its address is
// the next pod's, or HAPTIC's placeholder `127.0.0.1:1`. An old pod whose slot changed under it reads as holding
// those sessions (a placeholder nobody else took) or as unknown, never as drained.
import { describe, expect, it } from 'vitest';
import {
  type AddressMemory,
  type HAProxyReading,
  PLACEHOLDER_ADDRESS,
  rememberAddresses,
  serverNames,
  sessionsByPod,
} from '../../../../src/model/haptic/sessions.ts';
import { sessionStep, type SessionHistory } from '../../../../src/model/rollout/sessions.ts';

const BACKEND = 'ing_shop_web_web_80';
const HAPROXY = 'haptic/haptic-haproxy-a';

/** One worker's `show stat` rows of the backend: [server, address, scur, failed?]. */
const reading = (
  at: number,
  workers: { pid: number; leaving?: boolean; rows: [string, string, number, number?][] }[],
): HAProxyReading => ({
  pod: HAPROXY,
  at,
  workers: workers.map((w) => ({
    pid: w.pid,
    leaving: w.leaving ?? false,
    servers: w.rows.map(([server, addr, scur, failed = 0]) => ({
      backend: BACKEND,
      server,
      addr,
      scur,
      qcur: 0,
      status: addr === PLACEHOLDER_ADDRESS ? 'MAINT' : 'UP',
      failed,
      retried: 0,
    })),
  })),
});

/** The live config's servers as the dataplane generation renders them (base.yaml BackendServers). */
const names = (slots: [string, string | undefined, string][]) =>
  serverNames(
    slots.map(([server, pod, address]) => ({
      backend: BACKEND,
      server,
      pod: pod ?? server,
      named: pod !== undefined,
      address,
    })),
    new Map([
      ['web-old-1', 'old-1'],
      ['web-old-2', 'old-2'],
      ['web-new-1', 'new-1'],
    ]),
  );

function follower(): AddressMemory {
  const memory: AddressMemory = new Map();
  rememberAddresses(memory, [
    { key: 'old-1', ip: '10.0.0.1' },
    { key: 'old-2', ip: '10.0.0.2' },
    { key: 'new-1', ip: '10.0.0.3' },
  ]);
  return memory;
}

const fresh = new Set(['new-1']);

describe('a slot HAPTIC changes at runtime', () => {
  it("goes to another pod with sessions open: the old pod's count there is unknown until the slot has none", () => {
    const memory = follower();
    const before = names([['SRV_1', 'web-old-1', '10.0.0.1:8080']]);
    const first = sessionsByPod(
      [reading(1, [{ pid: 7, rows: [['SRV_1', '10.0.0.1:8080', 3]] }])],
      [HAPROXY],
      memory,
      before,
      fresh,
    );
    expect(first.get('old-1')).toMatchObject({ sessions: 3 });
    // the runtime API sets SRV_1's address to the new pod's: its 3 sessions stay on the slot, 1 of them may be new
    const after = names([['SRV_1', 'web-new-1', '10.0.0.3:8080']]);
    const changed = [reading(2, [{ pid: 7, rows: [['SRV_1', '10.0.0.3:8080', 3]] }])];
    const now = sessionsByPod(changed, [HAPROXY], memory, after, fresh);
    expect(now.get('old-1')?.sessions).toBeUndefined();
    expect(now.get('old-1')).toMatchObject({ atLeast: 0, servers: 1 });
    expect(now.get('old-1')!.on[0]!.problem).toBe(
      `${BACKEND}/SRV_1 went to 10.0.0.3:8080 with 3 sessions open: whose they are is not known`,
    );
    expect(now.get('new-1')).toMatchObject({ sessions: 3 });
    // a follower rebuilds its model from the same reading many times: the answer stays the same
    expect(sessionsByPod(changed, [HAPROXY], memory, after, fresh).get('old-1')?.sessions).toBeUndefined();
    // once the slot holds none, none of them is the old pod's
    const idle = sessionsByPod(
      [reading(3, [{ pid: 7, rows: [['SRV_1', '10.0.0.3:8080', 0]] }])],
      [HAPROXY],
      memory,
      after,
      fresh,
    );
    expect(idle.get('old-1')).toMatchObject({ sessions: 0 });
    // and a later session on the slot is the new pod's alone
    const later = sessionsByPod(
      [reading(4, [{ pid: 7, rows: [['SRV_1', '10.0.0.3:8080', 2]] }])],
      [HAPROXY],
      memory,
      after,
      fresh,
    );
    expect(later.get('old-1')).toMatchObject({ sessions: 0 });
  });

  it("becomes HAPTIC's placeholder: the one pod that left it still holds its sessions, as the same row", () => {
    const memory = follower();
    const before = names([
      ['SRV_1', 'web-old-1', '10.0.0.1:8080'],
      ['SRV_2', 'web-old-2', '10.0.0.2:8080'],
    ]);
    const first = sessionsByPod(
      [
        reading(1, [
          {
            pid: 7,
            rows: [
              ['SRV_1', '10.0.0.1:8080', 3],
              ['SRV_2', '10.0.0.2:8080', 1],
            ],
          },
        ]),
      ],
      [HAPROXY],
      memory,
      before,
      fresh,
    );
    expect(Object.keys(first.get('old-1')!.rows)).toEqual([`${HAPROXY}/7/${BACKEND}/SRV_1`]);
    const after = names([
      ['SRV_1', undefined, PLACEHOLDER_ADDRESS],
      ['SRV_2', 'web-old-2', '10.0.0.2:8080'],
    ]);
    const emptied = (at: number, scur: number, failed = 0) =>
      sessionsByPod(
        [
          reading(at, [
            {
              pid: 7,
              rows: [
                ['SRV_1', PLACEHOLDER_ADDRESS, scur, failed],
                ['SRV_2', '10.0.0.2:8080', 1],
              ],
            },
          ]),
        ],
        [HAPROXY],
        memory,
        after,
        fresh,
      );
    const held = emptied(2, 2);
    expect(held.get('old-1')).toMatchObject({ sessions: 2, rows: { [`${HAPROXY}/7/${BACKEND}/SRV_1`]: { scur: 2 } } });
    expect(held.get('old-2')).toMatchObject({ sessions: 1 });
    const drained = emptied(3, 0);
    expect(drained.get('old-1')).toMatchObject({
      sessions: 0,
      rows: { [`${HAPROXY}/7/${BACKEND}/SRV_1`]: { scur: 0 } },
    });
    // another pod takes the slot later: what the old pod held there was over before, it stays drained
    const taken = sessionsByPod(
      [
        reading(4, [
          {
            pid: 7,
            rows: [
              ['SRV_1', '10.0.0.3:8080', 2],
              ['SRV_2', '10.0.0.2:8080', 1],
            ],
          },
        ]),
      ],
      [HAPROXY],
      memory,
      names([
        ['SRV_1', 'web-new-1', '10.0.0.3:8080'],
        ['SRV_2', 'web-old-2', '10.0.0.2:8080'],
      ]),
      fresh,
    );
    expect(taken.get('old-1')).toMatchObject({ sessions: 0 });
    expect(taken.get('new-1')).toMatchObject({ sessions: 2 });
  });

  it('holding sessions with no pod remembered at it (a one-shot read): each old pod without a server there is unknown', () => {
    const memory = follower();
    const readings = [
      reading(1, [
        {
          pid: 7,
          rows: [
            ['SRV_1', PLACEHOLDER_ADDRESS, 2],
            ['SRV_2', '10.0.0.2:8080', 1],
            ['SRV_3', '10.0.0.3:8080', 4],
          ],
        },
      ]),
    ];
    const by = sessionsByPod(readings, [HAPROXY], memory, new Map(), fresh);
    expect(by.get('old-1')?.sessions).toBeUndefined();
    expect(by.get('old-1')!.on[0]!.problem).toMatch(/SRV_1 is HAPTIC's placeholder with 2 sessions open/);
    // old-2 is at a server of that backend (its own slot), new-1 is new: neither had the placeholder's slot
    expect(by.get('old-2')).toMatchObject({ sessions: 1 });
    expect(by.get('new-1')).toMatchObject({ sessions: 4 });
    // a placeholder with none open says nothing of anyone
    const idle = [reading(1, [{ pid: 7, rows: [['SRV_1', PLACEHOLDER_ADDRESS, 0]] }])];
    expect(sessionsByPod(idle, [HAPROXY], follower(), new Map(), fresh).get('old-1')).toMatchObject({ sessions: 0 });
  });

  it('a reload is not a change of slot: the new worker starts its own, the leaving one keeps the old address', () => {
    const memory = follower();
    sessionsByPod([reading(1, [{ pid: 7, rows: [['SRV_1', '10.0.0.1:8080', 2]] }])], [HAPROXY], memory, new Map());
    const by = sessionsByPod(
      [
        reading(2, [
          { pid: 8, rows: [['SRV_1', '10.0.0.3:8080', 1]] },
          { pid: 7, leaving: true, rows: [['SRV_1', '10.0.0.1:8080', 1]] },
        ]),
      ],
      [HAPROXY],
      memory,
      new Map(),
      fresh,
    );
    expect(by.get('old-1')).toMatchObject({ sessions: 1, on: [{ onLeaving: 1 }] });
    expect(by.get('new-1')).toMatchObject({ sessions: 1 });
    // the leaving worker exits: what was remembered of its slots goes with it
    sessionsByPod([reading(3, [{ pid: 8, rows: [['SRV_1', '10.0.0.3:8080', 1]] }])], [HAPROXY], memory, new Map());
    expect([...memory.slots!.get(HAPROXY)!.keys()]).toEqual([`8/${BACKEND}/SRV_1`]);
  });
});

describe("an old pod's drain over a slot that changed under it", () => {
  const terminating = { since: '', deadline: '', pastDeadline: false, finalizers: [] };
  /** A follower's reads of the old pod web-old-1 (deleting from the start), stepping its history. */
  function follow(steps: [at: number, rows: [string, string, number, number?][], ended?: boolean][]) {
    const memory = follower();
    let h: SessionHistory | undefined;
    for (const [at, rows, ended = false] of steps) {
      const s = sessionsByPod([reading(at, [{ pid: 7, rows }])], [HAPROXY], memory, new Map(), fresh).get('old-1');
      h = sessionStep(h, { sessions: s, terminating }, at, ended);
    }
    return h!;
  }

  it('never drained while the slot that held its sessions serves another pod with sessions open', () => {
    const h = follow([
      [1000, [['SRV_1', '10.0.0.1:8080', 3]]],
      [2000, [['SRV_1', '10.0.0.3:8080', 3]]],
      [3000, [['SRV_1', '10.0.0.3:8080', 1]]],
    ]);
    expect(h.drainedAt).toBeUndefined();
    expect(h).toMatchObject({ last: 3, lastAt: 1000 });
    // it ended meanwhile: how its sessions ended is not known, after the wait
    const ended = follow([
      [1000, [['SRV_1', '10.0.0.1:8080', 3]]],
      [2000, [['SRV_1', '10.0.0.3:8080', 3]]],
      [2500, [['SRV_1', '10.0.0.3:8080', 3]], true],
      [9000, [['SRV_1', '10.0.0.3:8080', 1]], true],
    ]);
    expect(ended).toMatchObject({ unsettled: true });
    expect(ended.drainedAt).toBeUndefined();
  });

  it("drains on HAPTIC's placeholder, or is told killed by the slot's own counters", () => {
    const drained = follow([
      [1000, [['SRV_1', '10.0.0.1:8080', 3]]],
      [2000, [['SRV_1', PLACEHOLDER_ADDRESS, 2]]],
      [3000, [['SRV_1', PLACEHOLDER_ADDRESS, 0]]],
    ]);
    expect(drained).toMatchObject({ peak: 3, drainedAt: 3000 });
    const killed = follow([
      [1000, [['SRV_1', '10.0.0.1:8080', 3]]],
      [2000, [['SRV_1', PLACEHOLDER_ADDRESS, 2]]],
      [3000, [['SRV_1', PLACEHOLDER_ADDRESS, 0, 2]]],
    ]);
    expect(killed).toMatchObject({ openAtEnd: 2, failed: 2 });
    expect(killed.drainedAt).toBeUndefined();
  });
});
