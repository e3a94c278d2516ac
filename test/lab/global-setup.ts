// vitest global setup of the lab project: the lab's network namespace and, inside it, one fresh lab cluster per
// run (test/cluster/lab/); the test workers run inside the namespace too (pool.ts). Stopped and removed at the
// end (kept with KEEP_CLUSTER=1). The lab needs root: without it the project fails at once, saying so.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { TestProject } from 'vitest/node';
import { abandonedClusters, repoRoot, stopCluster, type ClusterState } from '../cluster/cluster.ts';
import { createLabNetns, deleteLabNetns, inNetns, labNetnsName, labUnavailable } from '../cluster/lab/netns.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterState;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const unavailable = labUnavailable();
  if (unavailable) throw new Error(unavailable);
  await stopAbandonedLabs();
  const name = `lab-${process.pid}`;
  const netns = labNetnsName(name);
  createLabNetns(netns);
  const state = await startInside(name, netns).catch((error) => {
    deleteLabNetns(netns);
    throw error;
  });
  project.provide('cluster', state);
  return async () => {
    if (process.env.KEEP_CLUSTER === '1') {
      process.stderr.write(`[lab] KEEP_CLUSTER=1: ${name} keeps running in network namespace ${netns}\n`);
      process.stderr.write(`[lab]   ip netns exec ${netns} env KUBECONFIG=${state.adminKubeconfig} kubectl …\n`);
      process.stderr.write(`[lab]   stop it with: node test/lab/down.ts ${name}\n`);
      return;
    }
    await stopCluster(name);
    deleteLabNetns(netns);
  };
}

/** Starts the cluster with test/cluster/lab/start.ts inside the namespace; resolves with its state. */
function startInside(name: string, netns: string): Promise<ClusterState> {
  const node = existsSync(join(repoRoot, 'node_modules/.bin/node'))
    ? join(repoRoot, 'node_modules/.bin/node')
    : process.execPath;
  const [command, ...args] = inNetns(netns, [node, join(repoRoot, 'test/cluster/lab/start.ts'), name, netns]);
  const child = spawn(command!, args, { cwd: repoRoot, stdio: ['ignore', 'pipe', 'inherit'] });
  let stdout = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      const last = stdout.trim().split('\n').at(-1);
      if (code === 0 && last) resolve(JSON.parse(last) as ClusterState);
      else reject(new Error(`starting lab cluster ${name} failed (exit code ${code})`));
    });
  });
}

/** Labs of test runs whose vitest process is gone (killed before its teardown ran). */
async function stopAbandonedLabs(): Promise<void> {
  for (const name of abandonedClusters('lab')) {
    await stopCluster(name);
    deleteLabNetns(labNetnsName(name));
  }
}
