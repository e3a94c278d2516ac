// Where released HAPTIC differs from what a reader would assume, proven on the real control plane against the
// stand-in writing what HAPTIC writes (docs/haptic-compat.md): who HAPTIC deploys to (discovery), what RBAC grants
// the gate (no `pods/*` wildcard), the dataplane generation's checksums and its `-invalid` HAProxyCfg as released and
// at HEAD, and every mode the agent reports a deploy in.
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { resetKnobs, setKnobs, type Knobs } from '../cluster/standins/knobs.ts';
import {
  adminApi,
  cluster,
  GATE,
  gatedDeployment,
  type KubeObject,
  newNamespace,
  routedService,
  runPlugin,
  waitFor,
} from './support.ts';

type Obj = KubeObject & { spec?: any; status?: any };
const kubeconfig = () => cluster().adminKubeconfig;
const api = () => adminApi();
const HAPTIC = 'haproxy-haptic.org/v1alpha1';
const ids = (text: string) => [...text.matchAll(/\[(HS\d{3})\]/g)].map((m) => m[1]);
const liveCfg = () => api().get<Obj>(HAPTIC, 'HAProxyCfg', 'haptic-config-haproxycfg', 'haptic');
const gateOf = (p: Obj) => p.status?.conditions?.find((c: { type: string }) => c.type === GATE)?.status;
const pods = async (ns: string, app: string) =>
  (await api().list<Obj>('v1', 'Pod', { namespace: ns, labelSelector: `app=${app}` })).filter(
    (p) => !p.metadata?.deletionTimestamp,
  );

async function served(ns: string, name: string, gated: boolean): Promise<void> {
  await api().apply([
    gatedDeployment({
      name,
      namespace: ns,
      replicas: 1,
      maxSurge: 1,
      maxUnavailable: 0,
      terminationGracePeriodSeconds: 2,
      gates: gated ? [GATE] : [],
    }),
    ...routedService({ name, namespace: ns, selector: { app: name } }),
  ]);
}

const rolledOut = (ns: string, name: string) =>
  waitFor(() => api().get<Obj>('apps/v1', 'Deployment', name, ns), {
    what: `${name} rolled out`,
    timeoutMs: 60_000,
    until: (d) =>
      d.status?.observedGeneration === d.metadata?.generation &&
      d.status?.updatedReplicas === 1 &&
      d.status?.availableReplicas === 1 &&
      d.status?.replicas === 1,
  });

afterEach(() => resetKnobs(kubeconfig()));
afterAll(() => resetKnobs(kubeconfig()));

describe('discovery: HAPTIC deploys only to HAProxy pods whose dataplane container is ready', () => {
  it('a HAProxy pod still starting neither holds the gate back nor is reported as a failed deploy', async () => {
    // a third HAProxy pod of the installation whose containers never become ready
    const template = (await api().get<Obj>('apps/v1', 'Deployment', 'haptic-haproxy', 'haptic')).spec.template;
    const starting: Obj = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name: 'haptic-haproxy-starting',
        namespace: 'haptic',
        labels: template.metadata.labels,
        annotations: { 'standin.kubectl-haptic.dev/containers-ready': 'false' },
      },
      spec: template.spec,
    };
    await api().apply([starting]);
    try {
      await waitFor(() => api().get<Obj>('v1', 'Pod', 'haptic-haproxy-starting', 'haptic'), {
        what: 'the starting HAProxy pod running, unready',
        until: (p) => p.status?.phase === 'Running' && !!p.status?.podIP,
      });
      const ns = await newNamespace('discovery');
      await served(ns, 'web', true);
      await rolledOut(ns, 'web');
      expect((await pods(ns, 'web')).map(gateOf)).toEqual(['True']);
      const cfg = await liveCfg();
      expect(cfg.status.deployedToPods.map((e: { podName: string }) => e.podName)).not.toContain(
        'haptic-haproxy-starting',
      );
      // the installation's newest config may still be on its way to the two ready pods (other tests' objects change
      // it): wait for it to be deployed; the starting pod is never counted (2/3 would say it was)
      const status = await waitFor(() => runPlugin(['status', 'web', '-n', ns]), {
        what: 'status to show the newest config on both ready HAProxy pods',
        until: (r) => /HAProxy \d+\/3 on/.test(r.stdout) || /HAProxy 2\/2 on/.test(r.stdout),
      });
      expect(status.stdout).toMatch(/HAProxy 2\/2 on/);
      const why = await runPlugin(['why-stalled', 'web', '-n', ns]);
      expect(ids(why.stdout)).not.toContain('HS106');
    } finally {
      await api().delete('v1', 'Pod', 'haptic-haproxy-starting', 'haptic');
    }
  });
});

