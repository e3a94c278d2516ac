// Helm release Secrets: base64 (the API's) of base64 (Helm's) of gzipped JSON; only PDB names and selectors read.
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { helmReleaseOf, helmRevision } from '../../../../src/model/doctor/helm-release.ts';
import { helmSecret } from '../../fixtures/doctor.ts';
import type { Secret } from '../../../../src/types/kube.ts';

const pdb =
  'apiVersion: policy/v1\nkind: PodDisruptionBudget\nmetadata:\n  name: web\nspec:\n  minAvailable: 1\n  selector:\n    matchLabels: {app: web}\n';

describe('helmRevision', () => {
  it('reads the revision, status and PodDisruptionBudgets of a release Secret', () => {
    expect(helmRevision(helmSecret('web', 3, 'superseded', `---\n# Source: web/templates/pdb.yaml\n${pdb}`))).toEqual({
      secret: 'sh.helm.release.v1.web.v3',
      release: 'web',
      version: 3,
      status: 'superseded',
      pdbs: [{ name: 'web', selector: { matchLabels: { app: 'web' } } }],
    });
  });

  it('refuses a release record that gunzips to more than 32 MiB, without expanding it', () => {
    const bomb = gzipSync(Buffer.alloc(40 * 1024 * 1024, 0x20)).toString('base64');
    const secret: Secret = {
      metadata: { name: 'sh.helm.release.v1.web.v5' },
      data: { release: Buffer.from(bomb).toString('base64') },
    };
    expect(helmRevision(secret)).toEqual({
      secret: 'sh.helm.release.v1.web.v5',
      error: 'data.release expands to more than 32 MiB',
    });
  });

  it('says why a Secret cannot be read, never what it holds', () => {
    const broken: Secret = {
      metadata: { name: 'sh.helm.release.v1.web.v4' },
      data: { release: Buffer.from('hunter2 not base64 of gzip').toString('base64') },
    };
    const r = helmRevision(broken);
    expect(r).toEqual({
      secret: 'sh.helm.release.v1.web.v4',
      error: 'data.release is not a Helm release record (base64, gzip, JSON)',
    });
    expect(helmRevision({ metadata: { name: 'x' } })).toEqual({ secret: 'x', error: 'no data.release' });
  });

  it('finds the release of an object from the annotations Helm writes', () => {
    expect(helmReleaseOf({ 'meta.helm.sh/release-name': 'web', 'meta.helm.sh/release-namespace': 'shop' })).toEqual({
      name: 'web',
      namespace: 'shop',
    });
    expect(helmReleaseOf({})).toBeUndefined();
  });
});
