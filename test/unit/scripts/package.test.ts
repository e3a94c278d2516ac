// The release archive's .tar.gz is written by scripts/package.js itself, not by a tar binary (BSD tar on macOS lacks
// GNU tar's reproducibility flags): the same bytes GNU tar writes, read back by whatever tar this machine has.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';

type Member = { name: string; data: Buffer; mode: number };
// scripts/ are plain JavaScript, without type declarations
const { tarGz } = (await import('../../../scripts/package.js' as string)) as {
  tarGz: (entries: Member[], mtime: number) => Buffer;
};

const MTIME = 1_700_000_000;
const members: Member[] = [
  { name: 'kubectl-haptic', data: Buffer.alloc(70_001, 7), mode: 0o100755 },
  {
    name: 'kubectl_complete-haptic',
    data: Buffer.from('#!/bin/sh\nexec kubectl-haptic __complete "$@"\n'),
    mode: 0o100755,
  },
  { name: 'LICENSE', data: Buffer.from('Apache License\n'), mode: 0o100644 },
];
const scratch = mkdtempSync(join(tmpdir(), 'kh-tar-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const gnuTar = (() => {
  try {
    return execFileSync('tar', ['--version'], { encoding: 'utf8' }).includes('GNU tar');
  } catch {
    return false;
  }
})();

describe('tarGz', () => {
  const archive = tarGz(members, MTIME);

  it('gives the same bytes for the same files', () => {
    expect(tarGz(members, MTIME).equals(archive)).toBe(true);
    // gzip header: no name, no time, Unix, whatever platform wrote it
    expect([...archive.subarray(0, 10)]).toEqual([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3]);
  });

  it("is read back by this machine's tar: names, modes, owner, time and contents", () => {
    const file = join(scratch, 'read.tar.gz');
    writeFileSync(file, archive);
    const listing = execFileSync('tar', ['-tvzf', file], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } })
      .trim()
      .split('\n');
    expect(listing.map((l) => `${l.split(/\s+/)[0]} ${l.split(/\s+/).at(-1)}`)).toEqual([
      '-rwxr-xr-x kubectl-haptic',
      '-rwxr-xr-x kubectl_complete-haptic',
      '-rw-r--r-- LICENSE',
    ]);
    for (const line of listing) expect(line).toMatch(/\b0\/0\b|\b0 +0\b/);
    const out = join(scratch, 'out');
    mkdirSync(out);
    execFileSync('tar', ['-xzf', file, '-C', out]);
    for (const m of members) expect(readFileSync(join(out, m.name)).equals(m.data), m.name).toBe(true);
  });

  it.skipIf(!gnuTar)('holds, byte for byte, the tar GNU tar writes with the reproducible flags', () => {
    const stage = join(scratch, 'stage');
    mkdirSync(stage);
    for (const m of members) {
      writeFileSync(join(stage, m.name), m.data);
      chmodSync(join(stage, m.name), m.mode & 0o7777);
    }
    const names = members.map((m) => m.name);
    const gnu = execFileSync(
      'tar',
      [
        '--create',
        '--owner=0',
        '--group=0',
        '--numeric-owner',
        `--mtime=@${MTIME}`,
        '--format=gnu',
        '-C',
        stage,
        ...names,
      ],
      { maxBuffer: 1 << 30 },
    );
    expect(gunzipSync(archive).equals(gnu)).toBe(true);
  });

  it('refuses a member name tar cannot hold in its header', () => {
    expect(() => tarGz([{ name: 'x'.repeat(101), data: Buffer.alloc(0), mode: 0o644 }], MTIME)).toThrow(
      'tar member name over 100 bytes',
    );
  });
});
