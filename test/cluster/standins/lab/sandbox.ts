// A pod's network sandbox, as a CNI plugin makes it (Calico's point-to-point layout): the pod's own network
// namespace with `eth0` holding the pod IP as a /32 and a default route through 169.254.1.1, the node's end of the
// veth answering ARP for it (proxy_arp), and on the node a /32 route to the pod IP through that veth. Pods reach
// each other and Service ClusterIPs (kube-proxy.ts) through the node's namespace, where the lab runs.
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type Sandbox = { netns: string; hostVeth: string; ip: string };

/** Names that fit the kernel's 15-character interface names, from the pod's UID. */
export function sandboxNames(labNetns: string, uid: string): { netns: string; hostVeth: string } {
  const id = uid.replace(/-/g, '').slice(0, 10);
  return { netns: `${labNetns}-${id}`, hostVeth: `kv${id}` };
}

async function batch(commands: string[], netns?: string): Promise<void> {
  const child = run('ip', [...(netns ? ['-n', netns] : []), '-batch', '-']);
  child.child.stdin!.end(`${commands.join('\n')}\n`);
  await child;
}

export async function createSandbox(labNetns: string, uid: string, ip: string): Promise<Sandbox> {
  const { netns, hostVeth } = sandboxNames(labNetns, uid);
  await run('ip', ['netns', 'add', netns]);
  try {
    await batch([
      `link add ${hostVeth} type veth peer name eth0 netns ${netns}`,
      `link set ${hostVeth} up`,
      `route add ${ip}/32 dev ${hostVeth}`,
    ]);
    writeFileSync(`/proc/sys/net/ipv4/conf/${hostVeth}/proxy_arp`, '1');
    await batch(
      [
        'link set lo up',
        `addr add ${ip}/32 dev eth0`,
        'link set eth0 up',
        'route add 169.254.1.1 dev eth0 scope link',
        'route add default via 169.254.1.1 dev eth0',
      ],
      netns,
    );
  } catch (error) {
    await destroySandbox({ netns, hostVeth, ip });
    throw error;
  }
  return { netns, hostVeth, ip };
}

/** Deleting the namespace deletes the pod's end of the veth, which takes the node's end and its route with it. */
export async function destroySandbox(sandbox: Sandbox): Promise<void> {
  await run('ip', ['netns', 'del', sandbox.netns]).catch(() => {});
}
