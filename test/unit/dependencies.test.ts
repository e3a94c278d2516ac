// The dependency rules of the whole tree (.dependency-cruiser.cjs, checked by dependency-cruiser): the repository
// keeps them, and each kind of rule can fail (a check that cannot fail proves nothing).
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const CLI = join(ROOT, 'node_modules/dependency-cruiser/bin/dependency-cruiser.mjs');
const CONFIG = join(ROOT, '.dependency-cruiser.cjs');

function cruise(cwd: string, paths: string[]) {
  const r = spawnSync(process.execPath, [CLI, ...paths, '--config', CONFIG, '--output-type', 'err'], {
    cwd,
    encoding: 'utf8',
  });
  return { code: r.status, out: r.stdout + r.stderr };
}

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'deps-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('dependency rules', () => {
  it('the repository keeps every rule', () => {
    const r = cruise(ROOT, ['src', 'test', 'scripts', 'bench', 'vitest.config.ts']);
    expect(r.out).toContain('no dependency violations found');
    expect(r.code).toBe(0);
  });

  it('finds imports against the layers, type-only ones and cycles included, and the test harness reaching into the model', () => {
    const root = tree({
      'src/model/a.ts': "import { KubeClient } from '../kube/client.ts';\nexport const a = KubeClient;\n",
      'src/kube/client.ts': 'export class KubeClient {}\n',
      'src/ui/view.ts': "import type { Update } from '../services/live.ts';\nexport type View = Update;\n",
      'src/services/live.ts':
        "import type { View } from '../ui/view.ts';\nexport type Update = number;\nexport type Seen = View;\n",
      'src/diagnose/rule.ts': "import { redact } from '../lib/redact.ts';\nexport const r = redact;\n",
      'src/lib/redact.ts': 'export const redact = 1;\n',
      'test/cluster/standin.ts': "import { a } from '../../src/model/a.ts';\nexport const s = a;\n",
      'bench/run.ts': "import { x } from '../test/e2e/helpers.ts';\nexport const b = x;\n",
      'test/e2e/helpers.ts': 'export const x = 1;\n',
      'test/unit/missing.test.ts': "import { y } from './nowhere.ts';\nexport const z = y;\n",
    });
    const r = cruise(root, ['src', 'test', 'bench']);
    expect(r.code).not.toBe(0);
    for (const [rule, from, to] of [
      ['layer-model', 'src/model/a.ts', 'src/kube/client.ts'],
      ['layer-ui', 'src/ui/view.ts', 'src/services/live.ts'],
      ['layer-diagnose', 'src/diagnose/rule.ts', 'src/lib/redact.ts'],
      ['no-circular', 'src/services/live.ts', 'src/ui/view.ts'],
      ['standins-imitate-on-their-own', 'test/cluster/standin.ts', 'src/model/a.ts'],
      ['bench-and-scripts', 'bench/run.ts', 'test/e2e/helpers.ts'],
      ['no-unresolvable', 'test/unit/missing.test.ts', './nowhere.ts'],
    ]) {
      expect(r.out).toMatch(new RegExp(`error ${rule}: ${from} →\\s+${to!.replace(/\./g, '\\.')}`));
    }
  });
});
