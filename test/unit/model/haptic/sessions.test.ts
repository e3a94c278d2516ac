import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  type HAProxyReading,
  masterSocketOf,
  parseShowProc,
  parseShowStat,
  readingOf,
  rememberAddresses,
  serverNames,
  sessionsByPod,
  splitAnswers,
  statBackends,
  statCommands,
  UncountableStat,
} from '../../../../src/model/haptic/sessions.ts';
import type { Pod } from '../../../../src/types/kube.ts';

// A real interactive master CLI session of Debian's HAProxy 2.6 after a reload, one request on the old worker and
// two on the new one: `prompt`, `show proc`, `@!<pid> show stat -1 4 -1` for each worker, then one for a PID that
// is not there, then `quit`.
const TRANSCRIPT = readFileSync(new URL('../../../fixtures/sessions/haproxy-2.6-reload.txt', import.meta.url), 'utf8');

const pod = (containers: { name: string; command?: string[]; args?: string[] }[]): Pod =>
  ({ metadata: { name: 'p' }, spec: { containers: containers.map((c) => ({ image: 'x', ...c })) } }) as Pod;

const row = (
  backend: string,
  server: string,
  addr: string,
  scur: number,
  extra: Partial<Record<string, number>> = {},
) => ({ backend, server, addr, scur, qcur: 0, status: 'UP', failed: extra.failed ?? 0, retried: extra.retried ?? 0 });

