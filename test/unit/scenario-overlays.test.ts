// The scenario loader (test/fixtures/load.ts): a base plus an overlay composes the objects the overlay describes,
// and an overlay that does not fit its base (an object missing or already there, a patch that changes nothing, a
// key the format lacks) is an error naming the file, not a scenario that quietly differs from what it says.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addressOf, loadScenario, scenarios } from '../fixtures/load.ts';

const BASE = `apiVersion: v1
kind: Service
metadata: { name: web, namespace: shop }
spec: { selector: { app: web }, ports: [{ port: 80 }] }
---
apiVersion: v1
kind: Pod
metadata: { name: web-1, namespace: shop, creationTimestamp: '2026-11-29T11:59:30Z', labels: { app: web } }
status:
  phase: Running
  conditions:
    - { type: ContainersReady, status: 'True' }
    - { type: Ready, status: 'False' }
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: { name: haptic }
rules:
  - { apiGroups: [''], resources: [pods], verbs: [get] }
  - { apiGroups: [''], resources: [pods/status], verbs: [patch] }
`;

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'scenarios-'));
  mkdirSync(join(dir, 'base'));
  writeFileSync(join(dir, 'base', 'app.yaml'), BASE);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function scenario(name: string, overlay: string) {
  mkdirSync(join(dir, name), { recursive: true });
  writeFileSync(join(dir, name, 'overlay.yaml'), overlay);
}
const load = (name: string) => loadScenario(name, dir);

describe('a scenario is the base with its overlay applied', () => {
  it('removes, copies, patches (merge or JSON patch) and adds, keeping the base order and appending new objects', () => {
    scenario(
      'hs999-all',
      `
remove:
  - Service/shop/web
copy:
  - { of: Pod/shop/web-1, as: Pod/shop/web-2 }
patch:
  Pod/shop/web-1:
    status:
      phase: Pending
      conditions: null
  Pod/shop/web-2:
    - { op: test, path: /status/conditions/1/type, value: Ready }
    - { op: replace, path: /status/conditions/1/status, value: 'True' }
  ClusterRole/haptic:
    - { op: remove, path: /rules/1 }
add:
  - { apiVersion: v1, kind: Event, metadata: { name: e, namespace: shop }, firstTimestamp: 2026-11-29T11:59:55Z }
`,
    );
    const objects = load('hs999-all');
    expect(objects.map(addressOf)).toEqual(['Pod/shop/web-1', 'ClusterRole/haptic', 'Pod/shop/web-2', 'Event/shop/e']);
    const [pod1, role, pod2, event] = objects as Record<string, any>[];
    expect(pod1!.status).toEqual({ phase: 'Pending' });
    expect(pod2!.metadata).toEqual({
      name: 'web-2',
      namespace: 'shop',
      creationTimestamp: '2026-11-29T11:59:30Z',
      labels: { app: 'web' },
    });
    expect(pod2!.status.conditions).toEqual([
      { type: 'ContainersReady', status: 'True' },
      { type: 'Ready', status: 'True' },
    ]);
    expect(role!.rules).toHaveLength(1);
    expect(event!.firstTimestamp).toBe('2026-11-29T11:59:55Z'); // a timestamp stays a string
  });

  it('starts from another scenario when it says so', () => {
    scenario('hs998-first', 'patch:\n  Pod/shop/web-1:\n    status: { phase: Pending }\n');
    scenario(
      'hs999-second',
      'from: hs998-first\npatch:\n  Pod/shop/web-1:\n    metadata: { labels: { tier: front } }\n',
    );
    const pod = load('hs999-second').find((o) => o.kind === 'Pod') as Record<string, any>;
    expect(pod.status.phase).toBe('Pending');
    expect(pod.metadata.labels).toEqual({ app: 'web', tier: 'front' });
  });

  it('gives objects that share nothing, even where the overlay uses a YAML alias twice', () => {
    scenario(
      'hs999-alias',
      `
copy:
  - { of: Pod/shop/web-1, as: Pod/shop/web-2 }
patch:
  Pod/shop/web-1:
    status: { conditions: &ready [{ type: Ready, status: 'True' }] }
  Pod/shop/web-2:
    status: { conditions: *ready }
`,
    );
    const [pod1, pod2] = load('hs999-alias').filter((o) => o.kind === 'Pod') as Record<string, any>[];
    pod1!.status.conditions[0].status = 'False';
    expect(pod2!.status.conditions[0].status).toBe('True');
  });

  it('lists every folder but base as a scenario', () => {
    scenario('hs999-x', 'remove: [Service/shop/web]\n');
    expect(scenarios(dir)).toEqual(['hs999-x']);
  });
});

