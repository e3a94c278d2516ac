// (f) Time to the verdict on a broken rollout: each workload is rolled out healthy, then broken by one change (the
// node stand-in's failure traces, a deleted Service, a quota), and from that change `kubectl haptic status --wait`
// and `kubectl rollout status` follow it side by side, each a fresh process; the table gives how long each took to
// end and how (exit code, first line of the cause). kubectl ends a Deployment's broken rollout at its
// progressDeadlineSeconds (600 by default; --deadline sets it) and a StatefulSet's never: its run is cut at the
// deadline plus a minute. A healthy rollout is the control: both end with exit 0, at about the same time.
import type { KubeObject } from '../test/cluster/kube.ts';
import { ensureNamespace, gatedApp, KUBECTL, PLUGIN, round, run, table, waitFor, type BenchContext } from './lib.ts';

const FAIL = 'standin.kubectl-haptic.dev/fail';
const PREFIX = 'bench-verdict-';

interface Scenario {
  name: string;
  /** what breaks */
  label: string;
  kind: 'Deployment' | 'StatefulSet';
  /** extra objects in the scenario's namespace (applied before the break) */
  objects?: (ns: string) => KubeObject[];
  /** the template change that starts the broken rollout (merged into spec.template) */
  template: Record<string, unknown>;
  /** merged into the workload's spec */
  spec?: Record<string, unknown>;
  /** done before the template change */
  before?: (ctx: BenchContext, ns: string) => Promise<void>;
}

const probes = {
  readinessProbe: { httpGet: { path: '/ready', port: 8080 } },
  livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
};
const annotated = (fail: string) => ({ metadata: { annotations: { [FAIL]: fail } } });

const SCENARIOS: Scenario[] = [
  { name: 'healthy', label: 'healthy (control)', kind: 'Deployment', template: annotated('none') },
  { name: 'pull', label: 'image cannot be pulled', kind: 'Deployment', template: annotated('image-pull') },
  { name: 'crash', label: 'crash loop', kind: 'Deployment', template: annotated('crash-loop') },
  // killed 6 s after it starts: it must stay Ready 10 s to count, or the rollout ends before the first kill
  {
    name: 'live',
    label: 'liveness probe kills it',
    kind: 'Deployment',
    spec: { minReadySeconds: 10 },
    template: annotated('liveness-probe'),
  },
  { name: 'ready', label: 'readiness probe fails', kind: 'Deployment', template: annotated('readiness-probe') },
  {
    name: 'unrouted',
    label: 'no Service selects the pods',
    kind: 'Deployment',
    template: annotated('none'),
    before: async (ctx, ns) => {
      await ctx.kube.delete('networking.k8s.io/v1', 'Ingress', 'unrouted', ns);
      await ctx.kube.delete('v1', 'Service', 'unrouted', ns);
    },
  },
  {
    name: 'quota',
    label: 'a quota refuses the surge pod',
    kind: 'Deployment',
    template: annotated('none'),
    objects: (ns) => [
      {
        apiVersion: 'v1',
        kind: 'ResourceQuota',
        metadata: { name: 'pods', namespace: ns },
        spec: { hard: { pods: '2' } },
      },
    ],
  },
  { name: 'ordinal', label: 'StatefulSet ordinal crash loop', kind: 'StatefulSet', template: annotated('crash-loop') },
];

export interface VerdictRow {
  scenario: string;
  kind: string;
  plugin: { ms: number; code: number | null; verdict: string };
  kubectl: { ms: number; code: number | null; verdict: string };
}

export interface VerdictResult {
  deadlineSeconds: number;
  rows: VerdictRow[];
}

/** The scenario's workload as healthy pods: 2 replicas behind the gate, a Service and an Ingress (gatedApp's). */
function manifests(s: Scenario, ns: string, deadlineSeconds: number): KubeObject[] {
  const [deployment, ...routed] = gatedApp({
    name: s.name,
    namespace: ns,
    replicas: 2,
    maxSurge: 1,
    maxUnavailable: 0,
  });
  const spec = (deployment as { spec: any }).spec;
  spec.template.spec.containers[0] = { ...spec.template.spec.containers[0], ...probes };
  Object.assign(spec, s.spec);
  if (s.kind === 'Deployment') {
    spec.progressDeadlineSeconds = deadlineSeconds;
    return [deployment!, ...routed];
  }
  const { strategy: _, ...rest } = spec;
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { ...deployment!.metadata },
      spec: { ...rest, serviceName: s.name, updateStrategy: { type: 'RollingUpdate' } },
    },
    ...routed,
  ];
}

