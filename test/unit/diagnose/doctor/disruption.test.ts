// DR401–DR404: PodDisruptionBudgets around the web app: missing, doubled, blocking, lost between Helm revisions.
import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../../../../src/types/kube.ts';
import { helmSecret, ids, liveReport, one, pdb, staticReport, web, webService } from '../../fixtures/doctor.ts';

const hpa = (minReplicas?: number) =>
  ({
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'web' },
      ...(minReplicas ? { minReplicas } : {}),
      maxReplicas: 10,
    },
  }) as KubeObject;

type Row = [string, string, () => KubeObject[], () => KubeObject[]];
const rows: Row[] = [
  ['no PDB, 3 replicas', 'DR401', () => [web(), webService()], () => [web(), webService(), pdb()]],
  [
    'a PDB for another app only',
    'DR401',
    () => [web(), webService(), pdb('api', { maxUnavailable: 1, selector: { matchLabels: { app: 'api' } } })],
    () => [web(), webService(), pdb('all', { maxUnavailable: 1, selector: {} })],
  ],
  [
    'two PDBs select the pods',
    'DR402',
    () => [
      web(),
      webService(),
      pdb(),
      pdb('front', {
        maxUnavailable: 1,
        selector: { matchExpressions: [{ key: 'tier', operator: 'In', values: ['front'] }] },
      }),
    ],
    () => [
      web(),
      webService(),
      pdb(),
      pdb('front', {
        maxUnavailable: 1,
        selector: { matchExpressions: [{ key: 'tier', operator: 'NotIn', values: ['front'] }] },
      }),
    ],
  ],
  [
    'maxUnavailable: 0',
    'DR403',
    () => [web(), webService(), pdb('web', { maxUnavailable: 0, selector: { matchLabels: { app: 'web' } } })],
    () => [web(), webService(), pdb()],
  ],
  [
    'maxUnavailable: 0%',
    'DR403',
    () => [web(), webService(), pdb('web', { maxUnavailable: '0%', selector: { matchLabels: { app: 'web' } } })],
    () => [web(), webService(), pdb('web', { maxUnavailable: '10%', selector: { matchLabels: { app: 'web' } } })],
  ],
  [
    'minAvailable = replicas',
    'DR403',
    () => [web(), webService(), pdb('web', { minAvailable: 3, selector: { matchLabels: { app: 'web' } } })],
    () => [web(), webService(), pdb('web', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } })],
  ],
  [
    'minAvailable 100%',
    'DR403',
    () => [web(), webService(), pdb('web', { minAvailable: '100%', selector: { matchLabels: { app: 'web' } } })],
    () => [web(), webService(), pdb('web', { minAvailable: '60%', selector: { matchLabels: { app: 'web' } } })],
  ],
  [
    'minAvailable 1 with replicas unset (1)',
    'DR403',
    () => [
      web((d) => delete d.spec.replicas),
      webService(),
      pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }),
    ],
    () => [
      web((d) => (d.spec.replicas = 2)),
      webService(),
      pdb('web', { minAvailable: 1, selector: { matchLabels: { app: 'web' } } }),
    ],
  ],
];

describe('PodDisruptionBudgets: trap and fixed form', () => {
  it.each(rows)('%s → %s', (_, id, trap, fixed) => {
    expect(one(staticReport(trap()), id)).toHaveLength(1);
    expect(ids(staticReport(fixed()))).not.toContain(id);
  });
});

describe('replicas as the checks count them', () => {
  it('missing replicas is 1: no PDB needed', () => {
    expect(ids(staticReport([web((d) => delete d.spec.replicas), webService()]))).not.toContain('DR401');
  });

  it("an autoscaler's minimum counts, not the manifest's replicas", () => {
    expect(ids(staticReport([web((d) => delete d.spec.replicas), webService(), hpa(2)]))).toContain('DR401');
    expect(
      one(
        staticReport([
          web((d) => delete d.spec.replicas),
          webService(),
          hpa(2),
          pdb('web', { minAvailable: 2, selector: { matchLabels: { app: 'web' } } }),
        ]),
        'DR403',
      )[0]?.evidence,
    ).toEqual([
      'poddisruptionbudget/web: selector app=web, minAvailable 2',
      'replicas: horizontalpodautoscaler web minReplicas 2',
    ]);
  });

  it('a PDB without a selector selects nothing (policy/v1); one in another namespace does not count', () => {
    expect(ids(staticReport([web(), webService(), pdb('web', { maxUnavailable: 1 })]))).toContain('DR401');
    expect(
      ids(
        staticReport([
          web(),
          webService(),
          pdb('web', { maxUnavailable: 1, selector: { matchLabels: { app: 'web' } } }, 'other'),
        ]),
      ),
    ).toContain('DR401');
  });
});

