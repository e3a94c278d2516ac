// The demo's app (scripts/demo-app.ts) is what the product recommends: doctor finds nothing in its manifests nor in it live,
// and its rollout report says every old pod exited by itself within its grace, with no warning: a newcomer's first
// report (npm run demo) reads as a clean rollout.
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { web } from '../../scripts/demo-app.ts';
import { adminApi, newNamespace, runPlugin, waitFor } from './support.ts';

type Deployment = { status?: { availableReplicas?: number; updatedReplicas?: number } };

describe('the demo app on the real control plane', () => {
  it('doctor --strict finds nothing in its manifests, doctor nothing in it live; its rollout drains clean, every old pod exiting by itself', async () => {
    const ns = await newNamespace('demo-app');
    const manifests = web('example/web:1.0', ns);
    const file = join(tmpdir(), `${ns}.json`);
    await writeFile(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: manifests }));
    const offline = await runPlugin(['doctor', '-f', file, '--strict']);
    expect(offline.code, `${offline.stdout}${offline.stderr}`).toBe(0);
    expect(offline.stdout).not.toMatch(/\[DR\d+\]/);

    await adminApi().apply(manifests);
    await waitFor(() => adminApi().get<Deployment>('apps/v1', 'Deployment', 'web', ns), {
      what: 'web available',
      until: (d) => d.status?.availableReplicas === 3,
      timeoutMs: 60_000,
    });
    // live, the app itself is clean; what doctor says of the HAProxy tier in front of it is HAPTIC's install's
    const live = await runPlugin(['doctor', 'web', '-n', ns, '-o', 'json']);
    const items = JSON.parse(live.stdout).items as { object: { kind: string; name: string }; findings: unknown[] }[];
    const app = items.find((i) => i.object.kind === 'Deployment' && i.object.name === 'web');
    expect(app, live.stdout).toBeDefined();
    expect(app!.findings, live.stdout).toEqual([]);

    await adminApi().patch(
      'apps/v1',
      'Deployment',
      'web',
      ns,
      { spec: { template: { spec: { containers: [{ name: 'web', image: 'example/web:1.1' }] } } } },
      { type: 'strategic' },
    );
    const r = await runPlugin(['status', 'web', '-n', ns, '--wait', '--drained'], { timeoutMs: 120_000 });
    expect(r.code, `${r.stdout}${r.stderr}`).toBe(0);
    const report = r.stdout.slice(r.stdout.indexOf('Rollout report:'));
    const drains = report.split('\n').filter((l) => /^\s+web-\S+\s+\d+\.\ds of 10\.0s grace/.test(l));
    expect(drains, report).toHaveLength(3);
    // preStop's 3 s sleep, then SIGTERM and 0.3 s to exit: about 3.3 s of the 10
    for (const l of drains) expect(l, report).toMatch(/ [3-5]\.\ds of 10\.0s grace \(exited by itself\)$/);
    expect(r.stdout).not.toContain('killed');
    expect(r.stdout).not.toMatch(/[!✗⚠]/u);
  });
});
