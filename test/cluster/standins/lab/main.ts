// The lab's parts of the stand-ins process (main.ts starts them with --lab-netns): the container runtime behind the
// node stand-in, the kubelet API it serves pods/log from, and kube-proxy's Service rules.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kube } from '../../kube.ts';
import { serveKubeletApi } from './kubelet-api.ts';
import { runKubeProxy } from './kube-proxy.ts';
import { LabRuntime } from './runtime.ts';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url)).replace(/\/$/, '');

export type Lab = { runtime: LabRuntime };

export async function startLab(kube: Kube, signal: AbortSignal, opts: { netns: string; dir: string; cert: string; key: string }): Promise<Lab> {
  const pinned = join(repoRoot, 'node_modules/.bin/node');
  const runtime = new LabRuntime({ kube, labNetns: opts.netns, labDir: opts.dir, repoRoot, node: existsSync(pinned) ? pinned : process.execPath });
  const servers = await serveKubeletApi({ cert: opts.cert, key: opts.key, logOf: (key, container, previous) => runtime.logOf(key, container, previous) });
  signal.addEventListener('abort', () => servers.forEach((s) => s.close()), { once: true });
  await runKubeProxy(kube, signal);
  return { runtime };
}
