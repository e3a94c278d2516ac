import { describe, expect, it } from 'vitest';
import { containersReadyCondition, readyCondition } from '../../cluster/standins/readiness.ts';

const GATE = 'haproxy-haptic.org/load-balancer-ready';

describe('containersReadyCondition (kubelet GenerateContainersReadyCondition)', () => {
  it.each([
    [
      'all ready',
      [
        { name: 'a', ready: true },
        { name: 'b', ready: true },
      ],
      'Running',
      { status: 'True' },
    ],
    [
      'one unready',
      [
        { name: 'a', ready: true },
        { name: 'b', ready: false },
      ],
      'Running',
      { status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [b]' },
    ],
    [
      'two unready, Go list formatting',
      [
        { name: 'a', ready: false },
        { name: 'b', ready: false },
      ],
      'Running',
      { status: 'False', reason: 'ContainersNotReady', message: 'containers with unready status: [a b]' },
    ],
    [
      'unknown and unready',
      [{ name: 'b', ready: false }],
      'Pending',
      {
        status: 'False',
        reason: 'ContainersNotReady',
        message: 'containers with unknown status: [a], containers with unready status: [b]',
      },
    ],
    [
      'succeeded',
      [
        { name: 'a', ready: false },
        { name: 'b', ready: false },
      ],
      'Succeeded',
      { status: 'False', reason: 'PodCompleted' },
    ],
    [
      'failed',
      [
        { name: 'a', ready: false },
        { name: 'b', ready: false },
      ],
      'Failed',
      { status: 'False', reason: 'PodFailed' },
    ],
  ])('%s', (_, statuses, phase, expected) => {
    expect(containersReadyCondition(['a', 'b'], statuses, phase)).toEqual(expected);
  });

  it('has no container statuses yet', () => {
    expect(containersReadyCondition(['a'], undefined, 'Pending')).toEqual({
      status: 'False',
      reason: 'UnknownContainerStatuses',
    });
  });
});

describe('readyCondition (kubelet GeneratePodReadyCondition)', () => {
  const ready = { status: 'True' as const };

  it('copies ContainersReady when it is not True', () => {
    const notReady = {
      status: 'False' as const,
      reason: 'ContainersNotReady',
      message: 'containers with unready status: [a]',
    };
    expect(readyCondition(notReady, [{ conditionType: GATE }], [])).toEqual(notReady);
  });

  it.each([
    ['no gates', undefined, [], { status: 'True' }],
    ['gate True', [{ conditionType: GATE }], [{ type: GATE, status: 'True' }], { status: 'True' }],
    [
      'gate missing',
      [{ conditionType: GATE }],
      [],
      {
        status: 'False',
        reason: 'ReadinessGatesNotReady',
        message: `corresponding condition of pod readiness gate "${GATE}" does not exist.`,
      },
    ],
    [
      'gate False',
      [{ conditionType: GATE }],
      [{ type: GATE, status: 'False' }],
      {
        status: 'False',
        reason: 'ReadinessGatesNotReady',
        message: `the status of pod readiness gate "${GATE}" is not "True", but False`,
      },
    ],
    [
      'two gates, joined with ", "',
      [{ conditionType: GATE }, { conditionType: 'example.com/other' }],
      [{ type: 'example.com/other', status: 'Unknown' }],
      {
        status: 'False',
        reason: 'ReadinessGatesNotReady',
        message: `corresponding condition of pod readiness gate "${GATE}" does not exist., the status of pod readiness gate "example.com/other" is not "True", but Unknown`,
      },
    ],
  ])('%s', (_, gates, conditions, expected) => {
    expect(readyCondition(ready, gates, conditions)).toEqual(expected);
  });
});
