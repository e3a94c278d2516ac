// why-stalled on the real control plane: one scenario per rule, each made the way it happens in a cluster (the
// real scheduler, Deployment, ReplicaSet, EndpointSlice and quota controllers; the node stand-in's failure traces;
// the HAPTIC stand-in's knobs). Each asserts the exit code, the id of the FIRST finding and its key evidence.
// Findings can take a moment to appear (a Lease goes stale, a crash happens), so each scenario polls the plugin
// until its rule is the first finding, then checks that output.
import { afterEach, describe, expect, it } from 'vitest';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import {
  adminApi,
  cluster,
  type DeploymentOptions,
  GATE,
  followFromStart,
  gatedDeployment,
  grantReadOnly,
  type KubeObject,
  limitedApi,
  ingress,
  newNamespace,
  NOT_GITHUB,
  type PluginResult,
  routedService,
  runPlugin,
  service,
  waitFor,
} from './support.ts';

const api = () => adminApi();
const kubeconfig = () => cluster().adminKubeconfig;
const FAIL = 'standin.kubectl-haptic.dev/fail';
const TYPO = 'haproxy-haptic.org/load-balancer-readyy';

/** The HS ids of a text report, in order. */
const ids = (text: string) => [...text.matchAll(/\[(HS\d{3})\]/g)].map((m) => m[1]);

const created: { ns: string; name: string }[] = [];

/** A lean gated Deployment (1 replica, surge 1, no unavailability, 2 s grace) and, unless told, a Service selecting it. */
async function deploy(
  o: Partial<DeploymentOptions> & {
    ns: string;
    name: string;
    withService?: boolean;
    podSpec?: Record<string, unknown>;
  },
): Promise<void> {
  const d = gatedDeployment({
    replicas: 1,
    maxSurge: 1,
    maxUnavailable: 0,
    terminationGracePeriodSeconds: 2,
    ...o,
    namespace: o.ns,
  });
  if (o.podSpec) Object.assign((d as { spec: { template: { spec: object } } }).spec.template.spec, o.podSpec);
  const svc =
    o.withService === false
      ? []
      : routedService({ name: o.name, namespace: o.ns, selector: o.labels ?? { app: o.name } });
  await api().apply([d, ...svc]);
  created.push({ ns: o.ns, name: o.name });
}

type Deployment = KubeObject & { spec: any; status?: any; metadata: { generation: number } };
const getDeployment = (ns: string, name: string) => api().get<Deployment>('apps/v1', 'Deployment', name, ns);

async function available(ns: string, name: string, replicas = 1): Promise<Deployment> {
  return waitFor(() => getDeployment(ns, name), {
    what: `deployment ${name} rolled out`,
    timeoutMs: 60_000,
    until: (d) =>
      d.status?.observedGeneration === d.metadata.generation &&
      d.status?.updatedReplicas === replicas &&
      d.status?.availableReplicas === replicas &&
      d.status?.replicas === replicas,
  });
}

/** A new rollout: a pod template annotation changes (kubectl rollout restart does the same). */
const restart = (ns: string, name: string) =>
  api().patch('apps/v1', 'Deployment', name, ns, {
    spec: { template: { metadata: { annotations: { 'example.com/restartedAt': new Date().toISOString() } } } },
  });

const pods = async (ns: string, app: string) =>
  (
    await api().list<KubeObject & { status?: any; spec: any }>('v1', 'Pod', {
      namespace: ns,
      labelSelector: `app=${app}`,
    })
  ).sort((a, b) => (a.metadata!.name ?? '').localeCompare(b.metadata!.name ?? ''));

const why = (ns: string, name: string, args: string[] = [], kubeconfigPath?: string) =>
  runPlugin(['why-stalled', name, '-n', ns, ...args], kubeconfigPath ? { kubeconfig: kubeconfigPath } : {});

/** Runs why-stalled until its first finding is `first` (and `also` holds), and returns that run. */
function whyUntil(
  ns: string,
  name: string,
  first: string,
  o: { args?: string[]; kubeconfig?: string; timeoutMs?: number; also?: (r: PluginResult) => boolean } = {},
): Promise<PluginResult> {
  return waitFor(() => why(ns, name, o.args, o.kubeconfig), {
    what: `why-stalled ${name} -n ${ns} to report ${first} first`,
    timeoutMs: o.timeoutMs ?? 45_000,
    intervalMs: 1000,
    until: (r) => ids(r.stdout)[0] === first && (o.also?.(r) ?? true),
  });
}

