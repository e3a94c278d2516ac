// The k9s plugin file (plugin-manifest/k9s-plugins.yaml) in a real k9s (build.sh builds it from Go modules), in a
// real terminal (tmux): k9s lists the namespace's Deployments, Shift-G on the selected one opens the plugin's live
// view in k9s's terminal, q returns to k9s; Shift-W shows why-stalled in less, q returns again. k9s reads the file
// from its plugin folder, as the file's install line puts it, under a home of the test's own.
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { load } from 'js-yaml';
import { repoRoot } from '../cluster/cluster.ts';
import { adminApi, cluster, gatedDeployment, newNamespace, routedService, waitFor } from './support.ts';
import { terminal } from './terminal.ts';

const term = terminal('k9s', 'k9s');
const { tmux, screen, paneInfo, start } = term;
const FAIL = 'standin.kubectl-haptic.dev/fail';
const PLUGIN_FILE = join(repoRoot, 'plugin-manifest/k9s-plugins.yaml');
const k9s = () => join(dirname(cluster().kubectl), 'k9s');
const key = (k: string) => tmux('send-keys', '-t', 'k9s', k);
const seen = (what: string, until: (lines: string[]) => boolean) =>
  waitFor(screen, { what, timeoutMs: 30_000, intervalMs: 200, until });

describe('the k9s plugin in a real k9s', () => {
  beforeAll(() => term.open({ width: 160, height: 40, kubeconfig: cluster().adminKubeconfig }));
  afterAll(() => term.close());

  it('the plugin file is what k9s reads: its plugins, keys, scopes, and the values k9s fills in as arguments only', () => {
    const file = load(readFileSync(PLUGIN_FILE, 'utf8')) as { plugins: Record<string, any> };
    expect(Object.keys(file.plugins)).toEqual([
      'haptic-status',
      'haptic-why-stalled',
      'haptic-doctor',
      'haptic-enable-gate',
    ]);
    for (const p of Object.values(file.plugins)) {
      expect(p.scopes).toEqual(['deployments', 'statefulsets', 'daemonsets', 'rollouts']);
      expect(p.command).toBe('bash');
      // the script is the argument after -c and names no k9s variable; k9s's values come after it, as $1…$5
      expect(p.args[1]).not.toMatch(/\$[A-Z]/);
      expect(p.args.slice(3)).toEqual(['$RESOURCE_NAME', '$NAME', '$NAMESPACE', '$CONTEXT', '$KUBECONFIG']);
    }
    expect(file.plugins['haptic-enable-gate']).toMatchObject({ confirm: true, dangerous: true });
  });

  it('Shift-G on a Deployment opens status --watch in k9s, q returns to k9s; Shift-W shows why-stalled', async () => {
    const ns = await newNamespace('k9s');
    await adminApi().apply([
      gatedDeployment({ name: 'web', namespace: ns, replicas: 2, maxSurge: 1, maxUnavailable: 0 }),
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
    ]);
    await waitFor(() => adminApi().get<any>('apps/v1', 'Deployment', 'web', ns), {
      what: 'deployment web available',
      timeoutMs: 60_000,
      intervalMs: 200,
      until: (d) => d.status?.observedGeneration === d.metadata.generation && d.status?.availableReplicas === 2,
    });
    // a rollout that stalls (its image cannot be pulled), so the live view stays until q
    await adminApi().patch(
      'apps/v1',
      'Deployment',
      'web',
      ns,
      { spec: { template: { metadata: { annotations: { [FAIL]: 'image-pull' } } } } },
      { type: 'strategic' },
    );
    const home = mkdtempSync(join(tmpdir(), 'haptic-k9s-'));
    const data = join(home, 'data');
    mkdirSync(join(data, 'k9s', 'plugins'), { recursive: true });
    copyFileSync(PLUGIN_FILE, join(data, 'k9s', 'plugins', 'kubectl-haptic.yaml'));
    // kubectl of the control plane's version first on PATH, and the plugin (bin/kubectl-haptic) for its lookup
    const path = [join(repoRoot, 'bin'), dirname(cluster().kubectl), process.env.PATH].join(':');
    const xdg = ['CONFIG', 'DATA', 'STATE', 'CACHE'].map((d) => `XDG_${d}_HOME=${join(home, d.toLowerCase())}`);
    await start(
      `env NO_COLOR=1 PATH='${path}' ${xdg.join(' ')} ${k9s()} -n ${ns} -c deploy --logoless --splashless; echo "k9s exit=$?"`,
    );
    await seen(
      'k9s to list the Deployment',
      (s) => s.some((l) => /deployments\(/i.test(l)) && s.some((l) => / web /.test(l)),
    );

    await key('G');
    const live = await seen("the plugin's live view in k9s's terminal", (s) =>
      s.some((l) => l.includes(`deployment.apps/web -n ${ns}`)),
    );
    expect(live.join('\n')).toMatch(/HS203|ErrImagePull/);
    expect(await paneInfo('#{pane_current_command}')).not.toBe('bash');
    await key('q');
    await seen('k9s again, after q', (s) => s.some((l) => /deployments\(/i.test(l)));

    await key('W');
    const why = await seen('why-stalled in less', (s) => s.some((l) => l.includes('[HS203]')));
    expect(why.some((l) => l.startsWith(`deployment.apps/web -n ${ns}: stalled`))).toBe(true);
    await key('q');
    await seen('k9s again, after less', (s) => s.some((l) => /deployments\(/i.test(l)));

    await key('C-c');
    await seen('the shell after k9s', (s) => s.some((l) => l === 'k9s exit=0'));
  });
});