describe("HAProxy's master CLI, read", () => {
  it('splits an interactive session into answers and reads show proc: the current worker and the leaving one', () => {
    const answers = splitAnswers(TRANSCRIPT);
    expect(answers).toHaveLength(4);
    expect(parseShowProc(answers[0]!)).toEqual([
      { pid: 13333, leaving: false },
      { pid: 13313, leaving: true },
    ]);
  });

  it("splits the same after a failed reload (master[ReloadFailed]> ) and with 3.0's timed prompt and modes", () => {
    const failed = TRANSCRIPT.replaceAll('master> ', 'master[ReloadFailed]> ');
    expect(failed).not.toBe(TRANSCRIPT);
    expect(splitAnswers(failed)).toEqual(splitAnswers(TRANSCRIPT));
    const timed = TRANSCRIPT.replaceAll('master> ', '[0:00:01:02] master[ReloadFailed](xe)> ');
    expect(splitAnswers(timed)).toEqual(splitAnswers(TRANSCRIPT));
  });

  it('reads show stat by its header: servers only, with sessions, address and fault counters', () => {
    const answers = splitAnswers(TRANSCRIPT);
    expect(parseShowStat(answers[1]!)).toEqual([
      expect.objectContaining({
        backend: 'b',
        server: 'web1',
        addr: '127.0.0.1:18081',
        scur: 1,
        qcur: 0,
        status: 'no check',
      }),
      expect.objectContaining({ backend: 'b', server: 'web2', addr: '127.0.0.2:18082', scur: 0, status: 'MAINT' }),
    ]);
    expect((parseShowStat(answers[2]!) as { scur: number }[])[0]?.scur).toBe(2);
    // columns found by name, in any order; a proxy's own rows left out when the type column is missing
    const reordered =
      '# svname,addr,pxname,scur,qcur,eresp,srv_abrt,wretr\nFRONTEND,,f,3,0,0,0,0\napp,10.0.0.1:80,be,4,1,2,1,5\n';
    expect(parseShowStat(reordered)).toEqual([
      {
        backend: 'be',
        server: 'app',
        addr: '10.0.0.1:80',
        scur: 4,
        qcur: 1,
        status: '',
        ttimeMs: undefined,
        failed: 3,
        retried: 5,
      },
    ]);
    expect(parseShowStat("Can't find the target PID matching the prefix '@!1'")).toBeUndefined();
    expect(parseShowProc('Unknown command')).toBeUndefined();
  });

  it('a counter that is not a non-negative decimal integer makes the worker unknown, never NaN, Infinity or a guess', () => {
    const header = '# pxname,svname,scur,qcur,addr,status,type,ttime,eresp,srv_abrt,wretr\n';
    const ok = 'be,app,4,0,10.0.0.1:80,UP,2,12,0,0,0\n';
    expect(parseShowStat(header + ok)).toEqual([expect.objectContaining({ scur: 4, ttimeMs: 12 })]);
    for (const [bad, column] of [
      ['be,app,NaN,0,10.0.0.1:80,UP,2,12,0,0,0', 'scur'],
      ['be,app,Infinity,0,10.0.0.1:80,UP,2,12,0,0,0', 'scur'],
      ['be,app,4,-1,10.0.0.1:80,UP,2,12,0,0,0', 'qcur'],
      ['be,app,4,0,10.0.0.1:80,UP,2,0x1F,0,0,0', 'ttime'],
      ['be,app,4,0,10.0.0.1:80,UP,2,12,1e3,0,0', 'eresp'],
      ['be,app,4,0,10.0.0.1:80,UP,2,12,0,2.5,0', 'srv_abrt'],
      ['be,app,4,0,10.0.0.1:80,UP,2,12,0,0,9999999999999999', 'wretr'],
    ] as const) {
      const got = parseShowStat(`${header}${ok}${bad}\n`);
      expect(got, bad).toBeInstanceOf(UncountableStat);
      expect((got as UncountableStat).problem, bad).toContain(`show stat gave ${column} `);
      const reading = readingOf('haptic/hp-1', 5, [{ pid: 7, leaving: false }], [`${header}${bad}\n`]);
      expect(reading.workers[0]!.servers, bad).toBeUndefined();
      expect(reading.workers[0]!.problem, bad).toMatch(/not a count: its sessions are unknown$/);
    }
    // an empty field is a column that does not apply to the row (HAProxy leaves it empty), not a bad counter
    expect(parseShowStat(`${header}be,app,4,0,10.0.0.1:80,UP,2,,,,\n`)).toEqual([
      expect.objectContaining({ scur: 4, ttimeMs: undefined, failed: 0, retried: 0 }),
    ]);
  });

  it('makes a reading of each worker; a worker the master does not know yet is unreadable, not empty', () => {
    const [proc, ...stats] = splitAnswers(TRANSCRIPT);
    const workers = [...parseShowProc(proc!)!, { pid: 99999, leaving: false }];
    const reading = readingOf('haptic/hp-1', 5, workers, stats);
    expect(reading.workers.map((w) => w.servers?.length)).toEqual([2, 2, undefined]);
    expect(reading.workers[2]!.problem).toBe(
      "a worker did not answer show stat (Can't find the target PID matching the prefix '@!N'): not registered with the master yet",
    );
  });

  it("asks each worker for the rollout's backends only, each a word HAProxy takes, or for every server", () => {
    expect(statCommands(7, statBackends(['ing_ns_web_web_80', 'be-b.x:y', 'ing_ns_web_web_80']))).toEqual([
      '@!7 show stat be-b.x:y 4 -1',
      '@!7 show stat ing_ns_web_web_80 4 -1',
    ]);
    // none known, too many to ask one by one, or a name that is not one word of the master CLI: every server
    for (const backends of [
      undefined,
      [],
      Array.from({ length: 33 }, (_, i) => `be${i}`),
      ['be', 'web;shutdown'],
      ['be web'],
      ['be\nshow info'],
      ['@!1'],
    ])
      expect(statCommands(7, statBackends(backends)), JSON.stringify(backends)).toEqual(['@!7 show stat -1 4 -1']);
  });

  it("reads a worker's answers per backend: a backend its config lacks has no server, a missing answer is unknown", () => {
    // a real session of Debian's HAProxy 2.6: `show stat be_a 4 -1`, then a backend the worker does not have
    const answers = splitAnswers(
      readFileSync(new URL('../../../fixtures/sessions/haproxy-2.6-backends.txt', import.meta.url), 'utf8'),
    );
    const workers = parseShowProc(answers[0]!)!;
    expect(workers).toEqual([{ pid: 4107, leaving: false }]);
    expect(answers[2]!.trim()).toBe('No such proxy.');
    const reading = readingOf('haptic/hp-1', 5, workers, answers.slice(1, 3), ['be-gone', 'be_a']);
    expect(reading.workers[0]!.servers?.map((s) => `${s.backend}/${s.server}`)).toEqual(['be_a/s1', 'be_a/s2']);
    // asked for every server, `No such proxy.` is no answer to count
    expect(readingOf('haptic/hp-1', 5, workers, [answers[2]!]).workers[0]!.problem).toMatch(/did not answer show stat/);
    // two workers asked for two backends each: the second worker's second answer is missing
    const two = readingOf(
      'haptic/hp-1',
      5,
      [...workers, { pid: 4108, leaving: true }],
      [answers[1]!, answers[2]!, answers[1]!],
      ['be-gone', 'be_a'],
    );
    expect(two.workers.map((w) => w.servers?.length)).toEqual([2, undefined]);
    expect(two.workers[1]!.problem).toBe('a worker did not answer show stat');
  });

  it("finds the master socket in the container's -S: its own argument, or in a shell script as HAPTIC's chart writes it", () => {
    expect(
      masterSocketOf(
        pod([
          { name: 'agent', command: ['agent'] },
          {
            name: 'haproxy',
            command: ['/bin/sh', '-c'],
            args: [
              'mkdir -p /x\nexec haproxy -dr -W -db -S "/etc/haproxy/haproxy-master.sock,level,admin" -- /etc/haproxy/haproxy.cfg',
            ],
          },
        ]),
      ),
    ).toEqual({ container: 'haproxy', path: '/etc/haproxy/haproxy-master.sock' });
    expect(masterSocketOf(pod([{ name: 'lb', args: ['-W', '-S', '/run/m.sock,mode,600', '-f', '/c'] }]))).toEqual({
      container: 'lb',
      path: '/run/m.sock',
    });
    expect(masterSocketOf(pod([{ name: 'lb', args: ['-S/run/m.sock'] }]))?.path).toBe('/run/m.sock');
    expect(masterSocketOf(pod([{ name: 'haproxy', args: ['-W', '-f', '/c'] }]))).toBeUndefined();
  });
});

