// kubectl haptic drill in the lab: its probe pod (curlimages/curl, which the lab imitates with test/cluster/lab/
// probe.ts) sends real requests during a real rollout; drill's report, read through pods/log, says what the probe's
// own count says, and no probe pod is left behind. A user without the rights drill needs is refused before
// anything is created.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../cluster/cluster.ts';
import { get } from '../cluster/lab/load.ts';
import { describe, expect, it } from 'vitest';
import type { Obj } from '../cluster/standins/common.ts';
import { adminApi, cluster, grantReadOnly, newNamespace, runPlugin, waitFor } from '../e2e/support.ts';
import { gateOf, labApp, labServed, readyPods } from './support.ts';

type Report = {
  requests: number;
  failed: number;
  failures: Record<string, number>;
  probe: { pod: string };
  groups: { class: string; count: number; after?: { change: string } }[];
  rollout: { outcome: string };
};

/** The probe's own count of its requests 1…n, by class (what it wrote before each log line). */
function tally(namespace: string, pod: string, n: number): { requests: number; byClass: Record<string, number> } {
  const file = join(cluster().stateDir, 'lab', 'probes', `${namespace}_${pod}.jsonl`);
  expect(existsSync(file), file).toBe(true);
  const entries = readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { seq: number; outcome: string })
    .filter((e) => e.seq <= n);
  const byClass: Record<string, number> = { refused: 0, reset: 0, timeout: 0, http5xx: 0, other: 0 };
  for (const e of entries) if (e.outcome !== 'ok') byClass[e.outcome] = (byClass[e.outcome] ?? 0) + 1;
  return { requests: entries.length, byClass };
}

async function noProbeLeft(namespace: string): Promise<void> {
  await waitFor(
    async () =>
      (
        await adminApi().list<Obj>('v1', 'Pod', {
          namespace,
          labelSelector: 'app.kubernetes.io/name=kubectl-haptic-drill',
        })
      ).length === 0,
    { what: 'no probe pod left', timeoutMs: 30_000 },
  );
}

async function deployed(namespace: string, gated: boolean): Promise<void> {
  await adminApi().apply([
    labApp({ name: 'web', namespace, gated, maxSurge: 1, maxUnavailable: 0 }),
    ...labServed({ name: 'web', namespace }),
  ]);
  await waitFor(() => readyPods(namespace), { what: 'web Ready', timeoutMs: 90_000, until: (p) => p.length === 1 });
  // kube-proxy's rules trail the API (2 s in the lab): a probe started before they name the pod counts refusals
  // before the restart, which no rollout change explains. Drill a Service that already serves.
  const svc = await adminApi().get<Obj>('v1', 'Service', 'web', namespace);
  await waitFor(async () => (await get(`http://${svc.spec.clusterIP}/`, { timeoutMs: 2000 })).outcome === 'ok', {
    what: 'web answering through its ClusterIP',
    timeoutMs: 30_000,
    intervalMs: 100,
  });
}

