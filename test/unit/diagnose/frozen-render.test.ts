// A render that fails where HAPTIC writes nothing (an Ingress port name its Service lacks, the agent generation's
// ResolveServicePort): enable-gate's HG124 for any workload of the installation, why-stalled's HS115 first for a
// waiting pod it has no server for, from the routes and Services, or from a live config rendered before the pods.
// And what HAPTIC's validation verdicts hold back, decided from what HAProxy runs (HG122/HS107).
import { describe, expect, it } from 'vitest';
import { describeFinding } from '../../../src/diagnose/catalogue.ts';
import { diagnoseContext } from '../../../src/diagnose/context.ts';
import { diagnose } from '../../../src/diagnose/index.ts';
import { preflight } from '../../../src/diagnose/preflight.ts';
import { portNamesOf } from '../../../src/model/haptic/frozen-render.ts';
import { buildHaptic } from '../../../src/model/haptic/haptic.ts';
import { buildRollout } from '../../../src/model/rollout/rollout.ts';
import type { HAProxyCfg } from '../../../src/types/haptic.ts';
import type { Pod, Service } from '../../../src/types/kube.ts';
import type { Ingress } from '../../../src/types/routes.ts';
import type { HapticInputs } from '../../../src/types/snapshot.ts';
import {
  at,
  deployment,
  GATE,
  hapticInputs,
  type HapticOptions,
  ingress,
  NOW,
  pod,
  service,
  slice,
  snapshot,
} from '../fixtures/rollout.ts';

/** An Ingress of namespace `ns` to service `svc`'s port named `port`. */
const named = (ns: string, name: string, svc: string, port: string): Ingress => ({
  ...ingress(name, 'haproxy', svc, { name: port }),
  metadata: { name, namespace: ns },
});
const svcIn = (ns: string, name: string, ports: { name?: string; port: number }[]): Service => ({
  metadata: { name, namespace: ns },
  spec: { selector: { app: name }, ports },
});

/** Another team's route and Service, in namespace `billing`: its Service's port renamed from http to web. */
const renamed = {
  ingress: named('billing', 'api', 'api', 'http'),
  service: svcIn('billing', 'api', [{ name: 'web', port: 8080 }]),
};

const oldPods = () => [
  pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
  pod({ name: 'web-old-2', rs: '1', ip: '10.0.0.2' }),
];
const waitingPod = (createdSecondsAgo = 30, readySecondsAgo = 20): Pod => {
  const p = pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3' });
  p.metadata.creationTimestamp = at(createdSecondsAgo);
  p.status!.conditions = p.status!.conditions!.map((c) =>
    c.type === 'ContainersReady' ? { ...c, lastTransitionTime: at(readySecondsAgo) } : c,
  );
  return p;
};
const listed = () =>
  slice([
    { pod: 'web-old-1', ip: '10.0.0.1', ready: true },
    { pod: 'web-old-2', ip: '10.0.0.2', ready: true },
    { pod: 'web-new-1', ip: '10.0.0.3', ready: false },
  ]);

/** The live config's spec last written `secondsAgo` (what the API server records in managedFields). */
function renderedAgo(inputs: HapticInputs, secondsAgo: number): HapticInputs {
  const items = inputs.haproxyCfgs.items.map(
    (c): HAProxyCfg =>
      c.metadata.name === 'haptic-config-haproxycfg'
        ? {
            ...c,
            metadata: {
              ...c.metadata,
              managedFields: [
                {
                  manager: 'haptic-controller',
                  operation: 'Apply',
                  time: at(secondsAgo),
                  fieldsV1: { 'f:spec': { 'f:content': {} } },
                },
                { manager: 'haptic-controller', operation: 'Update', subresource: 'status', time: at(1) },
              ],
            },
          }
        : c,
  );
  return { ...inputs, haproxyCfgs: { items } };
}

