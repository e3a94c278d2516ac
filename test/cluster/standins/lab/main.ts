// The lab's parts of the stand-ins process (main.ts starts them with --lab-netns): the container runtime behind the
// node stand-in, the kubelet API it serves pods/log from, kube-proxy's Service rules, and real HAProxy behind the
// HAPTIC stand-in (haproxy -c on renders, reloads through each HAProxy pod's master socket).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Kube } from '../../kube.ts';
import { PRIMARY } from '../haptic.ts';
import type { RealHAProxy } from '../haptic-installation.ts';
import { fullname, selectorLabels } from '../haptic-manifests.ts';
import { HAProxyAgent, haproxyTakesGuid } from './haproxy-agent.ts';
import { serveKubeletApi } from './kubelet-api.ts';
import { runKubeProxy } from './kube-proxy.ts';
import { LabRuntime } from './runtime.ts';

const repoRoot = fileURLToPath(new URL('../../../..', import.meta.url)).replace(/\/$/, '');

export type Lab = { runtime: LabRuntime; haproxy: RealHAProxy; exposeHAProxy(): Promise<void> };

export async function startLab(
  kube: Kube,
  signal: AbortSignal,
  opts: { netns: string; dir: string; cert: string; key: string },
): Promise<Lab> {
  const pinned = join(repoRoot, 'node_modules/.bin/node');
  const runtime = new LabRuntime({
    kube,
    labNetns: opts.netns,
    labDir: opts.dir,
    repoRoot,
    node: existsSync(pinned) ? pinned : process.execPath,
  });
  const servers = await serveKubeletApi({
    cert: opts.cert,
    key: opts.key,
    logOf: (key, container, previous) => runtime.logOf(key, container, previous),
    execOf: (key, container) => runtime.execTarget(key, container),
  });
  signal.addEventListener(
    'abort',
    () => {
      for (const s of servers) s.close();
    },
    { once: true },
  );
  await runKubeProxy(kube, signal);
  const agent = new HAProxyAgent(join(opts.dir, 'validate'));
  const haproxy: RealHAProxy = {
    guid: await haproxyTakesGuid(),
    validate: (content) => agent.validate(content),
    apply: (pod, content) => agent.apply(runtime.agentOf(pod), content),
  };
  // the user-facing Service in front of HAProxy, which HAPTIC's controller renders from its base library
  // (k8sResources.haproxy-service, charts/haptic/templates/haproxy-service.yaml says so); a ClusterIP here, as the
  // lab has no load balancer
  const exposeHAProxy = async () => {
    await kube.apply(
      [
        {
          apiVersion: 'v1',
          kind: 'Service',
          metadata: {
            name: `${fullname(PRIMARY)}-haproxy`,
            namespace: PRIMARY.namespace,
            labels: { 'app.kubernetes.io/name': 'haptic', 'app.kubernetes.io/instance': PRIMARY.release },
          },
          spec: {
            selector: selectorLabels(PRIMARY, 'loadbalancer'),
            ports: [{ name: 'http', port: 80, targetPort: 8080 }],
          },
        },
      ],
      'haptic-controller',
    );
  };
  return { runtime, haproxy, exposeHAProxy };
}
