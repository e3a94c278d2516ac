// Whole doctor outputs in static mode, pinned: for every folder of test/fixtures/doctor (manifests modelled on the
// seeds' setups: seed 004's redis + HAProxy before and after its fixes, the gated web app of seeds 000/003 before
// and after, and a folder of broken documents), the text report and the SARIF log, byte for byte, beside the
// folder's manifests. Read through the same path as `kubectl haptic doctor -f <folder>`. Regenerate after an
// intended change with `npx vitest run test/unit/doctor-golden.test.ts -u` and read the diff.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { doctorExitCode } from '../../src/cli/outcomes.ts';
import { doctorStatic } from '../../src/services/doctor/doctor.ts';
import { doctorOutput } from '../../src/ui/doctor/output.ts';
import { doctorText } from '../../src/ui/doctor/text.ts';
import { formatStructured } from '../../src/ui/output.ts';
import { sarifLog } from '../../src/ui/doctor/sarif.ts';
import { painter } from '../../src/ui/style.ts';
import { NOW } from './fixtures/doctor.ts';

const DIR = 'test/fixtures/doctor';
const VERSION = JSON.parse(readFileSync('package.json', 'utf8')).version as string;
// real/ is the corpus of other projects' manifests, judged in doctor-corpus.test.ts
const folders = readdirSync(DIR)
  .filter((d) => d !== 'real' && statSync(join(DIR, d)).isDirectory())
  .sort();
const report = (name: string) => doctorStatic({ paths: [join(DIR, name, 'manifests')], namespace: 'default' }, NOW);
const golden = (name: string, file: string) => join(process.cwd(), DIR, name, file);

describe('doctor golden outputs (static mode)', () => {
  it("has the seeds' setups before and after their fixes, and broken documents", () => {
    expect(folders).toEqual([
      'gated-web-after',
      'gated-web-before',
      'malformed',
      'redis-haproxy-after',
      'redis-haproxy-before',
    ]);
  });

  it.each(folders)('%s: text and SARIF', async (name) => {
    const r = await report(name);
    await expect(doctorText(r, painter(false))).toMatchFileSnapshot(golden(name, 'doctor.golden.txt'));
    await expect(`${JSON.stringify(sarifLog(r, VERSION), null, 2)}\n`).toMatchFileSnapshot(
      golden(name, 'doctor.golden.sarif'),
    );
  });

  it('redis-haproxy-before: -o yaml has the documented shape', async () => {
    await expect(formatStructured(doctorOutput(await report('redis-haproxy-before')), 'yaml')).toMatchFileSnapshot(
      golden('redis-haproxy-before', 'doctor.golden.yaml'),
    );
  });

  it.each([
    ['redis-haproxy-before', ['DR101', 'DR103', 'DR201', 'DR205', 'DR206', 'DR301', 'DR401'], 1],
    ['redis-haproxy-after', [], 0],
    ['gated-web-before', ['DR103', 'DR104', 'DR201', 'DR402', 'DR403', 'DR501', 'DR603', 'DR604', 'DR605'], 1],
    ['gated-web-after', [], 0],
    ['malformed', [], 3],
  ])('%s finds %j and exits %i', async (name, ids, code) => {
    const r = await report(name);
    expect([...new Set(r.subjects.flatMap((s) => s.findings.map((f) => f.id)))].sort()).toEqual(ids);
    expect(doctorExitCode(r, false)).toBe(code);
  });

  it('prints no Secret value and no env value, whatever the manifests hold', async () => {
    for (const name of folders) {
      const r = await report(name);
      const all = [
        doctorText(r, painter(false)),
        JSON.stringify(sarifLog(r, VERSION)),
        formatStructured(doctorOutput(r), 'json'),
      ].join('\n');
      expect(all).not.toContain('hunter2');
      expect(all).not.toContain('aHVudGVyMg');
    }
  });
});