describe('kubectl haptic why-stalled on the real control plane', () => {
  afterEach(async () => {
    await resetKnobs(kubeconfig());
    // stalled Deployments keep the stand-ins busy (crash traces, events, renders): drop each test's ones
    await Promise.all(created.splice(0).map(({ ns, name }) => api().delete('apps/v1', 'Deployment', name, ns)));
  });

  describe('HAPTIC-specific causes (HS1xx)', () => {
    it('HS101: a gated Deployment no Service selects, naming the near-miss Service; -o json has the documented shape', async () => {
      const ns = await newNamespace('why-hs101');
      await deploy({ ns, name: 'lonely', withService: false });
      const followed = followFromStart(ns, 'lonely');
      await api().apply([service({ name: 'lonly', namespace: ns, selector: { app: 'lonly' } })]);
      const r = await whyUntil(ns, 'lonely', 'HS101');
      const [pod] = await pods(ns, 'lonely');
      expect(r.code).toBe(1);
      expect(r.stderr).toBe('');
      expect(r.stdout).toContain(`deployment.apps/lonely -n ${ns}: stalled`);
      expect(r.stdout).toContain(
        `[HS101] ${pod!.metadata!.name}: no Service selects this gated pod, so HAPTIC never sets ${GATE}`,
      );
      expect(r.stdout).toMatch(/pod labels: app=lonely,pod-template-hash=\w+/);
      expect(r.stdout).toContain(`Services in namespace ${ns}: lonly (app=lonly)`);
      expect(r.stdout).toContain('service/lonly almost matches: it wants app=lonly, the pod has app=lonely');
      expect(ids(r.stdout)).toEqual(['HS101']);

      const json = await why(ns, 'lonely', ['-o', 'json']);
      expect(json.code).toBe(1);
      const doc = JSON.parse(json.stdout);
      expect(doc).toMatchObject({ apiVersion: 'kubectl-haptic/v1', kind: 'DiagnosisList' });
      expect(doc.items).toHaveLength(1);
      expect(doc.items[0]).toMatchObject({ name: 'lonely', namespace: ns, phase: 'progressing', stalled: true });
      const [f] = doc.items[0].findings;
      expect(Object.keys(f).sort()).toEqual(['docs', 'evidence', 'fix', 'id', 'severity', 'title']);
      expect(f).toMatchObject({
        id: 'HS101',
        severity: 'error',
        docs: 'docs/checks.md#hs101',
        title: expect.stringContaining('no Service selects this gated pod'),
        fix: expect.stringContaining('create a Service'),
      });
      expect(f.evidence).toContain('service/lonly almost matches: it wants app=lonly, the pod has app=lonely');
      expect(f.evidence.every((e: unknown) => typeof e === 'string')).toBe(true);
      await followed.check('HS101');
    });

    it('HS102: a Service whose named targetPort the pod lacks: the EndpointSlice controller lists the pod without a port', async () => {
      const ns = await newNamespace('why-hs102');
      await deploy({ ns, name: 'ports', withService: false });
      const followed = followFromStart(ns, 'ports');
      await api().apply(routedService({ name: 'ports', namespace: ns, selector: { app: 'ports' }, targetPort: 'web' }));
      // What the real controller does: the pod IS in a slice, one with `ports: null` (not left out).
      const slice = await waitFor(
        async () =>
          (
            await api().list<any>('discovery.k8s.io/v1', 'EndpointSlice', {
              namespace: ns,
              labelSelector: 'kubernetes.io/service-name=ports',
            })
          ).find((s) => (s.endpoints ?? []).length > 0),
        {
          what: 'the EndpointSlice controller to list the pod',
        },
      );
      expect(slice.ports ?? null).toBeNull();
      const r = await whyUntil(ns, 'ports', 'HS102');
      const [pod] = await pods(ns, 'ports');
      const name = pod!.metadata!.name;
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `[HS102] pod ${name} is selected by ports but no EndpointSlice lists it with a port, so HAProxy has nothing to route to`,
      );
      expect(r.stdout).toContain(
        `service/ports selector app=ports, ports 80→web: EndpointSlice ${slice.metadata.name} lists ${name} (${pod!.status.podIP}) without a port, since the pod has no container port named "web"`,
      );
      expect(r.stdout).toContain('pod container ports: http:8080');
      expect(r.stdout).toContain('fix: make the Service targetPort name or number match a container port of the pod');
      await followed.check('HS102');
    });

    it('HS102: the real way to a selected pod in no EndpointSlice at all: an ExternalName Service with a selector', async () => {
      const ns = await newNamespace('why-hs102x');
      await deploy({ ns, name: 'external', withService: false });
      await api().apply([
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { name: 'external', namespace: ns },
          spec: {
            type: 'ExternalName',
            externalName: 'web.example.com',
            selector: { app: 'external' },
            ports: [{ name: 'http', port: 80, targetPort: 'http' }],
          },
        },
        ingress({ name: 'external', namespace: ns }),
      ]);
      const followed = followFromStart(ns, 'external');
      const r = await whyUntil(ns, 'external', 'HS102');
      const [pod] = await pods(ns, 'external');
      const name = pod!.metadata!.name;
      expect(r.code).toBe(1);
      expect(await api().list('discovery.k8s.io/v1', 'EndpointSlice', { namespace: ns })).toEqual([]);
      expect(r.stdout).toContain(`[HS102] pod ${name} is selected by external but no EndpointSlice lists it`);
      expect(r.stdout).toContain(
        `service/external selector app=external, ports 80→http: no endpoint for ${name} (${pod!.status.podIP}) (type ExternalName: the EndpointSlice controller makes no slices for it)`,
      );
      expect(r.stdout).toContain(
        'fix: an ExternalName Service never gets endpoints: route the pods through a ClusterIP Service',
      );
      await followed.check('HS102');
    });

    it('HS103: no leader (the Lease goes stale after leaseDurationSeconds 15)', async () => {
      const ns = await newNamespace('why-hs103');
      await setKnobs(kubeconfig(), { leader: 'false' });
      await deploy({ ns, name: 'leaderless' });
      const followed = followFromStart(ns, 'leaderless');
      // until the Lease expires the leader still leads: progress, and HS901 says when it expires (10 s to see it in)
      const before = await whyUntil(ns, 'leaderless', 'HS901', { also: (x) => x.stdout.includes('not renewed for') });
      expect(before.stdout).toMatch(
        /lease haptic\/haptic: holder haptic-controller-\S+ not renewed for \d+s; unless renewed it expires in \d+s \(leaseDurationSeconds 15\), and then HAPTIC has no leader/,
      );
      const r = await whyUntil(ns, 'leaderless', 'HS103', { timeoutMs: 60_000 });
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        '[HS103] HAPTIC haptic/haptic-config has no controller leader, so nothing renders, deploys or sets the gate',
      );
      expect(r.stdout).toMatch(
        /lease haptic\/haptic: holder haptic-controller-\S+, renewed \d+s ago, leaseDurationSeconds 15 \(stale\)/,
      );
      expect(r.stdout).toMatch(/controller pod haptic-controller-\S+: Running, ready/);
      await followed.check('HS103');
    });

    it('HS104: HAPTIC unreadable for a user limited to the namespace (the "not installed" branch is unit-tested only)', async () => {
      const ns = await newNamespace('why-hs104');
      await grantReadOnly(ns);
      await waitFor(() => limitedApi().list('apps/v1', 'Deployment', { namespace: ns }), {
        what: 'the limited user to read the namespace',
      });
      await setKnobs(kubeconfig(), { gateFeature: 'off' }); // keeps the pod waiting for the gate
      await deploy({ ns, name: 'unseen' });
      const r = await whyUntil(ns, 'unseen', 'HS104', { kubeconfig: cluster().limitedKubeconfig });
      const [pod] = await pods(ns, 'unseen');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `[HS104] no HAPTIC installation could be read, so nothing explains why ${GATE} is not set on ${pod!.metadata!.name}`,
      );
      expect(r.stdout).toMatch(
        /cannot read HAProxyTemplateConfigs: forbidden: .*User "limited" cannot list resource "haproxytemplateconfigs"/,
      );
      expect(r.stdout).toContain('fix: ask for cluster-wide read access to haproxytemplateconfigs');
      // the admin sees the real cause at the same moment
      expect(ids((await why(ns, 'unseen')).stdout)[0]).toBe('HS105');
    });

    it('HS105: the gate feature is off (ClusterRole without pods/status)', async () => {
      const ns = await newNamespace('why-hs105');
      await setKnobs(kubeconfig(), { gateFeature: 'off' });
      await deploy({ ns, name: 'nogate' });
      const followed = followFromStart(ns, 'nogate');
      const r = await whyUntil(ns, 'nogate', 'HS105');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        '[HS105] HAPTIC haptic/haptic-config has the readiness-gate feature off: it may not patch pods/status',
      );
      // every service account is bound to system:service-account-issuer-discovery (through group system:serviceaccounts)
      expect(r.stdout).toContain(
        'ClusterRoles bound to the controller: haptic, system:service-account-issuer-discovery; none allows patch on pods/status',
      );
      await followed.check('HS105');
    });

    it('HS106: deploys to the first HAProxy pod fail', async () => {
      const ns = await newNamespace('why-hs106');
      await setKnobs(kubeconfig(), { failDeployTo: 'first' });
      await deploy({ ns, name: 'undeployed' });
      const followed = followFromStart(ns, 'undeployed');
      const r = await whyUntil(ns, 'undeployed', 'HS106');
      const haproxy = (
        await api().list<KubeObject>('v1', 'Pod', {
          namespace: 'haptic',
          labelSelector: 'app.kubernetes.io/component=loadbalancer',
        })
      )
        .map((p) => p.metadata!.name!)
        .sort()[0]!;
      const [pod] = await pods(ns, 'undeployed');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `[HS106] HAProxy pod ${haproxy} did not get HAPTIC haptic/haptic-config's configuration, so ${pod!.metadata!.name} cannot get the gate`,
      );
      expect(r.stdout).toMatch(
        new RegExp(
          `${haproxy}: its last deploy failed \\(entry checksum [0-9a-f]{16}, live config [0-9a-f]{16}\\); lastError: failed to sync configuration to pod ${haproxy}: dataplane API: .*503 Service Unavailable: agent not reachable; consecutiveErrors \\d+`,
        ),
      );
      expect(r.stdout).toContain(`fix: kubectl -n haptic logs ${haproxy} -c agent --tail=50`);
      await followed.check('HS106');
    });

    it('HS107: HAProxy refuses every render', async () => {
      const ns = await newNamespace('why-hs107');
      await setKnobs(kubeconfig(), { refuseRender: 'true' });
      await deploy({ ns, name: 'refused' });
      const followed = followFromStart(ns, 'refused');
      const r = await whyUntil(ns, 'refused', 'HS107');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        "[HS107] HAProxy refused HAPTIC haptic/haptic-config's rendered configuration; HAProxy pods keep the last accepted one, which does not route the new pods",
      );
      expect(r.stdout).toMatch(
        /haproxycfg haptic\/haptic-config-haproxycfg: ConfigValidated=False reason HAProxyRefused: \[ALERT\].*unknown keyword 'sever'/,
      );
      expect(r.stdout).toContain('haproxycfg haptic/haptic-config-haproxycfg: ConfigPinned=True (renders are held)');
      expect(r.stdout).toContain(
        'haproxytemplateconfig haptic/haptic-config: Validated=False reason HAProxyValidationFailed',
      );
      await followed.check('HS107');
    });

    it("a refusal HAProxy then accepts a render after: the template config keeps HAProxyValidationFailed, as HAPTIC's status updater leaves it, and neither HS107 nor HG122 says it", async () => {
      const ns = await newNamespace('why-hs107-healed');
      await setKnobs(kubeconfig(), { refuseRender: 'true' });
      await deploy({ ns, name: 'healed' });
      await whyUntil(ns, 'healed', 'HS107');
      await setKnobs(kubeconfig(), { refuseRender: 'false' });
      const done = await runPlugin(['status', 'healed', '-n', ns, '--wait', '--timeout', '90s']);
      expect(done.code, done.stdout + done.stderr).toBe(0);
      const htc = await api().get<KubeObject & { status?: any }>(
        'haproxy-haptic.org/v1alpha1',
        'HAProxyTemplateConfig',
        'haptic-config',
        'haptic',
      );
      expect(htc.status.conditions.find((c: { type: string }) => c.type === 'Validated')).toMatchObject({
        status: 'False',
        reason: 'HAProxyValidationFailed',
      });
      const r = await why(ns, 'healed');
      expect(r.code, r.stdout).toBe(0);
      expect(ids(r.stdout)).not.toContain('HS107');
      await deploy({ ns, name: 'next', gates: [] });
      await available(ns, 'next');
      const gate = await runPlugin(['enable-gate', 'next', '-n', ns, '--dry-run=server']);
      expect(gate.code, gate.stdout + gate.stderr).toBe(0);
      expect(gate.stdout).not.toContain('HG122');
      const status = await runPlugin(['status', 'healed', '-n', ns]);
      expect(status.stdout).toMatch(/· config ok ·/);
    });

    it("HS115: a Service's port renamed under the Ingress that names it fails every render of the installation, and HAPTIC writes nothing of it: enable-gate on another workload refuses (HG124), why-stalled names it first on a stalled gated rollout there", async () => {
      const billing = await newNamespace('why-hs115-billing');
      const ns = await newNamespace('why-hs115');
      const apiService = routedService({ name: 'api', namespace: billing, selector: { app: 'api' } });
      await api().apply(apiService);
      await deploy({ ns, name: 'frozen' });
      await deploy({ ns, name: 'next', gates: [] });
      await available(ns, 'frozen');
      await available(ns, 'next');
      const templateConfig = () =>
        api().get<KubeObject & { status?: any }>(
          'haproxy-haptic.org/v1alpha1',
          'HAProxyTemplateConfig',
          'haptic-config',
          'haptic',
        );
      const before = (await templateConfig()).status;
      // HAPTIC's admission webhook renders an Ingress before admitting it, not a Service: the rename goes through
      await api().apply([
        {
          ...apiService[0]!,
          spec: { selector: { app: 'api' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] },
        },
      ]);
      try {
        const gate = await runPlugin(['enable-gate', 'next', '-n', ns, '--dry-run=server']);
        expect(gate.code, gate.stdout + gate.stderr).toBe(1);
        expect(gate.stdout).toContain(
          `[HG124] HAPTIC haptic/haptic-config renders nothing new: ingress ${billing}/api names port http of service/api, which has no port of that name, and that fails its whole render, so it would never route the new pods and they would never become Ready`,
        );
        expect(gate.stdout).toContain('✓ [HG118] HAPTIC routes service/next');
        await restart(ns, 'frozen');
        const r = await whyUntil(ns, 'frozen', 'HS115');
        const fresh = (await pods(ns, 'frozen')).find(
          (p) =>
            !p.status?.conditions?.some(
              (c: { type: string; status: string }) => c.type === GATE && c.status === 'True',
            ),
        );
        expect(r.code).toBe(1);
        expect(r.stdout).toContain(
          `[HS115] HAPTIC haptic/haptic-config fails every render: ingress ${billing}/api names port http of service/api, which has no port of that name; its live config has no server for ${fresh!.metadata!.name}, and no new one is rendered`,
        );
        expect(r.stdout).toContain(
          `ingress ${billing}/api names port http of service/api (namespace ${billing}), whose ports are web 80: ResolveServicePort fails HAPTIC haptic/haptic-config's whole render on it`,
        );
        expect(r.stdout).toMatch(
          new RegExp(
            `haproxycfg haptic/haptic-config-haproxycfg: last rendered \\S+ ago \\(\\S+\\), checksum [0-9a-f]{16}\\n\\s+pod ${fresh!.metadata!.name} created \\d+s ago, after that render: no config since has its server`,
          ),
        );
        expect(r.stdout).toContain(
          `fix: give service/api a port named http again (or point ingress/api at a port it has): kubectl -n ${billing} edit service api`,
        );
        // nothing HAPTIC writes says it: the template config's status as it was before the rename (a verdict of an
        // earlier test stays, as HAPTIC's status updater leaves it), no -invalid HAProxyCfg
        expect((await templateConfig()).status).toEqual(before);
        expect(
          await api().tryGet('haproxy-haptic.org/v1alpha1', 'HAProxyCfg', 'haptic-config-haproxycfg-invalid', 'haptic'),
        ).toBeUndefined();
      } finally {
        await api().apply([apiService[0]!]);
      }
      // the port named again: HAPTIC renders, and the rollout completes
      const done = await runPlugin(['status', 'frozen', '-n', ns, '--wait', '--timeout', '90s']);
      expect(done.code, done.stdout + done.stderr).toBe(0);
    });

    it('HS108: a typo in the gate type', async () => {
      const ns = await newNamespace('why-hs108');
      await deploy({ ns, name: 'typo', gates: [TYPO] });
      const followed = followFromStart(ns, 'typo');
      const r = await whyUntil(ns, 'typo', 'HS108');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`[HS108] readiness gate "${TYPO}" is in HAPTIC's domain but HAPTIC writes "${GATE}"`);
      expect(r.stdout).toContain(`spec.template.spec.readinessGates: ${TYPO}`);
      expect(r.stdout).toContain(`no pod has a condition of type ${TYPO}`);
      expect(r.stdout).toContain(
        `fix: kubectl haptic disable-gate typo -n ${ns} --condition-type ${TYPO} && kubectl haptic enable-gate typo -n ${ns}`,
      );
      await followed.check('HS108');
    });

    it('HS109: a second installation routes the same pod and overwrites the condition', async () => {
      const ns = await newNamespace('why-hs109');
      await deploy({ ns, name: 'fought' });
      await available(ns, 'fought');
      await setKnobs(kubeconfig(), { secondInstallation: 'true' });
      // the fight itself: haptic-2 rewrites the condition HAPTIC set, with its own message
      await waitFor(
        async () =>
          (await pods(ns, 'fought'))[0]?.status.conditions.find((c: { type: string }) => c.type === GATE)?.message,
        {
          what: 'haptic-2 to overwrite the condition',
          timeoutMs: 60_000,
          until: (m) => /haptic-2\/haptic-config/.test(m ?? ''),
        },
      );
      const r = await whyUntil(ns, 'fought', 'HS109');
      const [pod] = await pods(ns, 'fought');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `[HS109] 2 HAPTIC installations route ${pod!.metadata!.name}; they write the same condition and overwrite each other`,
      );
      expect(r.stdout).toContain('installation haptic/haptic-config has servers for these pods');
      expect(r.stdout).toContain('installation haptic-2/haptic-config has servers for these pods');
      expect(r.stdout).toMatch(
        new RegExp(
          `condition ${GATE}: True \\(every HAProxy pod of haptic(-2)?/haptic-config runs a configuration that routes to this pod\\)`,
        ),
      );
    });

    it('HS110 (warning, exit 0): every HAProxy pod routes the pod, but the condition asked for (--condition-type) is not set after 30 s', async () => {
      // The only real way with the stand-in: HAPTIC writes the standard gate, the user asks about another gate type
      // the pod also lists. From the plugin's view HAPTIC routes the pod everywhere and never sets that condition.
      const ns = await newNamespace('why-hs110');
      await deploy({ ns, name: 'twogates', gates: [GATE, 'example.com/other'] });
      const gateSet = await waitFor(async () => (await pods(ns, 'twogates'))[0], {
        what: 'HAPTIC to set its gate',
        until: (p) =>
          p?.status?.conditions?.some((c: { type: string; status: string }) => c.type === GATE && c.status === 'True'),
      });
      const name = gateSet!.metadata!.name!;
      // with the default type the pod is not stalled, and the note names the other gate that holds it
      const note = await why(ns, 'twogates');
      expect(note.code).toBe(0);
      expect(ids(note.stdout)).toEqual(['HS901']);
      expect(note.stdout).toContain(
        `pod ${name}: gate set, but Ready=False: corresponding condition of pod readiness gate "example.com/other" does not exist.`,
      );

      const r = await whyUntil(ns, 'twogates', 'HS110', {
        args: ['--condition-type', 'example.com/other'],
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(0);
      expect(ids(r.stdout)).toEqual(['HS110', 'HS901']);
      expect(r.stdout).toContain(`deployment.apps/twogates -n ${ns}: not stalled (progressing)`);
      expect(r.stdout).toMatch(
        new RegExp(
          `\\[HS110\\] every HAProxy pod routes to ${name}, yet HAPTIC haptic/haptic-config has not set example.com/other \\(containers ready for \\d+s\\)`,
        ),
      );
      expect(r.stdout).toMatch(
        /haproxycfg haptic\/haptic-config-haproxycfg \([0-9a-f]{16}\) runs on 2\/2 HAProxy pods with the server enabled/,
      );
      expect(r.stdout).toContain('gate feature: on');
    });
  });

  describe('generic causes (HS2xx)', () => {
    it('HS201: a failing readiness probe', async () => {
      const ns = await newNamespace('why-hs201');
      await deploy({
        ns,
        name: 'probe',
        podAnnotations: { [FAIL]: 'readiness-probe' },
        podSpec: {
          containers: [
            {
              name: 'app',
              image: 'example/app:1',
              ports: [{ name: 'http', containerPort: 8080 }],
              readinessProbe: { httpGet: { path: '/healthz', port: 8080 } },
            },
          ],
        },
      });
      const followed = followFromStart(ns, 'probe');
      const r = await whyUntil(ns, 'probe', 'HS201');
      const [pod] = await pods(ns, 'probe');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(
        `[HS201] pod ${pod!.metadata!.name}: readiness probe fails, so its containers never become ready (the gate is not the blocker)`,
      );
      expect(r.stdout).toMatch(/ContainersReady False for \d+s/);
      expect(r.stdout).toContain(
        'container app: readinessProbe httpGet HTTP :8080/healthz (period 10s, failureThreshold 3)',
      );
      expect(r.stdout).toMatch(
        /event Unhealthy \(x\d+\): Readiness probe failed: HTTP probe failed with statuscode: 503/,
      );
      await followed.check('HS201');
    });

    it('HS202: a crash loop', async () => {
      const ns = await newNamespace('why-hs202');
      await deploy({ ns, name: 'crash', podAnnotations: { [FAIL]: 'crash-loop' } });
      const followed = followFromStart(ns, 'crash');
      const r = await whyUntil(ns, 'crash', 'HS202');
      const [pod] = await pods(ns, 'crash');
      const name = pod!.metadata!.name;
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`[HS202] pod ${name}: container app is crash-looping`);
      expect(r.stdout).toMatch(/restarts [1-9]\d*; last exit code 1 \(Error\); waiting (CrashLoopBackOff|NotReady)/);
      expect(r.stdout).toContain(`fix: kubectl -n ${ns} logs ${name} -c app --previous`);
      const backOff = await whyUntil(ns, 'crash', 'HS202', { also: (x) => x.stdout.includes('event BackOff') });
      expect(backOff.stdout).toMatch(
        new RegExp(`event BackOff \\(x\\d+\\): Back-off restarting failed container app in pod ${name}_${ns}\\(`),
      );
      await followed.check('HS202');
    });

    it('HS202 (liveness): a container its liveness probe kills every 10 s, before the rollout completes', async () => {
      const ns = await newNamespace('why-hs202l');
      await deploy({
        ns,
        name: 'killed',
        minReadySeconds: 10,
        podAnnotations: { [FAIL]: 'liveness-probe' },
        podSpec: {
          containers: [
            {
              name: 'app',
              image: 'example/app:1',
              ports: [{ name: 'http', containerPort: 8080 }],
              livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
              readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
            },
          ],
        },
      });
      const followed = followFromStart(ns, 'killed');
      // why-stalled lists pods and events at once: a run may see the restart before its Killing event
      const r = await whyUntil(ns, 'killed', 'HS202', { also: (run) => run.stdout.includes('liveness probe kills') });
      const [pod] = await pods(ns, 'killed');
      const name = pod!.metadata!.name;
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`[HS202] pod ${name}: container app is crash-looping: its liveness probe kills it`);
      expect(r.stdout).toMatch(/restarts [1-9]\d*; last exit code 137 \(Error\)/);
      expect(r.stdout).toMatch(/event Killing \(x\d+\): Container app failed liveness probe, will be restarted/);
      const failed = await followed.check('HS202');
      expect(failed.stdout).toMatch(/restarts [3-9]; last exit code 137/);
    });

    it('HS203: an image that cannot be pulled', async () => {
      const ns = await newNamespace('why-hs203');
      await deploy({ ns, name: 'pull', podAnnotations: { [FAIL]: 'image-pull' } });
      const followed = followFromStart(ns, 'pull', 'deployment', { github: true });
      const r = await whyUntil(ns, 'pull', 'HS203', { also: (x) => x.stdout.includes('event Failed') });
      const [pod] = await pods(ns, 'pull');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`[HS203] pod ${pod!.metadata!.name}: image example/app:1 cannot be pulled`);
      expect(r.stdout).toMatch(/container app: waiting (ErrImagePull|ImagePullBackOff)/);
      expect(r.stdout).toMatch(
        /event Failed \(x\d+\): Failed to pull image "example\/app:1": rpc error: code = NotFound/,
      );
      await followed.check('HS203');
    });

    it('--wait -l over two Deployments: the broken one ends the wait, after a line on the one that completed', async () => {
      const ns = await newNamespace('why-many');
      await deploy({ ns, name: 'fine', labels: { app: 'fine', tier: 'edge' } });
      await deploy({
        ns,
        name: 'broken',
        labels: { app: 'broken', tier: 'edge' },
        podAnnotations: { [FAIL]: 'image-pull' },
      });
      const wait = (args: string[] = []) =>
        runPlugin(['status', '-n', ns, '-l', 'tier=edge', '--wait', ...args], { timeoutMs: 90_000, env: NOT_GITHUB });
      const [text, json] = await Promise.all([wait(), wait(['-o', 'json'])]);
      expect(text.code, text.stdout + text.stderr).toBe(1);
      expect(text.stdout).toContain(
        `\ndeployment.apps/fine -n ${ns}: complete\ndeployment.apps/broken -n ${ns}: stalled\n  ✗ [HS203] `,
      );
      expect(text.stdout.trimEnd().split('\n').at(-1)).toMatch(
        new RegExp(`^✗ deployment\\.apps/broken -n ${ns}: rollout failed after \\d+s of waiting: HS203, held \\d+s`),
      );
      expect(json.code, json.stderr).toBe(1);
      const result = JSON.parse(json.stdout);
      expect(result).toMatchObject({
        kind: 'WaitResult',
        outcome: 'failed',
        workload: { kind: 'Deployment', name: 'broken', namespace: ns },
        reason: 'cause',
        finding: { id: 'HS203' },
        others: [{ kind: 'Deployment', name: 'fine', namespace: ns, complete: true }],
      });
    });

    it("HS204: a nodeSelector no node matches (the real scheduler's FailedScheduling)", async () => {
      const ns = await newNamespace('why-hs204');
      await deploy({ ns, name: 'unplaced', podSpec: { nodeSelector: { disk: 'ssd' } } });
      const followed = followFromStart(ns, 'unplaced');
      const r = await whyUntil(ns, 'unplaced', 'HS204');
      const [pod] = await pods(ns, 'unplaced');
      expect(r.code).toBe(1);
      expect(r.stdout).toContain(`[HS204] pod ${pod!.metadata!.name} cannot be scheduled`);
      expect(r.stdout).toMatch(
        /phase Pending, no node; event FailedScheduling \(x\d+\): 0\/2 nodes are available: 2 node\(s\) didn't match Pod's node affinity\/selector/,
      );
      await followed.check('HS204');
    });

    it('HS205: a ResourceQuota refuses the surge pod', async () => {
      const ns = await newNamespace('why-hs205');
      await deploy({ ns, name: 'quota' });
      await available(ns, 'quota');
      await api().apply([
        {
          apiVersion: 'v1',
          kind: 'ResourceQuota',
          metadata: { name: 'pods', namespace: ns },
          spec: { hard: { pods: '1' } },
        },
      ]);
      await waitFor(() => api().get<any>('v1', 'ResourceQuota', 'pods', ns), {
        what: 'the quota controller to count the pod',
        until: (q) => q.status?.used?.pods === '1',
      });
      await restart(ns, 'quota');
      const followed = followFromStart(ns, 'quota');
      const r = await whyUntil(ns, 'quota', 'HS205', { also: (x) => x.stdout.includes('condition ReplicaFailure') });
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/\[HS205\] replicaset\/quota-\w+ cannot create pods/);
      expect(r.stdout).toMatch(
        /condition ReplicaFailure=True reason FailedCreate: pods "quota-[\w-]+" is forbidden: exceeded quota: pods, requested: pods=1, used: pods=1, limited: pods=1/,
      );
      expect(r.stdout).toMatch(
        /event FailedCreate \(x\d+\): Error creating: pods "quota-[\w-]+" is forbidden: exceeded quota: pods/,
      );
      expect(r.stdout).toContain(`fix: raise the ResourceQuota in namespace ${ns}`);
      await followed.check('HS205');
    });

    it('HS206 (warning, exit 0): paused, then the template changed (kubectl rollout pause semantics)', async () => {
      const ns = await newNamespace('why-hs206');
      await deploy({ ns, name: 'paused' });
      await available(ns, 'paused');
      await api().patch('apps/v1', 'Deployment', 'paused', ns, { spec: { paused: true } });
      await restart(ns, 'paused');
      const r = await whyUntil(ns, 'paused', 'HS206');
      expect(r.code).toBe(0);
      expect(ids(r.stdout)).toEqual(['HS206', 'HS901']);
      expect(r.stdout).toContain(`deployment.apps/paused -n ${ns}: not stalled (paused)`);
      expect(r.stdout).toContain(
        '[HS206] deployment paused is paused: the rollout does not progress until it is resumed',
      );
      expect(r.stdout).toContain(`fix: kubectl -n ${ns} rollout resume deployment/paused`);
      expect(r.stdout).toContain('[HS901] deployment paused is paused, not stalled');
      expect(r.stdout).toContain('1 new pod not created yet');
      // paused: the Deployment controller made no new ReplicaSet
      expect(await api().list('apps/v1', 'ReplicaSet', { namespace: ns })).toHaveLength(1);
    });

    it('HS207: a crash loop past a short progress deadline: the cause first, the deadline last', async () => {
      const ns = await newNamespace('why-hs207');
      await deploy({ ns, name: 'late', progressDeadlineSeconds: 8, podAnnotations: { [FAIL]: 'crash-loop' } });
      const r = await whyUntil(ns, 'late', 'HS202', {
        also: (x) => ids(x.stdout).includes('HS207'),
        timeoutMs: 60_000,
      });
      expect(r.code).toBe(1);
      expect(ids(r.stdout)).toEqual(['HS202', 'HS207']);
      expect(r.stdout).toContain('[HS207] deployment late exceeded its progress deadline (8s); the cause is above');
      expect(r.stdout).toMatch(
        /condition Progressing=False reason ProgressDeadlineExceeded: ReplicaSet "late-\w+" has timed out progressing\./,
      );
    });

    it('HS208 (warning, exit 0): an old pod held by a finalizer past its grace period', async () => {
      const ns = await newNamespace('why-hs208');
      await deploy({ ns, name: 'held', terminationGracePeriodSeconds: 1 });
      await available(ns, 'held');
      const [old] = await pods(ns, 'held');
      const oldName = old!.metadata!.name!;
      await api().patch('v1', 'Pod', oldName, ns, { metadata: { finalizers: ['example.com/hold'] } });
      try {
        await restart(ns, 'held');
        const r = await whyUntil(ns, 'held', 'HS208', { timeoutMs: 60_000 });
        expect(r.code).toBe(0);
        expect(r.stdout).toMatch(
          new RegExp(`\\[HS208\\] pod ${oldName} is still terminating \\d+s past its grace period`),
        );
        expect(r.stdout).toMatch(/deletionTimestamp \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ/);
        expect(r.stdout).toContain('finalizers: example.com/hold');
        expect(r.stdout).toContain(
          `kubectl -n ${ns} patch pod ${oldName} --type=merge -p '{"metadata":{"finalizers":null}}'`,
        );
        expect(ids(r.stdout).every((id) => ['HS208', 'HS901', 'HS902'].includes(id!))).toBe(true);
      } finally {
        await api().patch('v1', 'Pod', oldName, ns, { metadata: { finalizers: null } });
      }
    });
  });

  describe('no false alarms (HS9xx)', () => {
    it('HS901: a healthy gated rollout, checked all the way through, is never a stall and says what it waits for', async () => {
      const ns = await newNamespace('why-hs901');
      await deploy({ ns, name: 'healthy', replicas: 2 });
      await available(ns, 'healthy', 2);
      await setKnobs(kubeconfig(), { deployDelayMs: '8000' }); // each HAProxy pod catches up 8 s after a new config
      await restart(ns, 'healthy');
      const waited = runPlugin(['status', 'healthy', '-n', ns, '--wait'], { timeoutMs: 120_000 });
      const runs: PluginResult[] = [];
      const deadline = Date.now() + 90_000;
      while (!runs.at(-1)?.stdout.includes('[HS902]')) {
        if (Date.now() > deadline)
          throw new Error(`the rollout did not complete; last report:\n${runs.at(-1)?.stdout}`);
        runs.push(await why(ns, 'healthy'));
      }
      for (const r of runs) {
        expect({ code: r.code, ids: ids(r.stdout) }, r.stdout).toMatchObject({ code: 0 });
        expect(
          ids(r.stdout).every((id) => id === 'HS901' || id === 'HS902'),
          r.stdout,
        ).toBe(true);
      }
      const midway = runs.find((r) => /HAProxy config routing to it runs on [01]\/2 HAProxy pods/.test(r.stdout));
      expect(midway, runs.map((r) => r.stdout).join('\n')).toBeDefined();
      expect(midway!.stdout).toContain(`deployment.apps/healthy -n ${ns}: not stalled (progressing)`);
      expect(midway!.stdout).toContain('[HS901] deployment healthy is progressing, not stalled');
      expect(midway!.stdout).toMatch(
        /pod healthy-[\w-]+: HAProxy config routing to it runs on [01]\/2 HAProxy pods \(containers ready \d+s ago\)/,
      );
      // followed with --wait from the restart on: complete, never failed fast
      const w = await waited;
      expect(w.code, w.stdout).toBe(0);
      expect(w.stdout).not.toContain('rollout failed');
    });

    it('--wait on a healthy rollout of 4 replicas one at a time, each HAProxy pod 6 s behind: exit 0, nothing failed fast', async () => {
      const ns = await newNamespace('why-slow');
      await deploy({ ns, name: 'slow', replicas: 4 });
      await available(ns, 'slow', 4);
      await setKnobs(kubeconfig(), { deployDelayMs: '6000' });
      await restart(ns, 'slow');
      const r = await runPlugin(['status', 'slow', '-n', ns, '--wait', '--drained'], { timeoutMs: 240_000 });
      expect(r.code, r.stdout).toBe(0);
      expect(r.stdout).not.toContain('rollout failed');
      expect(r.stdout).toContain('Rollout report: ');
    }, 300_000);

    it('HS902: a complete rollout says so and exits 0', async () => {
      const ns = await newNamespace('why-hs902');
      await deploy({ ns, name: 'done' });
      await available(ns, 'done');
      const r = await whyUntil(ns, 'done', 'HS902');
      expect(r.code).toBe(0);
      expect(ids(r.stdout)).toEqual(['HS902']);
      expect(r.stdout).toContain(`deployment.apps/done -n ${ns}: not stalled (complete)`);
      expect(r.stdout).toContain('[HS902] deployment done is rolled out');
      expect(r.stdout).toContain('deployment "done" successfully rolled out');
    });
  });
});
