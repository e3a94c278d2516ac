// The doctor on other projects' manifests (test/fixtures/doctor/real/, issue #20): every error finding — what fails a
// CI — must be one a person judged, by reading the manifest and the code it runs, in corpus.yaml; at least 9 in 10
// of them true. An error nobody judged fails the test, and so does a judged one that is gone (the verdicts stay
// exact). The synthetic fixtures of the seeds' traps are doctor-golden.test.ts's.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { refName } from '../../src/diagnose/doctor/located.ts';
import type { DoctorFinding } from '../../src/diagnose/doctor/index.ts';
import { doctorStatic } from '../../src/services/doctor/doctor.ts';
import { NOW } from './fixtures/doctor.ts';

const DIR = 'test/fixtures/doctor/real';

interface CorpusSet {
  name: string;
  repository: string;
  commit: string;
  paths: string[];
  rendered: string;
  unreadable: number;
  errors: { finding: string; verdict: boolean; why: string }[];
}

const corpus = (load(readFileSync(join(DIR, 'corpus.yaml'), 'utf8')) as { sets: CorpusSet[] }).sets;

/** How corpus.yaml names a finding: id, the object it is about, and its container when it has one. */
const named = (f: DoctorFinding) =>
  `${f.id} ${refName(f.object)}${f.args.container !== undefined ? ` container ${f.args.container}` : ''}`;

const errorsOf = async (set: string) => {
  const report = await doctorStatic({ paths: [join(DIR, set)], namespace: 'default' }, NOW);
  const errors = report.subjects
    .flatMap((s) => s.findings)
    .filter((f) => f.severity === 'error' && !f.suppressed)
    .map(named);
  return { errors, unreadable: report.unreadable.length };
};

describe('the doctor on other projects manifests', () => {
  it('has at least 20 sets, each from its own repository at a named commit, each a folder here', () => {
    expect(corpus.length).toBeGreaterThanOrEqual(20);
    expect(new Set(corpus.map((s) => s.repository)).size).toBe(corpus.length);
    for (const s of corpus) expect(s.commit, s.name).toMatch(/^[0-9a-f]{40}$/);
    const folders = readdirSync(DIR).filter((d) => statSync(join(DIR, d)).isDirectory());
    expect(folders.sort()).toEqual(corpus.map((s) => s.name).sort());
  });

  it.each(corpus.map((s) => [s.name, s] as const))(
    '%s: every error is judged, and every judged one is found',
    async (name, set) => {
      const { errors, unreadable } = await errorsOf(name);
      expect(errors.sort()).toEqual(set.errors.map((e) => e.finding).sort());
      expect(unreadable).toBe(set.unreadable);
    },
  );

  it('at least 9 in 10 of the errors are true, and each verdict says why', () => {
    const all = corpus.flatMap((s) => s.errors);
    expect(all.length).toBeGreaterThan(0);
    for (const e of all) expect(e.why.length, e.finding).toBeGreaterThan(20);
    expect(all.filter((e) => e.verdict).length / all.length).toBeGreaterThanOrEqual(0.9);
  });
});
