// What released HAPTIC and its HEAD write differently, and how the model reads each: checksums of 64 or 16 hex, a
// `-invalid` HAProxyCfg HEAD never deletes, HAProxy pods HAPTIC has not discovered yet, and RBAC's wildcards.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { buildHaptic } from '../../../../src/model/haptic/haptic.ts';
import { ruleAllows } from '../../../../src/model/haptic/rbac.ts';
import { buildRollout } from '../../../../src/model/rollout/rollout.ts';
import { diagnose } from '../../../../src/diagnose/index.ts';
import { diagnoseContext } from '../../../../src/diagnose/context.ts';
import type { HAProxyCfg } from '../../../../src/types/haptic.ts';
import type { HapticInputs } from '../../../../src/types/snapshot.ts';
import { at, GATE, hapticInputs, NOW, pod, slice, snapshot } from '../../fixtures/rollout.ts';

const routed = { servers: [{ pod: 'web-new-1', ip: '10.0.0.3', disabled: false }] };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

function withCfg(inputs: HapticInputs, change: (cfg: HAProxyCfg) => HAProxyCfg): HapticInputs {
  return {
    ...inputs,
    haproxyCfgs: {
      items: inputs.haproxyCfgs.items.map((c) =>
        c.metadata.name === 'haptic-config-haproxycfg' ? change(structuredClone(c)) : c,
      ),
    },
  };
}

function rollout(inputs: HapticInputs) {
  const snap = snapshot({
    pods: [pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }), pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3' })],
    slices: [slice([{ pod: 'web-new-1', ip: '10.0.0.3', ready: false }])],
    haptic: inputs,
  });
  const model = buildRollout(snap, NOW, { gateType: GATE });
  return { model, findings: diagnose(diagnoseContext(snap, model, NOW)).findings.map((f) => f.id) };
}

describe('checksums', () => {
  it("HEAD: spec.checksum is 16 hex over config and auxiliary files, entries the content's SHA-256: both name the live config", () => {
    const head = withCfg(hapticInputs(routed), (cfg) => {
      const digest = sha256(cfg.spec!.content!);
      for (const e of cfg.status!.deployedToPods!) e.checksum = digest;
      return cfg;
    });
    const inst = buildHaptic(head, NOW).installations[0]!;
    expect(inst.config?.contentChecksum).toHaveLength(64);
    expect(inst.haproxyPods.map((p) => [p.runs.source, p.current])).toEqual([
      ['live', true],
      ['live', true],
    ]);
    expect(rollout(head).model.newPods[0]!.haproxy[0]).toMatchObject({ runningOn: 2, of: 2, unknown: 0 });
  });

  it('released tags: the SHA-256 in spec.checksum and in every entry', () => {
    const released = withCfg(hapticInputs(routed), (cfg) => {
      const digest = sha256(cfg.spec!.content!);
      cfg.spec!.checksum = digest;
      for (const e of cfg.status!.deployedToPods!) e.checksum = digest;
      return cfg;
    });
    expect(buildHaptic(released, NOW).installations[0]!.haproxyPods.every((p) => p.current)).toBe(true);
  });
});

describe('the -invalid HAProxyCfg', () => {
  const invalid = (renderedAt: string): HAProxyCfg => ({
    metadata: { name: 'haptic-config-haproxycfg-invalid', namespace: 'haptic' },
    spec: { content: 'backend x\n  servr y', checksum: 'bad' },
    status: { validationError: "unknown keyword 'servr'", metadata: { renderedAt } },
  });
  const withInvalid = (renderedAt: string) => {
    const base = withCfg(hapticInputs(routed), (cfg) => ({
      ...cfg,
      status: { ...cfg.status, metadata: { renderedAt: at(60) } },
    }));
    return { ...base, haproxyCfgs: { items: [...base.haproxyCfgs.items, invalid(renderedAt)] } };
  };

  it('rendered after the live config: the refusal holds renders back (HS107)', () => {
    expect(rollout(withInvalid(at(10))).findings).toContain('HS107');
  });

  it('rendered before the live config (HEAD never deletes it): history, not a cause', () => {
    const r = rollout(withInvalid(at(600)));
    expect(buildHaptic(withInvalid(at(600)), NOW).installations[0]!.config?.invalid).toMatchObject({ stale: true });
    expect(r.findings).not.toContain('HS107');
  });
});

describe('discovery: the HAProxy pods HAPTIC deploys to', () => {
  it('a HAProxy pod whose dataplane container is not ready yet is not one the new pod must reach, nor a failed deploy', () => {
    const inputs = hapticInputs({
      ...routed,
      fleet: [
        { name: 'haptic-haproxy-a', runs: 'current' },
        { name: 'haptic-haproxy-b', runs: 'none' },
      ],
    });
    const starting = inputs.pods.items.find((p) => p.metadata.name === 'haptic-haproxy-b')!;
    starting.spec.containers = [{ name: 'haproxy' }, { name: 'dataplane', ports: [{ containerPort: 5555 }] }];
    starting.status = {
      ...starting.status,
      containerStatuses: [
        { name: 'haproxy', ready: true, restartCount: 0 },
        { name: 'dataplane', ready: false, restartCount: 0 },
      ],
    };
    const r = rollout(inputs);
    expect(buildHaptic(inputs, NOW).installations[0]!.haproxyPods.map((p) => [p.name, p.discovered])).toEqual([
      ['haptic-haproxy-a', true],
      ['haptic-haproxy-b', false],
    ]);
    expect(r.model.newPods[0]!.haproxy[0]).toMatchObject({ runningOn: 1, of: 1 });
    expect(r.findings).not.toContain('HS106');
  });

  it('without an IP, or terminating, a HAProxy pod is not discovered', () => {
    const inputs = hapticInputs(routed);
    const [a, b] = inputs.pods.items.filter(
      (p) => p.metadata.labels?.['app.kubernetes.io/component'] === 'loadbalancer',
    );
    delete a!.status!.podIP;
    b!.metadata.deletionTimestamp = at(-20);
    expect(buildHaptic(inputs, NOW).installations[0]!.haproxyPods.filter((p) => p.discovered)).toEqual([]);
  });
});

describe("RBAC's wildcards (ResourceMatches)", () => {
  it.each([
    [['pods/status'], true],
    [['*/status'], true],
    [['*'], true],
    [['pods/*'], false],
    [['pods'], false],
  ])('%j allows patch on pods/status: %s', (resources, allowed) => {
    expect(ruleAllows({ apiGroups: [''], resources, verbs: ['patch'] }, '', 'pods/status', 'patch')).toBe(allowed);
  });
});