/** The old pods routed, the new one not: what a config rendered before the new pod was created has. */
const before: HapticOptions = {
  servers: [
    { pod: 'web-old-1', ip: '10.0.0.1', disabled: false },
    { pod: 'web-old-2', ip: '10.0.0.2', disabled: false },
  ],
  ingresses: [ingress(), renamed.ingress],
};

function why(inputs: HapticInputs, o: { pods?: Pod[]; services?: Service[] } = {}) {
  const snap = snapshot({
    pods: o.pods ?? [...oldPods(), waitingPod()],
    services: o.services,
    slices: [listed()],
    haptic: inputs,
  });
  const d = diagnose(diagnoseContext(snap, buildRollout(snap, NOW, { gateType: GATE }), NOW));
  return { stalled: d.stalled, findings: d.findings.map(describeFinding) };
}

function gate(inputs: HapticInputs, services: Service[] = [service()]) {
  return preflight({
    workload: { ...deployment({ gated: false }), kind: 'Deployment' },
    services,
    haptic: buildHaptic(inputs, NOW),
    routes: inputs,
    conditionType: GATE,
  }).map(describeFinding);
}

const readAll = (services: Service[], namespaces: string[]) => ({ items: services, namespaces, unread: [] });

describe('the routes of one render (model/haptic/frozen-render.ts)', () => {
  const inst = (generation: 'agent' | 'dataplane' = 'agent') => ({
    id: 'haptic/haptic-config',
    admission: { ingresses: { fieldSelector: 'spec.ingressClassName=haproxy' }, httpRoutes: true, grpcRoutes: true },
    generation,
  });

  it('judges every Ingress it renders that names a port by name, in every namespace read', () => {
    const inputs = hapticInputs({
      ingresses: [
        renamed.ingress,
        named('shop', 'web', 'web', 'http'),
        named('ops', 'admin', 'admin', 'http'),
        // not rendered: another class
        { ...named('billing', 'legacy', 'api', 'gone'), spec: { ...renamed.ingress.spec, ingressClassName: 'nginx' } },
      ],
      routeServices: {
        items: [renamed.service, svcIn('shop', 'web', [{ name: 'http', port: 80 }])],
        namespaces: ['billing', 'shop'],
        unread: [{ namespace: 'ops', reason: 'services is forbidden: User "limited" cannot list resource "services"' }],
      },
    });
    expect(portNamesOf(inputs, inst(), inputs.routeServices)).toEqual({
      misses: [
        {
          route: 'ingress billing/api',
          resource: 'ingress/api',
          namespace: 'billing',
          service: 'api',
          port: 'http',
          ports: 'web 8080',
        },
      ],
      unjudged: [
        {
          route: 'ingress ops/admin',
          resource: 'ingress/admin',
          namespace: 'ops',
          service: 'admin',
          port: 'http',
          reason: 'services is forbidden: User "limited" cannot list resource "services"',
        },
      ],
    });
  });

  it('a port number, a Service that does not exist, or the dataplane generation (port 80 instead) fail nothing', () => {
    const inputs = hapticInputs({
      ingresses: [ingress('web', 'haproxy', 'api', { number: 9999 }), named('billing', 'ghost', 'ghost', 'http')],
      routeServices: readAll([renamed.service], ['billing', 'shop']),
    });
    expect(portNamesOf(inputs, inst(), inputs.routeServices)).toBeUndefined();
    const failing = hapticInputs({
      ingresses: [renamed.ingress],
      routeServices: readAll([renamed.service], ['billing']),
    });
    expect(portNamesOf(failing, inst('dataplane'), failing.routeServices)).toBeUndefined();
  });
});

