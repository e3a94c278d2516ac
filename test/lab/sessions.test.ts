// status --sessions in the lab: the plugin reads real `show stat` from real HAProxy workers through pods/exec (the
// node stand-in's kubelet exec, test/cluster/standins/lab/kubelet-exec.ts), and what it says of each old pod's
// sessions is what the lab's own client saw. Long requests (?delay) are sent through HAPTIC's HAProxy once the new
// pod is Ready: minReadySeconds keeps the old pod 5 s longer, so HAProxy balances them over both pods, and those
// the old pod takes are in flight when it is deleted. A steady load of short requests runs all along (in the killed
// test, until the long requests are sent: see there).
// - drained: the gate and a preStop sleep longer than the requests: the old pod's sessions fall to zero while it
//   still runs, the report says when (after the client's last answer from it, before it is gone), and no request
//   fails.
// - killed: an app that exits on SIGTERM (seed 003's server that does not finish what it accepted) after a short
//   preStop: the sessions it held are cut, HAProxy retries them on the new pod (HAPTIC's `retry-on … empty-response`,
//   `option redispatch`), and the report says "killed with N sessions open", N being the client's requests that the
//   old pod took and never answered.
import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { Load } from '../cluster/lab/load.ts';
import type { Obj } from '../cluster/standins/common.ts';
import { readHAProxyPod } from '../../src/services/sessions.ts';
import { adminApi, cluster, newNamespace, runPlugin, waitFor } from '../e2e/support.ts';
import { terminal } from '../e2e/terminal.ts';
import { hapticHAProxy, labApp, labServed, readyPods } from './support.ts';

type Long = { pod?: string; status?: number; error?: string; startedAt: number; endedAt: number };

/** One GET on a fresh connection that answers after `delayMs`: who answered (the lab's server says its pod). */
function longGet(url: string, host: string, delayMs: number): Promise<Long> {
  const startedAt = Date.now();
  return new Promise((resolve) => {
    const req = request(`${url}?delay=${delayMs}`, { agent: false, headers: { host } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ pod: body.trim(), status: res.statusCode ?? 0, startedAt, endedAt: Date.now() }));
    });
    req.on('error', (e: Error & { code?: string }) =>
      resolve({ error: e.code ?? e.message, startedAt, endedAt: Date.now() }),
    );
    req.setTimeout(60_000, () => req.destroy(new Error('timeout')));
    req.end();
  });
}

type Drain = {
  pod: string;
  drainMs?: number;
  gone: boolean;
  sessions?: {
    peak: number;
    drainedAfterMs?: number;
    drainedAt?: string;
    asItEnded?: boolean;
    killedWith?: number;
    unsettled?: number;
    readBeforeEndMs?: number;
    failed: number;
    retried: number;
  };
};

/**
 * Deploys the lab's server behind HAPTIC (gated, minReadySeconds 5), restarts it under load, has `follow` follow the
 * rollout from right after the restart, and sends `longs` requests of `delayMs` once the new pod is Ready. The load
 * runs until the rollout has been followed; with `quietLongs` it stops once the new pod is Ready, before the long
 * requests are sent, so that from then on they are the only requests HAProxy sends to either pod.
 */
