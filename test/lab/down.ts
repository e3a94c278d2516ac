// Stops a lab cluster kept with KEEP_CLUSTER=1 (or left by a killed run) and removes its network namespaces:
// `node test/lab/down.ts <cluster name>`.
import { stopCluster } from '../cluster/cluster.ts';
import { deleteLabNetns, labNetnsName } from '../cluster/lab/netns.ts';

const name = process.argv[2];
if (!name) {
  process.stderr.write('usage: node test/lab/down.ts <lab cluster name>\n');
  process.exit(2);
}
const stopped = await stopCluster(name);
deleteLabNetns(labNetnsName(name));
process.stderr.write(`[lab] ${stopped ? `stopped ${name}` : `${name} was not running`}; network namespaces removed\n`);