describe('sessions by pod', () => {
  const reading = (pod: string, workers: HAProxyReading['workers']): HAProxyReading => ({ pod, at: 1, workers });

  it('sums each pod over the current and the leaving workers of every HAProxy pod, matched by address', () => {
    const memory = new Map();
    rememberAddresses(memory, [
      { key: 'old', ip: '10.0.0.1' },
      { key: 'new', ip: '10.0.0.2' },
    ]);
    const readings = [
      reading('haptic/a', [
        {
          pid: 2,
          leaving: false,
          servers: [row('be', 'old', '10.0.0.1:8080', 1), row('be', 'new', '10.0.0.2:8080', 3)],
        },
        { pid: 1, leaving: true, servers: [row('be', 'old', '10.0.0.1:8080', 4)] },
      ]),
      reading('haptic/b', [{ pid: 7, leaving: false, servers: [row('be', 'SRV_1', '10.0.0.1:8080', 2)] }]),
    ];
    const by = sessionsByPod(readings, ['haptic/a', 'haptic/b'], memory);
    expect(by.get('old')).toMatchObject({ sessions: 7, servers: 3 });
    expect(by.get('old')!.on).toEqual([
      { haproxyPod: 'haptic/a', sessions: 5, queued: 0, onLeaving: 4 },
      { haproxyPod: 'haptic/b', sessions: 2, queued: 0, onLeaving: 0 },
    ]);
    expect(by.get('new')).toMatchObject({ sessions: 3 });
    expect(Object.keys(by.get('old')!.rows)).toEqual(['haptic/a/2/be/old', 'haptic/a/1/be/old', 'haptic/b/7/be/SRV_1']);
  });

  it('never says 0 for unknown: an unreadable HAProxy pod or worker, or one not read yet, leaves only a lower bound', () => {
    const memory = new Map([['10.0.0.1', 'old']]);
    const readings = [
      reading('haptic/a', [
        { pid: 2, leaving: false, servers: [row('be', 'old', '10.0.0.1:8080', 1)] },
        { pid: 1, leaving: true, problem: 'a worker did not answer show stat' },
      ]),
      { pod: 'haptic/b', at: 1, workers: [], problem: 'no socat in HAProxy pod b' },
    ];
    const by = sessionsByPod(readings, ['haptic/a', 'haptic/b', 'haptic/c'], memory);
    expect(by.get('old')!.sessions).toBeUndefined();
    expect(by.get('old')!.atLeast).toBe(1);
    expect(by.get('old')!.on.map((o) => o.problem)).toEqual([
      'a worker did not answer show stat',
      'no socat in HAProxy pod b',
      'not read yet',
    ]);
  });

  it("keeps a gone pod's address until another pod is seen at it", () => {
    const memory = new Map();
    rememberAddresses(memory, [{ key: 'gone-uid', ip: '10.0.0.9' }]);
    const r = [reading('haptic/a', [{ pid: 1, leaving: true, servers: [row('be', 'web-1', '10.0.0.9:80', 2)] }])];
    expect(sessionsByPod(r, ['haptic/a'], memory).get('gone-uid')?.sessions).toBe(2);
    rememberAddresses(memory, [{ key: 'reborn-uid', ip: '10.0.0.9' }]);
    const by = sessionsByPod(r, ['haptic/a'], memory);
    expect(by.get('reborn-uid')?.sessions).toBe(2);
    expect(by.has('gone-uid')).toBe(false);
  });

  it("names a dataplane SRV_<n> slot's pod by the config's # Pod: comment at the row's address, not by the slot", () => {
    // SRV_1 was web-old's (10.0.0.1) and now is web-new's (10.0.0.3): the leaving worker's SRV_1 row is web-old's
    const servers = [
      { backend: 'ing_shop_web_web_80', server: 'SRV_1', pod: 'web-new', named: true, address: '10.0.0.3:8080' },
      { backend: 'ing_shop_web_web_80', server: 'SRV_2', pod: 'web-mid', named: true, address: '10.0.0.2:8080' },
    ];
    const names = serverNames(
      servers,
      new Map([
        ['web-new', 'new'],
        ['web-mid', 'mid'],
      ]),
    );
    const memory = new Map();
    rememberAddresses(memory, [
      { key: 'old', ip: '10.0.0.1' },
      { key: 'new', ip: '10.0.0.3' },
    ]);
    const stat = (addr: string | undefined, scur: number) => ({
      ...row('ing_shop_web_web_80', 'SRV_1', addr ?? '', scur),
      addr,
    });
    const readings = [
      reading('haptic/a', [
        { pid: 2, leaving: false, servers: [stat('10.0.0.3:8080', 1)] },
        { pid: 1, leaving: true, servers: [stat('10.0.0.1:8080', 4)] },
      ]),
    ];
    const by = sessionsByPod(readings, ['haptic/a'], memory, names);
    expect(by.get('new')?.sessions).toBe(1);
    expect(by.get('old')?.sessions).toBe(4);
    // a HAProxy without the addr column: the server and its comment alone say whose it is (web-mid has no address
    // in the memory at all)
    const noAddr = [
      reading('haptic/a', [
        {
          pid: 2,
          leaving: false,
          servers: [{ ...row('ing_shop_web_web_80', 'SRV_2', '', 5), addr: undefined }],
        },
      ]),
    ];
    expect(sessionsByPod(noAddr, ['haptic/a'], memory, names).get('mid')?.sessions).toBe(5);
  });
});
