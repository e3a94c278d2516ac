// The live view of status --watch, frame by frame, at fixed terminal sizes: what a person sees at each stage of a
// gated rollout (a new pod waiting for the gate, through it, an old pod draining), a pod selected and its detail,
// the help, and a small 80×24 terminal with more pods than rows.
import { render } from 'ink-testing-library';
import { describe, expect, it } from 'vitest';
import { finding } from '../../../src/diagnose/make.ts';
import type { RolloutHistory } from '../../../src/model/rollout/history.ts';
import { buildRollout } from '../../../src/model/rollout/rollout.ts';
import { withSessions } from '../../../src/model/rollout/sessions.ts';
import type { HAProxyReading } from '../../../src/types/sessions.ts';
import { LiveView } from '../../../src/ui/ink/LiveView.tsx';
import { liveFrame, type LiveState } from '../../../src/ui/live-frame.ts';
import { loadScenario, snapshotOf } from '../../fixtures/load.ts';
import { deployment, GATE, hapticInputs, NOW, pod, slice, snapshot } from '../fixtures/rollout.ts';

const text = (s: LiveState) =>
  liveFrame(s)
    .map((l) => l.map((seg) => seg.text).join(''))
    .join('\n');
const ago = (s: number) => NOW - s * 1000;

/** Mid-rollout: web-new-1 routed on 1 of 2 HAProxy pods and waiting for the gate; web-old-2 draining. */
function midway(gate: 'missing' | 'True' = 'missing') {
  return buildRollout(
    snapshot({
      pods: [
        pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
        pod({ name: 'web-old-2', rs: '1', ip: '10.0.0.2', terminatingDeadlineIn: 9 }),
        pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate }),
      ],
      slices: [
        slice([
          { pod: 'web-old-1', ip: '10.0.0.1', ready: true },
          { pod: 'web-old-2', ip: '10.0.0.2', ready: false, serving: true, terminating: true },
          { pod: 'web-new-1', ip: '10.0.0.3', ready: gate === 'True' },
        ]),
      ],
      haptic: hapticInputs({
        servers: [
          { pod: 'web-new-1', ip: '10.0.0.3', disabled: false },
          { pod: 'web-old-2', ip: '10.0.0.2', disabled: true },
        ],
        fleet:
          gate === 'True'
            ? undefined
            : [
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

/** What a follower saw from 25 s ago: the new pod's containers ready 20 s ago, routed everywhere 19 s ago, …. */
function history(gateTrue: boolean): RolloutHistory {
  return {
    startedAt: ago(25),
    progressed: true,
    // by UID (podKey)
    pods: {
      'uid-web-old-1': { name: 'web-old-1', role: 'old', createdAt: ago(30) },
      'uid-web-old-2': {
        name: 'web-old-2',
        role: 'old',
        createdAt: ago(30),
        deletedAt: ago(21),
        deadlineAt: ago(-9),
        unreadyAt: ago(20),
        disabledAt: ago(19),
      },
      'uid-web-new-1': {
        name: 'web-new-1',
        role: 'new',
        createdAt: ago(30),
        containersReadyAt: ago(20),
        ...(gateTrue ? { routedAt: ago(19), gateAt: ago(18), readyAt: ago(18) } : {}),
      },
    },
    configs: [],
  };
}

const base = (over: Partial<LiveState> = {}): LiveState => ({
  model: midway(),
  history: history(false),
  log: [
    { at: ago(20), text: 'pod/web-new-1 containers ready' },
    { at: ago(19), text: 'pod/web-new-1 HAProxy: enabled on 1/2 HAProxy pods' },
  ],
  now: NOW,
  width: 120,
  height: 30,
  mode: 'table',
  ...over,
});

describe('the live view, stage by stage (120×30)', () => {
  it('a new pod waiting for the gate while an old pod drains', () => {
    expect(text(base())).toMatchInlineSnapshot(`
      "deployment.apps/web -n shop · revision 2 · maxSurge 1, maxUnavailable 0 · gated
      … Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...
      new Ready ░░░░░░░░░░░░░░░░░░░░ 0/2   old gone ░░░░░░░░░░░░░░░░░░░░ 0/2

      NEW PODS  replicaset/web-rs2 (revision 2)
        web-new-1  ✓ containers +10.0s  … routed 1/2  ○ gate  ○ Ready  30s

      OLD PODS  1 draining, 1 serving
        web-old-1  ✓ serving, Ready  30s
        web-old-2  ███████░░░ 21s/30s  ✓ unready +1.0s  … serving  … disabled 1/2  ○ exited  ○ gone  30s

      HAPTIC haptic/haptic-config: leader haptic-controller-1 · config ok · HAProxy 1/2 on 7c1f5e2a9b0d, 1 on 3e8a0b6c2d1f

      11:59:40 pod/web-new-1 containers ready
      11:59:41 pod/web-new-1 HAProxy: enabled on 1/2 HAProxy pods
      ↑↓ select · enter detail · ? help · q quit  (the rollout goes on when you quit)"
    `);
  });

  it('old pods that are not deleted yet serve: the header says so, not "draining"', () => {
    const m = midway();
    const serving = { ...m, oldPods: m.oldPods.map((p) => ({ ...p, terminating: undefined })) };
    const lines = text(base({ model: serving })).split('\n');
    expect(lines).toContain('OLD PODS  2 serving');
    expect(lines.find((l) => l.startsWith('OLD PODS'))).not.toMatch(/draining/);
  });

  it("with --sessions: each old pod's sessions fall on a bar from the most it held, new pods' are counted", () => {
    const server = (name: string, ip: string, scur: number, status: string) => ({
      backend: 'be',
      server: name,
      addr: `${ip}:8080`,
      scur,
      qcur: 0,
      status,
      failed: 0,
      retried: 0,
    });
    const readings: HAProxyReading[] = ['haptic-haproxy-a', 'haptic-haproxy-b'].map((name, i) => ({
      pod: `haptic/${name}`,
      at: NOW,
      workers: [
        {
          pid: 20 + i,
          leaving: false,
          servers: [server('web-old-2', '10.0.0.2', 1, 'MAINT'), server('web-new-1', '10.0.0.3', 2, 'UP')],
        },
        ...(i === 0
          ? [
              {
                pid: 10,
                leaving: true,
                servers: [server('web-old-2', '10.0.0.2', 1, 'UP')],
              },
            ]
          : []),
      ],
    }));
    const model = withSessions(midway(), { readings }, new Map());
    const h = history(false);
    h.pods['uid-web-old-2']!.sessions = { peak: 6, failed: 0, retried: 0, last: 3 };
    const frame = text(base({ model, history: h }));
    expect(frame).toContain('  web-new-1  ⇄ 4    ✓ containers +10.0s');
    expect(frame).toContain('  web-old-2  ███████░░░ 21s/30s  ███░░░ ⇄ 3    ✓ unready +1.0s');
    expect(frame).toContain('  web-old-1  ⇄ 0    ✓ serving, Ready');
    // one HAProxy pod unreadable: a lower bound, never 0
    const partial = withSessions(
      midway(),
      {
        readings: [
          readings[0]!,
          { pod: 'haptic/haptic-haproxy-b', at: NOW, workers: [], problem: 'no socat in HAProxy pod haptic-haproxy-b' },
        ],
      },
      new Map(),
    );
    const frame2 = text(base({ model: partial, history: h }));
    expect(frame2).toContain('░░░░░░ ⇄ ≥2');
    expect(frame2).toContain('sessions: no socat in HAProxy pod haptic-haproxy-b');
    // no HAProxy pod readable (exec refused on the bundled cluster): no column of ⇄ ≥0, the reason said once
    const refused = (name: string): HAProxyReading => ({
      pod: `haptic/${name}`,
      at: NOW,
      workers: [],
      problem: `could not read HAProxy in ${name}: the API server did not upgrade the exec to a WebSocket (HTTP 400)`,
    });
    const none = withSessions(
      midway(),
      { readings: [refused('haptic-haproxy-a'), refused('haptic-haproxy-b')] },
      new Map(),
    );
    const frame3 = text(base({ model: none, history: history(false) }));
    expect(frame3).not.toContain('⇄');
    expect(frame3.match(/sessions \(/g)).toHaveLength(1);
    expect(frame3).toContain(
      'sessions (--no-sessions hides this line): could not read HAProxy in haptic-haproxy-a: the API server did not',
    );
    expect(none.newPods[0]!.sessions?.sessions).toBeUndefined();
    // the detail: per HAProxy pod, current and leaving workers
    const detail = text(base({ model, history: h, mode: 'detail', selected: 'web-old-2' }));
    expect(detail).toContain('HAProxy sessions  3 now');
    expect(detail).toContain('  haptic/haptic-haproxy-a: 2 sessions, 1 on leaving workers');
    expect(detail).toContain('  haptic/haptic-haproxy-b: 1 session');
  });

  it('the new pod through the gate, with the time each step took', () => {
    expect(
      text(
        base({
          model: midway('True'),
          history: history(true),
          log: [
            {
              at: ago(18),
              text: 'pod/web-new-1 gate haproxy-haptic.org/load-balancer-ready: True (2s after containers ready)',
            },
          ],
        }),
      ),
    ).toMatchInlineSnapshot(`
      "deployment.apps/web -n shop · revision 2 · maxSurge 1, maxUnavailable 0 · gated
      … Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...
      new Ready ██████████░░░░░░░░░░ 1/2   old gone ░░░░░░░░░░░░░░░░░░░░ 0/2

      NEW PODS  replicaset/web-rs2 (revision 2)
        web-new-1  ✓ containers +10.0s  ✓ routed 2/2 +1.0s  ✓ gate +1.0s  ✓ Ready +0.0s  30s

      OLD PODS  1 draining, 1 serving
        web-old-1  ✓ serving, Ready  30s
        web-old-2  ███████░░░ 21s/30s  ✓ unready +1.0s  … serving  ✓ disabled 2/2 +2.0s  ○ exited  ○ gone  30s

      HAPTIC haptic/haptic-config: leader haptic-controller-1 (renewed 2s ago) · config ok · HAProxy 2/2 on 7c1f5e2a9b0d

      11:59:42 pod/web-new-1 gate haproxy-haptic.org/load-balancer-ready: True (2s after containers ready)
      ↑↓ select · enter detail · ? help · q quit  (the rollout goes on when you quit)"
    `);
  });

  it('a stall shows its finding under the tables', () => {
    const f = finding(
      'HS106',
      {
        podNoun: 'pod',
        haproxyPods: 'haptic-haproxy-b',
        installation: 'haptic/haptic-config',
        pods: 'web-new-1',
        namespace: 'haptic',
        haproxyPod: 'haptic-haproxy-b',
        container: 'agent',
      },
      [
        'haptic-haproxy-b: its last deploy failed (entry checksum 3e8a0b6c2d1f9a47, live config 7c1f5e2a9b0d4e63); lastError: agent not reachable',
      ],
    );
    const frame = text(base({ finding: f, width: 160 }));
    expect(frame).toContain(
      "✗ [HS106] HAProxy pod haptic-haproxy-b did not get HAPTIC haptic/haptic-config's configuration, so web-new-1 cannot get the gate",
    );
    expect(frame).toContain('    fix: kubectl -n haptic logs haptic-haproxy-b -c agent --tail=50');
  });

  it('a gated pod no HAPTIC route reaches is stuck at the routed stage, as why-stalled says, not "routed 0/0"', () => {
    const model = buildRollout(snapshotOf(loadScenario('hs113-not-routed'), 'web'), NOW, { gateType: GATE });
    const frame = text(base({ model, history: undefined, width: 160 }));
    expect(frame).toMatch(
      /^ {2}web-new-1 {2}✓ containers {2}✗ not routed \(no route of class haproxy references service\/web\) {2}○ gate {2}○ Ready/m,
    );
    expect(frame).not.toContain('0/0');
    const compact = text(base({ model, history: undefined, width: 60 }));
    expect(compact).toMatch(/^ {2}web-new-1 {2}✓ctr {2}✗rt none {2}○gate {2}○rdy/m);
  });
});

describe('keys: a selected pod, its detail, the help', () => {
  it('marks the selected pod', () => {
    const frame = text(base({ selected: 'web-old-2' }));
    expect(frame.split('\n').filter((l) => l.startsWith('❯'))).toHaveLength(1);
    expect(frame).toMatch(/^❯ web-old-2 /m);
  });

  it('shows the selected pod in detail: conditions, EndpointSlices, HAProxy per HAProxy pod, findings about it', () => {
    const f = finding('HS901', { name: 'web', workload: 'deployment web', state: 'progressing' }, [
      'pod web-new-1: HAProxy config routing to it runs on 1/2 HAProxy pods (containers ready 20s ago)',
    ]);
    expect(text(base({ mode: 'detail', selected: 'web-new-1', findings: [f] }))).toMatchInlineSnapshot(`
      "pod web-new-1 (new) · Running · node node-1 · 10.0.0.3 · age 30s

      conditions
        ContainersReady  True  11:59:40 (20s ago)
        haproxy-haptic.org/load-balancer-ready  missing  
        Ready  False  11:59:40 (20s ago)

      EndpointSlices
        web / web-abc: ready false · serving false · terminating false

      HAProxy
        haptic/haptic-config: server enabled in the live config; 1/2 HAProxy pods agree
          haptic-haproxy-a: runs 7c1f5e2a9b0d (live) → routes it
          haptic-haproxy-b: runs 3e8a0b6c2d1f (retained) → does not route it

      findings
        · [HS901] deployment web is progressing, not stalled
            pod web-new-1: HAProxy config routing to it runs on 1/2 HAProxy pods (containers ready 20s ago)

      esc back · q quit  (the rollout goes on when you quit)"
    `);
  });

  it('the help', () => {
    expect(text(base({ mode: 'help' }))).toMatchInlineSnapshot(`
      "deployment.apps/web -n shop · revision 2 · maxSurge 1, maxUnavailable 0 · gated
      … Waiting for deployment "web" rollout to finish: 1 out of 2 new replicas have been updated...
      new Ready ░░░░░░░░░░░░░░░░░░░░ 0/2   old gone ░░░░░░░░░░░░░░░░░░░░ 0/2

      keys
        ↑ ↓    select a pod (new pods, then old pods)
        enter  the selected pod: conditions, EndpointSlices, HAProxy, findings
        esc    back to the rollout
        ?      this help
        q      quit (Ctrl-C too): the rollout goes on

      stages
        new pods  containers ready (ctr) → routed on every HAProxy pod (rt)
                  → gate True → Ready (rdy); +5s: how long a step took after the one before
        old pods  grace period bar → out of the ready set (out) → serving (srv)
                  → server disabled on every HAProxy pod (off) → exited → gone
        sessions  ⇄ n what HAProxy holds to the pod (every HAProxy pod, current and leaving workers;
                  --sessions); an old pod's bar falls from the most it held to none; ≥n: some unread
        ✓ done   … in progress   ○ not yet   ✗ stuck

      esc back · q quit  (the rollout goes on when you quit)"
    `);
  });
});

describe('a small terminal', () => {
  const many = () => {
    const pods = [
      ...Array.from({ length: 12 }, (_, i) =>
        pod({ name: `web-new-${String(i).padStart(2, '0')}`, rs: '2', ip: `10.0.2.${i}`, gate: 'True' }),
      ),
      pod({ name: 'web-new-zz', rs: '2', ip: '10.0.3.1', gate: 'missing' }),
      ...Array.from({ length: 6 }, (_, i) =>
        pod({ name: `web-old-${i}`, rs: '1', ip: `10.0.1.${i}`, terminatingDeadlineIn: 5 + i }),
      ),
    ];
    return buildRollout(snapshot({ deployment: deployment({ replicas: 13 }), pods, haptic: hapticInputs() }), NOW);
  };

  it('pods by their full names (to paste into kubectl logs) when the rows fit; the ReplicaSet hash cut only when they do not', () => {
    const name = 'web-7f5f5b8fd6-dl48n';
    const model = buildRollout(
      snapshot({
        pods: [pod({ name, rs: '2', ip: '10.0.0.3' }), pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' })],
        haptic: hapticInputs({ servers: [{ pod: name, ip: '10.0.0.3', disabled: false }] }),
      }),
      NOW,
    );
    const log = [{ at: ago(5), text: `pod/${name} containers ready` }];
    const wide = text(base({ model, history: undefined, log, width: 160 }));
    expect(wide).toMatch(new RegExp(`^  ${name}  `, 'm'));
    expect(wide).toContain(`pod/${name} containers ready`);
    const narrow = text(base({ model, history: undefined, log, width: 50 }));
    expect(narrow).toMatch(/^ {2}web-7f5…-dl48n {2}/m);
    expect(narrow).not.toContain(name);
  });

  it('80×24: every line fits, waiting and draining pods first, the rest counted, nothing scrolled off', () => {
    const s = base({ model: many(), history: undefined, width: 80, height: 24 });
    const lines = liveFrame(s).map((l) => l.map((seg) => seg.text).join(''));
    expect(lines.length).toBeLessThanOrEqual(24);
    for (const l of lines) expect([...l].length).toBeLessThan(80);
    expect(lines.some((l) => l.startsWith('  web-new-zz'))).toBe(true);
    expect(lines.filter((l) => /^ {2}… and \d+ more \(\d+ (Ready|draining)\)$/.test(l))).toEqual([
      '  … and 7 more (7 Ready)',
      '  … and 3 more (3 draining)',
    ]);
    expect(lines.at(-1)).toMatch(/^↑↓ select · enter detail · \? help · q quit/);
    expect(text(s)).toMatchInlineSnapshot(`
      "deployment.apps/web -n shop · revision 2 · maxSurge 1, maxUnavailable 0 · gated
      … Waiting for deployment "web" rollout to finish: 1 out of 13 new replicas hav…
      new Ready █████████░ 12/13   old gone ░░░░░░░░░░ 0/6

      NEW PODS  replicaset/web-rs2 (revision 2)
        web-new-00  ✓ctr  ✓rt  ✓gate  ✓rdy  30s
        web-new-01  ✓ctr  ✓rt  ✓gate  ✓rdy  30s
        web-new-02  ✓ctr  ✓rt  ✓gate  ✓rdy  30s
        web-new-03  ✓ctr  ✓rt  ✓gate  ✓rdy  30s
        web-new-04  ✓ctr  ✓rt  ✓gate  ✓rdy  30s
        web-new-zz  ✓ctr  …rt  ○gate  ○rdy  30s
        … and 7 more (7 Ready)

      OLD PODS  6 draining
        web-old-0   █████░ 25s/30s  ✓out  ✓nosrv  ✓off -  ○exit  ○gone  30s
        web-old-1   █████░ 24s/30s  ✓out  ✓nosrv  ✓off -  ○exit  ○gone  30s
        web-old-2   █████░ 23s/30s  ✓out  ✓nosrv  ✓off -  ○exit  ○gone  30s
        … and 3 more (3 draining)

      HAPTIC haptic/haptic-config: leader haptic-controller-1 · config ok · HAProxy …

      11:59:40 pod/web-new-1 containers ready
      11:59:41 pod/web-new-1 HAProxy: enabled on 1/2 HAProxy pods
      ↑↓ select · enter detail · ? help · q quit  (the rollout goes on when you quit)"
    `);
  });

  it('draws through Ink exactly the frame it computed, without colour codes when there is no colour', () => {
    const s = base({ width: 100, height: 30 });
    const { lastFrame } = render(<LiveView {...s} />);
    expect(
      (lastFrame() ?? '')
        .replace(/\u001b\[[0-9;]*m/g, '')
        .split('\n')
        .map((l) => l.trimEnd()),
    ).toEqual(
      text(s)
        .split('\n')
        .map((l) => l.trimEnd()),
    );
  });
});

describe('a StatefulSet in the live view', () => {
  it('names the kind, its update revision and strategy, and lists the pods in ordinal order', async () => {
    const { loadScenario, snapshotOf } = await import('../../fixtures/load.ts');
    const model = buildRollout(snapshotOf(loadScenario('hs211-broken-revision'), 'web'), NOW);
    const frame = text({ model, log: [], now: NOW, width: 120, height: 30, mode: 'table' });
    expect(frame).toContain(
      'statefulset.apps/web -n shop · revision web-7f5b4 · maxUnavailable 1, OrderedReady · gated',
    );
    expect(frame).toContain('NEW PODS  revision web-7f5b4 (update revision)');
    expect(frame.indexOf('web-0')).toBeLessThan(frame.indexOf('web-1'));
  });
});