/** kubectl's own notion of done, for either kind. */
async function rolledOut(ctx: BenchContext, s: Scenario, ns: string): Promise<void> {
  await waitFor(
    async () => {
      const w = await ctx.kube.get<any>('apps/v1', s.kind, s.name, ns);
      const st = w.status ?? {};
      const want = w.spec.replicas;
      return (
        (st.observedGeneration ?? 0) >= w.metadata.generation &&
        st.updatedReplicas === want &&
        st.readyReplicas === want &&
        (s.kind === 'StatefulSet' ? st.currentRevision === st.updateRevision : st.replicas === want)
      );
    },
    `${s.kind} ${ns}/${s.name} to roll out`,
    240_000,
    500,
  );
}

const verdictOf = (stdout: string, stderr: string, code: number | null, plugin: boolean): string => {
  if (code === null) return 'cut (no verdict)';
  // the plugin's success ends with its rollout report, not a one-line verdict
  if (code === 0 && plugin) return 'complete, with its report';
  const text = `${stdout}\n${stderr}`;
  // the plugin's verdict line: "✗ <workload>: rollout failed after 31s of waiting: HS203, held 30s; …"
  const cause = /rollout failed after \d+s of waiting: (HS\d{3}), held/.exec(text)?.[1];
  const last =
    text
      .split('\n')
      .filter((l) => l.trim())
      .at(-1) ?? '';
  return cause ?? last.replace(/^(✗|✓) /, '').slice(0, 70);
};

export async function benchVerdict(ctx: BenchContext, o: { deadlineSeconds: number }): Promise<VerdictResult> {
  const capMs = (o.deadlineSeconds + 60) * 1000;
  ctx.log(`verdict: rolling out ${SCENARIOS.length} workloads healthy, one namespace each`);
  for (const s of SCENARIOS) {
    const ns = `${PREFIX}${s.name}`;
    await ensureNamespace(ctx.kube, ns);
    await ctx.kube.apply(manifests(s, ns, o.deadlineSeconds));
  }
  for (const s of SCENARIOS) await rolledOut(ctx, s, `${PREFIX}${s.name}`);
  for (const s of SCENARIOS) {
    const ns = `${PREFIX}${s.name}`;
    if (s.objects) await ctx.kube.apply(s.objects(ns));
    await s.before?.(ctx, ns);
  }
  ctx.log(
    `verdict: breaking every workload at once; kubectl ends at the progress deadline (${o.deadlineSeconds}s), a StatefulSet's run is cut at ${capMs / 1000}s`,
  );
  const rows = await Promise.all(
    SCENARIOS.map(async (s): Promise<VerdictRow> => {
      const ns = `${PREFIX}${s.name}`;
      const ref = `${s.kind.toLowerCase()}/${s.name}`;
      await ctx.kube.patch('apps/v1', s.kind, s.name, ns, { spec: { template: s.template } });
      const [plugin, kubectl] = await Promise.all([
        run([PLUGIN, 'status', ref, '-n', ns, '--wait', '--timeout', `${capMs / 1000}s`], ctx.env, capMs + 10_000),
        run([KUBECTL, 'rollout', 'status', ref, '-n', ns, `--timeout=${capMs / 1000}s`], ctx.env, capMs + 10_000),
      ]);
      return {
        scenario: s.label,
        kind: s.kind,
        plugin: {
          ms: plugin.ms,
          code: plugin.code,
          verdict: verdictOf(plugin.stdout, plugin.stderr, plugin.code, true),
        },
        kubectl: {
          ms: kubectl.ms,
          code: kubectl.code,
          verdict: verdictOf(kubectl.stdout, kubectl.stderr, kubectl.code, false),
        },
      };
    }),
  );
  for (const s of SCENARIOS) await ctx.kube.delete('v1', 'Namespace', `${PREFIX}${s.name}`);
  return { deadlineSeconds: o.deadlineSeconds, rows };
}

export function verdictTable(r: VerdictResult): string {
  const s = (ms: number) => `${round(ms / 1000, 0)} s`;
  return table(
    ['broken by', 'kind', 'kubectl haptic status --wait', 'exit', 'says', 'kubectl rollout status', 'exit', 'says'],
    r.rows.map((row) => [
      row.scenario,
      row.kind,
      s(row.plugin.ms),
      String(row.plugin.code),
      row.plugin.verdict,
      s(row.kubectl.ms),
      String(row.kubectl.code),
      row.kubectl.verdict,
    ]),
  );
}
