// npm run cluster:up — starts (or reuses) the local cluster "dev" and prints, as its last stdout line, the
// `export KUBECONFIG=…` that points kubectl and the plugin at it.
import { clusterIsHealthy, readClusterState, startCluster, type ClusterState } from './cluster.ts';

const NAME = 'dev';

async function up(): Promise<ClusterState> {
  const running = readClusterState(NAME);
  if (running && (await clusterIsHealthy(running))) {
    process.stderr.write(`[cluster] ${NAME} is already running at ${running.server}; reusing it\n`);
    return running;
  }
  if (running) process.stderr.write(`[cluster] ${NAME} is not healthy; starting it afresh\n`);
  return startCluster({ name: NAME });
}

try {
  const state = await up();
  process.stderr.write(`[cluster] logs: ${state.logDir}\n[cluster] stop it with: npm run cluster:down\n`);
  process.stdout.write(`export KUBECONFIG=${state.adminKubeconfig}\n`);
} catch (error) {
  process.stderr.write(`[cluster] ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
