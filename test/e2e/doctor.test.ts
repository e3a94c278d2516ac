// kubectl haptic doctor on the real control plane, for the checks that need live state: each trap made the way it
// happens in a cluster (the disruption controller's PDB status, the EndpointSlice controller's terminating
// endpoints, the node stand-in's liveness-probe trace written as the kubelet writes it, the HAPTIC stand-in's
// knobs and rendered configuration), then the plugin's own output, exit code and JSON read back. Static mode is run
// through the same binary with no cluster at all.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dump, load } from 'js-yaml';
import { afterEach, describe, expect, it } from 'vitest';
import { gzipSync } from 'node:zlib';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import { repoRoot } from '../cluster/cluster.ts';
import {
  adminApi,
  cluster,
  type DeploymentOptions,
  GATE,
  gatedDaemonSet,
  gatedDeployment,
  grantReadOnly,
  type KubeObject,
  newNamespace,
  type PluginResult,
  routedService,
  runPlugin,
  service,
  waitFor,
} from './support.ts';

const api = () => adminApi();
const FAIL = 'standin.kubectl-haptic.dev/fail';
const created: { ns: string; name: string }[] = [];

type Finding = {
  id: string;
  severity: string;
  title: string;
  evidence: string[];
  object: { kind: string; name: string };
  suppressed?: { reason: string };
};
type Report = {
  kind: string;
  mode: string;
  items: { object: { kind: string; name: string; namespace: string }; role?: string; findings: Finding[] }[];
  notRun: { id: string; reason: string }[];
  notes: string[];
};

const doctor = (args: string[], env: Record<string, string> = {}) => runPlugin(['doctor', ...args], { env });
const json = (r: PluginResult) => JSON.parse(r.stdout) as Report;
const findings = (r: Report, subject = 'Deployment') =>
  r.items.filter((i) => i.object.kind === subject).flatMap((i) => i.findings);
const ids = (r: Report) => [...new Set(findings(r).map((f) => f.id))].sort();

/** Runs `doctor NAME -n NS -o json` until its Deployment findings pass `until`, and returns that run. */
function doctorUntil(
  ns: string,
  name: string,
  what: string,
  until: (r: Report) => boolean,
  extra: string[] = [],
  timeoutMs = 60_000,
): Promise<PluginResult> {
  return waitFor(() => doctor([name, '-n', ns, '-o', 'json', ...extra]), {
    what: `doctor ${name} -n ${ns} to report ${what}`,
    timeoutMs,
    intervalMs: 1000,
    until: (r) => r.code !== null && until(json(r)),
  });
}

async function deploy(
  o: Partial<DeploymentOptions> & {
    ns: string;
    name: string;
    withService?: boolean;
    containerPatch?: Record<string, unknown>;
    objects?: KubeObject[];
  },
): Promise<void> {
  const d = gatedDeployment({
    replicas: 2,
    maxSurge: 1,
    maxUnavailable: 0,
    terminationGracePeriodSeconds: 2,
    ...o,
    namespace: o.ns,
  });
  if (o.containerPatch)
    Object.assign(
      (d as { spec: { template: { spec: { containers: object[] } } } }).spec.template.spec.containers[0] as object,
      o.containerPatch,
    );
  const svc =
    o.withService === false
      ? []
      : routedService({ name: o.name, namespace: o.ns, selector: o.labels ?? { app: o.name } });
  await api().apply([d, ...svc, ...(o.objects ?? [])]);
  created.push({ ns: o.ns, name: o.name });
}

const available = (ns: string, name: string, replicas: number) =>
  waitFor(
    () =>
      api().get<KubeObject & { spec: any; status?: any; metadata: { generation: number } }>(
        'apps/v1',
        'Deployment',
        name,
        ns,
      ),
    {
      what: `deployment ${name} available`,
      timeoutMs: 60_000,
      until: (d) =>
        d.status?.observedGeneration === d.metadata.generation &&
        d.status?.availableReplicas === replicas &&
        d.status?.updatedReplicas === replicas,
    },
  );

