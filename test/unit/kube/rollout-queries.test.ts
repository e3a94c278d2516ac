// Which lists status reads for its Deployments: label-selected cluster-side by their selectors (one's own, or the
// cover of several), one request per kind whatever their number, and each Deployment's share of them.
import { describe, expect, it } from 'vitest';
import { rolloutQueries, type RolloutQueries } from '../../../src/kube/rollout-snapshot.ts';
import type { Query } from '../../../src/kube/snapshot.ts';
import { labelSelectorQuery, MAX_UNION_SELECTOR, unionSelector } from '../../../src/kube/selector-query.ts';
import { trimEvent, trimObject, trimPod, trimSlice } from '../../../src/kube/trim.ts';
import { splitRollouts } from '../../../src/model/rollout/inputs.ts';
import { selectorMatches } from '../../../src/model/selectors.ts';
import type { Deployment, KubeObject, LabelSelector } from '../../../src/types/kube.ts';
import { hapticInputs } from '../fixtures/rollout.ts';

const deploy = (name: string, namespace: string, selector: LabelSelector): Deployment & { kind: 'Deployment' } => ({
  kind: 'Deployment',
  metadata: { name, namespace, uid: `d-${namespace}-${name}` },
  spec: {
    selector,
    template: { metadata: { labels: selector.matchLabels ?? {} }, spec: { containers: [{ name: 'app' }] } },
  },
});

/** The API server's reading of the set-based forms a cover is made of: `k in (a,b)`, `k`, `k=v`, ANDed. */
function serverMatches(query: string | undefined, labels: Record<string, string>): boolean {
  if (query === undefined) return true;
  return query.split(/,(?![^(]*\))/).every((term) => {
    const inSet = /^(\S+) in \((.*)\)$/.exec(term);
    if (inSet) return inSet[2]!.split(',').includes(labels[inSet[1]!] as string);
    const eq = /^([^=]+)=(.*)$/.exec(term);
    if (eq) return labels[eq[1]!] === eq[2];
    return Object.hasOwn(labels, term);
  });
}

describe('unionSelector', () => {
  it('sends one selector as it is, negative requirements included', () => {
    const s: LabelSelector = {
      matchLabels: { app: 'web' },
      matchExpressions: [
        { key: 'tier', operator: 'NotIn', values: ['db'] },
        { key: 'legacy', operator: 'DoesNotExist' },
      ],
    };
    expect(unionSelector([s])).toBe('app=web,tier notin (db),!legacy');
    expect(unionSelector([s, structuredClone(s)])).toBe(labelSelectorQuery(s));
    expect(unionSelector([{}])).toBeUndefined();
  });

  it.each<[string, LabelSelector[], string | undefined]>([
    [
      'one key, several values',
      [{ matchLabels: { app: 'web' } }, { matchLabels: { app: 'api' } }, { matchLabels: { app: 'web', tier: 'x' } }],
      'app in (api,web)',
    ],
    [
      'In and matchLabels on the same key',
      [{ matchLabels: { app: 'web' } }, { matchExpressions: [{ key: 'app', operator: 'In', values: ['a', 'b'] }] }],
      'app in (a,b,web)',
    ],
    [
      'Exists widens the key to any value',
      [
        { matchLabels: { app: 'web', team: 'x' } },
        { matchLabels: { app: 'api' }, matchExpressions: [{ key: 'team', operator: 'Exists' }] },
      ],
      'app in (api,web),team',
    ],
    [
      'keys not shared by all are left to the filter',
      [{ matchLabels: { app: 'web', tier: 'front' } }, { matchLabels: { app: 'api' } }],
      'app in (api,web)',
    ],
    [
      'NotIn and DoesNotExist are left to the filter',
      [
        { matchLabels: { app: 'web' }, matchExpressions: [{ key: 'x', operator: 'NotIn', values: ['1'] }] },
        { matchLabels: { app: 'api' }, matchExpressions: [{ key: 'y', operator: 'DoesNotExist' }] },
      ],
      'app in (api,web)',
    ],
    [
      'no shared key: no cover, list everything',
      [{ matchLabels: { app: 'web' } }, { matchLabels: { name: 'api' } }],
      undefined,
    ],
    ['an empty selector selects everything', [{ matchLabels: { app: 'web' } }, {}], undefined],
    [
      'selectors that select nothing add no value',
      [
        { matchLabels: { app: 'web' } },
        { matchLabels: { app: 'api' }, matchExpressions: [{ key: 'app', operator: 'In', values: ['web'] }] },
      ],
      'app in (web)',
    ],
  ])('%s', (_, selectors, expected) => {
    expect(unionSelector(selectors)).toBe(expected);
  });

  it('covers: whatever any of the selectors selects, the cover selects too', () => {
    const selectors: LabelSelector[] = [
      { matchLabels: { app: 'web', tier: 'front' } },
      { matchLabels: { app: 'api' }, matchExpressions: [{ key: 'tier', operator: 'In', values: ['back', 'mid'] }] },
      {
        matchExpressions: [
          { key: 'app', operator: 'In', values: ['batch'] },
          { key: 'tier', operator: 'Exists' },
          { key: 'canary', operator: 'DoesNotExist' },
        ],
      },
    ];
    const cover = unionSelector(selectors);
    expect(cover).toBe('app in (api,batch,web),tier');
    const values = { app: ['web', 'api', 'batch', 'db'], tier: ['front', 'back', 'mid', 'x'], canary: ['true'] };
    let selected = 0;
    for (const app of [...values.app, undefined])
      for (const tier of [...values.tier, undefined])
        for (const canary of [...values.canary, undefined]) {
          const labels = Object.fromEntries(
            Object.entries({ app, tier, canary }).filter(([, v]) => v !== undefined),
          ) as Record<string, string>;
          if (!selectors.some((s) => selectorMatches(s, labels))) continue;
          selected++;
          expect(serverMatches(cover, labels), JSON.stringify(labels)).toBe(true);
        }
    expect(selected).toBeGreaterThan(5);
    // and it is narrower than everything
    expect(serverMatches(cover, { app: 'db', tier: 'x' })).toBe(false);
  });

  it('gives up on a cover too long for a URL: the list is asked for whole', () => {
    const many = Array.from({ length: 400 }, (_, i) => ({ matchLabels: { app: `application-number-${i}` } }));
    expect(unionSelector(many.slice(0, 10))!.length).toBeLessThan(MAX_UNION_SELECTOR);
    expect(unionSelector(many)).toBeUndefined();
  });
});