describe('HG124: enable-gate on any workload of an installation whose renders all fail', () => {
  it("refuses, naming the other team's route, the port and the Service's ports, and that HAPTIC says nothing of it", () => {
    const inputs = hapticInputs({ ...before, routeServices: readAll([renamed.service], ['billing']) });
    const found = gate(inputs);
    const f = found.find((x) => x.id === 'HG124')!;
    expect(f).toMatchObject({
      severity: 'blocker',
      title:
        'HAPTIC haptic/haptic-config renders nothing new: ingress billing/api names port http of service/api, which has no port of that name, and that fails its whole render, so it would never route the new pods and they would never become Ready',
      fix: 'give service/api a port named http again (or point ingress/api at a port it has): kubectl -n billing edit service api; then run enable-gate again',
    });
    expect(f.evidence).toEqual([
      "ingress billing/api names port http of service/api (namespace billing), whose ports are web 8080: ResolveServicePort fails HAPTIC haptic/haptic-config's whole render on it",
      'haproxycfg haptic/haptic-config-haproxycfg (checksum 7c1f5e2a9b0d4e63): what every HAProxy pod keeps running until the route is fixed',
      "haproxytemplateconfig haptic/haptic-config: Validated=True ValidationSucceeded (HAPTIC's status updater does not hear of a render that fails)",
    ]);
    // the workload's own route is fine: HG118 still says HAPTIC routes its Service
    expect(found.find((x) => x.id === 'HG118')?.severity).toBe('ok');
  });

  it("the workload's own Service, read with it, is judged too", () => {
    const inputs = hapticInputs({ ingresses: [ingress('web', 'haproxy', 'web', { name: 'http' })] });
    expect(gate(inputs).find((x) => x.id === 'HG124')).toMatchObject({
      severity: 'blocker',
      evidence: expect.arrayContaining([
        expect.stringContaining(
          'ingress shop/web names port http of service/web (namespace shop), whose ports are 80:',
        ),
      ]),
    });
    // with the port named, nothing
    const fine = gate(inputs, [
      { ...service(), spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] } },
    ]);
    expect(fine.map((x) => x.id)).not.toContain('HG124');
  });

  it('says so, as a warning, when the Services of such a route could not be read', () => {
    const inputs = hapticInputs({
      ...before,
      routeServices: { items: [], namespaces: [], unread: [{ namespace: 'billing', reason: 'services is forbidden' }] },
    });
    expect(gate(inputs).find((x) => x.id === 'HG124')).toMatchObject({
      severity: 'warning',
      title: expect.stringContaining(
        'Could not tell whether HAPTIC haptic/haptic-config can render at all: 1 Ingress(es)',
      ),
      evidence: ['whether ingress billing/api names a port their Service has cannot be told: services is forbidden'],
    });
  });
});

