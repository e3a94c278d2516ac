import { zstdCompressSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { buildRollout } from '../../../src/model/rollout/rollout.ts';
import { withSessions } from '../../../src/model/rollout/sessions.ts';
import { installationLine, newPodRow, oldPodRow } from '../../../src/ui/status-rows.ts';
import { statusText } from '../../../src/ui/status-text.ts';
import { painter } from '../../../src/ui/style.ts';
import { hapticInputs, NOW, pod, replicaSet, slice, snapshot } from '../fixtures/rollout.ts';

function gatingModel() {
  return buildRollout(
    snapshot({
      pods: [
        pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
        pod({ name: 'web-old-2', rs: '1', ip: '10.0.0.2', terminatingDeadlineIn: 9 }),
        pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'missing' }),
      ],
      slices: [
        slice([
          { pod: 'web-old-1', ip: '10.0.0.1', ready: true },
          { pod: 'web-old-2', ip: '10.0.0.2', ready: false, serving: true, terminating: true },
          { pod: 'web-new-1', ip: '10.0.0.3', ready: false },
        ]),
      ],
      haptic: hapticInputs({
        servers: [
          { pod: 'web-new-1', ip: '10.0.0.3', disabled: false },
          { pod: 'web-old-2', ip: '10.0.0.2', disabled: true },
        ],
        fleet: [
          { name: 'haptic-haproxy-a', runs: 'current' },
          { name: 'haptic-haproxy-b', runs: 'retained' },
        ],
        oldServers: [
          { pod: 'web-old-1', ip: '10.0.0.1', disabled: false },
          { pod: 'web-old-2', ip: '10.0.0.2', disabled: false },
        ],
      }),
    }),
    NOW,
  );
}