describe('RBAC: a pods/* rule grants no patch on pods/status', () => {
  it('the API server refuses HAPTIC the gate, and the plugin says the feature is off', async () => {
    const role = await api().get<Obj>('rbac.authorization.k8s.io/v1', 'ClusterRole', 'haptic');
    const rules = role.rules.map((r: { resources: string[] }) =>
      r.resources.includes('pods/status') ? { ...r, resources: ['pods/*'] } : r,
    );
    await api().patch(
      'rbac.authorization.k8s.io/v1',
      'ClusterRole',
      'haptic',
      undefined,
      [{ op: 'replace', path: '/rules', value: rules }],
      { type: 'json' },
    );
    try {
      // what the authorizer answers HAPTIC's service account
      const review = await api().create<Obj>({
        apiVersion: 'authorization.k8s.io/v1',
        kind: 'SubjectAccessReview',
        metadata: { name: '' },
        spec: {
          user: 'system:serviceaccount:haptic:haptic',
          groups: ['system:serviceaccounts', 'system:serviceaccounts:haptic'],
          resourceAttributes: { resource: 'pods', subresource: 'status', verb: 'patch' },
        },
      });
      expect(review.status.allowed).toBe(false);
      const ns = await newNamespace('rbac');
      await served(ns, 'web', true);
      const r = await waitFor(() => runPlugin(['why-stalled', 'web', '-n', ns]), {
        what: 'HS105 first',
        timeoutMs: 45_000,
        intervalMs: 1000,
        until: (x) => ids(x.stdout)[0] === 'HS105',
      });
      expect(r.stdout).toContain('none allows patch on pods/status');
      expect((await pods(ns, 'web')).filter((p) => p.spec.readinessGates?.length).map(gateOf)).not.toContain('True');
    } finally {
      await api().patch(
        'rbac.authorization.k8s.io/v1',
        'ClusterRole',
        'haptic',
        undefined,
        [{ op: 'replace', path: '/rules', value: role.rules }],
        { type: 'json' },
      );
    }
  });
});