describe('evidence', () => {
  it('DR401 gives a command that creates one', () => {
    const [f] = one(staticReport([web(), webService()]), 'DR401');
    expect(f?.fix).toBe('kubectl -n shop create poddisruptionbudget web --selector=app=web --max-unavailable=1');
  });

  it('DR403 points at the PDB, with its live status when read from a cluster', () => {
    const blocking = {
      ...pdb('web', { maxUnavailable: 0, selector: { matchLabels: { app: 'web' } } }),
      status: { disruptionsAllowed: 0, currentHealthy: 3, desiredHealthy: 3, expectedPods: 3 },
    };
    const [f] = one(liveReport([web(), webService(), blocking]), 'DR403');
    expect(f?.object).toEqual({ kind: 'PodDisruptionBudget', namespace: 'shop', name: 'web' });
    expect(f?.title).toBe(
      "poddisruptionbudget web never allows an eviction of deployment web's pods (maxUnavailable: 0): node drains wait for ever",
    );
    expect(f?.evidence).toContain(
      'poddisruptionbudget/web status: disruptionsAllowed 0, currentHealthy 3, desiredHealthy 3, expectedPods 3',
    );
  });

  it('a PDB list the user may not read: DR401–DR403 are not run, and a note says so', () => {
    const r = liveReport([web(), webService()], {
      unread: { pdbs: 'cannot list poddisruptionbudgets in namespace shop: forbidden' },
    });
    expect(ids(r)).not.toContain('DR401');
    expect(r.notes).toContain('cannot list poddisruptionbudgets in namespace shop: forbidden: DR401–DR403 not run');
  });
});

describe('DR404: a PDB lost between revisions of the Helm release (--helm-history)', () => {
  const pdbYaml = (name: string, app = 'web') =>
    `---\napiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: ${name}\nspec:\n  minAvailable: 2\n  selector:\n    matchLabels: {app: ${app}}\n`;
  const deploymentYaml = '---\napiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\n';
  const released = web(
    (d) => (d.metadata.annotations = { 'meta.helm.sh/release-name': 'web', 'meta.helm.sh/release-namespace': 'shop' }),
  );
  const history = (secrets: ReturnType<typeof helmSecret>[]) =>
    liveReport([released, webService(), pdb()], {
      helm: [{ release: 'web', namespace: 'shop', secrets: { items: secrets } }],
    });

  it.each([
    [
      'dropped in the latest revision',
      [
        helmSecret('web', 1, 'superseded', deploymentYaml + pdbYaml('web-pdb')),
        helmSecret('web', 2, 'deployed', deploymentYaml),
      ],
      true,
    ],
    [
      'kept in every revision',
      [
        helmSecret('web', 1, 'superseded', deploymentYaml + pdbYaml('web-pdb')),
        helmSecret('web', 2, 'deployed', deploymentYaml + pdbYaml('web-pdb')),
      ],
      false,
    ],
    [
      'a dropped PDB of other pods',
      [
        helmSecret('web', 1, 'superseded', deploymentYaml + pdbYaml('api-pdb', 'api')),
        helmSecret('web', 2, 'deployed', deploymentYaml),
      ],
      false,
    ],
  ])('%s: %s', (_, secrets, found) => {
    expect(ids(history(secrets)).includes('DR404')).toBe(found);
  });

  it('names Secrets, kinds, names and revisions only — nothing of what the Secrets hold', () => {
    const r = history([
      helmSecret('web', 3, 'superseded', deploymentYaml + pdbYaml('web-pdb')),
      helmSecret('web', 4, 'deployed', deploymentYaml),
      helmSecret('web', 5, 'failed', deploymentYaml),
    ]);
    const [f] = one(r, 'DR404');
    expect(f?.title).toBe(
      'Helm release shop/web: revision 3 had poddisruptionbudget web-pdb for the pods of deployment web; revision 4 has none',
    );
    expect(f?.evidence).toEqual([
      'secret sh.helm.release.v1.web.v3 (revision 3, superseded): PodDisruptionBudget web-pdb',
      'secret sh.helm.release.v1.web.v4 (revision 4, deployed): no PodDisruptionBudget web-pdb',
    ]);
    const text = JSON.stringify(r);
    expect(text).not.toContain('hunter2');
    expect(text).not.toContain('minAvailable');
  });

  it('without --helm-history it is not run, and says so; Secrets that cannot be listed are a note', () => {
    expect(liveReport([released, webService(), pdb()]).notRun).toEqual([
      { id: 'DR404', reason: 'needs --helm-history' },
    ]);
    const denied = liveReport([released, webService(), pdb()], {
      helm: [
        {
          release: 'web',
          namespace: 'shop',
          secrets: { items: [], error: { kind: 'Forbidden', message: 'secrets is forbidden' } },
        },
      ],
    });
    expect(denied.notes).toContain(
      'DR404 not run for deployment shop/web: cannot list the Secrets of Helm release shop/web (secrets is forbidden)',
    );
  });
});
