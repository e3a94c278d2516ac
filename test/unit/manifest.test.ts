import { readFileSync } from 'node:fs';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';

const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));
const manifest = load(readFileSync(new URL('plugin-manifest/haptic.yaml', root), 'utf8')) as any;

describe('krew manifest', () => {
  it('is a krew Plugin named haptic at the package version', () => {
    expect(manifest.apiVersion).toBe('krew.googlecontainertools.github.com/v1alpha2');
    expect(manifest.kind).toBe('Plugin');
    expect(manifest.metadata.name).toBe('haptic');
    expect(manifest.spec.version).toBe(`v${pkg.version}`);
    expect(manifest.spec.shortDescription.length).toBeGreaterThan(10);
    expect(manifest.spec.shortDescription.length).toBeLessThanOrEqual(50);
    expect(manifest.spec.description).toContain('haproxy-haptic.org/load-balancer-ready');
  });

  it('lists, per platform, the archive npm run package builds, with its sha256 and the single executable as bin', () => {
    expect(manifest.spec.platforms.length).toBeGreaterThan(0);
    for (const p of manifest.spec.platforms) {
      const { os, arch } = p.selector.matchLabels;
      expect(['linux', 'darwin', 'windows']).toContain(os);
      expect(['amd64', 'arm64']).toContain(arch);
      const windows = os === 'windows';
      expect(p.uri).toMatch(
        new RegExp(
          `^https://.+/v${pkg.version}/kubectl-haptic-v${pkg.version}-${os}-${arch}\\.${windows ? 'zip' : 'tar\\.gz'}$`,
        ),
      );
      expect(p.sha256).toMatch(/^[0-9a-f]{64}$/);
      expect(p.bin).toBe(windows ? 'kubectl-haptic.exe' : 'kubectl-haptic');
      const files = windows
        ? ['kubectl-haptic.exe', 'kubectl_complete-haptic.cmd', 'LICENSE']
        : ['kubectl-haptic', 'kubectl_complete-haptic', 'LICENSE'];
      expect(p.files).toEqual(files.map((from) => ({ from, to: '.' })));
    }
    expect(
      new Set(manifest.spec.platforms.map((p: any) => `${p.selector.matchLabels.os}/${p.selector.matchLabels.arch}`))
        .size,
    ).toBe(manifest.spec.platforms.length);
  });

  it('tells krew users how to link the completion helper krew does not link', () => {
    expect(manifest.spec.caveats).toContain(
      `ln -s "$HOME/.krew/store/haptic/v${pkg.version}/kubectl_complete-haptic" "$HOME/.krew/bin/"`,
    );
  });
});
