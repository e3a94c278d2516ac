// Starts a lab cluster from inside its network namespace (the lab's vitest setup runs it with `ip netns exec`):
// `node test/cluster/lab/start.ts <cluster name> <namespace>`. Progress on stderr; the cluster's state as JSON on
// the last stdout line.
import { startCluster } from '../cluster.ts';

const [name, netns] = process.argv.slice(2);
if (!name || !netns) {
  process.stderr.write('usage: node test/cluster/lab/start.ts <cluster name> <network namespace>\n');
  process.exit(2);
}
try {
  const state = await startCluster({ name, lab: { netns } });
  process.stdout.write(`${JSON.stringify(state)}\n`);
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
