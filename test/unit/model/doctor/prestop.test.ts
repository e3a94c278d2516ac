// The preStop reader: the order of sleeps and signals in the three hook forms, shell lines included.
import { describe, expect, it } from 'vitest';
import {
  commandWords,
  firstSignal,
  preStopPlan,
  signalAt,
  signalName,
  splitCommands,
  totalSleep,
} from '../../../../src/model/doctor/prestop.ts';

const sh = (line: string) => preStopPlan({ exec: { command: ['sh', '-c', line] } });
const steps = (line: string) =>
  sh(line).steps.map((s) =>
    s.kind === 'sleep' ? `sleep ${s.seconds}` : s.kind === 'signal' ? `${s.signal} → ${s.target}` : `other ${s.text}`,
  );

describe('signalName', () => {
  it.each([
    ['USR1', 'SIGUSR1'],
    ['SIGUSR1', 'SIGUSR1'],
    ['usr1', 'SIGUSR1'],
    ['10', 'SIGUSR1'],
    ['15', 'SIGTERM'],
    ['TERM', 'SIGTERM'],
    ['9', 'SIGKILL'],
  ])('%s → %s', (s, n) => {
    expect(signalName(s)).toBe(n);
  });
});

describe('shell lines', () => {
  it.each([
    ['sleep 10; kill -USR1 1; sleep 20', ['sleep 10', 'SIGUSR1 → 1', 'sleep 20']],
    ['kill -USR1 1; sleep 30', ['SIGUSR1 → 1', 'sleep 30']],
    ['kill -s USR1 1 && sleep 5', ['SIGUSR1 → 1', 'sleep 5']],
    ['kill -SIGUSR1 1', ['SIGUSR1 → 1']],
    ['kill -10 1', ['SIGUSR1 → 1']],
    ['kill --signal=USR1 1', ['SIGUSR1 → 1']],
    ['kill 1', ['SIGTERM → 1']],
    ['sleep 2m', ['sleep 120']],
    ['sleep 1m 30s', ['sleep 90']],
    ['/bin/sleep 0.5', ['sleep 0.5']],
    ['exec sleep 5', ['sleep 5']],
    ['pkill -USR1 haproxy', ['SIGUSR1 → haproxy']],
    ['killall -s USR1 -e haproxy', ['SIGUSR1 → haproxy']],
    ['kill -USR1 $(pidof haproxy); sleep 3', ['SIGUSR1 → $(pidof haproxy)', 'sleep 3']],
    ['echo "a; b" | tee /tmp/x; sleep 1', ['other echo "a; b"', 'other tee /tmp/x', 'sleep 1']],
    ['nginx -s quit\nsleep 3', ['other nginx -s quit', 'sleep 3']],
    ['DEBUG=1 sleep 4 || true', ['sleep 4', 'other true']],
  ])('%j', (line, expected) => {
    expect(steps(line)).toEqual(expected);
  });

  it('a shell line with loops or conditionals is not followed (its order is unknown)', () => {
    expect(sh('while pidof haproxy; do sleep 1; done').linear).toBe(false);
    expect(sh('if true; then kill -USR1 1; fi').linear).toBe(false);
    expect(sh('sleep 5; kill -USR1 1').linear).toBe(true);
  });

  it('splits commands outside quotes and $( … ) only', () => {
    expect(splitCommands(`a 'x;y' && b "$(c; d)" | e & f`)).toEqual([`a 'x;y'`, `b "$(c; d)"`, 'e', 'f']);
    expect(commandWords(`FOO=1 command kill -s "USR1" 1`)).toEqual(['kill', '-s', 'USR1', '1']);
  });

  it('reads sh, bash and -ec style options; a command without a shell is one step', () => {
    expect(
      preStopPlan({ exec: { command: ['/bin/bash', '-ec', 'sleep 3; kill -USR1 1'] } }).steps.map((s) => s.kind),
    ).toEqual(['sleep', 'signal']);
    expect(preStopPlan({ exec: { command: ['sleep', '15'] } }).steps).toEqual([
      { kind: 'sleep', seconds: 15, text: 'sleep 15' },
    ]);
    expect(preStopPlan({ exec: { command: ['/usr/bin/kill', '-USR1', '1'] } }).steps[0]).toMatchObject({
      kind: 'signal',
      signal: 'SIGUSR1',
    });
  });
});

describe('hook forms', () => {
  it('sleep action, httpGet, none', () => {
    expect(preStopPlan({ sleep: { seconds: 7 } })).toMatchObject({
      handler: 'sleep',
      text: 'sleep action 7s',
      steps: [{ kind: 'sleep', seconds: 7 }],
    });
    expect(preStopPlan({ httpGet: { path: '/drain', port: 8080 } })).toMatchObject({
      handler: 'httpGet',
      text: 'httpGet :8080/drain',
      steps: [],
    });
    expect(preStopPlan(undefined).handler).toBe('none');
    expect(preStopPlan({} as never).handler).toBe('none');
  });

  it('sleep infinity never ends', () => {
    expect(totalSleep(sh('sleep infinity'))).toBe(Number.POSITIVE_INFINITY);
  });
});

describe('timing', () => {
  it('the seconds slept before and after a signal', () => {
    const plan = sh('sleep 10; kill -USR1 1; sleep 20');
    expect(totalSleep(plan)).toBe(30);
    expect(signalAt(plan, 'SIGUSR1')).toMatchObject({ before: 10, after: 20 });
    expect(signalAt(plan, 'SIGTERM')).toBeUndefined();
    expect(firstSignal(sh('kill -TERM 1; sleep 5'))).toMatchObject({
      before: 0,
      after: 5,
      step: { signal: 'SIGTERM' },
    });
  });
});