/** Each query as [resource, namespace, labelSelector, fieldSelector, optional]; a list of queries as a list of those. */
function queriesView(q: RolloutQueries): Record<string, unknown> {
  const one = (v: Query) => [v.resource.plural, v.namespace, v.labelSelector, v.fieldSelector, !!v.optional];
  const { workloads, ...rest } = q;
  return Object.fromEntries([
    ...Object.entries(workloads).map(([kind, v]) => [kind, one(v)]),
    ...Object.entries(rest)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => [k, Array.isArray(v) ? v.map(one) : one(v as Query)]),
  ]);
}

describe('rolloutQueries', () => {
  it('one Deployment: its namespace, its selector, its own events and the warnings, each with its trimmer', () => {
    const d = deploy('web', 'shop', {
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'track', operator: 'In', values: ['stable', 'canary'] }],
    });
    const q = rolloutQueries([d]);
    const view = queriesView(q);
    expect(view).toEqual({
      Deployment: ['deployments', 'shop', undefined, 'metadata.name=web', false],
      replicaSets: ['replicasets', 'shop', 'app=web,track in (stable,canary)', undefined, false],
      pods: ['pods', 'shop', 'app=web,track in (stable,canary)', undefined, false],
      services: ['services', 'shop', undefined, undefined, false],
      slices: ['endpointslices', 'shop', undefined, undefined, false],
      warnings: ['events', 'shop', undefined, 'type=Warning', true],
      workloadEvents: [
        ['events', 'shop', undefined, 'type=Normal,involvedObject.name=web', true],
        ['events', 'shop', undefined, 'type=Normal,reason=Killing', true],
      ],
    });
    expect([
      q.workloads.Deployment?.trim,
      q.replicaSets?.trim,
      q.pods.trim,
      q.services.trim,
      q.slices.trim,
      q.warnings.trim,
      q.workloadEvents[0]?.trim,
    ]).toEqual([trimObject, trimObject, trimPod, trimObject, trimSlice, trimEvent, trimEvent]);
  });

  it('one StatefulSet: itself, its pods, no ReplicaSets, its claims by the matchLabels of its selector', () => {
    const s = {
      ...deploy('db', 'shop', { matchLabels: { app: 'db' }, matchExpressions: [{ key: 'tier', operator: 'Exists' }] }),
      kind: 'StatefulSet' as const,
    };
    const q = rolloutQueries([{ ...s, spec: { ...s.spec, volumeClaimTemplates: [{ metadata: { name: 'data' } }] } }]);
    expect(queriesView(q)).toEqual({
      StatefulSet: ['statefulsets', 'shop', undefined, 'metadata.name=db', false],
      pods: ['pods', 'shop', 'app=db,tier', undefined, false],
      claims: ['persistentvolumeclaims', 'shop', 'app=db', undefined, true],
      claimEvents: ['events', 'shop', undefined, 'type=Normal,involvedObject.kind=PersistentVolumeClaim', true],
      services: ['services', 'shop', undefined, undefined, false],
      slices: ['endpointslices', 'shop', undefined, undefined, false],
      warnings: ['events', 'shop', undefined, 'type=Warning', true],
      workloadEvents: [
        ['events', 'shop', undefined, 'type=Normal,involvedObject.name=db', true],
        ['events', 'shop', undefined, 'type=Normal,reason=Killing', true],
      ],
    });
    // without volumeClaimTemplates there is no claim to wait for, and none is listed
    expect([rolloutQueries([s]).claims, rolloutQueries([s]).claimEvents]).toEqual([undefined, undefined]);
    // Deployments and StatefulSets together: one list of each, one events query per kind (a field selector has no "or")
    const both = rolloutQueries([deploy('web', 'shop', { matchLabels: { app: 'web' } }), s], 'tier=front');
    expect([
      both.workloads.Deployment?.labelSelector,
      both.workloads.StatefulSet?.labelSelector,
      both.replicaSets?.resource.plural,
    ]).toEqual(['tier=front', 'tier=front', 'replicasets']);
    expect(both.workloadEvents.map((e) => e.fieldSelector)).toEqual([
      'type=Normal,involvedObject.kind=Deployment',
      'type=Normal,involvedObject.kind=StatefulSet',
      'type=Normal,reason=Killing',
    ]);
  });

  it('several Deployments: the same number of queries, a union selector, cluster-wide across namespaces', () => {
    const inShop = [
      deploy('web', 'shop', { matchLabels: { app: 'web' } }),
      deploy('api', 'shop', { matchLabels: { app: 'api' } }),
    ];
    const one = rolloutQueries(inShop, 'tier=front');
    expect([
      one.pods.namespace,
      one.pods.labelSelector,
      one.workloads.Deployment?.labelSelector,
      one.workloads.Deployment?.fieldSelector,
      one.workloadEvents.map((e) => e.fieldSelector).join(),
    ]).toEqual([
      'shop',
      'app in (api,web)',
      'tier=front',
      undefined,
      'type=Normal,involvedObject.kind=Deployment,type=Normal,reason=Killing',
    ]);
    const spread = Array.from({ length: 200 }, (_, i) =>
      deploy(`web-${i % 5}`, `ns-${Math.floor(i / 5)}`, { matchLabels: { app: `web-${i % 5}` } }),
    );
    const all = rolloutQueries(spread);
    expect(Object.keys(all)).toEqual(Object.keys(one));
    expect(
      Object.values(all)
        .flat()
        .map((v) => v?.namespace),
    ).toEqual(
      Object.values(all)
        .flat()
        .map(() => undefined),
    );
    expect(all.pods.labelSelector).toBe('app in (web-0,web-1,web-2,web-3,web-4)');
  });
});