describe('the dataplane generation as released and at HEAD', () => {
  // a refused render left behind would be judged by the next shape's tests
  afterEach(async () => {
    await resetKnobs(kubeconfig());
    await api().delete(HAPTIC, 'HAProxyCfg', 'haptic-config-haproxycfg-invalid', 'haptic');
  });

  it.each([
    ['release', /^[0-9a-f]{64}$/, /^[0-9a-f]{64}$/],
    ['head', /^[0-9a-f]{16}$/, /^[0-9a-f]{64}$/],
  ] as const)('%s: its checksums name the live config, never "an older config"', async (revision, spec, entry) => {
    await setKnobs(kubeconfig(), { statusShape: 'dataplane', dataplaneRevision: revision });
    const ns = await newNamespace(`checksums-${revision}`);
    await served(ns, 'web', false);
    await rolledOut(ns, 'web');
    // both pods on the same config: right after the knob changes, one may still run the render before it
    const cfg = await waitFor(liveCfg, {
      what: 'both HAProxy pods deployed with the same config',
      until: (c) =>
        (c.status?.deployedToPods ?? []).length === 2 &&
        c.status.deployedToPods.every(
          (e: { checksum?: string; lastError?: string }) => entry.test(e.checksum ?? '') && !e.lastError,
        ) &&
        new Set(c.status.deployedToPods.map((e: { checksum?: string }) => e.checksum)).size === 1 &&
        spec.test(c.spec.checksum),
    });
    expect(new Set(cfg.status.deployedToPods.map((e: { checksum: string }) => e.checksum)).size).toBe(1);
    const status = await waitFor(() => runPlugin(['status', 'web', '-n', ns]), {
      what: 'status on the live config',
      until: (r) => /HAProxy 2\/2 on/.test(r.stdout),
    });
    expect(status.stdout).not.toContain('older config');
  });

  it('HEAD keeps the -invalid HAProxyCfg after a render is accepted again: a stale refusal is not HS107', async () => {
    await setKnobs(kubeconfig(), { statusShape: 'dataplane', dataplaneRevision: 'head', refuseRender: 'true' });
    const ns = await newNamespace('invalid-head');
    await served(ns, 'web', true);
    await waitFor(() => runPlugin(['why-stalled', 'web', '-n', ns]), {
      what: 'HS107 while HAProxy refuses',
      timeoutMs: 45_000,
      intervalMs: 1000,
      until: (r) => ids(r.stdout).includes('HS107'),
    });
    // renderedAt has a resolution of a second (metav1.Time): an acceptance within the second of the last refusal
    // would carry the same time, and the order of the two could not be told. So: stop refusing, let the clock leave
    // the second of the last refusal (read again until then: one in flight when the knob flipped may still land),
    // then make a change HAProxy must be told of, whose render is accepted in a later second
    const refusedAt = async () =>
      Date.parse(
        (await api().get<Obj>(HAPTIC, 'HAProxyCfg', 'haptic-config-haproxycfg-invalid', 'haptic')).status?.metadata
          ?.renderedAt ?? '',
      );
    await setKnobs(kubeconfig(), { statusShape: 'dataplane', dataplaneRevision: 'head', refuseRender: 'false' });
    const last = await waitFor(async () => ({ now: Date.now(), refused: await refusedAt() }), {
      what: 'the second of the last refusal to pass',
      until: (x) => x.refused > 0 && x.now >= x.refused + 1000,
    });
    expect(last.refused).toBeGreaterThan(0);
    await api().patch('apps/v1', 'Deployment', 'web', ns, { spec: { replicas: 2 } });
    const times = await waitFor(
      async () => ({
        live: Date.parse((await liveCfg()).status?.metadata?.renderedAt ?? ''),
        invalid: await refusedAt(),
      }),
      {
        what: 'a render accepted after the refusal',
        until: (t) => t.live > t.invalid,
      },
    );
    // HEAD keeps the refused render beside the accepted one
    expect(times.invalid).toBeGreaterThan(0);
    const r = await waitFor(() => runPlugin(['why-stalled', 'web', '-n', ns]), {
      what: 'why-stalled without HS107',
      timeoutMs: 30_000,
      intervalMs: 1000,
      until: (x) => !ids(x.stdout).includes('HS107'),
    });
    expect(r.stdout).not.toContain('holds the refused render');
  });

  it('the released tags delete it', async () => {
    await setKnobs(kubeconfig(), { statusShape: 'dataplane', refuseRender: 'true' });
    await waitFor(() => api().tryGet(HAPTIC, 'HAProxyCfg', 'haptic-config-haproxycfg-invalid', 'haptic'), {
      what: 'the -invalid HAProxyCfg',
      until: (o) => o !== undefined,
    });
    await setKnobs(kubeconfig(), { statusShape: 'dataplane', refuseRender: 'false' });
    await waitFor(() => api().tryGet(HAPTIC, 'HAProxyCfg', 'haptic-config-haproxycfg-invalid', 'haptic'), {
      what: 'the -invalid HAProxyCfg deleted',
      until: (o) => o === undefined,
    });
  });
});

describe('every mode the agent reports a deploy in', () => {
  const MODES: [Knobs['agentMode'], boolean, RegExp | undefined][] = [
    ['scheduled', false, /mode scheduled \(a reload is queued\)/],
    ['rejected', false, /mode rejected \(the agent refused the plan\)/],
    ['noop', true, undefined],
    ['file_only', true, undefined],
  ];
  it.each(MODES)('%s: the gate is set only when the mode confirms the config', async (mode, routes, pending) => {
    const ns = await newNamespace(`mode-${mode.replace('_', '-')}`);
    await served(ns, 'web', true);
    await rolledOut(ns, 'web');
    await setKnobs(kubeconfig(), { agentMode: mode });
    await api().patch('apps/v1', 'Deployment', 'web', ns, {
      spec: { template: { metadata: { annotations: { 'example.com/restartedAt': new Date().toISOString() } } } },
    });
    const cfg = await waitFor(liveCfg, {
      what: `every HAProxy pod's entry in mode ${mode}`,
      until: (c) =>
        c.status?.deployedToPods?.length === 2 &&
        c.status.deployedToPods.every(
          (e: { mode?: string; checksum?: string }) => e.mode === mode && e.checksum === c.spec.checksum,
        ),
    });
    if (mode === 'file_only')
      expect(
        cfg.status.deployedToPods.every(
          (e: { workerOpsPlanID?: string; appliedPlanID?: string }) => e.workerOpsPlanID === e.appliedPlanID,
        ),
      ).toBe(true);
    if (routes) {
      await rolledOut(ns, 'web');
      expect((await pods(ns, 'web')).map(gateOf)).toEqual(['True']);
      return;
    }
    const why = await waitFor(() => runPlugin(['why-stalled', 'web', '-n', ns]), {
      what: 'why-stalled naming the mode',
      timeoutMs: 45_000,
      intervalMs: 1000,
      until: (r) => pending!.test(r.stdout),
    });
    // a queued reload is progress (exit 0, the mode named); a rejected plan is a failed deploy (HS106, exit 1)
    expect(why.code).toBe(mode === 'scheduled' ? 0 : 1);
    const fresh = (await pods(ns, 'web')).filter((p) => gateOf(p) !== 'True');
    expect(fresh).toHaveLength(1);
  });
});

