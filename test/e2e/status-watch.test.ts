// `kubectl haptic status --watch` in a real terminal: a tmux pane of a fixed size runs an interactive shell; the test
// types the command, follows the screen with capture-pane, and checks the terminal afterwards (shell usable, cursor
// visible again). Our own tmux server (-L socket, no config file), killed in afterAll.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import {
  adminApi,
  cluster,
  GATE,
  gatedDeployment,
  gatedStatefulSet,
  newNamespace,
  routedService,
  waitFor,
} from './support.ts';
import { terminal } from './terminal.ts';

const term = terminal('e2e');
const { tmux, screen, paneInfo, type, start } = term;
const SESSION = 'watch';

const api = () => adminApi();

async function served(namespace: string, name: string, replicas: number): Promise<string[]> {
  await api().apply([
    gatedDeployment({ name, namespace, replicas, maxSurge: 1, maxUnavailable: 0 }),
    ...routedService({ name, namespace, selector: { app: name } }),
  ]);
  await waitFor(() => api().get<any>('apps/v1', 'Deployment', name, namespace), {
    what: `deployment ${name} available`,
    timeoutMs: 60_000,
    intervalMs: 200,
    until: (d) =>
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.updatedReplicas === replicas &&
      d.status?.availableReplicas === replicas &&
      d.status?.replicas === replicas,
  });
  return (await api().list<any>('v1', 'Pod', { namespace, labelSelector: `app=${name}` })).map((p) => p.metadata.name);
}

/** Starts a rollout (new image; new pods start 1.5 s after scheduling) and returns the new pod-template-hash. */
async function rollout(namespace: string, name: string, startDelayMs = 1500): Promise<string> {
  const template = {
    metadata: { annotations: { 'standin.kubectl-haptic.dev/start-delay-ms': String(startDelayMs) } },
    spec: { containers: [{ name: 'app', image: 'example/app:2' }] },
  };
  await api().patch('apps/v1', 'Deployment', name, namespace, { spec: { template } }, { type: 'strategic' });
  const pod = await waitFor(
    async () =>
      (await api().list<any>('v1', 'Pod', { namespace, labelSelector: `app=${name}` })).find(
        (p) => p.spec.containers[0].image === 'example/app:2',
      ),
    { what: `a new pod of ${name}`, intervalMs: 100 },
  );
  return pod.metadata.labels['pod-template-hash'];
}

/** The screen once the command typed has exited and the shell printed its exit code (`…; echo exit=$?`). */
const exited = (timeoutMs?: number) =>
  waitFor(screen, {
    what: 'the exit code',
    ...(timeoutMs ? { timeoutMs } : {}),
    intervalMs: 100,
    until: (s) => s.some((l) => l.startsWith('exit=')),
  });

async function shellWorks(): Promise<void> {
  await waitFor(() => paneInfo('#{pane_current_command}'), {
    what: 'the shell back in the foreground',
    until: (c) => c === 'bash',
  });
  expect(await paneInfo('#{cursor_flag}')).toBe('1'); // Ink showed the cursor again
  await type('echo ok-$((1+1))');
  await waitFor(screen, { what: 'the shell to answer', intervalMs: 100, until: (s) => s.includes('ok-2') });
}

