// DR501–DR502: what endpoints say is not what the pod can take. The EndpointSlice controller: `serving` = the pod
// is Ready, `terminating` = it has a deletionTimestamp, `ready` = publishNotReadyAddresses OR (serving AND NOT
// terminating). kube-proxy sends new connections to serving terminating endpoints when a Service has no ready one
// (ProxyTerminatingEndpoints, GA in 1.28).
import type { EndpointSlice } from '../../types/kube.ts';
import { selectorMatches } from '../../model/selectors.ts';
import { finding } from '../make.ts';
import type { WorkloadFacts, DoctorEnv } from './context.ts';
import { locate, refOf, type Located } from './located.ts';

const SERVICE_LABEL = 'kubernetes.io/service-name';

/** DR501: a Service that lists the gated pods ready before the gate. */
function publishedNotReady(d: WorkloadFacts): Located[] {
  if (!d.gated) return [];
  return d.selecting
    .filter((s) => s.spec.publishNotReadyAddresses === true)
    .flatMap((svc) =>
      locate(refOf('Service', svc, d.namespace), [
        finding('DR501', { service: svc.metadata.name, name: d.name, workload: d.label }, [
          `service/${svc.metadata.name}: publishNotReadyAddresses: true, selector ${Object.entries(
            svc.spec.selector ?? {},
          )
            .map(([k, v]) => `${k}=${v}`)
            .join(',')}`,
          `deployment ${d.name}: spec.template.spec.readinessGates lists ${(d.spec.readinessGates ?? []).map((g) => g.conditionType).join(', ')}`,
        ]),
      ]),
    );
}

/** DR502 (live): endpoints of the Deployment's pods that are terminating and still serving. */
function terminatingServing(d: WorkloadFacts, env: DoctorEnv): Located[] {
  const pods = new Set(
    env.inputs.pods
      .filter(
        (p) => p.metadata.namespace === d.namespace && selectorMatches(d.workload.spec.selector, p.metadata.labels),
      )
      .map((p) => p.metadata.name),
  );
  const found: Located[] = [];
  for (const svc of d.selecting) {
    const slices = env.inputs.slices.filter(
      (s: EndpointSlice) =>
        s.metadata.namespace === d.namespace && s.metadata.labels?.[SERVICE_LABEL] === svc.metadata.name,
    );
    const endpoints = slices.flatMap((slice) =>
      (slice.endpoints ?? []).map((e) => ({
        slice: slice.metadata.name,
        e,
        c: {
          ready: e.conditions?.ready ?? true,
          serving: e.conditions?.serving ?? true,
          terminating: e.conditions?.terminating ?? false,
        },
      })),
    );
    const mine = endpoints.filter(
      ({ e, c }) => c.terminating && c.serving && e.targetRef?.kind === 'Pod' && pods.has(e.targetRef.name ?? ''),
    );
    if (!mine.length) continue;
    const all = endpoints.every(({ c }) => c.terminating);
    const evidence = mine.map(
      ({ slice, e, c }) =>
        `endpointslice/${slice}: pod ${e.targetRef?.name} ${e.addresses.join(',')} ready=${c.ready} serving=${c.serving} terminating=${c.terminating}`,
    );
    evidence.push(
      all
        ? `service/${svc.metadata.name}: all ${endpoints.length} endpoints are terminating, none is ready`
        : `service/${svc.metadata.name}: ${endpoints.filter(({ c }) => c.ready).length} of ${endpoints.length} endpoints ready`,
    );
    const args = {
      count: mine.length,
      service: svc.metadata.name,
      pods:
        mine
          .slice(0, 3)
          .map(({ e }) => e.targetRef?.name)
          .join(', ') + (mine.length > 3 ? ` and ${mine.length - 3} more` : ''),
    };
    found.push(
      ...locate(refOf('Service', svc, d.namespace), [
        finding('DR502', args, evidence, { variant: all ? 'allTerminating' : 'someTerminating' }),
      ]),
    );
  }
  return found;
}

export function endpointRules(d: WorkloadFacts, env: DoctorEnv): Located[] {
  return [...publishedNotReady(d), ...terminatingServing(d, env)];
}
