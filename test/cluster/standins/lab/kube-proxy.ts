// kube-proxy's part in the lab: Service ClusterIPs made real with nftables in the node's namespace, as kube-proxy's
// nftables mode does (pkg/proxy/nftables/proxier.go): a connection to ClusterIP:port is DNATed, in the prerouting
// hook (from pods) and the output hook (from the node), to one endpoint picked at random; a Service port with no
// usable endpoint is rejected (the client sees "connection refused"). Usable endpoints are the ready ones; when
// none is ready, the serving ones that are terminating (KEP-1669, "ProxyTerminatingEndpoints"). TCP only, no
// session affinity, no NodePorts, no masquerading (so a pod cannot reach itself through its own Service).
// A change reaches the rules `propagationMs` after kube-proxy sees it, and syncs happen at most once per
// min-sync-period (kube-proxy's --min-sync-period, 1 s by default). The propagation stands for what makes a real
// node lag behind the API: the EndpointSlice update reaching every node's kube-proxy, its sync queue in a busy
// cluster, the time an iptables/nftables restore takes. Kubernetes' docs say endpoint removal "propagates" while
// the pod is already terminating ("Termination of Pods"); seed 004 measured 5 to 10 s on GKE; the lab uses 2 s.
import { spawn } from 'node:child_process';
import type { Kube } from '../../kube.ts';
import { errorText, informerLog, log, type Obj } from '../common.ts';

export const TABLE = 'kubectl-haptic-lab';

export type Rule = { ip: string; port: number; endpoints: { ip: string; port: number }[] };

/** The rules for every ClusterIP Service port (TCP), endpoints sorted. Pure. */
export function serviceRules(services: Obj[], slices: Obj[]): Rule[] {
  const rules: Rule[] = [];
  for (const svc of services) {
    const ip: string | undefined = svc.spec?.clusterIP;
    if (!ip || ip === 'None') continue;
    const own = slices.filter(
      (s) =>
        s.metadata.namespace === svc.metadata.namespace &&
        s.metadata.labels?.['kubernetes.io/service-name'] === svc.metadata.name &&
        (s.addressType ?? 'IPv4') === 'IPv4',
    );
    for (const port of svc.spec.ports ?? []) {
      if ((port.protocol ?? 'TCP') !== 'TCP') continue;
      const ready: { ip: string; port: number }[] = [];
      const terminating: { ip: string; port: number }[] = [];
      for (const slice of own) {
        const slicePort = (slice.ports ?? []).find((p: { name?: string }) => (p.name ?? '') === (port.name ?? ''));
        if (!slicePort?.port) continue;
        for (const endpoint of slice.endpoints ?? []) {
          const c = endpoint.conditions ?? {};
          const target = { ip: endpoint.addresses[0] as string, port: slicePort.port as number };
          if (c.ready !== false) ready.push(target);
          else if (c.serving === true && c.terminating === true) terminating.push(target);
        }
      }
      const chosen = ready.length ? ready : terminating;
      const unique = [...new Map(chosen.map((e) => [`${e.ip}:${e.port}`, e])).values()].sort((a, b) =>
        `${a.ip}:${a.port}`.localeCompare(`${b.ip}:${b.port}`),
      );
      rules.push({ ip, port: port.port, endpoints: unique });
    }
  }
  return rules.sort((a, b) => `${a.ip}:${a.port}`.localeCompare(`${b.ip}:${b.port}`));
}

/** The whole table as one nft transaction that replaces the previous one atomically. Pure. */
export function nftScript(rules: Rule[]): string {
  const empty = rules.filter((r) => r.endpoints.length === 0);
  const lines = [
    `table ip ${TABLE} {`,
    '}',
    `delete table ip ${TABLE}`,
    `table ip ${TABLE} {`,
    '  set no-endpoints {',
    '    type ipv4_addr . inet_service',
    ...(empty.length ? [`    elements = { ${empty.map((r) => `${r.ip} . ${r.port}`).join(', ')} }`] : []),
    '  }',
    '  chain services {',
    ...rules
      .filter((r) => r.endpoints.length)
      .map((r) => {
        const map = r.endpoints.map((e, i) => `${i} : ${e.ip} . ${e.port}`).join(', ');
        return `    ip daddr ${r.ip} tcp dport ${r.port} dnat ip to numgen random mod ${r.endpoints.length} map { ${map} }`;
      }),
    '  }',
    '  chain endpoints-check {',
    '    ip daddr . tcp dport @no-endpoints reject',
    '  }',
    // filter before DNAT (priority -110 < -100), as kube-proxy's filter-prerouting / filter-output chains
    '  chain filter-prerouting {',
    '    type filter hook prerouting priority -110',
    '    jump endpoints-check',
    '  }',
    '  chain filter-output {',
    '    type filter hook output priority -110',
    '    jump endpoints-check',
    '  }',
    '  chain nat-prerouting {',
    '    type nat hook prerouting priority -100',
    '    jump services',
    '  }',
    '  chain nat-output {',
    '    type nat hook output priority -100',
    '    jump services',
    '  }',
    '}',
  ];
  return `${lines.join('\n')}\n`;
}

function nft(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn('nft', ['-f', '-'], { stdio: ['pipe', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`nft: ${stderr.trim()}`))));
    child.stdin.end(script);
  });
}

export async function runKubeProxy(
  kube: Kube,
  signal: AbortSignal,
  propagationMs = 2000,
  minSyncMs = 1000,
): Promise<void> {
  let last = 0;
  let timer: NodeJS.Timeout | undefined;
  let running = false;
  let again = false;
  let applied = '';
  const sync = async (): Promise<void> => {
    if (running) {
      again = true;
      return;
    }
    running = true;
    try {
      do {
        again = false;
        last = Date.now();
        const script = nftScript(serviceRules(services.items(), slices.items()));
        if (script !== applied) {
          // a failed sync is never taken as applied: kube-proxy's sync runner runs it again after its retry interval
          // (pkg/proxy/nftables/proxier.go: runner.NewBoundedFrequencyRunner(…, minSyncPeriod, syncPeriod, …), the
          // retry being --sync-period, 30 s by default; pkg/proxy/runner/bounded_frequency_runner.go). The lab
          // compresses it to the min sync period, as it compresses the propagation (above)
          const ok = await nft(script).then(
            () => true,
            (error: unknown) => {
              log('kube-proxy', `sync failed, retrying in ${minSyncMs} ms: ${errorText(error)}`);
              return false;
            },
          );
          if (ok) applied = script;
          else setTimeout(changed, minSyncMs);
        }
      } while (again && !signal.aborted);
    } finally {
      running = false;
    }
  };
  const changed = () => {
    if (timer || signal.aborted) return;
    timer = setTimeout(
      () => {
        timer = undefined;
        void sync();
      },
      Math.max(propagationMs, last + minSyncMs - Date.now()),
    );
  };
  const services = await kube.informer<Obj>(
    'v1',
    'Service',
    {},
    { onObject: changed, onError: informerLog('kube-proxy: services') },
    signal,
  );
  const slices = await kube.informer<Obj>(
    'discovery.k8s.io/v1',
    'EndpointSlice',
    {},
    { onObject: changed, onError: informerLog('kube-proxy: endpointslices') },
    signal,
  );
  await Promise.all([services.whenSynced, slices.whenSynced]);
  await sync();
  signal.addEventListener('abort', () => clearTimeout(timer), { once: true });
  log(
    'kube-proxy',
    `Service ClusterIPs programmed in nftables table ip ${TABLE} (changes applied ${propagationMs} ms after seen, min sync period ${minSyncMs} ms)`,
  );
}
