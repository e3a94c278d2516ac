// The fake Node objects: registered Ready with room for pods, no taints, heartbeats kept fresh through the node
// Lease (every 10 s) and the Ready condition's lastHeartbeatTime (every minute), as the kubelet does.
import type { Kube } from '../kube.ts';
import { errorText, log, microTime, rfc3339, sleep } from './common.ts';

export type FakeNode = { name: string; ip: string; subnet: number };

export const FAKE_NODES: FakeNode[] = [
  { name: 'standin-node-1', ip: '172.18.0.2', subnet: 1 },
  { name: 'standin-node-2', ip: '172.18.0.3', subnet: 2 },
];

// STANDIN_NODE_PODS raises the pod capacity (the kubelet's default is 110) for the 300-replica benchmarks in bench/.
const RESOURCES = { cpu: '32', memory: '128Gi', pods: process.env.STANDIN_NODE_PODS || '110', 'ephemeral-storage': '500Gi' };

function nodeStatus(node: FakeNode, registeredAt: number, now: number) {
  const condition = (type: string, status: string, reason: string, message: string) => ({
    type, status, reason, message, lastHeartbeatTime: rfc3339(now), lastTransitionTime: rfc3339(registeredAt),
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
    addresses: [{ type: 'InternalIP', address: node.ip }, { type: 'Hostname', address: node.name }],
    daemonEndpoints: { kubeletEndpoint: { Port: 10250 } },
    nodeInfo: {
      machineID: node.name, systemUUID: node.name, bootID: node.name, kernelVersion: '6.8.0-standin',
      osImage: 'kubectl-haptic node stand-in', containerRuntimeVersion: 'containerd://2.1.0',
      kubeletVersion: 'v1.36.3', operatingSystem: 'linux', architecture: 'amd64',
    },
  };
}

async function register(kube: Kube, node: FakeNode, registeredAt: number): Promise<void> {
  const labels = {
    'kubernetes.io/hostname': node.name, 'kubernetes.io/os': 'linux', 'kubernetes.io/arch': 'amd64',
    'beta.kubernetes.io/os': 'linux', 'beta.kubernetes.io/arch': 'amd64',
  };
  const cidr = `10.244.${node.subnet}.0/24`;
  await kube.apply([{ apiVersion: 'v1', kind: 'Node', metadata: { name: node.name, labels },
    spec: { podCIDR: cidr, podCIDRs: [cidr] } }], 'kubelet');
  await patchStatus(kube, node, registeredAt);
  await renewLease(kube, node);
}

function patchStatus(kube: Kube, node: FakeNode, registeredAt: number): Promise<unknown> {
  return kube.patch('v1', 'Node', node.name, undefined, { status: nodeStatus(node, registeredAt, Date.now()) }, { subresource: 'status' });
}

function renewLease(kube: Kube, node: FakeNode): Promise<unknown> {
  return kube.apply([{
    apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: node.name, namespace: 'kube-node-lease' },
    spec: { holderIdentity: node.name, leaseDurationSeconds: 40, renewTime: microTime(Date.now()) },
  }], 'kubelet');
}

/** Registers the nodes (resolves once they are Ready), then keeps their heartbeats fresh until the signal aborts. */
export async function startFakeNodes(kube: Kube, signal: AbortSignal): Promise<void> {
  const registeredAt = Date.now();
  await Promise.all(FAKE_NODES.map((node) => register(kube, node, registeredAt)));
  void (async () => {
    for (let tick = 1; !signal.aborted; tick++) {
      await sleep(10_000, signal);
      if (signal.aborted) break;
      await Promise.all(FAKE_NODES.map(async (node) => {
        await renewLease(kube, node);
        if (tick % 6 === 0) await patchStatus(kube, node, registeredAt);
      })).catch((error) => log('nodes', `heartbeat: ${errorText(error)}`)); // retried on the next tick
    }
  })();
}
