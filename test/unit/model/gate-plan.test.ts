import { describe, expect, it } from 'vitest';
import fastJsonPatch from 'fast-json-patch';
import type { Deployment } from '../../../src/types/kube.ts';
import { GATE_CONDITION } from '../../../src/haptic/names.ts';
import { planGate } from '../../../src/model/gate-plan.ts';

function deployment(gates?: string[]): Deployment {
  return {
    metadata: { name: 'web', namespace: 'shop', generation: 7, resourceVersion: '42' },
    spec: {
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: {
          containers: [{ name: 'app', image: 'web:1' }],
          ...(gates ? { readinessGates: gates.map((conditionType) => ({ conditionType })) } : {}),
        },
      },
    },
  };
}

function apply(d: Deployment, ops: ReturnType<typeof planGate>['patch']): Deployment {
  return fastJsonPatch.applyPatch(structuredClone(d), ops, true).newDocument;
}

describe('planGate', () => {
  it('adds the field when there are no gates, guarded by the generation', () => {
    const plan = planGate(deployment(), 'enable', GATE_CONDITION);
    expect(plan.patch).toEqual([
      { op: 'test', path: '/metadata/generation', value: 7 },
      { op: 'add', path: '/spec/template/spec/readinessGates', value: [{ conditionType: GATE_CONDITION }] },
    ]);
    expect(plan.gatesAfter).toEqual([GATE_CONDITION]);
  });

  it('appends to existing gates and keeps them, testing their current value', () => {
    const d = deployment(['example.com/other']);
    const plan = planGate(d, 'enable', GATE_CONDITION);
    expect(plan.patch[1]).toEqual({
      op: 'test',
      path: '/spec/template/spec/readinessGates',
      value: [{ conditionType: 'example.com/other' }],
    });
    expect(apply(d, plan.patch).spec.template.spec.readinessGates).toEqual([
      { conditionType: 'example.com/other' },
      { conditionType: GATE_CONDITION },
    ]);
  });

  it('is idempotent: an existing gate means no patch', () => {
    expect(planGate(deployment([GATE_CONDITION]), 'enable', GATE_CONDITION)).toEqual({
      changed: false,
      gatesBefore: [GATE_CONDITION],
      gatesAfter: [GATE_CONDITION],
      patch: [],
    });
    expect(planGate(deployment(), 'disable', GATE_CONDITION).changed).toBe(false);
  });

  it('removes only the HAPTIC gate, and the field when it becomes empty', () => {
    const both = deployment(['example.com/other', GATE_CONDITION]);
    expect(apply(both, planGate(both, 'disable', GATE_CONDITION).patch).spec.template.spec.readinessGates).toEqual([
      { conditionType: 'example.com/other' },
    ]);
    const only = deployment([GATE_CONDITION]);
    expect('readinessGates' in apply(only, planGate(only, 'disable', GATE_CONDITION).patch).spec.template.spec).toBe(
      false,
    );
  });

  it('fails its test when the spec changed since it was read', () => {
    const d = deployment();
    const plan = planGate(d, 'enable', GATE_CONDITION);
    const changed = { ...d, metadata: { ...d.metadata, generation: 8 } };
    expect(() => apply(changed, plan.patch)).toThrow(/Test operation failed/);
  });
});
