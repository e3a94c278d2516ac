// npm run cluster:down — stops the local cluster "dev" (or the one named as the first argument, e.g. a test
// cluster kept with KEEP_CLUSTER=1) and removes its state folder.
import { join } from 'node:path';
import { clustersDir, stopCluster } from './cluster.ts';

const name = process.argv[2] ?? 'dev';

if (await stopCluster(name)) {
  process.stderr.write(`[cluster] stopped ${name} and removed ${join(clustersDir(), name)}\n`);
} else {
  process.stderr.write(`[cluster] ${name} is not running; nothing to do\n`);
}
