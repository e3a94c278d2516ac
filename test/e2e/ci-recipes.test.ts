// docs/ci.md's recipes, run as written against the local cluster: each shell step of its GitHub Actions workflow and
// of its GitLab CI job, in bash as those runners run them, with kubectl, helm (test/cluster/build.sh builds it) and
// the plugin on PATH, in a folder holding the chart the recipes name (./chart, test/fixtures/ci/chart/).
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { load } from 'js-yaml';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../cluster/cluster.ts';
import { sarifErrors } from '../fixtures/sarif/validate.ts';
import { adminApi, cluster, type KubeObject } from './support.ts';

type Step = { name?: string; run?: string; uses?: string; with?: Record<string, string> };

/** The YAML blocks of docs/ci.md, in order. */
function recipes(): unknown[] {
  const text = readFileSync(join(repoRoot, 'docs/ci.md'), 'utf8');
  return [...text.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((m) => load(m[1]!));
}

const work = mkdtempSync(join(tmpdir(), 'haptic-ci-'));
cpSync(join(repoRoot, 'test/fixtures/ci/chart'), join(work, 'chart'), { recursive: true });
// `kubectl haptic` is the plugin kubectl finds on PATH, as an npm install puts it there
const bin = join(work, 'bin');
mkdirSync(bin);
symlinkSync(join(repoRoot, 'bin/kubectl-haptic'), join(bin, 'kubectl-haptic'));

/** Runs one step's script as a CI runner's bash would (`bash -e`), in the recipes' folder. */
function step(script: string, env: Record<string, string> = {}): Promise<{ code: number | null; out: string }> {
  const { GITHUB_ACTIONS: _, GITHUB_STEP_SUMMARY: __, FORCE_COLOR: ___, ...inherited } = process.env;
  const child = spawn('bash', ['-e', '-c', script], {
    cwd: work,
    env: {
      ...inherited,
      PATH: [bin, dirname(cluster().kubectl), process.env.PATH].join(':'),
      KUBECONFIG: cluster().adminKubeconfig,
      HELM_CACHE_HOME: join(work, '.helm/cache'),
      HELM_CONFIG_HOME: join(work, '.helm/config'),
      HELM_DATA_HOME: join(work, '.helm/data'),
      NO_COLOR: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, out })));
}

afterAll(async () => {
  await adminApi().delete('v1', 'Namespace', 'shop');
  rmSync(work, { recursive: true, force: true });
});

describe("docs/ci.md's recipes, as written, on the local cluster", () => {
  it('the helm and kubectl haptic commands are there to run', async () => {
    const r = await step('helm version --short && kubectl haptic --version');
    expect(r.code, r.out).toBe(0);
    expect(r.out).toMatch(/^v4\.\d+/);
  });

  it('GitHub Actions: the deploy step installs and waits (exit 0, the report in the step summary); doctor writes valid SARIF with nothing to report', async () => {
    const [workflow] = recipes() as [Step[]];
    const summary = join(work, 'step-summary.md');
    writeFileSync(summary, '');
    const github = { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary };
    const runs = workflow.filter((s) => s.run);
    expect(runs.map((s) => s.name)).toEqual(['Deploy', 'Drain-safety checks']);
    const deployed = await step(runs[0]!.run!, github);
    expect(deployed.code, deployed.out).toBe(0);
    expect(deployed.out).toContain('deployment.apps/shop-web -n shop');
    expect(deployed.out).not.toContain('::error');
    expect(readFileSync(summary, 'utf8')).toMatch(
      /^### ✓ kubectl haptic: rollout complete\n\n```text\nRollout report: deployment\.apps\/shop-web -n shop complete and drained in /,
    );
    const checked = await step(runs[1]!.run!, github);
    expect(checked.code, checked.out).toBe(0);
    const upload = workflow.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif'));
    const file = join(work, upload!.with!.sarif_file!);
    expect(existsSync(file)).toBe(true);
    const sarif = JSON.parse(readFileSync(file, 'utf8'));
    expect(sarifErrors(sarif)).toEqual([]);
    expect(sarif.runs[0].results).toEqual([]);
  });

  it('GitLab CI: the deploy job follows a real rollout of the next chart version until the old pods are gone (exit 0)', async () => {
    const [, job] = recipes() as [unknown, { deploy: { script: string[] } }];
    const values = join(work, 'chart/values.yaml');
    writeFileSync(values, readFileSync(values, 'utf8').replace('example/shop:1', 'example/shop:2'));
    const r = await step(job.deploy.script.join('\n'));
    expect(r.code, r.out).toBe(0);
    // --drained: exit 0 only once the old pods are gone
    const pods = await adminApi().list<KubeObject & { spec: { containers: { image: string }[] } }>('v1', 'Pod', {
      namespace: 'shop',
    });
    expect(pods.map((p) => p.spec.containers[0]!.image)).toEqual(['example/shop:2', 'example/shop:2']);
    expect(r.out).toMatch(/deployment\.apps\/shop-web -n shop/);
  });
});
