// The lab's network namespace: the "node" every lab component runs in (control plane, stand-ins, HAProxy, the
// pods' processes and the load), made with iproute2 as root. Inside it:
// - loopback up; the fake nodes' InternalIPs (172.18.0.2, .3) on it, where the node stand-in serves the kubelet API;
// - a veth pair `khl0`/`khl1` (both ends inside) that carries the default route: an address with no more specific
//   route (a pod that is gone, a ClusterIP without a rule) gets no ARP answer, so a connection to it fails after the
//   kernel's ARP timeout (~3 s, EHOSTUNREACH), as on a node whose pod has gone;
// - IP forwarding on, so pods (each in its own namespace, standins/lab/sandbox.ts) reach each other through it.
// Nothing is routed out of it: it has no interface to the host's namespace.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { FAKE_NODES } from '../standins/fake-nodes.ts';

const NETNS_DIR = '/run/netns';

/** The name of a lab's namespace; pod namespaces are named `<it>-<pod uid prefix>`. */
export function labNetnsName(cluster: string): string {
  return `khlab-${cluster}`.slice(0, 40);
}

function ip(args: string[], netns?: string): void {
  const full = netns ? ['netns', 'exec', netns, 'ip', ...args] : args;
  execFileSync('ip', full, { stdio: ['ignore', 'ignore', 'pipe'] });
}

/** Why this machine cannot run the lab, or undefined when it can (root, iproute2, nft, haproxy). */
export function labUnavailable(): string | undefined {
  if (process.getuid?.() !== 0) return 'the lab needs root: it makes network namespaces (run it as root, as CI does)';
  for (const [tool, pkg] of [
    ['ip', 'iproute2'],
    ['nft', 'nftables'],
    ['haproxy', 'haproxy'],
    ['unshare', 'util-linux'],
    ['nsenter', 'util-linux'],
  ] as const) {
    if (spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0)
      return `the lab needs ${tool} (Debian package ${pkg}; CI installs it: .ci/run)`;
  }
  return undefined;
}

/** Creates the namespace afresh (an earlier one of the same name is removed first, with its pods' namespaces). */
export function createLabNetns(name: string): void {
  deleteLabNetns(name);
  ip(['netns', 'add', name]);
  try {
    ip(['link', 'set', 'lo', 'up'], name);
    for (const node of FAKE_NODES) ip(['addr', 'add', `${node.ip}/32`, 'dev', 'lo'], name);
    ip(['link', 'add', 'khl0', 'type', 'veth', 'peer', 'name', 'khl1'], name);
    ip(['link', 'set', 'khl0', 'up'], name);
    ip(['link', 'set', 'khl1', 'up'], name);
    // the default route: pods' sandboxes answer ARP for their gateway 169.254.1.1 through it (proxy_arp)
    ip(['route', 'add', 'default', 'dev', 'khl0'], name);
    execFileSync('ip', ['netns', 'exec', name, 'sysctl', '-q', '-w', 'net.ipv4.ip_forward=1'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
  } catch (error) {
    deleteLabNetns(name);
    throw error;
  }
}

/** The lab's pod namespaces (made by the node stand-in), by name. */
export function podNetnsNames(name: string): string[] {
  if (!existsSync(NETNS_DIR)) return [];
  return readdirSync(NETNS_DIR).filter((n) => n.startsWith(`${name}-`));
}

/**
 * Removes the lab's namespace and its pods' namespaces, killing any process still in one of them first (a pod's
 * process outliving a stopped stand-in). Safe to call when nothing exists.
 */
export function deleteLabNetns(name: string): void {
  removeNetns([...podNetnsNames(name), ...(existsSync(`${NETNS_DIR}/${name}`) ? [name] : [])]);
}

/** Removes only the pods' namespaces of a lab (a stopped lab cluster leaves none behind). */
export function deletePodNetns(name: string): void {
  removeNetns(podNetnsNames(name));
}

function removeNetns(names: string[]): void {
  for (const ns of names) killProcessesIn(ns);
  for (const ns of names) spawnSync('ip', ['netns', 'del', ns], { stdio: 'ignore' });
}

/** SIGKILL to every process in a namespace (`ip netns pids`), then waits until they are gone (at most 5 s). */
export function killProcessesIn(ns: string): void {
  const pids = () =>
    spawnSync('ip', ['netns', 'pids', ns], { encoding: 'utf8' })
      .stdout.split('\n')
      .map(Number)
      .filter((p) => p > 0 && p !== process.pid);
  const deadline = Date.now() + 5000;
  for (let left = pids(); left.length && Date.now() < deadline; left = pids()) {
    for (const pid of left) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    spawnSync('sleep', ['0.05']);
  }
}

/** Whether this process runs inside the named namespace (same namespace inode as /run/netns/<name>). */
export function insideNetns(name: string): boolean {
  const file = `${NETNS_DIR}/${name}`;
  if (!existsSync(file)) return false;
  try {
    return statSync('/proc/self/ns/net').ino === statSync(file).ino;
  } catch {
    return false;
  }
}

/** argv that runs a command inside the namespace. */
export function inNetns(name: string, command: string[]): string[] {
  return ['ip', 'netns', 'exec', name, ...command];
}
