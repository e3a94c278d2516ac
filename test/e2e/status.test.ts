// `kubectl haptic status` against the real control plane: --wait's transition log and exit codes, -o json during a
// rollout, the one-shot text of a completed rollout (one block per Deployment), and bad input.
import { afterEach, describe, expect, it } from 'vitest';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import {
  adminApi,
  cluster,
  type DeploymentOptions,
  GATE,
  gatedDeployment,
  newNamespace,
  routedService,
  runPlugin,
  waitFor,
} from './support.ts';

const api = () => adminApi();
const HAPTIC_GROUP = 'haproxy-haptic.org/v1alpha1';
const TIME = /^\d\d:\d\d:\d\d /;

/** A Deployment (gated; a Service of the same name selects it), rolled out and available. */
async function served(options: DeploymentOptions): Promise<void> {
  const { name, namespace } = options;
  const replicas = options.replicas ?? 2;
  await api().apply([
    gatedDeployment({ replicas, ...options }),
    ...routedService({ name, namespace, selector: options.labels ?? { app: name } }),
  ]);
  await waitFor(() => api().get<any>('apps/v1', 'Deployment', name, namespace), {
    what: `deployment ${name} available`,
    timeoutMs: 60_000,
    intervalMs: 200,
    until: (d) =>
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.replicas === replicas &&
      d.status?.updatedReplicas === replicas &&
      d.status?.availableReplicas === replicas,
  });
}

/** Starts a rollout: a new image (and pod template annotations). */
async function rollout(
  namespace: string,
  name: string,
  image: string,
  annotations?: Record<string, string>,
): Promise<void> {
  const template = {
    ...(annotations ? { metadata: { annotations } } : {}),
    spec: { containers: [{ name: 'app', image }] },
  };
  await api().patch('apps/v1', 'Deployment', name, namespace, { spec: { template } }, { type: 'strategic' });
}

const podsOf = (namespace: string, app: string) =>
  api().list<any>('v1', 'Pod', { namespace, labelSelector: `app=${app}` });

/** Waits until the rollout is complete and only new, live pods are left. */
async function drained(namespace: string, name: string, oldNames: string[], replicas: number): Promise<any[]> {
  return waitFor(() => podsOf(namespace, name), {
    what: `deployment ${name}'s old pods gone`,
    timeoutMs: 90_000,
    intervalMs: 200,
    until: (pods) =>
      pods.length === replicas &&
      pods.every(
        (p) =>
          !oldNames.includes(p.metadata.name) &&
          !p.metadata.deletionTimestamp &&
          p.status?.conditions?.some((c: any) => c.type === 'Ready' && c.status === 'True'),
      ),
  });
}

/**
 * --wait's output without the time stamps: every line starts with HH:MM:SS, except the indented evidence and fix
 * lines under a `stalled:` line, which are checked and left out.
 */
function waitLines(stdout: string): string[] {
  const lines: string[] = [];
  for (const line of logOf(stdout).trimEnd().split('\n')) {
    if (line.startsWith('    ')) {
      expect(lines.at(-1), `an indented line under a stalled: line\n${stdout}`).toMatch(/^stalled: /);
      continue;
    }
    expect(line).toMatch(TIME);
    lines.push(line.slice(9));
  }
  return lines;
}

/** --wait's log: what comes before the rollout report it prints once done, or the failure it ends with. */
const logOf = (stdout: string) => stdout.split('\n\n')[0]!;
/** The rollout report --wait prints at the end, if any. */
const reportOf = (stdout: string) =>
  stdout.includes('\nRollout report: ') ? `Rollout report: ${stdout.split('\nRollout report: ')[1]}` : undefined;

/** The first line that is `test` (or says it was already so when --wait started), or matches it. */
const lineIndex = (lines: string[], test: string | RegExp) =>
  lines.findIndex((l) =>
    typeof test === 'string' ? l === test || l === `${test} (already so at start)` : test.test(l),
  );

