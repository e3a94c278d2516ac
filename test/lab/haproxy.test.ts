// HAPTIC's HAProxy pods run real HAProxy in the lab: renders are checked by haproxy -c, deploys are reloads of the
// pods' HAProxy, and the gate is set only once every HAProxy pod's worker really routes to the pod.
import { afterAll, describe, expect, it } from 'vitest';
import type { Obj } from '../cluster/standins/common.ts';
import { resetKnobs, setKnobs } from '../cluster/standins/knobs.ts';
import { get } from '../cluster/lab/load.ts';
import { adminApi, cluster, newNamespace, waitFor } from '../e2e/support.ts';
import { gateOf, hapticHAProxy, labApp, labServed } from './support.ts';

afterAll(() => resetKnobs(cluster().adminKubeconfig));

const cfg = () =>
  adminApi().get<Obj>('haproxy-haptic.org/v1alpha1', 'HAProxyCfg', 'haptic-config-haproxycfg', 'haptic');

describe("HAPTIC's HAProxy in the lab", () => {
  it('routes a Service by its Host through real HAProxy, every HAProxy pod reloaded with the config', async () => {
    const ns = await newNamespace('lab-route');
    await adminApi().apply([labApp({ name: 'web', namespace: ns }), ...labServed({ name: 'web', namespace: ns })]);
    const { url, podIPs } = await hapticHAProxy();
    expect(podIPs).toHaveLength(2);
    const host = `web.${ns}.svc`;
    // each HAProxy pod takes the new config on its own time (the pod is not gated: nothing waits for them)
    for (const ip of podIPs) {
      await waitFor(async () => (await get(`http://${ip}:8080/`, { host, timeoutMs: 2000 })).status === 200, {
        what: `${host} answered by HAProxy pod ${ip}`,
        timeoutMs: 60_000,
      });
    }
    expect((await get(url, { host, timeoutMs: 2000 })).status).toBe(200);
    const deployed = (await cfg()).status.deployedToPods as {
      mode: string;
      reasons: string[];
      appliedPlanID: string;
      runningPlanID: string;
    }[];
    expect(deployed).toHaveLength(2);
    for (const entry of deployed) {
      expect(entry.mode).toBe('reload');
      expect(entry.runningPlanID).toBe(entry.appliedPlanID);
    }
  });

  it('sets the gate only when every HAProxy pod already sends the pod requests', async () => {
    const ns = await newNamespace('lab-gate');
    const api = adminApi();
    await api.apply([
      labApp({ name: 'shop', namespace: ns, gated: true }),
      ...labServed({ name: 'shop', namespace: ns }),
    ]);
    const host = `shop.${ns}.svc`;
    const { podIPs } = await hapticHAProxy();
    // poll the pod often; the moment its gate is True, ask each HAProxy pod for it
    const pod = await waitFor(
      async () => (await api.list<Obj>('v1', 'Pod', { namespace: ns })).find((p) => gateOf(p) === 'True'),
      { what: 'the gate set', timeoutMs: 60_000, intervalMs: 20 },
    );
    for (const ip of podIPs) {
      const answer = await get(`http://${ip}:8080/`, { host, timeoutMs: 2000 });
      expect(answer.status, `HAProxy pod ${ip} when the gate turned True`).toBe(200);
    }
    expect(pod!.metadata.name).toMatch(/^shop-/);
  });

  it('refuses a render that HAProxy refuses, with what haproxy -c says', async () => {
    const api = adminApi();
    await setKnobs(cluster().adminKubeconfig, { refuseRender: 'true' });
    const ns = await newNamespace('lab-refuse');
    await api.apply(labServed({ name: 'other', namespace: ns }));
    const htc = await waitFor(
      () => api.get<Obj>('haproxy-haptic.org/v1alpha1', 'HAProxyTemplateConfig', 'haptic-config', 'haptic'),
      {
        what: 'the template config Invalid',
        timeoutMs: 30_000,
        until: (o) => o.status?.validationStatus === 'Invalid',
      },
    );
    const error: string = htc.status.validationErrors[0];
    expect(error).toMatch(/\[ALERT\].*unknown keyword 'sever' in 'backend' section/);
    expect(error).not.toContain('(1) :'); // HAProxy's own process id, not the stand-in's canned text
    const conditions = (await cfg()).status.conditions as { type: string; status: string; reason: string }[];
    expect(conditions.find((c) => c.type === 'ConfigValidated')).toMatchObject({
      status: 'False',
      reason: 'HAProxyRefused',
    });
    await resetKnobs(cluster().adminKubeconfig);
    // HAProxy accepts the next render; the template config keeps HAProxy's refusal until it is edited
    // (configchange/status_updater.go), which the plugin reads as history (e2e why-stalled.test.ts)
    await waitFor(cfg, {
      what: 'a render HAProxy accepts',
      timeoutMs: 30_000,
      until: (c) =>
        (c.status?.conditions ?? []).some(
          (x: { type: string; status: string }) => x.type === 'ConfigValidated' && x.status === 'True',
        ),
    });
    const after = await api.get<Obj>('haproxy-haptic.org/v1alpha1', 'HAProxyTemplateConfig', 'haptic-config', 'haptic');
    expect(after.status?.validationStatus).toBe('Invalid');
  });
});
