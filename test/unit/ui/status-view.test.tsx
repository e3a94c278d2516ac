import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { buildRollout } from '../../../src/model/rollout.ts';
import { finding as makeFinding } from '../../../src/diagnose/make.ts';
import { StatusView } from '../../../src/ui/ink/StatusView.tsx';
import { statusText } from '../../../src/ui/status-text.ts';
import { painter } from '../../../src/ui/style.ts';
import { deployment, hapticInputs, NOW, pod, slice, snapshot } from '../fixtures/rollout.ts';

const strip = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '');

function gatingModel() {
  return buildRollout(
    snapshot({
      pods: [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }), pod({ name: 'web-old-2', rs: '1', ip: '10.0.0.2', terminatingDeadlineIn: 9 }), pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'missing' })],
      slices: [slice([{ pod: 'web-old-1', ip: '10.0.0.1', ready: true }, { pod: 'web-old-2', ip: '10.0.0.2', ready: false, serving: true, terminating: true }, { pod: 'web-new-1', ip: '10.0.0.3', ready: false }])],
      haptic: hapticInputs({ servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }, { pod: 'web-old-2', ip: '10.0.0.2', disabled: true }], fleet: [{ name: 'haptic-haproxy-a', runs: 'current' }, { name: 'haptic-haproxy-b', runs: 'retained' }], oldServers: [{ pod: 'web-old-1', ip: '10.0.0.1', disabled: false }, { pod: 'web-old-2', ip: '10.0.0.2', disabled: false }] }),
    }),
    NOW,
  );
}

describe('StatusView (Ink)', () => {
  it('shows a new pod waiting for the gate and an old pod draining', () => {
    const { lastFrame } = render(<StatusView model={gatingModel()} now={NOW} />);
    expect(strip(lastFrame() ?? '')).toMatchInlineSnapshot(`
      "deployment.apps/web -n shop · revision 2 · RollingUpdate maxSurge 1, maxUnavailable 0 · gate
      haproxy-haptic.org/load-balancer-ready
      … Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...
        desired 2 · updated 1 · ready 2 · available 2 · terminating 1

      NEW PODS replicaset/web-rs2 (revision 2)
      NAME        CONTAINERS   GATE        READY   ENDPOINTS        HAPROXY       AGE
      web-new-1   ✓ 20s        … waiting   ✗       web: not ready   enabled 1/2   30s

      OLD PODS draining
      NAME        STATE                             ENDPOINTS                   HAPROXY         AGE
      web-old-1   ● Running, Ready                  web: ready                  not in config   30s
      web-old-2   ↓ Terminating, 9s of grace left   web: terminating, serving   disabled 1/2    30s

      HAPTIC haptic/haptic-config: leader haptic-controller-1 (renewed 2s ago) · config ok · HAProxy 1/2
      on 7c1f5e2a9b0d
      Ctrl-C to stop watching (the rollout goes on)"
    `);
  });

  it('shows completion and the top finding', () => {
    const done = buildRollout(snapshot({ deployment: deployment({ status: { observedGeneration: 2, replicas: 2, updatedReplicas: 2, readyReplicas: 2, availableReplicas: 2 } }), pods: [pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'True' })], haptic: hapticInputs({ leaseRenewedSecondsAgo: 90 }) }), NOW);
    const finding = makeFinding('HS103', { installation: 'haptic/haptic-config', namespace: 'haptic' }, ['lease haptic/haptic renewed 1m30s ago'], { variant: 'controllerLogs' });
    const { lastFrame } = render(<StatusView model={done} now={NOW} finding={finding} />);
    expect(strip(lastFrame() ?? '')).toMatchInlineSnapshot(`
      "deployment.apps/web -n shop · revision 2 · RollingUpdate maxSurge 1, maxUnavailable 0 · gate
      haproxy-haptic.org/load-balancer-ready
      ✓ deployment "web" successfully rolled out
        desired 2 · updated 2 · ready 2 · available 2 · terminating 0

      NEW PODS replicaset/web-rs2 (revision 2)
      NAME        CONTAINERS   GATE          READY   ENDPOINTS         HAPROXY         AGE
      web-new-1   ✓ 20s        ✓ 18s (+2s)   ✓ 18s   web: not listed   not in config   30s

      HAPTIC haptic/haptic-config: no leader (lease stale) · config ok · HAProxy 2/2 on 7c1f5e2a9b0d

      ✗ [HS103] HAPTIC haptic/haptic-config has no controller leader, so nothing renders, deploys or sets
      the gate
          lease haptic/haptic renewed 1m30s ago
          fix: kubectl -n haptic logs -l app.kubernetes.io/component=controller --tail=50"
    `);
  });
});

describe('statusText', () => {
  it('prints the same view as plain text without colour', () => {
    expect(statusText(gatingModel(), NOW, painter(false))).toMatchInlineSnapshot(`
      "deployment.apps/web -n shop · revision 2 · RollingUpdate maxSurge 1, maxUnavailable 0 · gate haproxy-haptic.org/load-balancer-ready
      … Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...
        desired 2 · updated 1 · ready 2 · available 2 · terminating 1

      NEW PODS  replicaset/web-rs2 (revision 2)
      NAME        CONTAINERS   GATE        READY   ENDPOINTS        HAPROXY       AGE
      web-new-1   ✓ 20s        … waiting   ✗       web: not ready   enabled 1/2   30s

      OLD PODS  replicaset/web-rs1 (revision 1)
      NAME        STATE                             ENDPOINTS                   HAPROXY         AGE
      web-old-1   ● Running, Ready                  web: ready                  not in config   30s
      web-old-2   ↓ Terminating, 9s of grace left   web: terminating, serving   disabled 1/2    30s

      HAPTIC haptic/haptic-config: leader haptic-controller-1 (renewed 2s ago) · config ok · HAProxy 1/2 on 7c1f5e2a9b0d
      "
    `);
  });
});

describe('StatusView on a small terminal', () => {
  it('keeps the frame short: pods that still wait first, the rest counted', () => {
    const pods = [
      ...Array.from({ length: 12 }, (_, i) => pod({ name: `web-new-${String(i).padStart(2, '0')}`, rs: '2', ip: `10.0.2.${i}`, gate: 'True' })),
      pod({ name: 'web-new-zz', rs: '2', ip: '10.0.3.1', gate: 'missing' }),
    ];
    const model = buildRollout(snapshot({ pods, haptic: hapticInputs() }), NOW);
    const frame = strip(render(<StatusView model={model} now={NOW} podRows={5} />).lastFrame() ?? '');
    const rows = frame.split('\n').filter((l) => l.startsWith('web-new-'));
    expect(rows.map((l) => l.split(' ')[0])).toEqual(['web-new-00', 'web-new-01', 'web-new-02', 'web-new-zz']);
    expect(frame).toContain('  … and 9 more');
  });
});