async function rollWithLongRequests<T>(
  prefix: string,
  app: { env?: Record<string, string>; preStopSeconds: number },
  longs: number,
  delayMs: number,
  follow: (namespace: string, oldPod: string) => Promise<T>,
  options: { quietLongs?: boolean } = {},
) {
  const ns = await newNamespace(prefix);
  const api = adminApi();
  await api.apply([
    labApp({
      name: 'web',
      namespace: ns,
      gated: true,
      maxSurge: 1,
      maxUnavailable: 0,
      minReadySeconds: 5,
      terminationGracePeriodSeconds: 30,
      ...(app.env ? { env: app.env } : {}),
      preStop: { exec: { command: ['sleep', String(app.preStopSeconds)] } },
    }),
    ...labServed({ name: 'web', namespace: ns }),
  ]);
  const [old] = await waitFor(() => readyPods(ns), {
    what: 'web Ready',
    timeoutMs: 90_000,
    until: (p) => p.length === 1,
  });
  const { url } = await hapticHAProxy();
  const host = `web.${ns}.svc`;
  await waitFor(() => longGet(url, host, 0), {
    what: 'web answering through HAPTIC',
    timeoutMs: 30_000,
    until: (r) => r.status === 200,
  });
  const load = new Load({ url, host, concurrency: 4, intervalMs: 20, timeoutMs: 5000 }).start();
  const restartedAt = Date.now();
  await api.patch('apps/v1', 'Deployment', 'web', ns, {
    spec: {
      template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': new Date().toISOString() } } },
    },
  });
  const following = follow(ns, old!.metadata.name as string);
  // the new pod Ready (gated: every HAProxy pod routes to it); the old one stays minReadySeconds longer
  await waitFor(() => readyPods(ns), {
    what: 'the new pod Ready',
    timeoutMs: 60_000,
    intervalMs: 100,
    until: (pods) => pods.some((p: Obj) => Date.parse(p.metadata.creationTimestamp as string) >= restartedAt - 1000),
  });
  // stop() resolves once the load's requests in flight have ended: none is left at either pod
  const quiet = options.quietLongs ? await load.stop() : undefined;
  const sent = await Promise.all(Array.from({ length: longs }, () => longGet(url, host, delayMs)));
  const followed = await following;
  const counts = quiet ?? (await load.stop());
  return { ns, old: old!.metadata.name as string, sent, followed, counts };
}

/** status --wait --drained --sessions -o json: the old pod's drain in its report, and the transitions it logged. */
async function waitReport(namespace: string, oldPod: string): Promise<{ drain: Drain; stderr: string }> {
  const r = await runPlugin(['status', 'web', '-n', namespace, '--wait', '--drained', '--sessions', '-o', 'json'], {
    timeoutMs: 150_000,
  });
  expect(r.code, r.stderr).toBe(0);
  const report = JSON.parse(r.stdout) as { kind: string; drains: Drain[] };
  expect(report.kind).toBe('RolloutReport');
  const drain = report.drains.find((d) => d.pod === oldPod);
  expect(drain, JSON.stringify(report.drains)).toBeDefined();
  return { drain: drain!, stderr: r.stderr };
}

