// Argo Rollouts in every live command, against the real Argo Rollouts controller the harness runs (build.sh builds
// it from Go modules): enable-gate gates a canary that Argo then takes through its steps to Healthy, status says
// Argo's phase and step and each pod's gate, an indefinite pause is why-stalled's first finding with `promote` (and
// ends status --wait), a blue-green whose preview Service HAPTIC does not route is named first (and refused by
// enable-gate's preflight), and drill plans Argo's own restart.
import { describe, expect, it } from 'vitest';
import {
  adminApi,
  argoRollout,
  GATE,
  getRollout,
  newNamespace,
  type Rollout,
  routedService,
  runPlugin,
  service,
  waitFor,
} from './support.ts';

const api = () => adminApi();
const ids = (text: string) => [...text.matchAll(/\[(HS\d{3}|HG\d{3})\]/g)].map((m) => m[1]);

/** Argo's own verdict at this generation: Healthy (observedGeneration is a string in a Rollout's status). */
const argoSays = (ns: string, name: string, phase: string, also: (r: Rollout) => boolean = () => true) =>
  waitFor(() => getRollout(ns, name), {
    what: `rollout ${name} ${phase}`,
    timeoutMs: 90_000,
    intervalMs: 250,
    until: (r) =>
      r.status?.phase === phase && r.status?.observedGeneration === String(r.metadata.generation) && also(r),
  });