describe("what HAPTIC's validation verdicts hold back, and a render that fails where HAPTIC writes nothing", () => {
  const templateConfig = () => api().get<Obj>(HAPTIC, 'HAProxyTemplateConfig', 'haptic-config', 'haptic');
  const validated = (htc: Obj) => htc.status?.conditions?.find((c: { type: string }) => c.type === 'Validated');
  const ids = (text: string) => [...text.matchAll(/\[((?:HS|HG)\d{3})\]/g)].map((m) => m[1]);
  const restart = (ns: string, name: string) =>
    api().patch('apps/v1', 'Deployment', name, ns, {
      spec: { template: { metadata: { annotations: { 'example.com/restartedAt': new Date().toISOString() } } } },
    });

  it('a refused template-config edit (ConfigInvalid) holds nothing back: the configuration before it keeps rendering, a gated rollout completes, and a failed deploy under it is HS106', async () => {
    // an indexBy expression HAPTIC's JSONPath validator refuses (pkg/controller/validator/jsonpath.go)
    const path = '/spec/watchedResources/services/indexBy/1';
    const htc = await templateConfig();
    expect(htc.spec.watchedResources.services.indexBy[1]).toBe('metadata.name');
    await api().patch(
      HAPTIC,
      'HAProxyTemplateConfig',
      'haptic-config',
      'haptic',
      [
        { op: 'test', path, value: 'metadata.name' },
        { op: 'replace', path, value: 'metadata.labels[' },
      ],
      { type: 'json' },
    );
    try {
      const refused = await waitFor(templateConfig, {
        what: 'HAPTIC to refuse the edit',
        until: (h) =>
          validated(h)?.reason === 'ConfigInvalid' && h.status.observedGeneration === h.metadata?.generation,
      });
      expect(refused.status).toMatchObject({
        validationStatus: 'Invalid',
        validationMessage: '1 validation error(s)',
        validationErrors: [
          "watched_resources.services.index_by[1]: JSONPath error in parse for expression 'metadata.labels[': unterminated array",
        ],
      });
      const ns = await newNamespace('config-invalid');
      await served(ns, 'web', true);
      const done = await runPlugin(['status', 'web', '-n', ns, '--wait', '--timeout', '90s']);
      expect(done.code, done.stdout + done.stderr).toBe(0);
      expect((await pods(ns, 'web')).map(gateOf)).toEqual(['True']);
      // status says the config HAProxy runs is fine, and why the template config says Invalid
      expect((await runPlugin(['status', 'web', '-n', ns])).stdout).toMatch(
        /^HAPTIC haptic\/haptic-config: .* · config ok \(template edit refused\) · /m,
      );
      // a deploy failing under it is the cause, named first
      await setKnobs(kubeconfig(), { failDeployTo: 'first' });
      await restart(ns, 'web');
      const r = await waitFor(() => runPlugin(['why-stalled', 'web', '-n', ns]), {
        what: 'HS106 first',
        timeoutMs: 45_000,
        intervalMs: 1000,
        until: (x) => ids(x.stdout)[0] === 'HS106',
      });
      expect(r.code).toBe(1);
      expect(ids(r.stdout)).toEqual(['HS106', 'HS107']);
      // the refused edit said after it, as what it is: a warning
      expect(r.stdout).toContain(
        '! [HS107] HAPTIC haptic/haptic-config refused the latest edit of its template config; it keeps rendering and deploying with the configuration from before that edit, which is not why the pods wait',
      );
      expect(r.stdout).toContain('haproxytemplateconfig haptic/haptic-config: Validated=False reason ConfigInvalid');
    } finally {
      await resetKnobs(kubeconfig());
      await api().patch(
        HAPTIC,
        'HAProxyTemplateConfig',
        'haptic-config',
        'haptic',
        [{ op: 'replace', path, value: 'metadata.name' }],
        { type: 'json' },
      );
      await waitFor(templateConfig, {
        what: 'HAPTIC to validate the template config again',
        until: (h) => validated(h)?.status === 'True' && h.status.observedGeneration === h.metadata?.generation,
      });
    }
  });

  it("the agent generation: a Service's port renamed under an Ingress that names it fails every render, and HAPTIC writes nothing of it; enable-gate on another workload refuses (HG124)", async () => {
    await setKnobs(kubeconfig(), { statusShape: 'agent' });
    const billing = await newNamespace('frozen-billing');
    const ns = await newNamespace('frozen-agent');
    const api2 = routedService({ name: 'api', namespace: billing, selector: { app: 'api' } });
    await api().apply(api2);
    await served(ns, 'web', false);
    await rolledOut(ns, 'web');
    const renamed = {
      ...api2[0]!,
      spec: { selector: { app: 'api' }, ports: [{ name: 'web', port: 80, targetPort: 'http' }] },
    } as Obj;
    const since = new Date();
    await api().apply([renamed]);
    try {
      const gate = await runPlugin(['enable-gate', 'web', '-n', ns, '--dry-run=server']);
      expect(gate.code, gate.stdout + gate.stderr).toBe(1);
      expect(gate.stdout).toContain(
        `[HG124] HAPTIC haptic/haptic-config renders nothing new: ingress ${billing}/api names port http of service/api, which has no port of that name, and that fails its whole render`,
      );
      expect(gate.stdout).toContain(
        `ingress ${billing}/api names port http of service/api (namespace ${billing}), whose ports are web 80: ResolveServicePort fails HAPTIC haptic/haptic-config's whole render on it`,
      );
      expect(gate.stdout).toContain(
        `fix: give service/api a port named http again (or point ingress/api at a port it has): kubectl -n ${billing} edit service api`,
      );
      // a change HAPTIC must render: web's new pod; it never gets a server, and HAPTIC says nothing of why
      const cfg = await liveCfg();
      await api().patch('apps/v1', 'Deployment', 'web', ns, { spec: { replicas: 2 } });
      const running = await waitFor(() => pods(ns, 'web'), {
        what: "web's second pod running with its containers ready",
        until: (ps) =>
          ps.length === 2 &&
          ps.every(
            (p) =>
              p.status?.podIP &&
              p.status?.conditions?.some(
                (c: { type: string; status: string }) => c.type === 'ContainersReady' && c.status === 'True',
              ),
          ),
      });
      await waitFor(
        () =>
          api().list<Obj>('discovery.k8s.io/v1', 'EndpointSlice', {
            namespace: ns,
            labelSelector: 'kubernetes.io/service-name=web',
          }),
        {
          what: 'both pods in the EndpointSlice',
          until: (s) => s.flatMap((x) => x.endpoints ?? []).length === 2,
        },
      );
      const after = await liveCfg();
      expect(after.spec.checksum).toBe(cfg.spec.checksum);
      const fresh = running.filter((p) => !cfg.spec.content.includes(`${p.status.podIP}:`));
      expect(fresh).toHaveLength(1);
      expect(after.spec.content).not.toContain(`${fresh[0]!.status.podIP}:`);
      expect(validated(await templateConfig())).toMatchObject({ status: 'True', reason: 'ValidationSucceeded' });
      expect(await api().tryGet(HAPTIC, 'HAProxyCfg', 'haptic-config-haproxycfg-invalid', 'haptic')).toBeUndefined();
      const events = await api().list<Obj>('v1', 'Event', { namespace: 'haptic' });
      expect(
        events.filter(
          (e) =>
            e.reason === 'ValidationFailed' &&
            Date.parse(e.lastTimestamp ?? e.eventTime ?? '') >= since.getTime() - 1000,
        ),
      ).toEqual([]);
    } finally {
      await api().apply([api2[0]!]);
    }
    // fixed: HAPTIC renders again, and the new pod gets its server
    const ips = (await pods(ns, 'web')).map((p) => `${p.status?.podIP}:`);
    expect(ips).toHaveLength(2);
    await waitFor(liveCfg, {
      what: 'a render with both pods of web',
      until: (c) => ips.every((ip) => c.spec.content.includes(ip)),
    });
  });
});