describe('kubectl haptic drill in the lab', () => {
  it("through the Service: counts what kube-proxy's lag drops during an ungated rollout, the same as the probe's own count", async () => {
    const ns = await newNamespace('lab-drill-svc');
    await deployed(ns, false);
    const r = await runPlugin(['drill', 'web', '-n', ns, '--interval', '20ms', '-o', 'json'], { timeoutMs: 240_000 });
    expect(r.stderr).toMatch(
      /creating a probe pod in namespace lab-drill-svc-\S+ \(image curlimages\/curl:8\.11\.1\): GET http:\/\/10\.96\.\d+\.\d+:80\/ every 20ms/,
    );
    expect(r.code, r.stderr).toBe(1);
    const report = JSON.parse(r.stdout) as Report;
    expect(report.rollout.outcome).toBe('complete');
    expect(report.failed).toBeGreaterThan(0);
    const own = tally(ns, report.probe.pod, report.requests);
    expect({ requests: report.requests, byClass: report.failures }).toEqual(own);
    // the old pod stopped at once (no preStop) while kube-proxy still sent it connections: the failures came once the
    // new pod existed. Which change a failure is set against (the new pod's creation or Ready, the old pod's deletion)
    // depends on when the plugin saw each of them, milliseconds apart here, so any of them is right; never the
    // restart itself or nothing.
    expect(report.groups.length).toBeGreaterThan(0);
    // should it fail, the groups say when each failure came and the changes around it
    for (const g of report.groups)
      expect(['created', 'ready', 'draining', 'gone'], JSON.stringify(report.groups)).toContain(g.after?.change);
    await noProbeLeft(ns);
  });

  it("through HAPTIC's HAProxy: a gated rollout drops nothing, and the report says so", async () => {
    const ns = await newNamespace('lab-drill-gated');
    await deployed(ns, true);
    const r = await runPlugin(['drill', 'web', '-n', ns, '--host', `web.${ns}.svc`, '--interval', '20ms'], {
      timeoutMs: 240_000,
    });
    expect(r.code, `${r.stdout}\n${r.stderr}`).toBe(0);
    expect(r.stdout).toMatch(/^drill deployment\.apps\/web -n lab-drill-gated-\S+: (\d+) requests, 0 failed$/m);
    expect(r.stdout).toContain("through HAPTIC's HAProxy (service haptic/haptic-haproxy) with Host web.");
    expect(r.stdout).toMatch(/✓ no request failed \(\d+ requests\)/);
    const requests = Number(/: (\d+) requests, 0 failed/.exec(r.stdout)![1]);
    const pod = /pod\/(haptic-drill-web-\S+) \(/.exec(r.stdout)![1]!;
    expect(tally(ns, pod, requests)).toEqual({
      requests,
      byClass: { refused: 0, reset: 0, timeout: 0, http5xx: 0, other: 0 },
    });
    await noProbeLeft(ns);
  });

  it("a StatefulSet through HAPTIC's HAProxy, ordinal by ordinal: drops without the gate, each set against a pod's change; none once enable-gate added it", async () => {
    const ns = await newNamespace('lab-drill-sts');
    await adminApi().apply([
      labApp({ name: 'db', namespace: ns, kind: 'StatefulSet', replicas: 2 }),
      ...labServed({ name: 'db', namespace: ns }),
    ]);
    await waitFor(() => readyPods(ns), {
      what: 'db-0 and db-1 Ready',
      timeoutMs: 90_000,
      until: (p) => p.length === 2,
    });
    const drill = async () => {
      const r = await runPlugin(
        ['drill', 'sts/db', '-n', ns, '--host', `db.${ns}.svc`, '--interval', '20ms', '-o', 'json'],
        { timeoutMs: 240_000 },
      );
      expect(r.stderr).toContain('restarting statefulset/db (as kubectl rollout restart)');
      const report = JSON.parse(r.stdout) as Report & {
        workloadKind: string;
        name: string;
        groups: { after?: { pod?: string } }[];
      };
      expect(report).toMatchObject({ workloadKind: 'StatefulSet', name: 'db', rollout: { outcome: 'complete' } });
      expect({ requests: report.requests, byClass: report.failures }).toEqual(
        tally(ns, report.probe.pod, report.requests),
      );
      return { code: r.code, report };
    };

    // ungated: db-0 goes as soon as the new db-1 passes its probe, before HAProxy routes to it
    const ungated = await drill();
    expect(ungated.code).toBe(1);
    expect(ungated.report.failed).toBeGreaterThan(0);
    for (const g of ungated.report.groups)
      expect(['db-0', 'db-1'], JSON.stringify(ungated.report.groups)).toContain(g.after?.pod);

    const enabled = await runPlugin(['enable-gate', 'sts/db', '-n', ns, '--wait', '--timeout', '120s'], {
      timeoutMs: 150_000,
    });
    expect(enabled.code, enabled.stdout + enabled.stderr).toBe(0);

    // gated: each ordinal waits for HAProxy; both replaced, the higher first, each gated True
    const gated = await drill();
    expect(gated.code).toBe(0);
    expect(gated.report.failed).toBe(0);
    const pods = (await adminApi().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: 'app=db' })).sort((a, b) =>
      a.metadata.name.localeCompare(b.metadata.name),
    );
    expect(pods.map((p) => p.metadata.name)).toEqual(['db-0', 'db-1']);
    expect(Date.parse(String(pods[0]!.metadata.creationTimestamp))).toBeGreaterThanOrEqual(
      Date.parse(String(pods[1]!.metadata.creationTimestamp)),
    );
    expect(pods.map((p) => gateOf(p))).toEqual(['True', 'True']);
    await noProbeLeft(ns);
  });

  it('a rollout that cannot finish (an image that cannot be pulled) ends the drill with exit 1 and the cause, its probe pod deleted', async () => {
    const ns = await newNamespace('lab-drill-fail');
    await deployed(ns, true);
    const child = spawn(join(repoRoot, 'bin/kubectl-haptic'), ['drill', 'web', '-n', ns, '--no-restart'], {
      env: { ...process.env, KUBECONFIG: cluster().adminKubeconfig, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let [stdout, stderr] = ['', ''];
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(() => /waiting for a rollout of deployment\/web to start/.test(stderr), {
      what: 'drill waiting for a rollout',
      timeoutMs: 90_000,
    });
    const broken = Date.now();
    // an image the lab's runtime does not know goes to the node stand-in, whose image-pull trace the pod follows
    await adminApi().patch(
      'apps/v1',
      'Deployment',
      'web',
      ns,
      {
        spec: {
          template: {
            metadata: { annotations: { 'standin.kubectl-haptic.dev/fail': 'image-pull' } },
            spec: { containers: [{ name: 'app', image: 'example/missing:1' }] },
          },
        },
      },
      { type: 'strategic' },
    );
    expect(await exited, `${stdout}\n${stderr}`).toBe(1);
    expect(Date.now() - broken).toBeLessThan(60_000);
    expect(stdout).toMatch(/failed: \[HS203\] pod web-\S+: image example\/missing:1 cannot be pulled; fix: /);
    expect(stderr).toMatch(/deleted pod\/haptic-drill-web-\S+/);
    await noProbeLeft(ns);
  });

  it('refuses a user who may not create pods, before creating anything', async () => {
    const ns = await newNamespace('lab-drill-rbac');
    await deployed(ns, false);
    await grantReadOnly(ns);
    const r = await waitFor(() => runPlugin(['drill', 'web', '-n', ns], { kubeconfig: cluster().limitedKubeconfig }), {
      what: 'the read-only grant to apply',
      until: (x) => x.code === 4,
    });
    expect(r.stderr).toMatch(
      /^error: forbidden: drill needs in namespace "lab-drill-rbac-\S+": create pods \(creating the probe pod\), get pods\/log \(reading the probe's results\), delete pods \(deleting the probe pod\), patch deployments\.apps \(restarting the rollout\); nothing was created$/m,
    );
    expect(
      await adminApi().list<Obj>('v1', 'Pod', {
        namespace: ns,
        labelSelector: 'app.kubernetes.io/name=kubectl-haptic-drill',
      }),
    ).toEqual([]);
  });

  it('--dry-run shows the probe pod and the patch and creates nothing; Ctrl-C deletes the probe pod and exits 130', async () => {
    const ns = await newNamespace('lab-drill-stop');
    await deployed(ns, false);
    const dry = await runPlugin(['drill', 'web', '-n', ns, '--dry-run']);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain('# the probe pod drill would create\napiVersion: v1\nkind: Pod\n');
    expect(dry.stdout).toContain('  generateName: haptic-drill-web-\n');
    expect(dry.stdout).toMatch(
      /# then patch deployment\/web \(strategic merge\):\nspec:\n {2}template:\n {4}metadata:\n {6}annotations:\n {8}kubectl\.kubernetes\.io\/restartedAt: /,
    );
    expect(
      await adminApi().list<Obj>('v1', 'Pod', {
        namespace: ns,
        labelSelector: 'app.kubernetes.io/name=kubectl-haptic-drill',
      }),
    ).toEqual([]);

    const child = spawn(join(repoRoot, 'bin/kubectl-haptic'), ['drill', 'web', '-n', ns, '--no-restart'], {
      env: { ...process.env, KUBECONFIG: cluster().adminKubeconfig, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    await waitFor(() => /waiting for a rollout of deployment\/web to start/.test(stderr), {
      what: 'drill waiting for a rollout',
      timeoutMs: 90_000,
    });
    const probe = /created pod\/(\S+)/.exec(stderr)![1]!;
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain(`deleted pod/${probe}`);
    expect(stderr).toContain('interrupted: the probe pod was deleted; nothing is reported');
    await noProbeLeft(ns);
  });
});