describe('splitRollouts', () => {
  it('gives each Deployment what its own selector in its own namespace would have listed', () => {
    const web = deploy('web', 'shop', {
      matchLabels: { app: 'web' },
      matchExpressions: [{ key: 'track', operator: 'NotIn', values: ['canary'] }],
    });
    const api = deploy('api', 'shop', { matchLabels: { app: 'api' } });
    const webElsewhere = deploy('web', 'other', { matchLabels: { app: 'web' } });
    const obj = (kind: string, name: string, namespace: string, labels: Record<string, string> = {}) =>
      ({ kind, metadata: { name, namespace, labels } }) as KubeObject;
    const pods = [
      obj('Pod', 'web-1', 'shop', { app: 'web' }),
      obj('Pod', 'web-c', 'shop', { app: 'web', track: 'canary' }),
      obj('Pod', 'api-1', 'shop', { app: 'api' }),
      obj('Pod', 'web-o', 'other', { app: 'web' }),
      obj('Pod', 'batch', 'shop', { app: 'batch' }),
    ];
    const replicaSets = [
      obj('ReplicaSet', 'web-rs', 'shop', { app: 'web' }),
      obj('ReplicaSet', 'api-rs', 'shop', { app: 'api' }),
      obj('ReplicaSet', 'web-rs', 'other', { app: 'web' }),
    ];
    const services = [obj('Service', 's', 'shop'), obj('Service', 's', 'other')];
    const [w, a, o] = splitRollouts([web, api, webElsewhere], {
      replicaSets,
      pods,
      services,
      slices: [],
      events: [],
      claims: [],
      haptic: hapticInputs({ servers: [] }),
    } as never);
    const names = (items: KubeObject[]) => items.map((i) => `${i.metadata.namespace}/${i.metadata.name}`);
    expect([names(w!.pods), names(w!.replicaSets), names(w!.services)]).toEqual([
      ['shop/web-1'],
      ['shop/web-rs'],
      ['shop/s'],
    ]);
    expect([names(a!.pods), names(a!.replicaSets)]).toEqual([['shop/api-1'], ['shop/api-rs']]);
    expect([names(o!.pods), names(o!.replicaSets), names(o!.services)]).toEqual([
      ['other/web-o'],
      ['other/web-rs'],
      ['other/s'],
    ]);
    expect(w!.workload).toBe(web);
  });
});