describe('statusText', () => {
  it('prints the same view as plain text without colour', () => {
    expect(statusText(gatingModel(), NOW, painter(false))).toMatchInlineSnapshot(`
      "deployment.apps/web -n shop · revision 2 · RollingUpdate maxSurge 1, maxUnavailable 0 · gate haproxy-haptic.org/load-balancer-ready
      … Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...
        desired 2 · updated 1 · ready 2 · available 2 · terminating 1

      NEW PODS  replicaset/web-rs2 (revision 2)
      NAME        CONTAINERS   GATE        READY   ENDPOINTS        HAPROXY       AGE
      web-new-1   ✓ 20s ago    … waiting   ✗       web: not ready   enabled 1/2   30s

      OLD PODS  replicaset/web-rs1 (revision 1)
      NAME        STATE                             ENDPOINTS                   HAPROXY         AGE
      web-old-1   ● Running, Ready                  web: ready                  not in config   30s
      web-old-2   ↓ Terminating, 9s of grace left   web: terminating, serving   disabled 1/2    30s

      HAPTIC haptic/haptic-config: leader haptic-controller-1 (renewed 2s ago) · config ok · HAProxy 1/2 on 7c1f5e2a9b0d, 1 on 3e8a0b6c2d1f
      "
    `);
  });

  it('says how long ago a state was reached, and just ✓ where the condition carries no time', () => {
    const model = gatingModel();
    const timeless = {
      ...model.newPods[0]!,
      containersReady: { ...model.newPods[0]!.containersReady, since: undefined },
    };
    expect(newPodRow(model.newPods[0]!, NOW)[1]).toEqual({ text: '✓ 20s ago', tone: 'good' });
    expect(newPodRow(timeless, NOW)[1]).toEqual({ text: '✓', tone: 'good' });
  });

  it('says the live config could not be read, and why (a decompression bomb is not expanded)', () => {
    const haptic = hapticInputs();
    const cfg = haptic.haproxyCfgs.items[0]!;
    cfg.spec = {
      ...cfg.spec!,
      compressed: true,
      content: zstdCompressSync(Buffer.alloc(65 * 1024 * 1024, 0x61)).toString('base64'),
    };
    const text = statusText(buildRollout(snapshot({ haptic }), NOW), NOW, painter(false));
    expect(text).toContain(
      `config unreadable (haproxycfg/${cfg.metadata.name}: its zstd content expands to more than 64 MiB)`,
    );
  });

  it("says an old pod's grace period ended before it calls the pod stuck (the kubelet's seconds to kill and delete it)", () => {
    const state = (deadlineIn: number) => {
      const m = buildRollout(
        snapshot({
          pods: [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1', terminatingDeadlineIn: deadlineIn })],
          haptic: hapticInputs(),
        }),
        NOW,
      );
      return oldPodRow(m.oldPods[0]!, NOW)[1];
    };
    expect(state(9)).toMatchObject({ text: '↓ Terminating, 9s of grace left', tone: 'wait' });
    expect(state(-5)).toMatchObject({ text: '↓ Terminating, grace period ended 5s ago', tone: 'wait' });
    expect(state(-40)).toMatchObject({ text: '✗ Terminating, 40s past its grace period', tone: 'bad' });
  });
});

describe('status --sessions, one shot', () => {
  it('adds a SESSIONS column, a lower bound where a HAProxy pod could not be read, and says why', () => {
    const row = (server: string, ip: string, scur: number) => ({
      backend: 'be',
      server,
      addr: `${ip}:8080`,
      scur,
      qcur: 0,
      status: 'UP',
      failed: 0,
      retried: 0,
    });
    const model = withSessions(
      gatingModel(),
      {
        readings: [
          {
            pod: 'haptic/haptic-haproxy-a',
            at: NOW,
            workers: [
              { pid: 3, leaving: false, servers: [row('web-old-2', '10.0.0.2', 2), row('web-new-1', '10.0.0.3', 1)] },
            ],
          },
          { pod: 'haptic/haptic-haproxy-b', at: NOW, workers: [], problem: 'no socat in HAProxy pod haptic-haproxy-b' },
        ],
      },
      new Map(),
    );
    const text = statusText(model, NOW, painter(false));
    expect(text).toMatch(/NAME\s+CONTAINERS\s+GATE\s+READY\s+ENDPOINTS\s+HAPROXY\s+SESSIONS\s+AGE/);
    expect(text).toMatch(/web-old-2 .* ≥2\s+30s/);
    expect(text).toMatch(/web-new-1 .* ≥1\s+30s/);
    expect(text).toContain('sessions: no socat in HAProxy pod haptic-haproxy-b');
    expect(statusText(gatingModel(), NOW, painter(false))).not.toContain('SESSIONS');
    // no HAProxy pod answered: no column of ≥0, the first reason said
    const unread = withSessions(
      gatingModel(),
      {
        readings: ['a', 'b'].map((n) => ({
          pod: `haptic/haptic-haproxy-${n}`,
          at: NOW,
          workers: [],
          problem: `exec into haptic-haproxy-${n} failed: upgrade refused`,
        })),
      },
      new Map(),
    );
    const none = statusText(unread, NOW, painter(false));
    expect(none).not.toMatch(/SESSIONS|≥0/);
    expect(none).toContain('sessions: exec into haptic-haproxy-a failed: upgrade refused');
  });
});

describe("HAPTIC's line", () => {
  const line = (fleet: NonNullable<Parameters<typeof hapticInputs>[0]>['fleet']) =>
    installationLine(buildRollout(snapshot({ pods: [], haptic: hapticInputs({ fleet }) }), NOW).installations[0]!).text;

  it('says what the HAProxy pods not on the live config do: deploying it, or still running an earlier one', () => {
    expect(
      line([
        { name: 'a', runs: 'current' },
        { name: 'b', runs: 'current' },
      ]),
    ).toMatch(/ · HAProxy 2\/2 on 7c1f5e2a9b0d$/);
    // a new render deploying: "0/2" alone would read as an outage
    expect(
      line([
        { name: 'a', runs: 'current', reloadPending: true },
        { name: 'b', runs: 'current', reloadPending: true },
      ]),
    ).toMatch(/ · HAProxy 0\/2 on 7c1f5e2a9b0d \(deploying to 2\)$/);
    expect(
      line([
        { name: 'a', runs: 'current', reloadPending: true },
        { name: 'b', runs: 'retained' },
        { name: 'c', runs: 'none' },
      ]),
    ).toMatch(/ · HAProxy 0\/3 on 7c1f5e2a9b0d \(deploying to 1\), 1 on 3e8a0b6c2d1f, 1 on none reported$/);
    // a deploy that fails is not "deploying": it is named as failing
    expect(
      line([
        { name: 'a', runs: 'current' },
        { name: 'b', runs: 'current', reloadPending: true, lastError: 'failed to sync configuration' },
      ]),
    ).toMatch(/ · HAProxy 1\/2 on 7c1f5e2a9b0d · deploy failing on b$/);
    // the agent generation's failing entry keeps the checksum the pod still runs: said beside the failure
    const failing = buildRollout(
      snapshot({
        pods: [],
        haptic: hapticInputs({
          fleet: [
            { name: 'a', runs: 'current' },
            { name: 'b', runs: 'old', lastError: 'failed to sync configuration' },
          ],
        }),
      }),
      NOW,
    ).installations[0]!;
    expect(installationLine(failing).text).toMatch(
      / · HAProxy 1\/2 on 7c1f5e2a9b0d, 1 on 3e8a0b6c2d1f · deploy failing on b$/,
    );
    // the dataplane generation's (it writes lastErrorAt) names the checksum it tried: not one the pod runs
    expect(
      line([
        { name: 'a', runs: 'current' },
        { name: 'b', runs: 'old', lastError: 'failed to sync configuration', lastErrorAt: '2026-11-29T11:59:57Z' },
      ]),
    ).toMatch(/ · HAProxy 1\/2 on 7c1f5e2a9b0d · deploy failing on b$/);
  });

  it('brief, for a narrow live view: without the lease renewal age', () => {
    const i = buildRollout(snapshot({ pods: [], haptic: hapticInputs() }), NOW).installations[0]!;
    expect(installationLine(i).text).toContain('leader haptic-controller-1 (renewed');
    expect(installationLine(i, { brief: true }).text).toContain('leader haptic-controller-1 · config ok');
  });
});

describe('the OLD PODS header', () => {
  it('names the old ReplicaSets that still hold pods, not the history scaled to 0', () => {
    const history = replicaSet('1');
    const empty = {
      ...history,
      metadata: {
        ...history.metadata,
        name: 'web-rs0',
        uid: 'rs-0',
        labels: { app: 'web', 'pod-template-hash': 'h0' },
        annotations: { 'deployment.kubernetes.io/revision': '0' },
      },
      spec: { ...history.spec, replicas: 0 },
      status: { replicas: 0, readyReplicas: 0, availableReplicas: 0 },
    };
    const model = buildRollout(
      snapshot({
        pods: [
          pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
          pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3' }),
        ],
        replicaSets: [empty, replicaSet('1'), replicaSet('2')],
        haptic: hapticInputs(),
      }),
      NOW,
    );
    expect(model.oldReplicaSets.map((rs) => rs.name)).toEqual(['web-rs0', 'web-rs1']);
    const text = statusText(model, NOW, painter(false));
    expect(text).toContain('OLD PODS  replicaset/web-rs1 (revision 1)\n');
  });
});
