// The dependency check of src/ (scripts/check-layers.ts): every import goes with the flow, and the check itself
// catches an import against it (a check that cannot fail proves nothing).
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { checkLayers } from '../../scripts/check-layers.ts';

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'layers-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe('layers of src/', () => {
  it('src/ has no import against the flow', () => {
    expect(checkLayers(fileURLToPath(new URL('../../src', import.meta.url)))).toEqual([]);
  });

  it('finds an import against the flow, across lines, and type-only imports where only types are allowed', () => {
    const root = tree({
      'model/a.ts': "import { KubeClient } from '../kube/client.ts';\n",
      'kube/client.ts': 'export class KubeClient {}\n',
      'ui/view.ts': "import {\n  follow,\n} from '../services/live.ts';\nimport type { Update } from '../services/live.ts';\n",
      'services/live.ts': 'export const follow = 1; export type Update = number;\n',
      'diagnose/r.ts': "const lazy = await import('../ui/view.ts');\n",
    });
    expect(checkLayers(root).map((v) => `${v.file}:${v.line} ${v.reason}`).sort()).toEqual([
      'diagnose/r.ts:1 diagnose/ may not import ui/',
      'model/a.ts:1 model/ may not import kube/',
      'ui/view.ts:1 ui/ may not import services/ (types only: use `import type`)',
    ]);
  });
});
