// The fake Node objects: registered Ready with room for pods, no taints, heartbeats kept fresh through the node
// Lease (every 10 s) and the Ready condition's lastHeartbeatTime (every minute), as the kubelet does.
import type { Kube } from '../kube.ts';
import { errorText, log, microTime, rfc3339, sleep } from './common.ts';

export type FakeNode = { name: string; ip: string; subnet: number };

/**
 * How many fake nodes: 2, or STANDIN_NODES (1–250) for the benchmarks' thousands of pods. Each node has its own /24
 * of pod IPs (10.244.<n>.0/24, the controller manager's default --node-cidr-mask-size), so a node holds at most 253
 * pods however high its capacity: big clusters get more nodes, as real ones do.
 */
export function fakeNodeCount(text = process.env.STANDIN_NODES): number {
  if (text === undefined || text === '') return 2;
  const count = Number(text);
  if (!Number.isInteger(count) || count < 1 || count > 250)
    throw new Error(`STANDIN_NODES must be a whole number from 1 to 250, not ${JSON.stringify(text)}`);
  return count;
}

export const FAKE_NODES: FakeNode[] = Array.from({ length: fakeNodeCount() }, (_, i) => ({
  name: `standin-node-${i + 1}`,
  ip: `172.18.${Math.floor((i + 2) / 256)}.${(i + 2) % 256}`,
  subnet: i + 1,
}));

// STANDIN_NODE_PODS raises the pod capacity (the kubelet's default --max-pods is 110) for the benchmarks in bench/.
const RESOURCES = {
  cpu: '32',
  memory: '128Gi',
  pods: process.env.STANDIN_NODE_PODS || '110',
  'ephemeral-storage': '500Gi',
};

function nodeStatus(node: FakeNode, registeredAt: number, now: number) {
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type,
    status,
    reason,
    message,
    lastHeartbeatTime: rfc3339(now),
    lastTransitionTime: rfc3339(registeredAt),
  });
  return {
    capacity: RESOURCES,
    allocatable: RESOURCES,
    conditions: [
      condition('MemoryPressure', 'False', 'KubeletHasSufficientMemory', 'kubelet has sufficient memory available'),
      condition('DiskPressure', 'False', 'KubeletHasNoDiskPressure', 'kubelet has no disk pressure'),
      condition('PIDPressure', 'False', 'KubeletHasSufficientPID', 'kubelet has sufficient PID available'),
      condition('Ready', 'True', 'KubeletReady', 'kubelet is posting ready status'),
    ],
    addresses: [
      { type: 'InternalIP', address: node.ip },
      { type: 'Hostname', address: node.name },
    ],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    // of what a 1.36 kubelet declares (k8s.io/component-helpers/nodedeclaredfeatures), the feature the stand-in serves
    // (lab/kubelet-exec.ts): with it the API server proxies a WebSocket exec to the kubelet as it is, instead of
    // translating it to SPDY (pkg/registry/core/pod/rest/subresources.go, ExecREST.Connect)
    declaredFeatures: ['ExtendWebSocketsToKubelet'],
    nodeInfo: {
      machineID: node.name,
      systemUUID: node.name,
      bootID: node.name,
      kernelVersion: '6.8.0-standin',
      osImage: 'kubectl-haptic node stand-in',
      containerRuntimeVersion: 'containerd://2.1.0',
      kubeletVersion: 'v1.36.3',
      operatingSystem: 'linux',
      architecture: 'amd64',
    },
  };
}

async function register(kube: Kube, node: FakeNode, registeredAt: number): Promise<void> {
  const labels = {
    'kubernetes.io/hostname': node.name,
    'kubernetes.io/os': 'linux',
    'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux',
    'beta.kubernetes.io/arch': 'amd64',
  };
  const cidr = `10.244.${node.subnet}.0/24`;
  await kube.apply(
    [
      {
        apiVersion: 'v1',
        kind: 'Node',
        metadata: { name: node.name, labels },
        spec: { podCIDR: cidr, podCIDRs: [cidr] },
      },
    ],
    'kubelet',
  );
  await patchStatus(kube, node, registeredAt);
  await renewLease(kube, node);
}

function patchStatus(kube: Kube, node: FakeNode, registeredAt: number): Promise<unknown> {
  return kube.patch(
    'v1',
    'Node',
    node.name,
    undefined,
    { status: nodeStatus(node, registeredAt, Date.now()) },
    { subresource: 'status' },
  );
}

function renewLease(kube: Kube, node: FakeNode): Promise<unknown> {
  return kube.apply(
    [
      {
        apiVersion: 'coordination.k8s.io/v1',
        kind: 'Lease',
        metadata: { name: node.name, namespace: 'kube-node-lease' },
        spec: { holderIdentity: node.name, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) },
      },
    ],
    'kubelet',
  );
}

/** Registers the nodes (resolves once they are Ready), then keeps their heartbeats fresh until the signal aborts. */
export async function startFakeNodes(kube: Kube, signal: AbortSignal): Promise<void> {
  const registeredAt = Date.now();
  await Promise.all(FAKE_NODES.map((node) => register(kube, node, registeredAt)));
  void (async () => {
    for (let tick = 1; !signal.aborted; tick++) {
      await sleep(10_000, signal);
      if (signal.aborted) break;
      await Promise.all(
        FAKE_NODES.map(async (node) => {
          await renewLease(kube, node);
          if (tick % 6 === 0) await patchStatus(kube, node, registeredAt);
        }),
      ).catch((error) => log('nodes', `heartbeat: ${errorText(error)}`)); // retried on the next tick
    }
  })();
}