describe('kubectl haptic status', () => {
  afterEach(async () => {
    await resetKnobs(cluster().adminKubeconfig);
  });

  it('--wait --drained logs one line per transition, in order, and exits 0 only once the old pods are gone', async () => {
    const ns = await newNamespace('status-wait');
    await served({ name: 'web', namespace: ns, replicas: 2, maxSurge: 1, maxUnavailable: 0 });
    const oldNames = (await podsOf(ns, 'web')).map((p) => p.metadata.name).sort();
    // new pods start 4 s after scheduling: the plugin is up before the first of them becomes ready, even on a loaded machine
    await rollout(ns, 'web', 'example/app:2', { 'standin.kubectl-haptic.dev/start-delay-ms': '4000' });
    const run = await runPlugin(['status', 'web', '-n', ns, '--wait', '--drained', '--timeout', '90s'], {
      timeoutMs: 100_000,
    });
    const left = await podsOf(ns, 'web');

    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const lines = waitLines(run.stdout);
    expect(lines.filter((l) => l.startsWith('stalled: ') || l.startsWith('retrying: '))).toEqual([]);

    // exited once drained: only the two new pods exist, none terminating
    expect(left.map((p) => [oldNames.includes(p.metadata.name), !!p.metadata.deletionTimestamp])).toEqual([
      [false, false],
      [false, false],
    ]);
    const fresh = left.map((p) => p.metadata.name as string);

    for (const pod of fresh) {
      const missing = lineIndex(lines, `pod/${pod} gate ${GATE}: missing`);
      const containers = lineIndex(lines, `pod/${pod} containers ready`);
      const gate = lineIndex(
        lines,
        new RegExp(`^pod/${pod} gate ${GATE.replace(/\./g, '\\.')}: True \\(\\d+s after containers ready\\)$`),
      );
      const ready = lineIndex(lines, `pod/${pod} Ready`);
      expect({ pod, missing: missing >= 0, containers: containers >= 0 }).toEqual({
        pod,
        missing: true,
        containers: true,
      });
      expect(gate, `${pod}: gate True after containers ready\n${run.stdout}`).toBeGreaterThan(containers);
      expect(gate).toBeGreaterThan(missing);
      expect(ready, `${pod}: Ready after the gate\n${run.stdout}`).toBeGreaterThan(gate);
      expect(lines.filter((l) => l === `pod/${pod} Ready`)).toHaveLength(1);
    }
    const [first, second] = [...fresh].sort(
      (a, b) => lineIndex(lines, `pod/${a} Ready`) - lineIndex(lines, `pod/${b} Ready`),
    );
    // the second new pod appears mid-rollout (maxSurge 1: once an old pod goes), so it is announced; within one
    // update the lines follow pod names, not event order, so its place relative to the first pod's lines is open
    expect(lineIndex(lines, `pod/${second} created`), run.stdout).toBeGreaterThan(0);

    const terminating = oldNames.map((pod) =>
      lineIndex(lines, new RegExp(`^pod/${pod} \\(old\\) terminating, [45]s of grace left$`)),
    );
    const gone = oldNames.map((pod) =>
      lineIndex(lines, new RegExp(`^pod/${pod} \\(old\\) gone after \\d+s of drain$`)),
    );
    for (const [i, pod] of oldNames.entries()) {
      expect(terminating[i], `${pod} terminating\n${run.stdout}`).toBeGreaterThanOrEqual(0);
      expect(gone[i], `${pod} gone after terminating\n${run.stdout}`).toBeGreaterThan(terminating[i]!);
    }
    // maxUnavailable 0: no old pod terminates before the first new pod is Ready
    expect(Math.min(...terminating)).toBeGreaterThan(lineIndex(lines, `pod/${first} Ready`));

    const rolloutLines = lines.filter((l) => l.startsWith('rollout: '));
    // the backlog found at start comes first, oldest first, then the rollout's state as it was read
    expect(rolloutLines[0]).toMatch(
      /^rollout: Waiting for deployment "web" (spec update to be observed|rollout to finish: .*)\.\.\.$/,
    );
    expect(rolloutLines.at(-1)).toBe('rollout: deployment "web" successfully rolled out');
    expect(rolloutLines.slice(0, -1).every((l) => l.startsWith('rollout: Waiting for deployment "web" '))).toBe(true);
    expect(lineIndex(lines, 'rollout: deployment "web" successfully rolled out')).toBeGreaterThan(
      lineIndex(lines, `pod/${first} Ready`),
    );
    // --drained: the last line is the last old pod going
    expect(lines.at(-1)).toMatch(
      new RegExp(`^pod/${oldNames[gone.indexOf(Math.max(...gone))]} \\(old\\) gone after \\d+s of drain$`),
    );
    // then the report: every new pod's gate latency (from its conditions), every old pod's drain against its grace
    const report = reportOf(run.stdout)!.split('\n');
    expect(report[0]).toMatch(
      new RegExp(
        `^Rollout report: deployment\\.apps/web -n ${ns} complete and drained in \\d+\\.\\ds \\(as watched\\)$`,
      ),
    );
    expect(report[1]).toMatch(
      /^ {2}gate latency \(ContainersReady → gate True\): (min \d+\.\ds · median \d+\.\ds · max \d+\.\ds over 2 pods)$/,
    );
    for (const p of left) {
      const cond = (t: string) => Date.parse(p.status.conditions.find((c: any) => c.type === t).lastTransitionTime);
      expect(report).toContain(
        `    ${p.metadata.name}  ${((cond(GATE) - cond('ContainersReady')) / 1000).toFixed(1)}s`,
      );
    }
    expect(
      report.filter((l) =>
        /^ {4}web-\w+-\w{5} {2}\d+\.\ds of [45]\.\ds grace \((killed at the end of grace|exited by itself)\)$/.test(l),
      ),
    ).toHaveLength(2);
  });

  it('--wait -o json: the transition log goes to stderr, stdout holds only the RolloutReport', async () => {
    const ns = await newNamespace('status-report');
    await served({ name: 'web', namespace: ns, replicas: 2, maxSurge: 1, maxUnavailable: 0 });
    await rollout(ns, 'web', 'example/app:2', { 'standin.kubectl-haptic.dev/start-delay-ms': '1500' });
    const run = await runPlugin(['status', 'web', '-n', ns, '--wait', '--drained', '--timeout', '90s', '-o', 'json'], {
      timeoutMs: 100_000,
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).toContain('rollout: deployment "web" successfully rolled out');
    const report = JSON.parse(run.stdout);
    const fresh = await podsOf(ns, 'web');
    expect(report).toMatchObject({
      apiVersion: 'kubectl-haptic/v1',
      kind: 'RolloutReport',
      name: 'web',
      namespace: ns,
      phase: 'complete',
      drained: true,
    });
    expect(report.gateLatency.pods.map((p: any) => p.pod).sort()).toEqual(fresh.map((p) => p.metadata.name).sort());
    for (const p of fresh) {
      const cond = (t: string) => Date.parse(p.status.conditions.find((c: any) => c.type === t).lastTransitionTime);
      // condition times have second precision; the report takes them as they are
      expect(report.gateLatency.pods.find((l: any) => l.pod === p.metadata.name).ms).toBe(
        Math.max(0, cond(GATE) - cond('ContainersReady')),
      );
    }
    expect(report.drains).toHaveLength(2);
    expect(report.drains.every((d: any) => d.gone && d.drainMs >= 0)).toBe(true);
  });

  it('-o json during a rollout: per new pod containers ready ≤ gate ≤ Ready; a terminating old pod with its deadline', async () => {
    const ns = await newNamespace('status-json');
    const grace = 8;
    await served({
      name: 'api',
      namespace: ns,
      replicas: 2,
      maxSurge: 1,
      maxUnavailable: 0,
      terminationGracePeriodSeconds: grace,
    });
    const oldNames = (await podsOf(ns, 'api')).map((p) => p.metadata.name).sort();
    await rollout(ns, 'api', 'example/app:2');

    const terminatingEverywhere = (p: any) =>
      !!p.terminating && p.endpoints?.length > 0 && p.endpoints.every((e: any) => e.terminating);
    const caught = (await waitFor(
      async () => {
        const from = Date.now();
        const run = await runPlugin(['status', 'api', '-n', ns, '-o', 'json']);
        const to = Date.now();
        expect(run.code).toBe(0);
        const model = JSON.parse(run.stdout);
        // a pod is terminating once deleted; the EndpointSlice controller marks its endpoint a moment later
        return model.oldPods.some(terminatingEverywhere) ? { model, from, to } : undefined;
      },
      {
        what: 'status -o json to show a terminating old pod whose endpoint says so',
        timeoutMs: 60_000,
        intervalMs: 100,
      },
    ))!;
    const { model } = caught;
    expect(model).toMatchObject({
      apiVersion: 'kubectl-haptic/v1',
      kind: 'Rollout',
      name: 'api',
      namespace: ns,
      gated: true,
      gateType: GATE,
      revision: '2',
    });

    const old = model.oldPods.find(terminatingEverywhere);
    const pod = await api().get<any>('v1', 'Pod', old.name, ns); // still there: its grace period is 8 s
    expect(oldNames).toContain(old.name);
    const deadline = Date.parse(pod.metadata.deletionTimestamp);
    expect(old.terminating).toEqual({
      since: new Date(deadline - grace * 1000).toISOString(),
      deadline: pod.metadata.deletionTimestamp,
      graceRemainingMs: old.terminating.graceRemainingMs,
      pastDeadline: false,
      finalizers: [],
    });
    // computed from the plugin's clock between our start and end of the run
    expect(old.terminating.graceRemainingMs).toBeGreaterThanOrEqual(deadline - caught.to);
    expect(old.terminating.graceRemainingMs).toBeLessThanOrEqual(deadline - caught.from);
    expect(old.terminating.graceRemainingMs).toBeGreaterThan(0);
    expect(old.endpoints).toMatchObject([{ service: 'api', ready: false, serving: true, terminating: true }]);

    const ordered = (p: any) => {
      expect(p.gate).toMatchObject({ state: 'True', status: 'True', reason: 'RoutedByAllHAProxyPods' });
      const [cr, gate, ready] = [p.containersReady.since, p.gate.since, p.ready.since].map((s: string) =>
        Date.parse(s),
      );
      expect(cr).toBeLessThanOrEqual(gate!);
      expect(gate).toBeLessThanOrEqual(ready!);
      expect(p.gateLatencyMs).toBe(gate! - cr!);
    };
    const readyNew = model.newPods.filter((p: any) => p.ready.status === 'True');
    expect(readyNew.length).toBeGreaterThanOrEqual(1); // an old pod goes only once a new one is Ready (maxUnavailable 0)
    readyNew.forEach(ordered);

    const fresh = await drained(ns, 'api', oldNames, 2);
    const after = JSON.parse((await runPlugin(['status', 'api', '-n', ns, '-o', 'json'])).stdout);
    expect(after).toMatchObject({
      phase: 'complete',
      drained: true,
      oldPods: [],
      counts: { desired: 2, current: 2, updated: 2, ready: 2, available: 2, terminating: 0 },
    });
    expect(after.newPods.map((p: any) => p.name)).toEqual(fresh.map((p) => p.metadata.name).sort());
    after.newPods.forEach(ordered);
  });

  it('with no HAPTIC leader: --wait --timeout 20s exits 2, and --wait exits 1 once the progress deadline is exceeded', async () => {
    const ns = await newNamespace('status-stall');
    await Promise.all([
      served({ name: 'slow', namespace: ns, replicas: 1, maxSurge: 1, maxUnavailable: 0 }),
      served({ name: 'dead', namespace: ns, replicas: 1, maxSurge: 1, maxUnavailable: 0, progressDeadlineSeconds: 8 }),
    ]);
    await setKnobs(cluster().adminKubeconfig, { leader: 'false' });
    await Promise.all([rollout(ns, 'slow', 'example/app:2'), rollout(ns, 'dead', 'example/app:2')]);
    const started = Date.now();
    const [timedOut, failed] = await Promise.all([
      runPlugin(['status', 'slow', '-n', ns, '--wait', '--no-fail-fast', '--timeout', '20s'], {
        timeoutMs: 40_000,
      }).then((r) => ({
        ...r,
        ms: Date.now() - started,
      })),
      runPlugin(['status', 'deployment/dead', '-n', ns, '--wait'], { timeoutMs: 60_000 }).then((r) => ({
        ...r,
        ms: Date.now() - started,
      })),
    ]);

    expect(timedOut.stderr).toBe('');
    expect(timedOut.code).toBe(2);
    expect(timedOut.ms).toBeGreaterThanOrEqual(20_000);
    const slowLines = waitLines(timedOut.stdout);
    expect(slowLines.at(-1)).toBe('timed out after 20s');
    const slowPods = (await podsOf(ns, 'slow')).filter((p) => p.spec.containers[0].image === 'example/app:2');
    expect(slowPods).toHaveLength(1);
    const slowPod = slowPods[0]!;
    expect(lineIndex(slowLines, `pod/${slowPod.metadata.name} containers ready`)).toBeGreaterThanOrEqual(0);
    expect(lineIndex(slowLines, `pod/${slowPod.metadata.name} gate ${GATE}: missing`)).toBeGreaterThanOrEqual(0);
    expect(slowLines.filter((l) => l.includes(': True') || l.endsWith(' Ready'))).toEqual([]);
    // the Lease is not renewed: it goes stale after its 15 s, within the 20 s
    const stale = slowLines.indexOf('HAPTIC haptic/haptic-config: no leader (lease stale)');
    expect(stale, timedOut.stdout).toBeGreaterThan(0);
    // ... and the stall is explained (the finding's wording belongs to the diagnosis)
    expect(
      slowLines.slice(stale).some((l) => /^stalled: \[[A-Z]+\d+\] \S/.test(l)),
      timedOut.stdout,
    ).toBe(true);

    expect(failed.stderr).toBe('');
    expect(failed.code).toBe(1);
    expect(failed.ms).toBeGreaterThanOrEqual(8_000);
    const dead = waitLines(failed.stdout);
    const exceeded = dead.indexOf('rollout: deployment "dead" exceeded its progress deadline');
    expect(exceeded, failed.stdout).toBeGreaterThan(0);
    expect(
      dead.slice(exceeded + 1).filter((l) => !l.startsWith('stalled: ')),
      failed.stdout,
    ).toEqual([]);
    expect(
      dead
        .filter((l) => l.startsWith('rollout: '))
        .slice(0, -1)
        .every((l) => l.startsWith('rollout: Waiting for deployment "dead" ')),
    ).toBe(true);
    // the end says why, once more, as why-stalled does, and the verdict last
    expect(failed.stdout.trimEnd().split('\n').at(-1)).toMatch(
      new RegExp(`^✗ deployment\\.apps/dead -n ${ns}: rollout failed after \\d+s of waiting: `),
    );
    const d = await api().get<any>('apps/v1', 'Deployment', 'dead', ns);
    expect(d.status.conditions.find((c: any) => c.type === 'Progressing')).toMatchObject({
      status: 'False',
      reason: 'ProgressDeadlineExceeded',
    });
  });

  it('prints a completed rollout as header, NEW PODS table and HAPTIC line; -l and -A -l print a row per Deployment', async () => {
    const ns = await newNamespace('status-a');
    const ns2 = await newNamespace('status-b');
    const labels = (app: string) => ({ app, suite: ns });
    await Promise.all([
      served({ name: 'alpha', namespace: ns, labels: labels('alpha'), replicas: 2, maxSurge: 1, maxUnavailable: 0 }),
      served({ name: 'beta', namespace: ns, labels: labels('beta'), replicas: 1, maxSurge: 1, maxUnavailable: 0 }),
      served({ name: 'gamma', namespace: ns2, labels: labels('gamma'), replicas: 1, maxSurge: 1, maxUnavailable: 0 }),
    ]);
    const oldNames = (await podsOf(ns, 'alpha')).map((p) => p.metadata.name);
    await rollout(ns, 'alpha', 'example/app:2');
    const fresh = (await drained(ns, 'alpha', oldNames, 2)).map((p) => p.metadata.name as string).sort();
    const hash = fresh[0]!.split('-')[1];

    // the HAPTIC line names the live checksum: run while every HAProxy pod runs it, and nothing changed meanwhile
    const cfg = () => api().get<any>(HAPTIC_GROUP, 'HAProxyCfg', 'haptic-config-haproxycfg', 'haptic');
    const converged = (c: any) =>
      c.status?.deployedToPods?.length === 2 &&
      c.status.deployedToPods.every((e: any) => e.checksum === c.spec.checksum);
    const { run, checksum } = (await waitFor(
      async () => {
        const before = await cfg();
        const out = await runPlugin(['status', 'alpha', '-n', ns]);
        const after = await cfg();
        return converged(before) && after.metadata.resourceVersion === before.metadata.resourceVersion
          ? { run: out, checksum: before.spec.checksum as string }
          : undefined;
      },
      { what: 'a status run while HAProxy is converged', timeoutMs: 30_000, intervalMs: 200 },
    ))!;
    const lease = await api().get<any>('coordination.k8s.io/v1', 'Lease', 'haptic', 'haptic');
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.stdout.endsWith('\n')).toBe(true);
    const lines = run.stdout.slice(0, -1).split('\n');
    const summary = (name: string, namespace: string, revision: number) =>
      `deployment.apps/${name} -n ${namespace} · revision ${revision} · RollingUpdate maxSurge 1, maxUnavailable 0 · gate ${GATE}`;
    const hapticLine = new RegExp(
      `^HAPTIC haptic/haptic-config: leader ${lease.spec.holderIdentity} \\(renewed \\d+s ago\\) · config ok · HAProxy 2/2 on ${checksum.slice(0, 12)}$`,
    );
    expect(lines.slice(0, 5)).toEqual([
      summary('alpha', ns, 2),
      '✓ deployment "alpha" successfully rolled out',
      '  desired 2 · updated 2 · ready 2 · available 2 · terminating 0',
      '',
      `NEW PODS  replicaset/alpha-${hash} (revision 2)`,
    ]);
    // the table: each cell read by what it must say (not by the spaces between), then laid out as kubectl would:
    // every column as wide as its widest cell plus 3 spaces, the last one unpadded
    const rows = lines.slice(6, 8);
    const cellPattern = new RegExp(
      `^(${fresh.join('|')}) +(✓ \\d+s ago) +(✓ \\d+s ago \\(\\+\\d+s\\)) +(✓ \\d+s ago) +(alpha: ready) +(enabled 2/2) +(\\d+s)$`,
    );
    const cells = rows.map((r, i) => {
      const m = cellPattern.exec(r);
      expect(m, `row ${i}: ${r}`).not.toBeNull();
      expect(m![1]).toBe(fresh[i]);
      return m!.slice(1);
    });
    const names = ['NAME', 'CONTAINERS', 'GATE', 'READY', 'ENDPOINTS', 'HAPROXY', 'AGE'];
    const layout = (table: string[][]) => {
      const width = (col: number) => Math.max(...table.map((r) => r[col]!.length));
      return table.map((r) => r.map((c, col) => (col === r.length - 1 ? c : c.padEnd(width(col) + 3))).join(''));
    };
    expect(lines.slice(5, 8)).toEqual(layout([names, ...cells]));
    expect(lines[5]).toMatch(/^NAME {3,}CONTAINERS {3,}GATE {3,}READY {3,}ENDPOINTS {6}HAPROXY {7}AGE$/);
    // no OLD PODS section once drained
    expect(lines.slice(8)).toHaveLength(2);
    expect(lines[8]).toBe('');
    expect(lines[9]).toMatch(hapticLine);

    // -l: a row per Deployment of the namespace, as kubectl get lists many (complete ones by name), and HAPTIC's
    // installation once; -A -l: across namespaces, with the NAMESPACE column; a selector one workload matches keeps
    // the full report
    const row = (name: string) =>
      new RegExp(`^deployment\\.apps/${name} {3,}✓ complete {3,}\\d/\\d gated {3,}- {3,}-$`);
    const several = await runPlugin(['status', '-n', ns, '-l', `suite=${ns}`]);
    expect(several.code, several.stderr).toBe(0);
    const table = several.stdout.split('\n');
    expect(table[0]).toMatch(/^NAME {3,}STATE {3,}GATE {3,}OLD PODS {3,}ROLLING {3,}FINDING$/);
    expect(table[1]).toMatch(row('alpha'));
    expect(table[2]).toMatch(row('beta'));
    expect(table[3]).toBe('');
    expect(table.slice(4).filter((l) => l.startsWith('HAPTIC '))).toHaveLength(1);
    expect(table[4]).toMatch(hapticLine);
    const everywhere = await runPlugin(['status', '-A', '-l', `suite=${ns}`]);
    expect(everywhere.code, everywhere.stderr).toBe(0);
    const all = everywhere.stdout.split('\n');
    expect(all[0]).toMatch(/^NAMESPACE {3,}NAME {3,}STATE /);
    expect(all.slice(1, 4).map((l) => l.split(/ {3,}/).slice(0, 2))).toEqual(
      [
        [ns, 'deployment.apps/alpha'],
        [ns, 'deployment.apps/beta'],
        [ns2, 'deployment.apps/gamma'],
        // by namespace, as kubectl sorts (the namespaces' names end in random hex)
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0)),
    );
    expect(everywhere.stdout).not.toContain('NEW PODS ');
    // -o json stays the full models, one item per workload
    const listed = JSON.parse((await runPlugin(['status', '-A', '-l', `suite=${ns}`, '-o', 'json'])).stdout);
    expect(listed.items.map((m: { name: string }) => m.name)).toEqual(
      ns < ns2 ? ['alpha', 'beta', 'gamma'] : ['gamma', 'alpha', 'beta'],
    );
    const single = await runPlugin(['status', '-A', '-l', `suite=${ns},app=gamma`]);
    expect(single.stdout.split('\n')[0]).toBe(summary('gamma', ns2, 1));
  });

  it('gives one line and exit code 3 for an unknown Deployment and for --watch without a terminal', async () => {
    const ns = await newNamespace('status-bad');
    const cases: [string[], string][] = [
      [
        ['status', 'nope', '-n', ns],
        `error: deployments.apps, statefulsets.apps, daemonsets.apps or rollouts.argoproj.io "nope" not found in namespace "${ns}"\n`,
      ],
      [['status', 'web', '-n', 'no-such-namespace'], 'error: namespace "no-such-namespace" not found\n'],
      [
        ['status', 'web', '-n', ns, '--watch'],
        'error: --watch needs a terminal; use --wait (one line per transition) or -o json when output is piped\n',
      ],
      [
        ['status', 'web', '-n', ns, '--wait', '--timeout', 'soon'],
        'error: invalid --timeout "soon": use a duration such as 30s, 5m or 1h\n',
      ],
    ];
    for (const [args, stderr] of cases) {
      const r = await runPlugin(args);
      expect({ args, code: r.code, stdout: r.stdout, stderr: r.stderr }).toEqual({ args, code: 3, stdout: '', stderr });
    }
  });
});