describe('HS115: why-stalled names the frozen render first', () => {
  it('from the route analysis: the failing route, and the live config rendered before the pod', () => {
    const inputs = renderedAgo(
      hapticInputs({ ...before, routeServices: readAll([renamed.service], ['billing']) }),
      300,
    );
    const r = why(inputs);
    expect(r.stalled).toBe(true);
    expect(r.findings[0]).toMatchObject({
      id: 'HS115',
      severity: 'error',
      title:
        'HAPTIC haptic/haptic-config fails every render: ingress billing/api names port http of service/api, which has no port of that name; its live config has no server for web-new-1, and no new one is rendered',
      fix: 'give service/api a port named http again (or point ingress/api at a port it has): kubectl -n billing edit service api',
    });
    expect(r.findings[0]!.evidence).toEqual([
      "ingress billing/api names port http of service/api (namespace billing), whose ports are web 8080: ResolveServicePort fails HAPTIC haptic/haptic-config's whole render on it",
      `haproxycfg haptic/haptic-config-haproxycfg: last rendered 5m ago (${at(300)}), checksum 7c1f5e2a9b0d4e63`,
      'pod web-new-1 created 30s ago, after that render: no config since has its server',
    ]);
  });

  it('from the live config alone, once the pod has waited longer than a render takes: the cause is in the log', () => {
    const unread = {
      items: [],
      namespaces: [],
      unread: [{ namespace: 'billing', reason: 'services is forbidden' }],
    };
    const inputs = renderedAgo(hapticInputs({ ...before, routeServices: unread }), 300);
    // 20 s after its containers got ready: a render may still be on its way
    expect(why(inputs).findings.map((f) => f.id)).toEqual(['HS901']);
    const late = why(inputs, { pods: [...oldPods(), waitingPod(90, 60)] });
    expect(late.findings[0]).toMatchObject({
      id: 'HS115',
      title:
        "HAPTIC haptic/haptic-config has rendered nothing since before web-new-1 existed: its live config has no server for them, and a render that fails is told only in the controller's log",
      fix: 'kubectl -n haptic logs -l app.kubernetes.io/component=controller --tail=100 | grep -i -A3 render',
    });
    expect(late.findings[0]!.evidence).toEqual([
      `haproxycfg haptic/haptic-config-haproxycfg: last rendered 5m ago (${at(300)}), checksum 7c1f5e2a9b0d4e63`,
      'pod web-new-1 created 90s ago, after that render: no config since has its server',
      "the template config says Validated=True ValidationSucceeded: HAPTIC's status updater does not hear of a render that fails",
      'whether ingress billing/api names a port their Service has cannot be told: services is forbidden',
    ]);
    // a config rendered after the pod was created: it is not frozen since before it
    const fresh = renderedAgo(hapticInputs({ ...before, routeServices: unread }), 45);
    expect(why(fresh, { pods: [...oldPods(), waitingPod(90, 60)] }).findings.map((f) => f.id)).not.toContain('HS115');
  });

  it('not for pods the live config already routes, nor when the routes name ports the Services have', () => {
    const routed = hapticInputs({
      ...before,
      servers: [...before.servers!, { pod: 'web-new-1', ip: '10.0.0.3', disabled: false }],
      routeServices: readAll([renamed.service], ['billing']),
    });
    expect(why(routed).findings.map((f) => f.id)).not.toContain('HS115');
    const fixed = hapticInputs({
      ...before,
      routeServices: readAll([svcIn('billing', 'api', [{ name: 'http', port: 8080 }])], ['billing']),
    });
    expect(why(fixed).findings.map((f) => f.id)).toEqual(['HS901']);
  });
});

describe('HAPTIC validation verdicts, decided from what HAProxy runs', () => {
  /** A `-invalid` HAProxyCfg whose spec was written `secondsAgo`, beside a live config written 60 s ago. */
  function withInvalid(secondsAgo: number, options: { conditions?: boolean } = {}): HapticInputs {
    const base = renderedAgo(hapticInputs({ ...before, refusedEarlier: true }), 60);
    const live = base.haproxyCfgs.items[0]!;
    const invalid: HAProxyCfg = {
      metadata: {
        name: 'haptic-config-haproxycfg-invalid',
        namespace: 'haptic',
        managedFields: [
          { manager: 'haptic-controller', operation: 'Apply', time: at(secondsAgo), fieldsV1: { 'f:spec': {} } },
        ],
      },
      spec: { content: 'backend x\n  sever y', checksum: 'bad' },
      status: { validationError: "unknown keyword 'sever'" },
    };
    const cfg = options.conditions === false ? { ...live, status: { ...live.status, conditions: [] } } : live;
    return { ...base, haproxyCfgs: { items: [cfg, invalid] } };
  }

  it('the agent generation (no render gate conditions): a refused render newer than the live config holds, an older one is history', () => {
    expect(why(withInvalid(10, { conditions: false })).findings[0]?.id).toBe('HS107');
    const older = why(withInvalid(600, { conditions: false }));
    expect(older.findings.map((f) => f.id)).not.toContain('HS107');
  });

  it('the gate release: ConfigValidated=True HAProxyAccepted decides where the render times cannot be told apart', () => {
    const noTimes = withInvalid(10);
    const invalid = noTimes.haproxyCfgs.items[1]!;
    delete invalid.metadata.managedFields;
    expect(buildHaptic(noTimes, NOW).installations[0]!.config?.invalid).toMatchObject({ stale: true });
    expect(why(noTimes).findings.map((f) => f.id)).not.toContain('HS107');
  });
});
