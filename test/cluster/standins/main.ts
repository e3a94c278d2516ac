// Entry point the cluster harness starts: `node test/cluster/standins/main.ts --kubeconfig <admin kubeconfig>
// [--lease-duration-seconds 15]`.
// Runs the node stand-in and the HAPTIC stand-in in one process, prints READY on stdout once the fake nodes are
// Ready and the HAPTIC installation exists with a held Lease; logs go to stderr; SIGTERM/SIGINT exit 0.
import { parseArgs } from 'node:util';
import { Kube } from '../kube.ts';
import { errorText, log } from './common.ts';
import { runHapticStandIn } from './haptic.ts';
import { runNodeStandIn } from './node.ts';

const { values } = parseArgs({
  options: { kubeconfig: { type: 'string' }, 'lease-duration-seconds': { type: 'string', default: '15' } },
});
const leaseDurationSeconds = Number(values['lease-duration-seconds']);
if (!values.kubeconfig || !(leaseDurationSeconds > 0)) {
  process.stderr.write('usage: node test/cluster/standins/main.ts --kubeconfig <path> [--lease-duration-seconds <n>]\n');
  process.exit(2);
}

const controller = new AbortController();
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log('standins', `${signal}: stopping`);
    controller.abort();
    process.exit(0);
  });
}

try {
  const kube = new Kube(values.kubeconfig);
  await runNodeStandIn(kube, controller.signal);
  await runHapticStandIn(kube, controller.signal, leaseDurationSeconds);
  process.stdout.write('READY\n');
} catch (error) {
  log('standins', `failed to start: ${errorText(error)}`);
  process.exit(1);
}