describe('kubectl haptic status --watch in a terminal', () => {
  beforeAll(async () => {
    await term.open({ width: 160, height: 40, kubeconfig: cluster().adminKubeconfig });
    expect(await paneInfo('#{pane_width}x#{pane_height}')).toBe('160x40');
  });
  afterAll(() => term.close());
  afterEach(async () => {
    await resetKnobs(cluster().adminKubeconfig);
  });

  it('draws the rollout live, answers the keys, exits 0 once drained with a report that matches what the cluster did', async () => {
    const ns = await newNamespace('watch');
    const oldNames = await served(ns, 'web', 2);
    // the test's own record of the rollout, from the API server: each old pod's deletion and disappearance
    const gone = new Map<string, number>();
    const deletion = new Map<string, { at: number; deadline: number }>();
    const recorder = setInterval(async () => {
      const now = Date.now();
      const pods = await api()
        .list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' })
        .catch(() => undefined);
      if (!pods) return;
      for (const p of pods) {
        if (p.metadata.deletionTimestamp && !deletion.has(p.metadata.name)) {
          const deadline = Date.parse(p.metadata.deletionTimestamp);
          deletion.set(p.metadata.name, {
            at: deadline - (p.metadata.deletionGracePeriodSeconds ?? 5) * 1000,
            deadline,
          });
        }
      }
      for (const name of oldNames)
        if (!gone.has(name) && !pods.some((p) => p.metadata.name === name)) gone.set(name, now);
    }, 100);
    try {
      const hash = await rollout(ns, 'web');
      await start(`bin/kubectl-haptic status web -n ${ns} --watch --drained; echo "exit=$?"`);

      // the header bar and a new pod row with its stage chips, as the live view draws them
      const live = await waitFor(screen, {
        what: 'the live view of the rollout',
        timeoutMs: 30_000,
        intervalMs: 100,
        until: (s) =>
          s.some((l) => /^new Ready [█░]+ \d\/2 +old gone [█░]+ \d\/2$/.test(l)) &&
          s.some((l) => l.includes(`web-${hash}-`)),
      });
      expect(live).toContain(`NEW PODS  replicaset/web-${hash} (revision 2)`);
      // the sessions cell (⇄) comes first once a read of HAProxy has come back, which may or may not be by this frame
      expect(live.some((l) => /^ {2}web-\w+-\w{5} +(⇄ \S+ +)?[✓…○✗] ?(containers|ctr)/.test(l))).toBe(true);
      expect(await paneInfo('#{cursor_flag}')).toBe('0'); // hidden while Ink draws

      // ↓ selects the first pod, enter shows its detail, esc goes back, ? shows the help
      await tmux('send-keys', '-t', SESSION, 'Down');
      await waitFor(screen, {
        what: 'a selected pod',
        intervalMs: 100,
        until: (s) => s.filter((l) => l.startsWith('❯ web-')).length === 1,
      });
      await tmux('send-keys', '-t', SESSION, 'Enter');
      const detail = await waitFor(screen, {
        what: 'the pod detail',
        intervalMs: 100,
        until: (s) => s.includes('conditions') && s.includes('EndpointSlices') && s.includes('HAProxy'),
      });
      expect(detail.some((l) => /^pod web-\S+ \((new|old)\) · /.test(l))).toBe(true);
      await tmux('send-keys', '-t', SESSION, 'Escape');
      await waitFor(screen, {
        what: 'back to the tables',
        intervalMs: 100,
        until: (s) => s.some((l) => l.startsWith('NEW PODS')),
      });
      await tmux('send-keys', '-t', SESSION, '?');
      await waitFor(screen, {
        what: 'the help',
        intervalMs: 100,
        until: (s) => s.includes('keys') && s.some((l) => l.includes('select a pod')),
      });
      await tmux('send-keys', '-t', SESSION, '?');
      await waitFor(screen, {
        what: 'back from the help',
        intervalMs: 100,
        until: (s) => s.some((l) => l.startsWith('NEW PODS')),
      });

      const final = await exited(60_000);
      expect(final.filter((l) => l.startsWith('exit='))).toEqual(['exit=0']);
      // the last frame stays on screen (complete, drained, no old pods), then the report
      expect(final).toContain('✓ deployment "web" successfully rolled out');
      expect(final.some((l) => l.startsWith('OLD PODS'))).toBe(false);
      const left = await api().list<any>('v1', 'Pod', { namespace: ns, labelSelector: 'app=web' });
      expect(left.filter((p) => oldNames.includes(p.metadata.name))).toEqual([]);
      expect(
        final.some((l) =>
          /^Rollout report: deployment\.apps\/web -n \S+ complete and drained in \d+\.\ds \(as watched\)$/.test(l),
        ),
      ).toBe(true);

      // the report against the cluster's own record: gate latency from the pods' conditions, drains from the recorder
      const fresh = left.filter((p) => p.metadata.labels['pod-template-hash'] === hash);
      const cond = (p: any, t: string) =>
        Date.parse(p.status.conditions.find((c: any) => c.type === t).lastTransitionTime);
      for (const p of fresh) {
        const latency = cond(p, GATE) - cond(p, 'ContainersReady');
        const line = final.find((l) => l.trim().startsWith(p.metadata.name) && /\d\.\ds$/.test(l.trim()));
        expect(line, `gate latency line of ${p.metadata.name}`).toBeDefined();
        expect(line!.trim()).toBe(`${p.metadata.name}  ${(latency / 1000).toFixed(1)}s`);
      }
      for (const name of oldNames) {
        const line = final.find((l) => l.trim().startsWith(`${name} `) && l.includes('grace'));
        expect(line, `drain line of ${name}`).toBeDefined();
        const [, drained, grace] = /(\d+\.\d)s of (\d+\.\d)s grace/.exec(line!)!;
        const d = deletion.get(name)!;
        expect(Number(grace)).toBeCloseTo((d.deadline - d.at) / 1000, 0);
        expect(Math.abs(Number(drained) * 1000 - (gone.get(name)! - d.at))).toBeLessThan(1500);
      }
      await shellWorks();
    } finally {
      clearInterval(recorder);
    }
  });

  it('follows a StatefulSet ordinal by ordinal to the end: its kind, update revision and strategy, then the report', async () => {
    const ns = await newNamespace('watch-sts');
    await api().apply([
      gatedStatefulSet({ name: 'db', namespace: ns, replicas: 3 }),
      ...routedService({ name: 'db', namespace: ns, selector: { app: 'db' } }),
    ]);
    await waitFor(() => api().get<any>('apps/v1', 'StatefulSet', 'db', ns), {
      what: 'statefulset db Ready',
      timeoutMs: 90_000,
      until: (s) => s.status?.readyReplicas === 3 && s.status?.currentRevision === s.status?.updateRevision,
    });
    await api().patch('apps/v1', 'StatefulSet', 'db', ns, {
      spec: {
        template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() } } },
      },
    });
    await start(`bin/kubectl-haptic status sts/db -n ${ns} --watch --drained; echo "exit=$?"`);
    const live = await waitFor(screen, {
      what: 'the live view of the StatefulSet',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (s) =>
        s.some((l) => l.startsWith('statefulset.apps/db -n ')) && s.some((l) => l.includes('NEW PODS  revision db-')),
    });
    expect(live.find((l) => l.startsWith('statefulset.apps/db'))).toMatch(/ · maxUnavailable 1, OrderedReady · gated$/);
    const after = await exited(120_000);
    expect(after.filter((l) => l.startsWith('exit='))).toEqual(['exit=0']);
    expect(after.some((l) => l.startsWith('Rollout report: statefulset.apps/db -n '))).toBe(true);
    await shellWorks();
  });

  it('at 80×24, a rollout that ends while the help is open leaves its tables on screen, and a report broken between words', async () => {
    await tmux('resize-window', '-t', SESSION, '-x', '80', '-y', '24');
    try {
      expect(await paneInfo('#{pane_width}x#{pane_height}')).toBe('80x24');
      const ns = await newNamespace('watch-80');
      await served(ns, 'web', 1);
      const hash = await rollout(ns, 'web');
      await tmux('clear-history', '-t', SESSION);
      await start(`bin/kubectl-haptic status web -n ${ns} --watch --drained; echo "exit=$?"`);
      await waitFor(screen, {
        what: 'the live view',
        timeoutMs: 30_000,
        intervalMs: 100,
        until: (s) => s.some((l) => l.includes(`web-${hash}-`)),
      });
      await tmux('send-keys', '-t', SESSION, '?');
      await waitFor(screen, {
        what: 'the help',
        intervalMs: 100,
        until: (s) => s.includes('keys') && s.some((l) => l.includes('select a pod')),
      });
      await exited(60_000);
      // the pane with what scrolled off its 24 rows: the last frame, then the report
      const final = (await tmux('capture-pane', '-p', '-t', SESSION, '-S', '-')).split('\n').map((l) => l.trimEnd());
      expect(final.filter((l) => l.startsWith('exit='))).toEqual(['exit=0']);
      // the rollout's last frame, not the help the user had open
      expect(final).toContain('✓ deployment "web" successfully rolled out');
      expect(final).not.toContain('keys');
      const from = final.findIndex((l) => l.startsWith('Rollout report: deployment.apps/web -n '));
      expect(from).toBeGreaterThan(-1);
      const report = final.slice(
        from,
        final.findIndex((l) => l.startsWith('exit=')),
      );
      expect(report.join(' ')).toContain('gate latency (ContainersReady → gate True)');
      // a row as wide as the pane is one the terminal broke, wherever it fell; the plugin breaks between words
      expect(report.filter((l) => [...l].length >= 80)).toEqual([]);
      expect(report.some((l) => /^ {4,}\S/.test(l))).toBe(true);
      await shellWorks();
    } finally {
      await tmux('resize-window', '-t', SESSION, '-x', '160', '-y', '40');
    }
  });

  it('q quits at once: exit 130, the rollout goes on, the terminal is restored', async () => {
    const ns = await newNamespace('watch-q');
    await served(ns, 'quit', 1);
    // The new pod's containers take a minute to start, so the rollout is still going when q is pressed.
    const hash = await rollout(ns, 'quit', 60_000);
    await start(`bin/kubectl-haptic status quit -n ${ns} --watch; echo "exit=$?"`);
    await waitFor(screen, {
      what: 'the live view',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (s) => s.some((l) => l.includes(`quit-${hash}-`)),
    });
    await tmux('send-keys', '-t', SESSION, 'q');
    const after = await exited();
    expect(after.filter((l) => l.startsWith('exit='))).toEqual(['exit=130']);
    await shellWorks();
  });

  it('stops on Ctrl-C with exit code 130 while a rollout is stalled, and the terminal is usable afterwards', async () => {
    const ns = await newNamespace('watch-stop');
    await served(ns, 'stuck', 1);
    await setKnobs(cluster().adminKubeconfig, { leader: 'false' });
    const hash = await rollout(ns, 'stuck');
    await start(`bin/kubectl-haptic status stuck -n ${ns} --watch`);

    const live = await waitFor(screen, {
      what: 'the new pod waiting for the gate on screen',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (s) =>
        s.some((l) => l.includes(`stuck-${hash}-`) && /✓ ?(containers|ctr)/.test(l) && /… ?(routed|rt)/.test(l)),
    });
    expect(live.some((l) => l.startsWith('↑↓ select · enter detail · ? help · q quit'))).toBe(true);
    expect(await paneInfo('#{cursor_flag}')).toBe('0');
    expect(await paneInfo('#{pane_current_command}')).not.toBe('bash');

    await tmux('send-keys', '-t', SESSION, 'C-c');
    await waitFor(() => paneInfo('#{pane_current_command}'), {
      what: 'the watch to stop',
      timeoutMs: 10_000,
      intervalMs: 100,
      until: (c) => c === 'bash',
    });
    await type('echo "exit=$?"');
    const after = await exited();
    expect(after.filter((l) => l.startsWith('exit='))).toEqual(['exit=130']);
    await shellWorks();
  });
  it('-l over five workloads rolling at once: a row each, the gate counts moving, enter opens one and esc comes back, a broken one shows its finding', async () => {
    const ns = await newNamespace('watch-many');
    const labels = (name: string) => ({ app: name, 'app.kubernetes.io/part-of': 'shop' });
    const deployments = ['web', 'api', 'cart'];
    const sets = ['db', 'cache'];
    await api().apply([
      ...[...deployments, 'pay'].flatMap((name) => [
        gatedDeployment({ name, namespace: ns, replicas: 2, labels: labels(name), maxSurge: 1, maxUnavailable: 0 }),
        ...routedService({ name, namespace: ns, selector: labels(name) }),
      ]),
      ...sets.flatMap((name) => [
        gatedStatefulSet({ name, namespace: ns, replicas: 2, labels: labels(name) }),
        ...routedService({ name, namespace: ns, selector: labels(name) }),
      ]),
    ]);
    await waitFor(
      async () => [
        ...(await api().list<any>('apps/v1', 'Deployment', { namespace: ns })),
        ...(await api().list<any>('apps/v1', 'StatefulSet', { namespace: ns })),
      ],
      {
        what: 'six workloads ready',
        timeoutMs: 120_000,
        intervalMs: 500,
        until: (all) =>
          all.length === 6 &&
          all.every(
            (w) =>
              w.status?.observedGeneration === w.metadata.generation &&
              w.status?.readyReplicas === 2 &&
              w.status?.updatedReplicas === 2,
          ),
      },
    );
    // all of them roll at once, new pods starting 3 s after they are placed; pay's new image cannot be pulled
    const delayed = { 'standin.kubectl-haptic.dev/start-delay-ms': '3000' };
    await Promise.all([
      ...deployments.map((name) =>
        api().patch('apps/v1', 'Deployment', name, ns, {
          spec: { template: { metadata: { annotations: delayed } } },
        }),
      ),
      api().patch('apps/v1', 'Deployment', 'pay', ns, {
        spec: { template: { metadata: { annotations: { 'standin.kubectl-haptic.dev/fail': 'image-pull' } } } },
      }),
      ...sets.map((name) =>
        api().patch('apps/v1', 'StatefulSet', name, ns, {
          spec: { template: { metadata: { annotations: delayed } } },
        }),
      ),
    ]);
    await start(`bin/kubectl-haptic status -l app.kubernetes.io/part-of=shop -n ${ns} --watch; echo "exit=$?"`);
    const healthy = [...deployments.map((d) => `deployment.apps/${d}`), ...sets.map((d) => `statefulset.apps/${d}`)];
    const row = (s: string[], ref: string) => s.find((l) => /^[❯ ] /.test(l) && l.slice(2).startsWith(`${ref} `));

    // a row each while they roll: the gate counts short of 2/2
    const rolling = await waitFor(screen, {
      what: 'a row per workload, some still short of the gate',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (s) =>
        [...healthy, 'deployment.apps/pay'].every((r) => row(s, r)) &&
        healthy.some((r) => /… rolling +[01]\/2 gated/.test(row(s, r)!)),
    });
    expect(rolling.find((l) => / workloads · /.test(l))).toMatch(
      /^6 workloads · -l app\.kubernetes\.io\/part-of=shop in namespace watch-many-\S+ · /,
    );
    expect(rolling.some((l) => /^ {2}NAME +STATE +GATE +OLD PODS +ROLLING +FINDING$/.test(l))).toBe(true);
    expect(await paneInfo('#{cursor_flag}')).toBe('0');

    // the broken one's row: its finding, and it sorts first (it needs a person)
    const stalled = await waitFor(screen, {
      what: "pay's row with HS203",
      timeoutMs: 60_000,
      intervalMs: 100,
      until: (s) => /HS203 \S/.test(row(s, 'deployment.apps/pay') ?? ''),
    });
    expect(stalled.indexOf(row(stalled, 'deployment.apps/pay')!)).toBe(
      stalled.findIndex((l) => /^ {2}NAME /.test(l)) + 1,
    );

    // ↓ selects the first row, enter opens its live view, esc comes back to the overview
    await tmux('send-keys', '-t', SESSION, 'Down');
    await waitFor(screen, {
      what: 'the first row selected',
      intervalMs: 100,
      until: (s) => s.some((l) => l.startsWith('❯ deployment.apps/pay ')),
    });
    await tmux('send-keys', '-t', SESSION, 'Enter');
    const open = await waitFor(screen, {
      what: "pay's live view",
      intervalMs: 100,
      until: (s) =>
        s.includes('◂ esc: the overview (6 workloads)') &&
        s.some((l) => l.startsWith(`deployment.apps/pay -n ${ns} · `)) &&
        s.some((l) => l.startsWith('NEW PODS')),
    });
    expect(open.join('\n')).toContain('HS203');
    await tmux('send-keys', '-t', SESSION, 'Escape');
    await waitFor(screen, {
      what: 'back to the overview',
      intervalMs: 100,
      until: (s) => s.some((l) => /^ {2}NAME +STATE/.test(l)) && !s.some((l) => l.startsWith('◂ esc')),
    });

    // the gate counts moved as the stand-ins let the new pods through: every healthy row 2/2, complete
    const through = await waitFor(screen, {
      what: 'every healthy row through the gate',
      timeoutMs: 120_000,
      intervalMs: 200,
      until: (s) => healthy.every((r) => /(✓ complete|↓ draining) +2\/2 gated/.test(row(s, r) ?? '')),
    });
    expect(row(through, 'deployment.apps/pay')).toMatch(/… rolling +0\/2 gated .*HS203 /);
    await tmux('send-keys', '-t', SESSION, 'q');
    const after = await exited();
    expect(after.filter((l) => l.startsWith('exit='))).toEqual(['exit=130']);
    await shellWorks();
  });

  it('follows a workload created with the label after it opened, and with --exit-when-done ends by itself with the report of each', async () => {
    const ns = await newNamespace('watch-late');
    const labels = (name: string) => ({ app: name, 'app.kubernetes.io/part-of': 'blog' });
    const deploy = (name: string, podAnnotations?: Record<string, string>) => [
      gatedDeployment({ name, namespace: ns, replicas: 1, labels: labels(name), podAnnotations }),
      ...routedService({ name, namespace: ns, selector: labels(name) }),
    ];
    await api().apply([...deploy('front'), ...deploy('feed')]);
    for (const name of ['front', 'feed'])
      await waitFor(() => api().get<any>('apps/v1', 'Deployment', name, ns), {
        what: `deployment ${name} available`,
        timeoutMs: 60_000,
        intervalMs: 200,
        until: (d) => d.status?.observedGeneration === d.metadata.generation && d.status?.availableReplicas === 1,
      });
    // front's new pod takes 10 s to start: the view cannot be done before the late workload comes
    await rollout(ns, 'front', 10_000);
    await rollout(ns, 'feed', 3000);
    await tmux('clear-history', '-t', SESSION);
    await start(
      `bin/kubectl-haptic status -l app.kubernetes.io/part-of=blog -n ${ns} --watch --exit-when-done; echo "exit=$?"`,
    );
    const row = (s: string[], ref: string) => s.find((l) => /^[❯ ] /.test(l) && l.slice(2).startsWith(`${ref} `));
    await waitFor(screen, {
      what: 'a row for each of the two',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (s) => !!row(s, 'deployment.apps/front') && !!row(s, 'deployment.apps/feed'),
    });
    await api().apply(deploy('late', { 'standin.kubectl-haptic.dev/start-delay-ms': '3000' }));
    const joined = await waitFor(screen, {
      what: 'the late workload in the overview',
      timeoutMs: 30_000,
      intervalMs: 100,
      until: (s) => !!row(s, 'deployment.apps/late') && s.some((l) => l.startsWith('3 workloads · ')),
    });
    expect(row(joined, 'deployment.apps/late')).toMatch(/(… reading|… rolling|✓ complete|↓ draining)/);
    await exited(120_000);
    // the pane with what scrolled off its rows: the last frame, then the reports
    const final = (await tmux('capture-pane', '-p', '-t', SESSION, '-S', '-')).split('\n').map((l) => l.trimEnd());
    expect(final.filter((l) => l.startsWith('exit='))).toEqual(['exit=0']);
    // the last frame stays: the overview, every row complete, no keys; then the report of each that rolled
    for (const name of ['front', 'feed', 'late']) {
      expect(row(final, `deployment.apps/${name}`)).toMatch(/(✓ complete|↓ draining) +1\/1 gated/);
      expect(
        final.some((l) =>
          new RegExp(
            `^Rollout report: deployment\\.apps/${name} -n ${ns} complete( and drained)? in \\d+\\.\\ds \\(as watched\\)$`,
          ).test(l),
        ),
        `the report of ${name}`,
      ).toBe(true);
    }
    expect(final.some((l) => l.startsWith('↑↓ select'))).toBe(false);
    await shellWorks();
  });
});
