// vitest global setup of the e2e project: one fresh local cluster per run, stopped at the end (kept with
// KEEP_CLUSTER=1, e.g. to look around with kubectl after a failure).
import type { TestProject } from 'vitest/node';
import { abandonedClusters, startCluster, stopCluster, type ClusterState } from '../cluster/cluster.ts';

declare module 'vitest' {
  export interface ProvidedContext {
    cluster: ClusterState;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await stopAbandonedTestClusters();
  const state = await startCluster({ name: `test-${process.pid}` });
  project.provide('cluster', state);
  return async () => {
    if (process.env.KEEP_CLUSTER === '1') {
      process.stderr.write(`[cluster] KEEP_CLUSTER=1: ${state.name} keeps running\n`);
      process.stderr.write(`[cluster]   export KUBECONFIG=${state.adminKubeconfig}\n`);
      process.stderr.write(`[cluster]   stop it with: node test/cluster/down.ts ${state.name}\n`);
      return;
    }
    await stopCluster(state.name);
  };
}

/** Clusters of test runs whose vitest process is gone (killed before its teardown ran). */
async function stopAbandonedTestClusters(): Promise<void> {
  for (const name of abandonedClusters('test')) await stopCluster(name);
}
