// The layers of src/ import one way (docs/architecture.md). This check reads every import of every source file and
// fails on one against the flow. `npm run lint:layers` runs it; test/unit/layers.test.ts runs it in `npm test`.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * What each folder of src/ may import (besides itself and packages). `typeOnly` lists folders it may import types
 * from but no code: a view may name the type of the stream it is given, not start one.
 */
export const LAYERS: Record<string, { may: string[]; typeOnly?: string[] }> = {
  types: { may: [] },
  // leaf helpers that know nothing of Kubernetes: redaction of printed text, timers longer than setTimeout's limit,
  // the order of names (which the pure model and the diagnosis use too)
  lib: { may: [] },
  haptic: { may: ['types'] },
  kube: { may: ['types', 'haptic', 'lib'] },
  model: { may: ['types', 'haptic', 'lib/order.ts'] },
  diagnose: { may: ['types', 'haptic', 'model', 'lib/order.ts'] },
  ui: { may: ['types', 'haptic', 'model', 'diagnose', 'lib'], typeOnly: ['services'] },
  services: { may: ['types', 'haptic', 'kube', 'model', 'diagnose', 'lib', 'cli/errors.ts', 'cli/completion.ts'] },
  cli: { may: ['types', 'haptic', 'kube', 'model', 'diagnose', 'services', 'ui', 'lib'] },
  commands: { may: ['types', 'haptic', 'model', 'diagnose', 'services', 'ui', 'cli', 'lib'] },
  // the executable's entry and oclif's command table
  '.': { may: ['cli', 'commands'] },
};

export interface Violation {
  file: string;
  line: number;
  imports: string;
  reason: string;
}

const IMPORT = /^[ \t]*(?:import|export)\s+(type\s+)?(?:[^'";]*?\s+from\s+)?['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) ? [path] : [];
  });
}

/** The layer of a path inside src/: its top folder, or '.' for files directly in src/. */
function layerOf(srcRelative: string): string {
  const first = srcRelative.split('/')[0] ?? '';
  return srcRelative.includes('/') ? first : '.';
}

/** May `from` (a layer) import `target` (a path relative to src/)? Allowed entries name a layer or one file in it. */
function allowed(entries: string[], target: string): boolean {
  return entries.some((e) => (e.endsWith('.ts') ? target === e : layerOf(target) === e));
}

export function checkLayers(srcDir: string): Violation[] {
  const violations: Violation[] = [];
  for (const file of sources(srcDir)) {
    const from = layerOf(relative(srcDir, file));
    const rule = LAYERS[from];
    const text = readFileSync(file, 'utf8');
    for (const m of text.matchAll(IMPORT)) {
      const spec = m[2] ?? m[3];
      if (!spec || !spec.startsWith('.')) continue;
      const i = text.slice(0, m.index).split('\n').length - 1;
      const target = relative(srcDir, resolve(dirname(file), spec));
      const to = layerOf(target);
      const at = { file: relative(srcDir, file), line: i + 1, imports: spec };
      if (target.startsWith('..')) {
        violations.push({ ...at, reason: 'imports from outside src/' });
        continue;
      }
      if (to === from) continue;
      if (!rule) {
        violations.push({ ...at, reason: `folder src/${from} has no rule in scripts/check-layers.ts` });
        continue;
      }
      const typeOnly = !!m[1];
      if (allowed(rule.may, target) || (typeOnly && allowed(rule.typeOnly ?? [], target))) continue;
      const how = rule.typeOnly && allowed(rule.typeOnly, target) ? ' (types only: use `import type`)' : '';
      violations.push({ ...at, reason: `${from}/ may not import ${to}/${how}` });
    }
  }
  return violations;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const src = fileURLToPath(new URL('../src', import.meta.url));
  const violations = checkLayers(src);
  for (const v of violations) console.error(`src/${v.file}:${v.line}: ${v.reason}: ${v.imports}`);
  if (violations.length) {
    console.error(`${violations.length} import${violations.length === 1 ? '' : 's'} against the layers (see docs/architecture.md)`);
    process.exit(1);
  }
  console.log('layers: every import goes the right way');
}
