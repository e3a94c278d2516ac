import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareLine } from '../../../cluster/standins/lab/container.ts';

describe("a lab container's private mounts", () => {
  it('leave folders outside /tmp alone and bring those under /tmp back, quoted for the shell', () => {
    expect(prepareLine(['/root/.cache/lab'])).toBe(
      'mount -t tmpfs tmpfs /run && mkdir -p /run/haproxy && mount -t tmpfs tmpfs /tmp && exec "$@"',
    );
    const line = prepareLine(["/tmp/it's here", '/srv/repo']);
    expect(line).toContain(`mount --bind '/tmp/it'\\''s here' /run/.keep0`);
    expect(line).toContain(`mount --move /run/.keep0 '/tmp/it'\\''s here'`);
    expect(line).not.toContain('/srv/repo');
  });

  // mount namespaces need root, as the lab itself does (CI runs as root)
  it.runIf(process.getuid?.() === 0)("hide the node's /tmp but for the folders the container runs from", () => {
    const dir = mkdtempSync('/tmp/lab-container-');
    try {
      mkdirSync(join(dir, "it's"));
      writeFileSync(join(dir, "it's", 'program'), 'kept\n');
      writeFileSync(join(dir, 'other'), 'hidden\n');
      const run = (keep: string[], script: string) =>
        execFileSync(
          'unshare',
          ['--mount', '--propagation', 'private', 'sh', '-c', prepareLine(keep), 'sh', 'sh', '-c', script],
          { encoding: 'utf8' },
        );
      expect(
        run([join(dir, "it's")], `cat "${dir}/it's/program"; ls /tmp; test -e "${dir}/other" || echo other-hidden`),
      ).toBe(`kept\n${dir.slice(5)}\nother-hidden\n`);
      expect(run([], 'ls -A /tmp | wc -l')).toBe('0\n');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
