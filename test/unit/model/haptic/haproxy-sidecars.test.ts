// HAProxy pods whose helper container is a native sidecar (an init container with `restartPolicy: Always`, its status
// in initContainerStatuses): discovered by its readiness there, their deploy container and start time found there,
// their master socket too; the dataplane generation's discovery does not look there (discovery.go reads
// spec.containers and containerStatuses only).
import { describe, expect, it } from 'vitest';
import { conform } from '../../../../src/kube/conform.ts';
import { buildHaptic } from '../../../../src/model/haptic/haptic.ts';
import { masterSocketOf } from '../../../../src/model/haptic/sessions.ts';
import type { Pod } from '../../../../src/types/kube.ts';
import type { HapticInputs } from '../../../../src/types/snapshot.ts';
import { at, hapticInputs, NOW } from '../../fixtures/rollout.ts';

const haproxy = {
  name: 'haproxy',
  command: ['/bin/sh', '-c'],
  args: ['exec haproxy -W -db -S "/etc/haproxy/haproxy-master.sock,level,admin" -- /etc/haproxy/haproxy.cfg'],
};

/**
 * The installation's HAProxy pods with the agent as a native sidecar exposing the Dataplane API port; `b`'s agent
 * started 40 s ago and is not ready yet (nor, therefore, the pod).
 */
function sidecarFleet(change?: (inputs: HapticInputs) => void): HapticInputs {
  const inputs = hapticInputs();
  for (const p of inputs.pods.items) {
    if (p.metadata.labels?.['app.kubernetes.io/component'] !== 'loadbalancer') continue;
    const starting = p.metadata.name === 'haptic-haproxy-b';
    p.spec.containers = [haproxy];
    p.spec.initContainers = [
      { name: 'prepare', ports: [{ containerPort: 5555 }] },
      { name: 'agent', restartPolicy: 'Always', ports: [{ name: 'dataplane', containerPort: 5555 }] },
    ];
    p.status = {
      ...p.status,
      ...(starting ? { conditions: [{ type: 'Ready', status: 'False' }], startTime: at(60) } : {}),
      containerStatuses: [{ name: 'haproxy', ready: true, restartCount: 0, state: { running: { startedAt: at(50) } } }],
      initContainerStatuses: [
        { name: 'prepare', ready: true, restartCount: 0, state: { terminated: { exitCode: 0 } } },
        {
          name: 'agent',
          ready: !starting,
          restartCount: 1,
          started: true,
          state: { running: { startedAt: at(40) } },
        },
      ],
    };
  }
  change?.(inputs);
  return inputs;
}

const pods = (inputs: HapticInputs) => buildHaptic(inputs, NOW).installations[0]!.haproxyPods;

describe('HAProxy pods with a native sidecar agent', () => {
  it("are discovered by the sidecar's readiness in initContainerStatuses, and deployed to through it", () => {
    expect(pods(sidecarFleet()).map((p) => [p.name, p.discovered, p.deployContainer])).toEqual([
      ['haptic-haproxy-a', true, 'agent'],
      ['haptic-haproxy-b', false, 'agent'],
    ]);
  });

  it("count their time up from the sidecar's start while not Ready", () => {
    expect(pods(sidecarFleet())[1]!.upForMs).toBe(40_000);
  });

  it('a plain init container (run to completion) is not the one HAPTIC deploys through', () => {
    const inputs = sidecarFleet((i) => {
      for (const p of i.pods.items) if (p.spec.initContainers) p.spec.initContainers[1]!.restartPolicy = undefined;
    });
    // no running container exposes the port: discovered when every container that runs is ready, as before
    expect(pods(inputs).map((p) => [p.discovered, p.deployContainer])).toEqual([
      [true, undefined],
      [true, undefined],
    ]);
  });

  it('the dataplane generation does not look at init containers: a pod whose port is on a sidecar is not its', () => {
    const inputs = sidecarFleet((i) => {
      const cfg = i.haproxyCfgs.items[0]!;
      cfg.status!.deployedToPods = cfg.status!.deployedToPods!.map((e) => ({
        podName: e.podName,
        checksum: e.checksum,
        deployedAt: at(30),
      }));
    });
    expect(buildHaptic(inputs, NOW).installations[0]!.statusShape).toBe('dataplane');
    expect(pods(inputs).map((p) => p.discovered)).toEqual([false, false]);
  });

  it('give their master socket from any container that runs, a native sidecar too', () => {
    const pod = (spec: Pod['spec']): Pod => ({ metadata: { name: 'p' }, spec });
    expect(
      masterSocketOf(pod({ containers: [{ name: 'app' }], initContainers: [{ ...haproxy, restartPolicy: 'Always' }] })),
    ).toEqual({
      container: 'haproxy',
      path: '/etc/haproxy/haproxy-master.sock',
    });
    // a plain init container has exited before the pod runs: nothing listens there
    expect(masterSocketOf(pod({ containers: [{ name: 'app' }], initContainers: [haproxy] }))).toBeUndefined();
  });

  it('have initContainerStatuses conformed as they arrive, as containerStatuses are', () => {
    const p = (conform as (item: unknown, kind: string) => Pod | undefined)(
      {
        metadata: { name: 'p' },
        spec: { containers: [] },
        status: { initContainerStatuses: [null, { name: 'agent', ready: 'yes', restartCount: 0 }, { ready: true }] },
      },
      'Pod',
    );
    expect(p?.status?.initContainerStatuses).toEqual([{ name: 'agent', restartCount: 0 }]);
  });
});