describe('an overlay that does not fit its base is an error', () => {
  it.each([
    ['remove: [Pod/shop/web-9]', /remove "Pod\/shop\/web-9": the base has no such object/],
    ['patch:\n  Pod/web-1:\n    status: { phase: Pending }', /patch "Pod\/web-1": the base has no such object/],
    ['copy: [{ of: Pod/shop/web-9, as: Pod/shop/web-2 }]', /copy "Pod\/shop\/web-9": the base has no such object/],
    ['copy: [{ of: Pod/shop/web-1, as: Pod/shop/web-1 }]', /copy 1: Pod\/shop\/web-1 is already there/],
    [
      'copy: [{ of: Pod/shop/web-1, as: Service/shop/web-2 }]',
      /copy 1: as Service\/shop\/web-2 is not a Pod's address/,
    ],
    [
      'add: [{ apiVersion: v1, kind: Service, metadata: { name: web, namespace: shop } }]',
      /add 1: Service\/shop\/web is already there/,
    ],
    ['add: [{ apiVersion: v1, kind: CronJob, metadata: { name: web } }]', /add 1: unknown kind "CronJob"/],
    ['add: [{ apiVersion: apps/v1, kind: Pod, metadata: { name: p } }]', /add 1: Pod is v1, not "apps\/v1"/],
    ['patch:\n  Pod/shop/web-1:\n    metadata: { name: web-2 }', /may not change an object's kind, namespace or name/],
    ['patch:\n  Pod/shop/web-1:\n    status: { phase: Running }', /\/status\/phase is already "Running"/],
    [
      'patch:\n  Pod/shop/web-1:\n    spec: { nodeName: null }',
      /\/spec\/nodeName is null but the object has no such field/,
    ],
    ['patch:\n  Pod/shop/web-1:\n    status: {}', /\/status: an empty mapping changes nothing/],
    [
      'patch:\n  ClusterRole/haptic:\n    - { op: test, path: /rules/1/resources, value: [pods] }',
      /patch ClusterRole\/haptic: Test operation failed/,
    ],
    [
      'patch:\n  ClusterRole/haptic:\n    - { op: remove, path: /rules/5 }',
      /patch ClusterRole\/haptic: Cannot perform the operation at a path that does not exist/,
    ],
    ['patch:\n  Pod/shop/web-1: Pending', /a patch is a mapping \(JSON merge patch\) or a list of ops/],
    ['remove: [Pod/shop/web-1]\nremvoe: [Service/shop/web]', /unknown key remvoe/],
    ['remove: [Pod/shop/web-1]\nremove: [Service/shop/web]', /duplicated mapping key/],
    ['from: hs999-bad', /scenarios start from each other in a loop: hs999-bad → hs999-bad/],
    ['from: hs000-none', /no scenario hs000-none/],
    ['from: base', /no scenario base/],
  ])('%s', (overlay, error) => {
    scenario('hs999-bad', overlay);
    expect(() => load('hs999-bad')).toThrow(error);
  });

  it('names the scenario it starts from when the object is missing there', () => {
    scenario('hs998-first', 'remove: [Pod/shop/web-1]\n');
    scenario('hs999-second', 'from: hs998-first\npatch:\n  Pod/shop/web-1:\n    status: { phase: Pending }\n');
    expect(() => load('hs999-second')).toThrow(
      /hs999-second\/overlay.yaml: patch "Pod\/shop\/web-1": hs998-first has no such object/,
    );
  });

  it('names a folder without an overlay', () => {
    mkdirSync(join(dir, 'hs999-empty'));
    expect(() => load('hs999-empty')).toThrow(/no scenario hs999-empty: no .*hs999-empty\/overlay.yaml/);
  });
});