describe('Argo Rollouts on the real controller', () => {
  it('enable-gate gates a canary that Argo takes through its steps to Healthy; status shows the phase, the step and each gate', async () => {
    const ns = await newNamespace('argo-gate');
    const steps = [{ setWeight: 50 }, { pause: { duration: '1s' } }];
    await api().apply([
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
      argoRollout(ns, 'web', { canary: { steps } }, { gated: false }),
    ]);
    const before = await argoSays(ns, 'web', 'Healthy');

    const preview = await runPlugin(['enable-gate', 'rollout/web', '-n', ns, '--dry-run=client']);
    expect(preview.code, preview.stdout + preview.stderr).toBe(0);
    expect(preview.stdout).toContain('rollout.argoproj.io/web gate added (dry run: client; nothing written)');

    const enabled = await runPlugin(['enable-gate', 'rollout/web', '-n', ns, '--wait', '--timeout', '90s'], {
      timeoutMs: 120_000,
    });
    expect(enabled.code, enabled.stdout + enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain('rollout.argoproj.io/web gate added');
    const after = await argoSays(ns, 'web', 'Healthy', (r) => r.status.stableRS === r.status.currentPodHash);
    expect(after.status.currentPodHash).not.toBe(before.status.currentPodHash);
    expect(after.spec.template.spec.readinessGates).toEqual([{ conditionType: GATE }]);

    const text = await runPlugin(['status', 'rollout/web', '-n', ns]);
    expect(text.code, text.stdout + text.stderr).toBe(0);
    const [summary, headline] = text.stdout.split('\n');
    expect(summary).toMatch(/^rollout\.argoproj\.io\/web -n \S+ · revision 2 · Canary step 2\/2 · gate /);
    expect(headline).toMatch(/Healthy/);

    const json = await runPlugin(['status', 'rollout/web', '-n', ns, '-o', 'json']);
    expect(json.code, json.stderr).toBe(0);
    const model = JSON.parse(json.stdout);
    expect(model).toMatchObject({
      workloadKind: 'Rollout',
      phase: 'complete',
      message: 'Healthy',
      argo: {
        strategy: 'canary',
        phase: 'Healthy',
        step: { index: 2, count: 2 },
        currentPodHash: after.status.currentPodHash,
      },
    });
    expect(model.newPods).toHaveLength(2);
    for (const p of model.newPods) expect(p.gate.state).toBe('True');
  });

  it('a canary paused at an indefinite step: why-stalled names the pause and promote first, and status --wait ends on it', async () => {
    const ns = await newNamespace('argo-pause');
    const strategy = { canary: { steps: [{ setWeight: 50 }, { pause: {} }] } };
    await api().apply([
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
      argoRollout(ns, 'web', strategy),
    ]);
    await argoSays(ns, 'web', 'Healthy');
    await api().apply([argoRollout(ns, 'web', strategy, { image: 'example/app:2' })]);
    await argoSays(ns, 'web', 'Paused', (r) => r.status.currentStepIndex === 1);

    const why = await runPlugin(['why-stalled', 'rollout/web', '-n', ns, '-o', 'json']);
    expect(why.code, why.stdout + why.stderr).toBe(1);
    const [first] = JSON.parse(why.stdout).items[0].findings;
    expect(first).toMatchObject({ id: 'HS215', severity: 'error' });
    expect(first.title).toBe('rollout web is paused at step 1/2 (pause) until promoted');
    expect(first.fix).toContain(`kubectl argo rollouts promote web -n ${ns}`);

    const status = await runPlugin(['status', 'rollout/web', '-n', ns]);
    expect(status.stdout.split('\n')[1]).toContain('Paused - CanaryPauseStep');

    const wait = await runPlugin(['status', 'rollout/web', '-n', ns, '--wait'], { timeoutMs: 90_000 });
    expect(wait.code, wait.stdout + wait.stderr).toBe(1);
    expect(wait.stdout).toContain('✗ [HS215] rollout web is paused at step 1/2');
    expect(wait.stdout.trimEnd().split('\n').at(-1)).toMatch(/rollout failed after \d+s of waiting: HS215, held \d+s/);
  });

  it('a blue-green whose preview Service HAPTIC does not route: why-stalled names it first, enable-gate refuses it', async () => {
    const ns = await newNamespace('argo-bg');
    const strategy = { blueGreen: { activeService: 'web', previewService: 'web-preview' } };
    await api().apply([
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
      service({ name: 'web-preview', namespace: ns, selector: { app: 'web' } }),
      argoRollout(ns, 'web', strategy),
    ]);
    // the first revision has nothing to preview: Argo points both Services at it, and the active one is routed
    await argoSays(ns, 'web', 'Healthy');
    await api().apply([argoRollout(ns, 'web', strategy, { image: 'example/app:2' })]);
    const progressing = await waitFor(() => getRollout(ns, 'web'), {
      what: 'Argo points the preview Service at the new pods',
      timeoutMs: 60_000,
      until: (r) =>
        !!r.status?.blueGreen?.previewSelector &&
        r.status.blueGreen.previewSelector === r.status.currentPodHash &&
        r.status.blueGreen.activeSelector !== r.status.currentPodHash,
    });
    await waitFor(
      () =>
        api().list<any>('v1', 'Pod', {
          namespace: ns,
          labelSelector: `rollouts-pod-template-hash=${progressing.status.currentPodHash}`,
        }),
      {
        what: 'the preview pods with ready containers',
        until: (ps) =>
          ps.length === 2 &&
          ps.every((p) => p.status?.conditions?.some((c: any) => c.type === 'ContainersReady' && c.status === 'True')),
      },
    );
    const why = await waitFor(() => runPlugin(['why-stalled', 'rollout/web', '-n', ns, '-o', 'json']), {
      what: 'why-stalled names the unrouted preview Service',
      timeoutMs: 60_000,
      until: (r) => r.code === 1 && JSON.parse(r.stdout).items?.[0]?.findings[0]?.id === 'HS114',
    });
    const [first] = JSON.parse(why.stdout).items[0].findings;
    expect(first).toMatchObject({ id: 'HS114', severity: 'error' });
    expect(first.title).toContain('preview Service service/web-preview');
    expect(first.fix).toContain(`kubectl -n ${ns} create ingress web-preview`);

    // the same trap before the gate is added: a second, ungated blue-green behind the same kind of Services
    await api().apply([
      ...routedService({ name: 'api', namespace: ns, selector: { app: 'api' } }),
      service({ name: 'api-preview', namespace: ns, selector: { app: 'api' } }),
      argoRollout(ns, 'api', { blueGreen: { activeService: 'api', previewService: 'api-preview' } }, { gated: false }),
    ]);
    await argoSays(ns, 'api', 'Healthy');
    const refused = await runPlugin(['enable-gate', 'rollout/api', '-n', ns]);
    expect(refused.code, refused.stdout + refused.stderr).not.toBe(0);
    expect(ids(refused.stdout + refused.stderr)).toContain('HG123');
    const unchanged = await getRollout(ns, 'api');
    expect(unchanged.spec.template.spec.readinessGates).toBeUndefined();
  });

  it("a Rollout whose template is a Deployment's (spec.workloadRef): enable-gate patches the Deployment, and Argo rolls the gated pods to Healthy", async () => {
    const ns = await newNamespace('argo-ref');
    const template = argoRollout(ns, 'web', {}, { gated: false }) as any;
    await api().apply([
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'web-template', namespace: ns },
        spec: { replicas: 0, selector: template.spec.selector, template: template.spec.template },
      },
      {
        apiVersion: 'argoproj.io/v1alpha1',
        kind: 'Rollout',
        metadata: { name: 'web', namespace: ns },
        spec: {
          replicas: 2,
          selector: template.spec.selector,
          workloadRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web-template' },
          strategy: { canary: { steps: [{ setWeight: 50 }, { pause: { duration: '1s' } }] } },
        },
      },
    ]);
    const before = await argoSays(ns, 'web', 'Healthy');
    const enabled = await runPlugin(['enable-gate', 'rollout/web', '-n', ns, '--wait', '--timeout', '90s'], {
      timeoutMs: 120_000,
    });
    expect(enabled.code, enabled.stdout + enabled.stderr).toBe(0);
    expect(enabled.stdout).toContain('rollout.argoproj.io/web gate added');
    expect(enabled.stdout).toContain(
      "its pod template is deployment/web-template's (spec.workloadRef): the patch goes there",
    );
    const holder = await api().get<any>('apps/v1', 'Deployment', 'web-template', ns);
    expect(holder.spec.template.spec.readinessGates).toEqual([{ conditionType: GATE }]);
    const after = await argoSays(ns, 'web', 'Healthy', (r) => r.status.stableRS === r.status.currentPodHash);
    expect(after.status.currentPodHash).not.toBe(before.status.currentPodHash);
    const model = JSON.parse((await runPlugin(['status', 'rollout/web', '-n', ns, '-o', 'json'])).stdout);
    expect(model).toMatchObject({ workloadKind: 'Rollout', gated: true, phase: 'complete' });
    for (const p of model.newPods) expect(p.gate.state).toBe('True');
  });

  it('drill --dry-run plans its probe and the restart kubectl argo rollouts restart sends', async () => {
    const ns = await newNamespace('argo-drill');
    await api().apply([
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
      argoRollout(ns, 'web', { canary: { steps: [{ setWeight: 50 }] } }),
    ]);
    await argoSays(ns, 'web', 'Healthy');
    const plan = await runPlugin(['drill', 'rollout/web', '-n', ns, '--dry-run', '-o', 'json']);
    expect(plan.code, plan.stdout + plan.stderr).toBe(0);
    const shown = JSON.parse(plan.stdout);
    expect(shown.pod.kind).toBe('Pod');
    expect(shown.restartPatch.spec.restartAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(shown.permissions).toContain('patch rollouts.argoproj.io');
  });
});