describe('kubectl haptic doctor on the real control plane', () => {
  afterEach(async () => {
    await resetKnobs(cluster().adminKubeconfig);
    await Promise.all(created.splice(0).map(({ ns, name }) => api().delete('apps/v1', 'Deployment', name, ns)));
  });

  it("DR102: two replicas killed by their liveness probe within one window, named with the kubelet's events", async () => {
    const ns = await newNamespace('doctor-dr102');
    const probe = { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 3, failureThreshold: 3 };
    await deploy({
      ns,
      name: 'flaky',
      gates: [],
      podAnnotations: { [FAIL]: 'liveness-probe' },
      containerPatch: { livenessProbe: probe, readinessProbe: { httpGet: { path: '/ready', port: 'http' } } },
    });
    const r = await doctorUntil(ns, 'flaky', 'DR102', (x) => ids(x).includes('DR102'));
    expect(r.code).toBe(1);
    const [f] = findings(json(r)).filter((x) => x.id === 'DR102');
    expect(f?.severity).toBe('error');
    expect(f?.title).toBe(
      '2 pods of deployment flaky were restarted by their liveness probe within 9s of each other: the probe fails on something they share, and each failure restarts the fleet',
    );
    expect(f?.evidence[0]).toBe('liveness probe window: container app periodSeconds 3 × failureThreshold 3 = 9s');
    expect(
      f?.evidence.filter((e) => /^pod flaky-\w+-\w+: app restartCount [1-9]\d* \(last exit 137 Error\)$/.test(e)),
    ).toHaveLength(2);
    expect(
      f?.evidence.filter((e) =>
        /^ {2}event Killing \(x\d+, last \d+s ago\): Container app failed liveness probe, will be restarted$/.test(e),
      ),
    ).toHaveLength(2);
    expect(
      f?.evidence.filter((e) =>
        /^ {2}event Unhealthy \(x\d+, last \d+s ago\): Liveness probe failed: HTTP probe failed with statuscode: 503$/.test(
          e,
        ),
      ),
    ).toHaveLength(2);

    const text = await doctor(['flaky', '-n', ns]);
    expect(text.stdout).toContain(`deployment.apps/flaky -n ${ns}: `);
    expect(text.stdout).toContain('✗ [DR102] 2 pods of deployment flaky were restarted by their liveness probe');
  });

  it("DR403: a PDB that allows no eviction, with the disruption controller's status", async () => {
    const ns = await newNamespace('doctor-dr403');
    const budget = {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: 'web', namespace: ns },
      spec: { maxUnavailable: 0, selector: { matchLabels: { app: 'web' } } },
    };
    await deploy({
      ns,
      name: 'web',
      gates: [],
      containerPatch: {
        readinessProbe: { httpGet: { path: '/ready', port: 'http' } },
        lifecycle: { preStop: { sleep: { seconds: 1 } } },
      },
      objects: [budget],
    });
    await available(ns, 'web', 2);
    const r = await doctorUntil(ns, 'web', 'DR403 with the PDB status', (x) =>
      findings(x).some((f) => f.id === 'DR403' && f.evidence.some((e) => e.includes('expectedPods 2'))),
    );
    const [f] = findings(json(r)).filter((x) => x.id === 'DR403');
    expect(f).toMatchObject({ severity: 'warning', object: { kind: 'PodDisruptionBudget', name: 'web' } });
    expect(f?.evidence).toEqual([
      'poddisruptionbudget/web: selector app=web, maxUnavailable 0',
      'replicas: spec.replicas 2',
      'poddisruptionbudget/web status: disruptionsAllowed 0, currentHealthy 2, desiredHealthy 2, expectedPods 2',
    ]);
    expect(ids(json(r))).toEqual(['DR403']);
  });

  it('DR501: a Service with publishNotReadyAddresses selects gated pods', async () => {
    const ns = await newNamespace('doctor-dr501');
    const peers = {
      ...service({ name: 'web-peers', namespace: ns, selector: { app: 'web' } }),
      spec: {
        clusterIP: 'None',
        publishNotReadyAddresses: true,
        selector: { app: 'web' },
        ports: [{ name: 'gossip', port: 7946 }],
      },
    };
    await deploy({
      ns,
      name: 'web',
      containerPatch: { readinessProbe: { httpGet: { path: '/ready', port: 'http' } } },
      objects: [peers as KubeObject],
    });
    const r = await doctor(['web', '-n', ns, '-o', 'json']);
    expect(r.code).toBe(1);
    const [f] = findings(json(r)).filter((x) => x.id === 'DR501');
    expect(f).toMatchObject({ severity: 'error', object: { kind: 'Service', name: 'web-peers' } });
    expect(f?.title).toBe(
      'service web-peers has publishNotReadyAddresses: true and selects the gated pods of deployment web: its clients get the pods before the gate, and while they terminate',
    );
  });

  it('DR502: a Recreate rollout leaves every endpoint terminating and still serving, which kube-proxy then uses', async () => {
    const ns = await newNamespace('doctor-dr502');
    await deploy({
      ns,
      name: 'web',
      gates: [],
      terminationGracePeriodSeconds: 40,
      containerPatch: {
        readinessProbe: { httpGet: { path: '/ready', port: 'http' } },
        lifecycle: { preStop: { sleep: { seconds: 5 } } },
      },
    });
    await api().patch('apps/v1', 'Deployment', 'web', ns, {
      spec: { strategy: { type: 'Recreate', rollingUpdate: null } },
    });
    await available(ns, 'web', 2);
    await api().patch('apps/v1', 'Deployment', 'web', ns, {
      spec: { template: { metadata: { annotations: { 'example.com/restartedAt': new Date().toISOString() } } } },
    });
    const r = await doctorUntil(ns, 'web', 'DR502 for every endpoint', (x) =>
      findings(x).some((f) => f.id === 'DR502' && f.title.startsWith('every endpoint')),
    );
    const [f] = findings(json(r)).filter((x) => x.id === 'DR502');
    expect(f).toMatchObject({ severity: 'warning', object: { kind: 'Service', name: 'web' } });
    expect(
      f?.evidence.filter((e) =>
        /^endpointslice\/web-\w+: pod web-\w+-\w+ 10\.244\.\d+\.\d+ ready=false serving=true terminating=true$/.test(e),
      ),
    ).toHaveLength(2);
    expect(f?.evidence.at(-1)).toBe('service/web: all 2 endpoints are terminating, none is ready');
  });

  it('DR601: gated pods no Service selects, with the near miss named', async () => {
    const ns = await newNamespace('doctor-dr601');
    await deploy({
      ns,
      name: 'lonely',
      withService: false,
      objects: [service({ name: 'lonly', namespace: ns, selector: { app: 'lonly' } })],
    });
    const r = await doctor(['deployment/lonely', '-n', ns, '-o', 'json']);
    expect(r.code).toBe(1);
    const [f] = findings(json(r)).filter((x) => x.id === 'DR601');
    expect(f?.evidence).toEqual([
      'pod template labels: app=lonely',
      `Services in namespace ${ns}: lonly (app=lonly)`,
      'service/lonly almost matches: it wants app=lonly, the template has app=lonely',
    ]);
  });

  it("DR602: the gate while HAPTIC's gate feature is off; gone when it is back on", async () => {
    const ns = await newNamespace('doctor-dr602');
    await deploy({
      ns,
      name: 'web',
      containerPatch: { readinessProbe: { httpGet: { path: '/ready', port: 'http' } } },
    });
    await setKnobs(cluster().adminKubeconfig, { gateFeature: 'off' });
    const r = await doctorUntil(ns, 'web', 'DR602', (x) => ids(x).includes('DR602'));
    const [f] = findings(json(r)).filter((x) => x.id === 'DR602');
    expect(f?.title).toBe(
      `deployment web lists readiness gate ${GATE}, but HAPTIC haptic/haptic-config has its gate feature off: nothing sets it, so new pods never become Ready`,
    );
    // the same words as why-stalled's HS105 (shared code); roles bound through groups are named too
    expect(f?.evidence).toHaveLength(1);
    expect(f?.evidence[0]).toMatch(
      /^HAPTIC haptic\/haptic-config: ClusterRoles bound to the controller: haptic(, [^;]+)?; none allows patch on pods\/status$/,
    );
    await resetKnobs(cluster().adminKubeconfig);
    await doctorUntil(ns, 'web', 'no DR602', (x) => !ids(x).includes('DR602'));
  });

  it("the HAProxy tier in front: HAPTIC's HAProxy pods and the configuration its HAProxyCfg holds, read live", async () => {
    const ns = await newNamespace('doctor-tier');
    await deploy({
      ns,
      name: 'web',
      containerPatch: { readinessProbe: { httpGet: { path: '/ready', port: 'http' } } },
    });
    const r = json(await doctor(['web', '-n', ns, '-o', 'json']));
    const tier = r.items.find((i) => i.object.kind === 'HAProxyTemplateConfig');
    expect(tier?.object).toEqual({ kind: 'HAProxyTemplateConfig', namespace: 'haptic', name: 'haptic-config' });
    expect(tier?.role).toBe("HAPTIC's HAProxy tier in front of web");
    // the stand-in's HAProxy pods run haproxytech/haproxy-debian (STOPSIGNAL SIGUSR1) without a preStop, and the
    // configuration it renders has no hard-stop-after
    expect(tier?.findings.map((f) => [f.id, f.object.kind, f.object.name])).toEqual([
      ['DR201', 'Deployment', 'haptic-haproxy'],
      ['DR205', 'HAProxyCfg', 'haptic-config-haproxycfg'],
    ]);
    expect(tier?.findings[0]?.title).toBe(
      'HAProxy container haproxy has no preStop: it gets SIGUSR1 at once and unbinds its ports (new connections are refused), while endpoints still route new connections to it',
    );
  });

  it('DR404 with --helm-history: a PDB an earlier revision had, read from the release Secrets without printing them', async () => {
    const ns = await newNamespace('doctor-dr404');
    const pdbYaml =
      '---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: web}\n';
    const secret = (version: number, status: string, manifest: string) => ({
      apiVersion: 'v1',
      kind: 'Secret',
      type: 'helm.sh/release.v1',
      metadata: {
        name: `sh.helm.release.v1.web.v${version}`,
        namespace: ns,
        labels: { owner: 'helm', name: 'web', version: String(version), status },
      },
      data: {
        release: Buffer.from(
          gzipSync(
            Buffer.from(
              JSON.stringify({ name: 'web', version, info: { status }, manifest, config: { token: 'hunter2' } }),
            ),
          ).toString('base64'),
        ).toString('base64'),
      },
    });
    await deploy({
      ns,
      name: 'web',
      gates: [],
      containerPatch: {
        readinessProbe: { httpGet: { path: '/ready', port: 'http' } },
        lifecycle: { preStop: { sleep: { seconds: 1 } } },
      },
      objects: [secret(1, 'superseded', pdbYaml) as KubeObject, secret(2, 'deployed', '') as KubeObject],
    });
    await api().patch('apps/v1', 'Deployment', 'web', ns, {
      metadata: { annotations: { 'meta.helm.sh/release-name': 'web', 'meta.helm.sh/release-namespace': ns } },
    });
    const without = json(await doctor(['web', '-n', ns, '-o', 'json']));
    expect(ids(without)).not.toContain('DR404');
    expect(without.notRun).toEqual([{ id: 'DR404', reason: 'needs --helm-history' }]);
    const r = await doctor(['web', '-n', ns, '--helm-history', '-o', 'json']);
    const [f] = findings(json(r)).filter((x) => x.id === 'DR404');
    expect(f?.evidence).toEqual([
      'secret sh.helm.release.v1.web.v1 (revision 1, superseded): PodDisruptionBudget web',
      'secret sh.helm.release.v1.web.v2 (revision 2, deployed): no PodDisruptionBudget web',
    ]);
    expect(r.stdout).not.toContain('hunter2');
    expect(r.stdout).not.toContain('minAvailable');
  });

  it("suppression on the Deployment and on HAPTIC's HAProxyTemplateConfig; errors fail, warnings only with --strict; -o sarif carries suppressions", async () => {
    const ns = await newNamespace('doctor-ignore');
    await deploy({ ns, name: 'lonely', withService: false });
    const htc = (ignore: string | null) =>
      api().patch('haproxy-haptic.org/v1alpha1', 'HAProxyTemplateConfig', 'haptic-config', 'haptic', {
        metadata: { annotations: { 'kubectl-haptic.dev/ignore': ignore } },
      });
    const ignore = (value: string) =>
      api().patch('apps/v1', 'Deployment', 'lonely', ns, {
        metadata: { annotations: { 'kubectl-haptic.dev/ignore': value } },
      });
    try {
      // the gated Deployment: DR601 (error), DR401 (warning), DR604 (info); the tier: DR201 (error), DR205 (warning)
      const all = await doctor(['lonely', '-n', ns, '-o', 'json']);
      expect(all.code).toBe(1);
      await ignore('DR601');
      await htc('DR201');
      const warnings = await doctor(['lonely', '-n', ns, '-o', 'json']);
      expect(warnings.code).toBe(0);
      expect(findings(json(warnings)).find((f) => f.id === 'DR601')?.suppressed).toEqual({
        reason: 'annotation kubectl-haptic.dev/ignore on deployment.apps/lonely',
      });
      expect(findings(json(warnings), 'HAProxyTemplateConfig').find((f) => f.id === 'DR201')?.suppressed).toEqual({
        reason: 'annotation kubectl-haptic.dev/ignore on haproxytemplateconfig.haproxy-haptic.org/haptic-config',
      });
      expect((await doctor(['lonely', '-n', ns, '--strict'])).code).toBe(1);
      await ignore('DR601,DR401');
      await htc('DR201,DR205');
      expect((await doctor(['lonely', '-n', ns, '--strict'])).code).toBe(0);
      const sarif = JSON.parse((await doctor(['lonely', '-n', ns, '-o', 'sarif'])).stdout);
      expect(sarif.runs[0].results.find((x: { ruleId: string }) => x.ruleId === 'DR601').suppressions).toEqual([
        { kind: 'inSource', justification: 'annotation kubectl-haptic.dev/ignore on deployment.apps/lonely' },
      ]);
    } finally {
      await htc(null);
    }
  });

  it('static mode needs no cluster: the same report as the golden one, with no kubeconfig at all', async () => {
    const folder = 'test/fixtures/doctor/redis-haproxy-before/manifests';
    const r = await doctor(['-f', folder], { KUBECONFIG: '/nonexistent/kubeconfig' });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 1, stderr: '' });
    expect(r.stdout).toBe(
      readFileSync(join(repoRoot, 'test/fixtures/doctor/redis-haproxy-before/doctor.golden.txt'), 'utf8'),
    );
    const clean = await doctor(['-f', 'test/fixtures/doctor/redis-haproxy-after/manifests', '-o', 'sarif'], {
      KUBECONFIG: '/nonexistent/kubeconfig',
    });
    expect(clean.code).toBe(0);
    expect(JSON.parse(clean.stdout).runs[0].results).toEqual([]);
  });

  it("-f - reads what is piped in, as the README's CI recipe does; -f FILE NAME checks NAME; no error quotes input", async () => {
    const folder = 'test/fixtures/doctor/redis-haproxy-before/manifests';
    const files = readdirSync(join(repoRoot, folder)).sort();
    // what `helm template` prints: every file's documents, one stream
    const rendered = files.map((f) => readFileSync(join(repoRoot, folder, f), 'utf8')).join('\n---\n');
    const offline = { kubeconfig: '/nonexistent/kubeconfig' };
    const piped = await runPlugin(['doctor', '-f', '-', '-o', 'json'], { ...offline, stdin: rendered });
    const fromFolder = await runPlugin(['doctor', '-f', folder, '-o', 'json'], offline);
    expect({ code: piped.code, stderr: piped.stderr }).toEqual({ code: 1, stderr: '' });
    const subjects = (r: PluginResult) =>
      json(r).items.map(
        (i) => `${i.object.kind}/${i.object.name}: ${[...new Set(i.findings.map((f) => f.id))].join(',')}`,
      );
    expect(subjects(piped)).toEqual(subjects(fromFolder));

    // NAME after -f FILE is the workload to check, not a second path
    const one = await runPlugin(['doctor', '-f', '-', 'statefulset/redis-ha-node', '-o', 'json'], {
      ...offline,
      stdin: rendered,
    });
    expect(one.code).toBe(0);
    expect(json(one).items.map((i) => `${i.object.kind}/${i.object.name}`)).toEqual(['StatefulSet/redis-ha-node']);

    // nothing readable: exit 3, the document named, none of its content printed
    const secret = 'apiVersion: v1\nkind: Secret\nmetadata:\n  name: db\ndata:\n  password: "aHVudGVyMg==\n  bad: [';
    const unreadable = await runPlugin(['doctor', '-f', '-'], { ...offline, stdin: secret });
    expect(unreadable.code).toBe(3);
    expect(unreadable.stderr).toBe(
      'error: 1 document of the input could not be read and was not checked (listed at the end)\n',
    );
    expect(unreadable.stdout).toContain('  - STDIN document 1 (line 1): not valid YAML');
    expect(`${unreadable.stdout}${unreadable.stderr}`).not.toContain('aHVudGVyMg');
    const empty = await runPlugin(['doctor', '-f', '-'], { ...offline, stdin: '# nothing rendered\n' });
    expect({ code: empty.code, stderr: empty.stderr }).toEqual({
      code: 3,
      stderr: 'error: no Kubernetes objects in STDIN\n',
    });
  });

  it('a read-only user without PodDisruptionBudget rights gets the other checks and is told which were not run', async () => {
    const ns = await newNamespace('doctor-readonly');
    await deploy({
      ns,
      name: 'web',
      gates: [],
      containerPatch: { readinessProbe: { httpGet: { path: '/ready', port: 'http' } } },
    });
    await grantReadOnly(ns);
    const r = await waitFor(
      () => runPlugin(['doctor', 'web', '-n', ns, '-o', 'json'], { kubeconfig: cluster().limitedKubeconfig }),
      { what: 'the read-only binding to apply', until: (x) => x.code !== 4 && x.code !== null },
    );
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const report = json(r);
    expect(ids(report)).toEqual(['DR201']);
    expect(report.notes).toContainEqual(
      expect.stringMatching(
        new RegExp(`^cannot list poddisruptionbudgets in namespace ${ns}: forbidden: .*: DR401–DR403 not run$`),
      ),
    );
    // nor StatefulSets (nor DaemonSets): the Deployment named is checked all the same, and the report says what it
    // could not look at
    expect(report.notes).toContainEqual(
      expect.stringMatching(
        new RegExp(`^cannot read statefulsets in namespace ${ns}: .*; only Deployments are checked$`),
      ),
    );
    // status and why-stalled too: the Deployment named is the answer; over the namespace a warning says what is left out
    const limited = { kubeconfig: cluster().limitedKubeconfig };
    expect((await runPlugin(['status', 'web', '-n', ns, '-o', 'json'], limited)).code).toBe(0);
    const all = await runPlugin(['why-stalled', '-n', ns], limited);
    expect(all.code).toBe(0);
    expect(all.stdout).toMatch(/^deployment\.apps\/web -n /);
    // one warning per kind it may not read (the read-only role has neither StatefulSets nor DaemonSets)
    expect(all.stderr).toMatch(
      new RegExp(
        `^Warning: cannot read statefulsets in namespace ${ns}: forbidden: .*; only Deployments are checked\nWarning: cannot read daemonsets in namespace ${ns}: forbidden: .*; only Deployments are checked\n$`,
      ),
    );
  });

  it('an unreachable cluster is a cluster error (exit 4), named as for every command', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const config = load(readFileSync(cluster().adminKubeconfig, 'utf8')) as {
      clusters: { cluster: { server: string } }[];
    };
    config.clusters[0]!.cluster.server = `https://127.0.0.1:${closed}`;
    const path = join(mkdtempSync(join(tmpdir(), 'kh-doctor-')), 'down');
    writeFileSync(path, dump(config));
    const r = await runPlugin(['doctor', 'web', '-n', 'default'], { kubeconfig: path });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 4,
      stderr: `error: cannot reach the Kubernetes API server at https://127.0.0.1:${closed} (ECONNREFUSED); check --context/--kubeconfig and that the cluster is running\n`,
    });
  });

  it('live: a StatefulSet is checked as a Deployment is, by sts/NAME or the whole namespace; a NAME both kinds have is ambiguous', async () => {
    const ns = await newNamespace('doctor-sts');
    const labels = { app: 'db' };
    await api().apply([
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: ns },
        spec: {
          replicas: 2,
          serviceName: 'db',
          selector: { matchLabels: labels },
          template: {
            metadata: { labels },
            spec: {
              terminationGracePeriodSeconds: 2,
              containers: [{ name: 'db', image: 'example/db:1', ports: [{ name: 'db', containerPort: 6379 }] }],
            },
          },
        },
      },
      service({ name: 'db', namespace: ns, selector: labels, port: 6379, targetPort: 'db' }),
    ]);
    const named = await doctor(['sts/db', '-n', ns, '-o', 'json']);
    expect({ code: named.code, stderr: named.stderr }).toEqual({ code: 0, stderr: '' });
    const report = json(named);
    expect(report.items.map((i) => `${i.object.kind}/${i.object.name}`)).toEqual(['StatefulSet/db']);
    expect(findings(report, 'StatefulSet').map((f) => f.title)).toContain(
      'no PodDisruptionBudget selects the pods of statefulset db (2 replicas): a drain may evict them all at once',
    );
    const all = json(await doctor(['-n', ns, '-o', 'json']));
    expect(all.items.map((i) => `${i.object.kind}/${i.object.name}`)).toEqual(['StatefulSet/db']);

    await deploy({ ns, name: 'db', gates: [], labels: { app: 'db-web' }, withService: false });
    const ambiguous = await doctor(['db', '-n', ns]);
    expect({ code: ambiguous.code, stderr: ambiguous.stderr }).toEqual({
      code: 3,
      stderr: `error: "db" is both a Deployment and a StatefulSet in namespace "${ns}": name one, deployment/db or statefulset/db\n`,
    });
    // Argo Rollouts are checked live too (argo-rollout.test.ts): none of the name here
    expect((await doctor(['rollout/db', '-n', ns])).stderr).toBe(
      `error: rollouts.argoproj.io "db" not found in namespace "${ns}"\n`,
    );
    // a DaemonSet live, checked as the others are: gated, and no Service selects its pods (DR601, exit 1)
    await api().apply([gatedDaemonSet({ name: 'edge', namespace: ns })]);
    const edge = await waitFor(() => doctor(['ds/edge', '-n', ns, '-o', 'json']), {
      what: 'doctor to find the DaemonSet',
      until: (r) => r.code === 1,
    });
    expect(edge.stderr).toBe('');
    const edgeReport = json(edge);
    expect(edgeReport.items.map((i) => `${i.object.kind}/${i.object.name}`)).toContain('DaemonSet/edge');
    expect(findings(edgeReport, 'DaemonSet').map((f) => f.id)).toContain('DR601');
  });

  it('usage errors exit 3; no Deployments in the namespace is an empty answer', async () => {
    const ns = await newNamespace('doctor-usage');
    expect((await doctor(['-f', 'no/such/path'])).stderr).toBe('error: the path "no/such/path" does not exist\n');
    expect((await doctor(['-f', 'no/such/path'])).code).toBe(3);
    expect((await doctor(['-f', 'test/fixtures/doctor/malformed/manifests', '-A'])).code).toBe(3);
    expect((await doctor(['-o', 'xml'])).code).toBe(3);
    const empty = await doctor(['-n', ns]);
    expect({ code: empty.code, stdout: empty.stdout, stderr: empty.stderr }).toEqual({
      code: 0,
      stdout: '',
      stderr: `No Deployments, StatefulSets, DaemonSets or Rollouts found in namespace "${ns}".\n`,
    });
  });
});
