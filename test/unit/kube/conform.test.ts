// The boundary between a server's answer and the model (conform.ts): what is not an object with a name is left out,
// a field of the wrong type is removed, a list keeps its entries of the right shape, a required part gets a default.
import { describe, expect, it } from 'vitest';
import { conform } from '../../../src/kube/conform.ts';

describe('conform', () => {
  it('leaves out what is not an object with a name', () => {
    for (const item of [null, 'x', 3, [], {}, { metadata: {} }, { metadata: { name: '' } }, { metadata: 'x' }])
      expect(conform(item, 'Pod')).toBeUndefined();
  });

  it('removes fields of the wrong type and keeps the entries of a list that have the right shape', () => {
    const pod = (conform as (item: unknown, kind: string) => Record<string, any> | undefined)(
      {
        metadata: { name: 'p', labels: { app: 'web', bad: 7 }, ownerReferences: 'x', deletionTimestamp: 'yesterday' },
        spec: { readinessGates: [null, { conditionType: 'g' }, 'x'], containers: [null, { name: 'app', ports: 'x' }] },
        status: { conditions: [null, { type: 'Ready', status: 'True' }], podIP: 7, startTime: '2026-12-04T03:00:00Z' },
      },
      'Pod',
    );
    expect(pod).toEqual({
      metadata: { name: 'p', labels: { app: 'web' } },
      spec: { readinessGates: [{ conditionType: 'g' }], containers: [{ name: 'app' }] },
      status: { conditions: [{ type: 'Ready', status: 'True' }], startTime: '2026-12-04T03:00:00Z' },
    });
  });

  it('gives a Deployment without a usable template an empty one, and keeps an object that was fine as it was', () => {
    const d = (conform as (item: unknown, kind: string) => Record<string, any> | undefined)(
      { metadata: { name: 'web' }, spec: { template: 'x', replicas: 1e308 } },
      'Deployment',
    );
    expect(d?.spec).toEqual({ template: { spec: { containers: [] } }, selector: {} });
    const fine = {
      metadata: { name: 'web', namespace: 'shop' },
      spec: { selector: {}, template: { spec: { containers: [] } } },
    };
    expect(conform(fine, 'Deployment')).toBe(fine);
  });

  it("repairs a StatefulSet's update strategy, claim templates and revisions as they arrive", () => {
    const s = (conform as (item: unknown, kind: string) => Record<string, any> | undefined)(
      {
        metadata: { name: 'db' },
        spec: {
          template: { spec: { containers: [] } },
          selector: {},
          updateStrategy: { type: 7, rollingUpdate: { partition: 'two' } },
          volumeClaimTemplates: [{ spec: {} }, { metadata: { name: 'data' } }],
        },
        status: { updateRevision: ['db-1'], readyReplicas: 2 },
      },
      'StatefulSet',
    );
    expect([s?.spec.updateStrategy, s?.spec.volumeClaimTemplates, s?.status]).toEqual([
      { rollingUpdate: {} },
      [{ metadata: { name: 'data' } }],
      { readyReplicas: 2 },
    ]);
  });

  it('keeps null where the API writes null (an EndpointSlice with no endpoints, an unknown condition)', () => {
    const slice = { metadata: { name: 's' }, addressType: 'IPv4', endpoints: null };
    expect(conform(slice, 'EndpointSlice')).toBe(slice);
    const withUnknown = (conform as (item: unknown, kind: string) => Record<string, any> | undefined)(
      {
        metadata: { name: 's' },
        addressType: 'IPv4',
        endpoints: [{ addresses: ['10.0.0.1'], conditions: { ready: null, serving: 'x' } }],
      },
      'EndpointSlice',
    );
    expect(withUnknown?.endpoints).toEqual([{ addresses: ['10.0.0.1'], conditions: { ready: null } }]);
  });
});

describe('conform on what a real API server sends', () => {
  it('returns every object of the scenario fixtures as it is: nothing copied, nothing changed', async () => {
    const { loadScenario, scenarios } = await import('../../fixtures/load.ts');
    const scenarioObjects = () => scenarios().flatMap((name) => loadScenario(name));
    const KINDS = [
      'Deployment',
      'ReplicaSet',
      'Pod',
      'Service',
      'EndpointSlice',
      'Event',
      'Lease',
      'ClusterRole',
      'ClusterRoleBinding',
      'HAProxyTemplateConfig',
      'HAProxyCfg',
      'Ingress',
      'Gateway',
      'HTTPRoute',
    ];
    let checked = 0;
    for (const o of scenarioObjects() as { kind?: string }[]) {
      if (!o.kind || !KINDS.includes(o.kind)) continue;
      expect(conform(o, o.kind), `${o.kind} ${JSON.stringify((o as { metadata?: unknown }).metadata)}`).toBe(o);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });
});
