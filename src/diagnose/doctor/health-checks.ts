// DR206: a plain HAProxy that reaches its servers by DNS learns that one stopped only from its health checks; if
// they take longer than the application's preStop keeps it serving, requests go to a dead server in between.
// HAPTIC's HAProxy is not checked: HAPTIC disables a terminating pod's server itself when its endpoint turns
// terminating, so its health checks are not what takes the server out.
import type { Deployment, StatefulSet } from '../../types/kube.ts';
import { detectionMs, type ServerView } from '../../model/doctor/haproxy-servers.ts';
import { containerViews } from '../../model/doctor/pod-template.ts';
import { preStopPlan } from '../../model/doctor/prestop.ts';
import { mapSelects } from '../../model/selectors.ts';
import { serviceOfHost } from '../../model/doctor/service-dns.ts';
import { finding } from '../make.ts';
import type { WorkloadFacts, DoctorEnv } from './context.ts';
import { locate, refName, refOf, type Located, type ObjectRef } from './located.ts';
import { preStopSeconds } from './shutdown.ts';

export interface Backend {
  ref: ObjectRef;
  workload: Deployment | StatefulSet;
  service: string;
}

/** The Deployments and StatefulSets a server's DNS name leads to, through the Service it names. */
export function backendsOf(host: string, namespace: string, env: DoctorEnv): Backend[] {
  const named = serviceOfHost(host, namespace, env.inputs.services);
  if (!named) return [];
  const svc = named.service;
  const inNs = <T extends Deployment | StatefulSet>(list: T[]) =>
    list.filter(
      (w) =>
        (w.metadata.namespace ?? '') === (svc.metadata.namespace ?? '') &&
        mapSelects(svc.spec?.selector, w.spec?.template?.metadata?.labels),
    );
  return [
    ...inNs(env.inputs.deployments).map((w) => ({
      ref: refOf('Deployment', w),
      workload: w as Deployment | StatefulSet,
      service: svc.metadata.name,
    })),
    ...inNs(env.inputs.statefulSets).map((w) => ({
      ref: refOf('StatefulSet', w),
      workload: w as Deployment | StatefulSet,
      service: svc.metadata.name,
    })),
  ];
}

/**
 * How long the workload keeps serving once told to stop: the longest known preStop wait of the containers serving
 * the port the server names (a Service port, or, through a headless Service, the container port itself).
 */
function servingDelay(
  b: Backend,
  port: number | undefined,
  env: DoctorEnv,
): { seconds: number; text: string } | undefined {
  const services = env.inputs.services.filter(
    (s) => s.metadata.name === b.service && (s.metadata.namespace ?? '') === b.ref.namespace,
  );
  const serving = containerViews(
    b.workload.spec.template.spec,
    b.workload.spec.template.metadata?.labels,
    services,
  ).filter((v) => v.serves.length);
  const views =
    port === undefined
      ? serving
      : serving.filter((v) => v.serves.some((x) => x.port === port || x.containerPort === port));
  let best: { seconds: number; text: string } | undefined;
  for (const v of views) {
    const plan = preStopPlan(v.container.lifecycle?.preStop);
    const s = preStopSeconds(plan);
    if (s !== undefined && s > 0 && (!best || s > best.seconds))
      best = { seconds: s, text: `container ${v.container.name} preStop: ${plan.text}` };
  }
  return best;
}

export function healthCheckRules(d: WorkloadFacts, env: DoctorEnv): Located[] {
  const config = d.config;
  if (!config || d.haptic) return [];
  const worst = new Map<
    string,
    { server: ServerView; backend: Backend; delay: { seconds: number; text: string }; detect: number }
  >();
  for (const server of config.facts.servers.filter((s) => s.check && s.host)) {
    for (const backend of backendsOf(server.host as string, d.namespace, env)) {
      const port = Number(/:(\d+)$/.exec(server.address)?.[1]) || undefined;
      const delay = servingDelay(backend, port, env);
      const detect = detectionMs(server) / 1000;
      if (!delay || detect <= delay.seconds) continue;
      const key = refName(backend.ref);
      if ((worst.get(key)?.detect ?? -1) < detect) worst.set(key, { server, backend, delay, detect });
    }
  }
  return [...worst.values()].flatMap(({ server, backend, delay, detect }) => {
    const evidence = [
      `${config.label} line ${server.line}: ${server.text}`,
      `health check: inter ${server.interMs / 1000}s${server.fastinterMs !== undefined ? `, fastinter ${server.fastinterMs / 1000}s` : ''}, fall ${server.fall}: down ${detect}s after the server stops answering`,
      `${server.host} → service/${backend.service} → ${refName(backend.ref)}`,
      `${refName(backend.ref)} ${delay.text} (${delay.seconds}s)`,
    ];
    const args = {
      config: config.label,
      server: server.name,
      detect,
      workload: refName(backend.ref),
      delay: delay.seconds,
    };
    const at = config.key ? { at: { key: config.key, line: server.line } } : {};
    return locate(config.ref, [finding('DR206', args, evidence)]).map((f) => ({ ...f, ...at }));
  });
}
