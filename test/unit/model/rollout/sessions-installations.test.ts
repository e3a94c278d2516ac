// The HAProxy pods a rollout's sessions are read from: two installations of one namespace whose template configs
// select the same HAProxy pods both list them; each pod's sessions count once.
import { describe, expect, it } from 'vitest';
import type { HAProxyReading } from '../../../../src/model/haptic/sessions.ts';
import { buildRollout } from '../../../../src/model/rollout/rollout.ts';
import { haproxyPodsToRead, routingInstallations, withSessions } from '../../../../src/model/rollout/sessions.ts';
import { GATE, hapticInputs, NOW, pod, slice, snapshot } from '../../fixtures/rollout.ts';

function twinModel() {
  const snap = snapshot({
    pods: [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }), pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3' })],
    slices: [slice([{ pod: 'web-old-1', ip: '10.0.0.1', ready: true }])],
    haptic: hapticInputs({ servers: [{ pod: 'web-old-1', ip: '10.0.0.1', disabled: false }] }),
  });
  const base = buildRollout(snap, NOW, { gateType: GATE });
  const inst = base.installations[0]!;
  // a second template config of the namespace whose podSelector matches the same HAProxy pods, routing the same
  const twin = { ...inst, templateConfig: 'haptic-config-2' };
  const rendered = base.routing.rendered ?? [];
  return {
    ...base,
    installations: [inst, twin],
    routing: {
      ...base.routing,
      rendered: [...rendered, ...rendered.map((r) => ({ ...r, installation: 'haptic/haptic-config-2' }))],
    },
  };
}

const reading = (name: string, scur: number): HAProxyReading => ({
  pod: `haptic/${name}`,
  at: NOW,
  workers: [
    {
      pid: 7,
      leaving: false,
      servers: [
        {
          backend: 'ing_shop_web_web_80',
          server: 'web-old-1',
          addr: '10.0.0.1:8080',
          scur,
          qcur: 0,
          status: 'UP',
          failed: 0,
          retried: 0,
        },
      ],
    },
  ],
});

describe('HAProxy pods listed by two installations', () => {
  it('are read once and their sessions counted once', () => {
    const model = twinModel();
    expect(routingInstallations(model)).toHaveLength(2);
    expect(haproxyPodsToRead(routingInstallations(model))).toEqual([
      'haptic/haptic-haproxy-a',
      'haptic/haptic-haproxy-b',
    ]);
    const out = withSessions(
      model,
      { readings: [reading('haptic-haproxy-a', 2), reading('haptic-haproxy-b', 1)] },
      new Map(),
    );
    const old = out.oldPods[0]!.sessions!;
    expect(old.sessions).toBe(3);
    expect(old.on.map((o) => [o.haproxyPod, o.sessions])).toEqual([
      ['haptic/haptic-haproxy-a', 2],
      ['haptic/haptic-haproxy-b', 1],
    ]);
    expect(old.servers).toBe(2);
  });

  it('a pod only one of them discovers is read all the same', () => {
    const a = { namespace: 'haptic', haproxyPods: [{ name: 'lb-1', discovered: true }] };
    const b = {
      namespace: 'haptic',
      haproxyPods: [
        { name: 'lb-1', discovered: false },
        { name: 'lb-2', discovered: true },
      ],
    };
    expect(haproxyPodsToRead([a, b] as Parameters<typeof haproxyPodsToRead>[0])).toEqual([
      'haptic/lb-1',
      'haptic/lb-2',
    ]);
  });
});
