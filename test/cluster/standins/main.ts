// Entry point the cluster harness starts: `node test/cluster/standins/main.ts --kubeconfig <admin kubeconfig>
// [--lease-duration-seconds 15] [--lab-netns <ns> --lab-dir <dir> --kubelet-cert <crt> --kubelet-key <key>]`.
// Runs the node stand-in and the HAPTIC stand-in in one process, prints READY on stdout once the fake nodes are
// Ready and the HAPTIC installation exists with a held Lease; logs go to stderr; SIGTERM/SIGINT exit 0.
// With --lab-netns (a lab cluster, run inside that network namespace): real processes for the pods whose images
// the lab knows, the kubelet API for pods/log, and kube-proxy's Service rules (lab/).
import { parseArgs } from 'node:util';
import { Kube } from '../kube.ts';
import { errorText, log } from './common.ts';
import { runHapticStandIn } from './haptic.ts';
import { startLab } from './lab/main.ts';
import { runNodeStandIn } from './node.ts';

const { values } = parseArgs({
  options: {
    kubeconfig: { type: 'string' },
    'lease-duration-seconds': { type: 'string', default: '15' },
    'lab-netns': { type: 'string' },
    'lab-dir': { type: 'string' },
    'kubelet-cert': { type: 'string' },
    'kubelet-key': { type: 'string' },
  },
});
const leaseDurationSeconds = Number(values['lease-duration-seconds']);
if (!values.kubeconfig || !(leaseDurationSeconds > 0)) {
  process.stderr.write(
    'usage: node test/cluster/standins/main.ts --kubeconfig <path> [--lease-duration-seconds <n>]\n',
  );
  process.exit(2);
}

const controller = new AbortController();
let stopLab = () => {};
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.once(signal, () => {
    log('standins', `${signal}: stopping`);
    controller.abort();
    stopLab();
    process.exit(0);
  });
}

try {
  const kube = new Kube(values.kubeconfig);
  const lab = values['lab-netns']
    ? await startLab(kube, controller.signal, {
        netns: values['lab-netns'],
        dir: values['lab-dir']!,
        cert: values['kubelet-cert']!,
        key: values['kubelet-key']!,
      })
    : undefined;
  if (lab) stopLab = () => lab.runtime.stopAll();
  await runNodeStandIn(kube, controller.signal, lab?.runtime);
  await runHapticStandIn(kube, controller.signal, leaseDurationSeconds, lab?.haproxy);
  await lab?.exposeHAProxy();
  process.stdout.write('READY\n');
} catch (error) {
  log('standins', `failed to start: ${errorText(error)}`);
  process.exit(1);
}