describe('status --sessions in the lab: what HAProxy holds to each old pod, read from HAProxy itself', () => {
  it('a gated rollout with a preStop: the old pod drains to zero sessions before it is gone, as the client saw', async () => {
    const delayMs = 4000;
    const { old, sent, followed, counts } = await rollWithLongRequests(
      'lab-sessions-drain',
      { preStopSeconds: 12 },
      10,
      delayMs,
      waitReport,
    );
    const { drain, stderr } = followed;
    // every request answered; some by the old pod, which the load balancer gave them
    expect(sent.every((s) => s.status === 200)).toBe(true);
    expect(counts.failed).toBe(0);
    const onOld = sent.filter((s) => s.pod === old);
    expect(onOld.length).toBeGreaterThan(0);
    const s = drain.sessions!;
    expect(s, JSON.stringify(drain)).toMatchObject({ failed: 0, retried: 0 });
    expect(s.killedWith).toBeUndefined();
    expect(s.asItEnded).toBeUndefined();
    // it held at least the long requests it took, and drained after the client's last answer from it
    expect(s.peak).toBeGreaterThanOrEqual(onOld.length);
    const lastAnswer = Math.max(...onOld.map((x) => x.endedAt));
    const drainedAt = Date.parse(s.drainedAt!);
    expect(drainedAt).toBeGreaterThanOrEqual(lastAnswer - 500);
    // found by a read soon after: reads come once a second per HAProxy pod, each an exec round trip that may take
    // seconds on a busy machine
    expect(drainedAt).toBeLessThanOrEqual(lastAnswer + 5000);
    // before it was gone
    expect(drain.gone).toBe(true);
    expect(s.drainedAfterMs!).toBeLessThan(drain.drainMs!);
    expect(stderr).toMatch(new RegExp(`pod/${old} \\(old\\) drained of connections, \\d+s of grace left`));
  });

  it('an app that exits on SIGTERM: the old pod is killed with the sessions open that the client never got answers to', async () => {
    const delayMs = 10_000;
    // `killed with N` is HAProxy's `scur` at the plugin's last read before the kill: every request connected to the
    // old pod's server then, whoever sent it. A short request of the steady load in flight at that read is one (and
    // ends before the kill, so HAProxy counts it neither failed nor retried); the client cannot time the read to tell
    // which were, so the load stops before the long requests are sent, and they are the only sessions the old pod has
    const { old, sent, followed } = await rollWithLongRequests(
      'lab-sessions-killed',
      { env: { ON_SIGTERM: 'exit' }, preStopSeconds: 2 },
      10,
      delayMs,
      waitReport,
      { quietLongs: true },
    );
    const { drain, stderr } = followed;
    // what the client saw: the old pod answered none; the requests it took were retried on the new pod (answered
    // late) or failed
    expect(sent.some((s) => s.pod === old)).toBe(false);
    // the plugin counts what HAProxy held at its last read before the pod went; the client cannot see that read, only
    // how late each answer came: one the old pod took waited there until the kill, then the whole delay on the new pod
    const late = (ms: number) => sent.filter((x) => x.status !== 200 || x.endedAt - x.startedAt >= delayMs + ms);
    const s = drain.sessions!;
    const facts = JSON.stringify({ drain, sent: sent.map((x) => [x.status, x.endedAt - x.startedAt]) });
    expect(s.readBeforeEndMs, facts).toBeGreaterThan(0);
    // every session open at the last read was a long request on the old pod (no other request reaches it now): its
    // answer came late (requests all start at once, seconds before the kill, so none is open at the old pod for under
    // 100 ms of it). A session counted twice (over the current and leaving workers, two backends, two HAProxy pods) or
    // still on the old pod's server once redispatched would make it more than the client's late answers
    expect(s.killedWith, facts).toBeLessThanOrEqual(late(100).length);
    // and an answer later than the delay plus the read's distance to the end (and a margin) was open at that read
    const surelyOpen = late(s.readBeforeEndMs! + 1500).filter((x) => x.status === 200).length;
    expect(s.killedWith, facts).toBeGreaterThanOrEqual(Math.max(1, surelyOpen));
    expect(s.drainedAfterMs).toBeUndefined();
    // HAProxy's own count of them, failed or retried elsewhere: a lower bound, as a leaving worker's counters leave with it
    expect(s.failed + s.retried).toBeGreaterThan(0);
    expect(stderr).toContain(
      `pod/${old} (old) killed with ${s.killedWith} session${s.killedWith === 1 ? '' : 's'} open`,
    );
  });

  it("status --watch in a terminal: the old pod's sessions fall to zero live, and the report says when it drained", async () => {
    const term = terminal('lab');
    await term.open({ width: 160, height: 40, kubeconfig: cluster().adminKubeconfig });
    try {
      const { old, sent, followed } = await rollWithLongRequests(
        'lab-sessions-watch',
        { preStopSeconds: 12 },
        10,
        4000,
        async (ns, oldPod) => {
          await term.start(`bin/kubectl-haptic status web -n ${ns} --watch --drained`);
          // the old pod's row, frame after frame, until the rollout's report is printed under the last frame
          // 160 columns hold every row, so the live view names the pod in full (short names only when rows would not fit)
          const counts: string[] = [];
          const name = `${oldPod} `;
          const last = await waitFor(
            async () => {
              const lines = await term.screen();
              const row = lines.find((l) => l.trimStart().startsWith(name));
              const n = row && /⇄ (≥?\d+|\?)/.exec(row)?.[1];
              if (n && counts.at(-1) !== n) counts.push(n);
              return lines;
            },
            {
              what: 'the rollout report under the last frame',
              timeoutMs: 120_000,
              intervalMs: 150,
              until: (lines) => lines.some((l) => l.startsWith('Rollout report:')),
            },
          );
          return { counts, screen: last.join('\n') };
        },
      );
      const onOld = sent.filter((s) => s.pod === old).length;
      expect(onOld).toBeGreaterThan(0);
      const { counts, screen } = followed;
      // it showed the sessions the old pod held, then none; never a count it did not read
      const numbers = counts.filter((c) => /^\d+$/.test(c)).map(Number);
      expect(Math.max(...numbers), counts.join(' → ')).toBeGreaterThanOrEqual(onOld);
      expect(numbers.at(-1), counts.join(' → ')).toBe(0);
      expect(screen).toContain(`${old}  `);
      expect(screen).toMatch(
        /\(exited by itself\)\n\s+drained of connections at \+\d+\.\ds \(\d+\.\ds of grace left\), from \d+ sessions?/,
      );
    } finally {
      await term.close();
    }
  });

  it('reads real workers through pods/exec, and says an image without socat cannot be asked', async () => {
    const ns = await newNamespace('lab-sessions-socat');
    const api = adminApi();
    const config = [
      'global',
      'defaults',
      '    mode http',
      '    timeout connect 1s',
      '    timeout client 5s',
      '    timeout server 5s',
      'frontend fe',
      '    bind :8080',
      '    default_backend be',
      'backend be',
      '    server app 10.244.9.9:8080 disabled',
      '',
    ].join('\n');
    const haproxy = (name: string, image: string): Obj => ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: ns },
      spec: {
        terminationGracePeriodSeconds: 1,
        volumes: [{ name: 'config', configMap: { name: 'edge' } }],
        containers: [
          {
            name: 'haproxy',
            image,
            command: [
              'haproxy',
              '-W',
              '-db',
              '-S',
              '/run/haproxy-master.sock,level,admin',
              '-f',
              '/usr/local/etc/haproxy/haproxy.cfg',
            ],
            volumeMounts: [{ name: 'config', mountPath: '/usr/local/etc/haproxy' }],
          },
        ],
      },
    });
    await api.apply([
      {
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'edge', namespace: ns },
        data: { 'haproxy.cfg': config },
      },
      haproxy('with-socat', 'haproxytech/haproxy-debian:3.2'),
      haproxy('without-socat', 'haproxy:3.2'),
    ]);
    await waitFor(() => readyPods(ns), { what: 'both Ready', timeoutMs: 60_000, until: (p) => p.length === 2 });
    const socket = { container: 'haproxy', path: '/run/haproxy-master.sock' };
    const read = (pod: string) => readHAProxyPod(api.client, { namespace: ns, pod, socket });
    const good = await waitFor(() => read('with-socat'), {
      what: "HAProxy's master answering",
      timeoutMs: 20_000,
      until: (r) => r.workers.length > 0,
    });
    expect(good.problem).toBeUndefined();
    expect(good.workers).toEqual([
      {
        pid: expect.any(Number),
        leaving: false,
        servers: [
          expect.objectContaining({ backend: 'be', server: 'app', addr: '10.244.9.9:8080', scur: 0, status: 'MAINT' }),
        ],
      },
    ]);
    const none = await read('without-socat');
    expect(none.workers).toEqual([]);
    expect(none.problem).toBe(
      "no socat in HAProxy pod without-socat's haproxy container: its image cannot be asked (HAPTIC's ships socat)",
    );
    expect(none.lasting).toBe(true);
  });
});
