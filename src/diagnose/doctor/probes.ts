// DR101, DR103, DR104: the probes of a Deployment's containers. Scoped the way kube-score's false positives taught:
// only containers that serve a Service port are asked for a readinessProbe or a split liveness endpoint (a worker
// behind no Service needs neither), named ports are resolved before endpoints are compared (kube-score compared
// them as 0 = 0), and a shared endpoint whose liveness fires later than readiness is a warning, not an error
// (kube-score issues #296, #339).
import type { Container, Probe } from '../../types/kube.ts';
import { resolveContainerPort } from '../../model/doctor/pod-template.ts';
import type { Finding } from '../../types/finding.ts';
import { finding } from '../make.ts';
import type { HAProxyConfigView, WorkloadFacts } from './context.ts';
import type { ContainerView } from '../../model/doctor/pod-template.ts';
import { locate, type Located } from './located.ts';

const PROBES = ['livenessProbe', 'readinessProbe', 'startupProbe'] as const;

/** Seconds of failing probes before the kubelet acts: periodSeconds × failureThreshold (defaults 10 and 3). */
export function probeWindow(p: Probe): number {
  return (p.periodSeconds ?? 10) * (p.failureThreshold ?? 3);
}

function portText(c: Container, port: number | string): string {
  const n = resolveContainerPort(c, port);
  return typeof port === 'string' && !/^\d+$/.test(port) ? `${port}${n === undefined ? '' : ` (${n})`}` : String(port);
}

/** What a probe calls, as a key to compare (named ports resolved, defaults filled) and as words for evidence. */
export function probeEndpoint(c: Container, p: Probe): { key: string; text: string } | undefined {
  if (p.httpGet) {
    const h = p.httpGet;
    const scheme = (h.scheme ?? 'HTTP').toUpperCase();
    const path = h.path || '/';
    const headers = (h.httpHeaders ?? []).map((x) => `${x.name.toLowerCase()}=${x.value}`).sort();
    const names = (h.httpHeaders ?? []).map((x) => x.name);
    const key = ['http', scheme, h.host ?? '', resolveContainerPort(c, h.port) ?? h.port, path, ...headers].join('|');
    // header values may be credentials: evidence names the headers only
    return {
      key,
      text: `httpGet ${scheme} :${portText(c, h.port)}${path}${h.host ? ` host ${h.host}` : ''}${names.length ? ` headers ${names.join(', ')}` : ''}`,
    };
  }
  if (p.tcpSocket)
    return {
      key: ['tcp', p.tcpSocket.host ?? '', resolveContainerPort(c, p.tcpSocket.port) ?? p.tcpSocket.port].join('|'),
      text: `tcpSocket :${portText(c, p.tcpSocket.port)}`,
    };
  if (p.grpc)
    return {
      key: ['grpc', p.grpc.port, p.grpc.service ?? ''].join('|'),
      text: `grpc :${p.grpc.port}${p.grpc.service ? ` service ${p.grpc.service}` : ''}`,
    };
  if (p.exec && Array.isArray(p.exec.command))
    return { key: `exec|${JSON.stringify(p.exec.command)}`, text: `exec ${JSON.stringify(p.exec.command)}` };
  return undefined;
}

const timing = (p: Probe) =>
  `periodSeconds ${p.periodSeconds ?? 10} × failureThreshold ${p.failureThreshold ?? 3} = ${probeWindow(p)}s`;

/**
 * DR101: one endpoint answers both "restart me?" and "send me traffic?" — the trap when that endpoint checks
 * something the replicas share (seed 004). Only an HTTP endpoint or a command can: a tcpSocket probe sees the
 * listening socket and a gRPC probe the process's own health service, and an HAProxy `monitor-uri` with no
 * `monitor fail` answers 200 whenever HAProxy runs. It is an error only with evidence that the endpoint fails on
 * something the replicas share — an HAProxy `monitor fail` condition (seed 004's `nbsrv(bk_redis_master) lt 1`);
 * what an application's own endpoint checks is its code's, so without evidence it is a warning (live, DR102 sees
 * the restarts themselves).
 */
function sharedEndpoint(view: ContainerView, config: HAProxyConfigView | undefined): Finding | undefined {
  const c = view.container;
  const { livenessProbe: live, readinessProbe: ready } = c;
  if (!live || !ready || !(live.httpGet || live.exec)) return undefined;
  const a = probeEndpoint(c, live);
  const b = probeEndpoint(c, ready);
  if (!a || !b || a.key !== b.key) return undefined;
  const monitor = view.haproxy ? config?.facts.monitors.find((m) => m.uri === (live.httpGet?.path || '/')) : undefined;
  if (monitor && !monitor.fails) return undefined;
  const args = { container: c.name, endpoint: a.text, liveness: probeWindow(live), readiness: probeWindow(ready) };
  const first = probeWindow(live) <= probeWindow(ready);
  const variant = live.exec ? 'exec' : !first ? 'later' : monitor ? 'restartsFirst' : 'sharedFirst';
  return finding(
    'DR101',
    args,
    [
      `container ${c.name} livenessProbe: ${a.text}, ${timing(live)}`,
      `container ${c.name} readinessProbe: ${b.text}, ${timing(ready)}`,
      ...(monitor && config
        ? [
            `${config.label} line ${monitor.line}: monitor-uri ${monitor.uri} in ${monitor.section}, which has a monitor fail condition: it answers 503 on every replica at once when that condition holds`,
          ]
        : []),
    ],
    { variant },
  );
}

/** DR104: a named probe port the container does not declare. */
function undeclaredPorts(c: Container): Finding[] {
  return PROBES.flatMap((probe) => {
    const p = c[probe];
    const port = p?.httpGet?.port ?? p?.tcpSocket?.port;
    if (typeof port !== 'string' || /^\d+$/.test(port) || resolveContainerPort(c, port) !== undefined) return [];
    const declared = (c.ports ?? []).map((x) => `${x.name ?? '-'}:${x.containerPort}`).join(', ') || 'none';
    return [
      finding('DR104', { container: c.name, probe, port }, [
        `container ${c.name} ${probe}: ${probeEndpoint(c, p as Probe)?.text}`,
        `container ${c.name} ports: ${declared}`,
      ]),
    ];
  });
}

export function probeRules(d: WorkloadFacts): Located[] {
  const found: Finding[] = [];
  for (const view of d.containers) {
    const c = view.container;
    if (view.serves.length) {
      const shared = sharedEndpoint(view, d.config);
      if (shared) found.push(shared);
      if (!c.readinessProbe) {
        const s = view.serves[0]!;
        const evidence = view.serves.map(
          (x) =>
            `service/${x.service} port ${x.port} → targetPort ${x.targetPort} → container ${c.name} port ${x.containerPort}`,
        );
        evidence.push(`container ${c.name}: no readinessProbe${c.livenessProbe ? ' (it has a livenessProbe)' : ''}`);
        if (d.gated)
          evidence.push(
            `spec.template.spec.readinessGates: ${(d.spec.readinessGates ?? []).map((g) => g.conditionType).join(', ')}`,
          );
        found.push(
          finding(
            'DR103',
            { container: c.name, service: s.service, port: s.port, containerPort: s.containerPort },
            evidence,
            { variant: d.gated ? 'gated' : 'ungated' },
          ),
        );
      }
    }
    found.push(...undeclaredPorts(c));
  }
  return locate(d.ref, found);
}
