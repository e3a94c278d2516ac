import { judgedIn, type PortNameMiss, type PortNames } from '../../model/haptic/frozen-render.ts';
import type { HapticModel, Installation } from '../../model/haptic/haptic.ts';
import type { PodView } from '../../model/rollout/pod.ts';
import type { Routing } from '../../model/haptic/routes.ts';
import { ageMs, formatAge } from '../../model/time.ts';
import type { Finding } from '../../types/finding.ts';
import type { Service } from '../../types/kube.ts';
import { finding } from '../make.ts';
import { installationId } from './haptic.ts';

// A render that fails where HAPTIC writes nothing about it (model/haptic/frozen-render.ts), found as a person finds
// it: a route that names a port name its Service lacks, which fails the agent generation's whole render, and a live
// config that stays as it was while the cluster changes (pods created after it was rendered, ready, listed in their
// Service's EndpointSlice, and still without a server). Enable-gate's preflight (HG124) and why-stalled (HS115)
// share it.

/** How many failing routes, and unjudged ones, evidence names; the rest are counted. */
const SHOWN = 5;

/**
 * How long a pod may have had ready containers without a server in a live config rendered before it existed, before
 * that counts as a render that fails: HAPTIC renders on every EndpointSlice change after a debounce of a moment
 * (pkg/controller/configchange/handler.go, DefaultDebounceInterval), and deploys every minDeploymentInterval (2 s).
 */
export const FROZEN_AFTER_MS = 30_000;

/** An installation's routes that name a Service port by name, judged also against the Services of `namespace`. */
export function portNameFailures(inst: Installation, services: Service[], namespace: string): PortNames | undefined {
  return inst.portNames && judgedIn(inst.portNames, services, namespace);
}

const more = (n: number, what: string) => (n > 0 ? [`(+${n} more ${what})`] : []);

/** The failing routes, one line each: the route, the port name, the Service's ports. */
export function missLines(inst: Installation, misses: PortNameMiss[]): string[] {
  return [
    ...misses
      .slice(0, SHOWN)
      .map(
        (m) =>
          `${m.route} names port ${m.port} of service/${m.service} (namespace ${m.namespace}), whose ports are ${m.ports}: ResolveServicePort fails HAPTIC ${installationId(inst)}'s whole render on it`,
      ),
    ...more(misses.length - SHOWN, 'routes like it'),
  ];
}

/** The routes that could not be judged, one line per reason. */
export function unjudgedLines(names: PortNames): string[] {
  const byReason = new Map<string, string[]>();
  for (const r of names.unjudged) byReason.set(r.reason, [...(byReason.get(r.reason) ?? []), r.route]);
  return [...byReason].map(([reason, routes]) => {
    const named = [...new Set(routes)];
    const shown = named.slice(0, SHOWN).join(', ') + (named.length > SHOWN ? ` (+${named.length - SHOWN} more)` : '');
    return `whether ${shown} name${named.length === 1 ? 's' : ''} a port their Service has cannot be told: ${reason}`;
  });
}

/** When the live config was rendered, and which of these pods came after it: what "it has not changed since" rests on. */
export function configAge(inst: Installation, pods: PodView[], now: number): { lines: string[]; after: PodView[] } {
  const c = inst.config;
  const rendered = c?.writtenAt ? Date.parse(c.writtenAt) : Number.NaN;
  if (!c || !Number.isFinite(rendered)) return { lines: [], after: [] };
  const after = pods.filter((p) => p.createdAt && Date.parse(p.createdAt) > rendered);
  const lines = [
    `haproxycfg ${inst.namespace}/${c.name}: last rendered ${formatAge(now - rendered)} ago (${c.writtenAt}), checksum ${c.checksum ?? 'none'}`,
  ];
  const first = after[0];
  if (first) {
    const age = ageMs(first.createdAt, now);
    lines.push(
      `pod ${first.name}${after.length > 1 ? ` and ${after.length - 1} more` : ''} created ${age === undefined ? '' : `${formatAge(age)} ago, `}after that render: no config since has its server`,
    );
  }
  return { lines, after };
}

/** Whether a route this installation renders reaches one of the workload's Services (or that cannot be told). */
export function routesWorkload(inst: Installation, routing: Routing | undefined): boolean {
  if (!routing) return true;
  const id = installationId(inst);
  const admitted = routing.services.some((s) => s.routes.some((r) => !r.miss && r.admittedBy.includes(id)));
  return admitted || !routing.conclusive;
}

/**
 * Waiting pods (ready containers, the gate not set) that this installation's live config has no server for, while
 * they are listed in a Service's EndpointSlice: what a render would add at once.
 */
export function unrendered(inst: Installation, waiting: PodView[]): PodView[] {
  const id = installationId(inst);
  return waiting.filter(
    (p) => !p.haproxyUnreadable && p.endpoints.length > 0 && !p.haproxy.some((h) => h.installation === id),
  );
}

/**
 * The live config has not changed since before these pods existed, every HAProxy pod runs it, and the pods have
 * waited with ready containers longer than a render takes: nothing renders. The pods that show it, or none.
 */
export function frozenSince(inst: Installation, pods: PodView[], now: number): PodView[] {
  const live = inst.haproxyPods.filter((p) => p.discovered);
  if (!live.length || !live.every((p) => p.current)) return [];
  const { after } = configAge(inst, pods, now);
  return after.filter((p) => (p.containersReady.forMs ?? 0) > FROZEN_AFTER_MS);
}

/**
 * HG124, for enable-gate: an installation whose renders all fail on a port name a Service lacks routes no new pod
 * of any workload, this one's included; where the Services of such a route could not be read, that is said.
 */
export function frozenRenderChecks(haptic: HapticModel, services: Service[], namespace: string): Finding[] {
  return haptic.installations.flatMap((inst) => {
    const names = portNameFailures(inst, services, namespace);
    if (!names) return [];
    const installation = installationId(inst);
    const first = names.misses[0];
    const c = inst.config;
    if (first)
      return [
        finding(
          'HG124',
          {
            installation,
            route: first.route,
            routeResource: first.resource,
            port: first.port,
            service: first.service,
            serviceNamespace: first.namespace,
          },
          [
            ...missLines(inst, names.misses),
            ...(c
              ? [
                  `haproxycfg ${inst.namespace}/${c.name}${c.writtenAt ? `, last rendered at ${c.writtenAt}` : ''} (checksum ${c.checksum ?? 'none'}): what every HAProxy pod keeps running until the route is fixed`,
                ]
              : []),
            `haproxytemplateconfig ${installation}: ${inst.validated ? `Validated=${inst.validated.status}${inst.validated.reason ? ` ${inst.validated.reason}` : ''}` : 'no validation status'} (HAPTIC's status updater does not hear of a render that fails)`,
          ],
          { variant: 'portName' },
        ),
      ];
    if (!names.unjudged.length) return [];
    return [
      finding('HG124', { installation, count: names.unjudged.length }, unjudgedLines(names), { variant: 'unknown' }),
    ];
  });
}
