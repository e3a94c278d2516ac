// Static mode's reading of -f: files, folders, standard input; targets by name or -l.
import { mkdirSync, mkdtempSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../../src/lib/errors.ts';
import { doctorStatic, parseLabelSelector } from '../../../src/services/doctor/doctor.ts';
import { readManifestFiles, readStdin } from '../../../src/services/doctor/manifest-files.ts';

const DIR = 'test/fixtures/doctor/gated-web-before/manifests';

describe('readManifestFiles', () => {
  it('reads the .yaml, .yml and .json files of a folder in name order, not what else it holds', async () => {
    const parsed = await readManifestFiles([DIR]);
    expect(parsed.flatMap((p) => [...new Set(p.objects.map((o) => o.source.file))])).toEqual([
      `${DIR}/api.yaml`,
      `${DIR}/hpa.json`,
      `${DIR}/web.yaml`,
    ]);
    // a folder's subfolders are not read (kubectl apply -f without -R), and golden files are not manifests
    await expect(readManifestFiles(['test/fixtures/doctor/gated-web-before'])).rejects.toThrow(
      'no .yaml, .yml or .json files in "test/fixtures/doctor/gated-web-before" (-R reads its sub-folders too)',
    );
  });

  it('-R reads the sub-folders too, depth first in name order', async () => {
    const parsed = await readManifestFiles(['test/fixtures/doctor/gated-web-before'], { recursive: true });
    expect(parsed.flatMap((p) => [...new Set(p.objects.map((o) => o.source.file))])).toEqual([
      'test/fixtures/doctor/gated-web-before/manifests/api.yaml',
      'test/fixtures/doctor/gated-web-before/manifests/hpa.json',
      'test/fixtures/doctor/gated-web-before/manifests/web.yaml',
    ]);
  });

  it('reads - from standard input, once per -', async () => {
    const text = 'apiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec: {}\n';
    const parsed = await readManifestFiles(['-'], { stdin: () => readStdin(Readable.from([Buffer.from(text)])) });
    expect(parsed[0]?.objects.map((o) => [o.object.metadata.name, o.source])).toEqual([
      ['s', { file: 'STDIN', line: 1 }],
    ]);
  });

  it('a symbolic link loop, a dangling link, a device and a file too large are input errors (exit 3)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kh-manifests-'));
    symlinkSync(join(dir, 'loop-b.yaml'), join(dir, 'loop-a.yaml'));
    symlinkSync(join(dir, 'loop-a.yaml'), join(dir, 'loop-b.yaml'));
    await expect(readManifestFiles([join(dir, 'loop-a.yaml')])).rejects.toThrow(
      new UserError(`the path "${join(dir, 'loop-a.yaml')}" is a loop of symbolic links`),
    );
    const folder = join(dir, 'folder');
    mkdirSync(folder);
    symlinkSync(join(dir, 'gone.yaml'), join(folder, 'dangling.yaml'));
    await expect(readManifestFiles([folder])).rejects.toThrow(
      new UserError(`the path "${join(folder, 'dangling.yaml')}" does not exist`),
    );
    await expect(readManifestFiles(['/dev/zero'])).rejects.toThrow(
      new UserError('the path "/dev/zero" is not a file or a folder'),
    );
    const big = join(dir, 'big.yaml');
    writeFileSync(big, '');
    truncateSync(big, 300 * 1024 * 1024); // sparse: nothing written
    await expect(readManifestFiles([big])).rejects.toThrow(new UserError(`the file "${big}" is larger than 256 MiB`));
    await expect(
      readManifestFiles(['-'], {
        stdin: () => readStdin(Readable.from([Buffer.alloc(200 * 1024 * 1024), Buffer.alloc(100 * 1024 * 1024)])),
      }),
    ).rejects.toThrow(new UserError('standard input is larger than 256 MiB'));
  });

  it('a path that does not exist is an input error (exit 3)', async () => {
    await expect(readManifestFiles(['no/such/file.yaml'])).rejects.toThrow(
      new UserError('the path "no/such/file.yaml" does not exist'),
    );
  });
});

describe('doctorStatic targets', () => {
  it('every Deployment, or the one named, or those -l selects; a name that is not there is an input error', async () => {
    const names = async (o: { name?: { kind?: 'Deployment' | 'StatefulSet'; name: string }; selector?: string }) =>
      (await doctorStatic({ paths: [DIR], namespace: 'default', ...o })).subjects.map((s) => s.ref.name);
    expect(await names({})).toEqual(['api', 'web']);
    expect(await names({ name: { name: 'web' } })).toEqual(['web']);
    expect(await names({ name: { kind: 'Deployment', name: 'web' } })).toEqual(['web']);
    await expect(names({ name: { kind: 'StatefulSet', name: 'web' } })).rejects.toThrow(
      'statefulset "web" is not in the manifests given with -f',
    );
    expect(await names({ selector: 'app.kubernetes.io/name=web' })).toEqual(['web']);
    expect(await names({ selector: 'app.kubernetes.io/name!=web' })).toEqual(['api']);
    await expect(doctorStatic({ paths: [DIR], namespace: 'default', name: { name: 'cart' } })).rejects.toThrow(
      'workload "cart" is not in the manifests given with -f',
    );
  });

  it.each([
    [
      'a=b,c!=d,e,!f',
      {
        matchLabels: { a: 'b' },
        matchExpressions: [
          { key: 'c', operator: 'NotIn', values: ['d'] },
          { key: 'e', operator: 'Exists' },
          { key: 'f', operator: 'DoesNotExist' },
        ],
      },
    ],
    ['a==b', { matchLabels: { a: 'b' }, matchExpressions: [] }],
  ])('-l %s', (text, selector) => {
    expect(parseLabelSelector(text)).toEqual(selector);
  });

  it('-l with set forms is refused with the forms that work', () => {
    expect(() => parseLabelSelector('env in (a,b)')).toThrow(
      '-l env in (a,b): with -f, use key=value, key!=value, key or !key',
    );
  });
});
