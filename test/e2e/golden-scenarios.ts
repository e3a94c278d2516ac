// Whole outputs on the real control plane, pinned in test/e2e/golden/: the manifests come from test/fixtures/manifests
// (loaded by the same strict loader as the unit scenarios), and what changes from run to run — the namespace, pod
// name suffixes, ages, checksums — is normalised before the comparison. Everything else must match byte for byte.
// golden.test.ts runs them with the npm install's launcher, release.test.ts with the single executable: both must
// print the same.
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { resetKnobs } from '../cluster/standins/knobs.ts';
import { loadManifests } from '../fixtures/load.ts';
import { adminApi, cluster, newNamespace, waitFor, type KubeObject, type PluginResult } from './support.ts';

const MANIFESTS = new URL('../fixtures/manifests/', import.meta.url).pathname;
const GOLDEN = new URL('./golden/', import.meta.url).pathname;
const HAPTIC_CFG_API = 'haproxy-haptic.org/v1alpha1';
const HAPTIC_CFG = 'haptic-config-haproxycfg';

/** Applies a manifest file's objects into a namespace of their own. */
async function applyInto(file: string, namespace: string): Promise<KubeObject[]> {
  const objects = loadManifests(join(MANIFESTS, file)).map((o) => ({ ...o, metadata: { ...o.metadata, namespace } }));
  return adminApi().apply(objects as KubeObject[]);
}

// Generated name parts use the alphabet of Kubernetes' SafeEncodeString (no vowels, no 0, 1, 3).
const SAFE = '[bcdfghjklmnpqrstvwxz2456789]';

/**
 * What differs between runs, replaced by stable words: the namespace, pod-template hashes and pod name suffixes,
 * the pod IPs of server addresses, checksums, ages. Their lengths differ too, so the spaces that align columns are compared as one gap (column
 * alignment itself is asserted in status.test.ts).
 */
function normalise(text: string, namespace: string): string {
  return text
    .replaceAll(namespace, 'NAMESPACE')
    .replace(new RegExp(`\\b([a-z][a-z0-9-]*?)-${SAFE}{6,10}-${SAFE}{5}\\b`, 'g'), '$1-HASH-XXXXX')
    .replace(new RegExp(`\\b(pod-template-hash=|replicaset/[a-z0-9-]+?-)${SAFE}{6,10}\\b`, 'g'), '$1HASH')
    .replace(/\b[0-9a-f]{12,16}\b/g, 'CHECKSUM')
    .replace(/\b\d{1,3}(?:\.\d{1,3}){3}(?=:\d+\b)/g, 'POD-IP')
    .replace(/\b\d+(?:m\d+)?s\b/g, 'AGE')
    .replace(/(\S) {2,}(?=\S)/g, '$1  ');
}

const pods = (ns: string, app: string) =>
  adminApi().list<KubeObject & { status?: { conditions?: { type: string; status: string }[] } }>('v1', 'Pod', {
    namespace: ns,
    labelSelector: `app=${app}`,
  });

/** Registers the golden scenarios, each running the plugin through `run`. */
export function goldenScenarios(run: (args: string[]) => Promise<PluginResult>): void {
  afterEach(() => resetKnobs(cluster().adminKubeconfig));

  it('why-stalled on a gated Deployment no Service selects', async () => {
    const ns = await newNamespace('golden-why');
    await applyInto('unselected.yaml', ns);
    // the pod's containers are ready and it waits for the gate: that is when why-stalled names the cause
    await waitFor(() => pods(ns, 'lonely'), {
      what: 'the pod with ready containers',
      until: (ps) =>
        ps.length === 1 &&
        !!ps[0]!.status?.conditions?.some((c) => c.type === 'ContainersReady' && c.status === 'True'),
    });
    const r = await run(['why-stalled', 'lonely', '-n', ns]);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('');
    await expect(normalise(r.stdout, ns)).toMatchFileSnapshot(join(GOLDEN, 'why-stalled-unselected.txt'));
  });

  it('enable-gate --dry-run=client on a served Deployment, and status once its rollout is done', async () => {
    const ns = await newNamespace('golden-gate');
    await applyInto('served.yaml', ns);
    await waitFor(
      () =>
        adminApi().get<KubeObject & { status?: { availableReplicas?: number } }>('apps/v1', 'Deployment', 'web', ns),
      { what: 'web available', timeoutMs: 60_000, until: (d) => d.status?.availableReplicas === 2 },
    );
    // enable-gate cites the live config's servers for the pods: wait for HAPTIC to have rendered both
    await waitFor(
      () =>
        adminApi().get<KubeObject & { spec?: { content?: string } }>(
          HAPTIC_CFG_API,
          'HAProxyCfg',
          HAPTIC_CFG,
          'haptic',
        ),
      {
        what: "HAPTIC's live config with a server for each of web's pods",
        timeoutMs: 60_000,
        until: (cfg) =>
          (
            cfg.spec?.content
              ?.split(`\nbackend ${ns}_web_svc_web_http\n`)[1]
              ?.split('\nbackend ')[0]
              ?.match(/# Pod: web-/g) ?? []
          ).length === 2,
      },
    );
    const dry = await run(['enable-gate', 'web', '-n', ns, '--dry-run=client']);
    expect(dry.code).toBe(0);
    await expect(normalise(dry.stdout, ns)).toMatchFileSnapshot(join(GOLDEN, 'enable-gate-dry-run.txt'));

    const enabled = await run(['enable-gate', 'web', '-n', ns, '--wait', '--timeout', '2m']);
    expect(enabled.code).toBe(0);
    // a one-shot status once every old pod is gone and HAProxy runs the live config everywhere
    const status = await waitFor(() => run(['status', 'web', '-n', ns]), {
      what: 'a drained rollout with HAProxy converged',
      timeoutMs: 60_000,
      intervalMs: 500,
      until: (r) =>
        !r.stdout.includes('OLD PODS') &&
        /HAProxy 2\/2 on/.test(r.stdout) &&
        (r.stdout.match(/enabled 2\/2/g) ?? []).length === 2,
    });
    expect(status.code).toBe(0);
    await expect(normalise(status.stdout, ns)).toMatchFileSnapshot(join(GOLDEN, 'status-complete.txt'));
  });
}
