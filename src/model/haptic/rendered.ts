import type { RenderedServer } from './haptic-config.ts';

// Whether HAPTIC routes a workload's Service, by what its live config holds: a server for one of the workload's pods
// is the proof, whatever route rendered it. Route analysis (routes.ts) only explains a miss; it decides alone only
// when there is no pod to look for, or no config to look in. A server stands for a pod by its `# Pod:` comment (both
// generations write one: the dataplane generation's `SRV_<n>` slots, charts/haptic/libraries/base.yaml,
// BackendServers; the agent generation's servers named after the pod), or, without a comment, by its name or its
// address; a server of the pod's name at another address stands for an earlier pod of that name, not this one.

/** An installation as the evidence needs it: its id and its live config's servers. */
export interface InstallationConfig {
  namespace: string;
  templateConfig: string;
  config?: { name: string; servers: RenderedServer[] } | undefined;
}

/** A pod as the evidence needs it. */
export interface PodAddress {
  name: string;
  ip?: string | undefined;
}

/** A server of an installation's live config that stands for one of the pods. */
export interface RenderedServerOf {
  installation: string;
  config: string;
  pod: string;
  backend: string;
  server: string;
  address: string;
  disabled: boolean;
}

/** The IP of a server's address (`10.0.0.3:8080`, `[fd00::3]:8080`). */
export const ipOf = (address: string) =>
  address.startsWith('[') ? address.slice(1, address.indexOf(']')) : address.replace(/:\d+$/, '');

/** The servers of the installations' live configs that stand for these pods. */
export function renderedFor(installations: InstallationConfig[], pods: PodAddress[]): RenderedServerOf[] {
  if (!pods.length) return [];
  const byName = new Map(pods.map((p) => [p.name, p]));
  const byIp = new Map(pods.filter((p) => p.ip).map((p) => [p.ip!, p]));
  const found: RenderedServerOf[] = [];
  for (const inst of installations) {
    const config = inst.config;
    if (!config) continue;
    for (const s of config.servers) {
      const ip = ipOf(s.address);
      const pod = byName.get(s.pod) ?? (s.named ? undefined : byIp.get(ip));
      if (!pod || (pod.ip && ip !== pod.ip)) continue;
      found.push({
        installation: `${inst.namespace}/${inst.templateConfig}`,
        config: `${inst.namespace}/${config.name}`,
        pod: pod.name,
        backend: s.backend,
        server: s.server,
        address: s.address,
        disabled: s.disabled,
      });
    }
  }
  return found;
}

/** At most this many servers are named in evidence; the rest are counted. */
const NAMED = 3;

/** The evidence lines: which live config has which server for which pod. */
export function renderedEvidence(found: RenderedServerOf[]): string[] {
  const lines = found
    .slice(0, NAMED)
    .map(
      (s) =>
        `haproxycfg ${s.config}: backend ${s.backend} server ${s.server} ${s.address}${s.disabled ? ' disabled' : ''} → pod ${s.pod}`,
    );
  if (found.length > NAMED) lines.push(`… and ${found.length - NAMED} more servers for its pods`);
  return lines;
}
