// The catalogue is data: every entry well formed, and the docs generated from it (docs/checks.md, its tables included)
// in step with it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CATALOGUE,
  describeFinding,
  fill,
  placeholders,
  shellQuotes,
  variants,
} from '../../../src/diagnose/catalogue.ts';
import type { CatalogueEntry } from '../../../src/types/finding.ts';
import { finding } from '../../../src/diagnose/make.ts';
import { checksPage } from '../../../scripts/catalogue-docs.ts';

const root = new URL('../../../', import.meta.url);
const entries = Object.entries(CATALOGUE) as [string, CatalogueEntry][];

describe('catalogue entries', () => {
  it.each(entries)('%s is well formed', (id, entry) => {
    expect(id).toMatch(/^(HG1\d\d|HS[129]\d\d|DR[1-6]0\d)$/);
    expect(['blocker', 'error', 'warning', 'info', 'ok']).toContain(entry.severity);
    expect(entry.summary).toMatch(/^[A-Z].{10,}\.$/);
    if (id.startsWith('HG')) expect(['blocker', 'warning', 'ok']).toContain(entry.severity);
    if (id.startsWith('DR')) expect(['error', 'warning', 'info']).toContain(entry.severity);
    // a severity by form names forms the entry has, and differs from the entry's own
    for (const [form, severity] of Object.entries(entry.severityOf ?? {})) {
      expect(variants(entry)).toContain(form);
      expect(severity).not.toBe(entry.severity);
    }
    // a record of forms names the same forms for title and fix
    if (typeof entry.title !== 'string' && entry.fix !== undefined && typeof entry.fix !== 'string')
      expect(Object.keys(entry.fix).sort()).toEqual(Object.keys(entry.title).sort());
    for (const p of [...placeholders(entry.title), ...placeholders(entry.fix)]) expect(p).toMatch(/^[a-z][A-Za-z]*$/);
  });

  it('fills placeholders, keeps JSON braces, and refuses a missing argument or form', () => {
    expect(fill(`kubectl patch pod {pod} -p '{"metadata":{"finalizers":null}}'`, undefined, { pod: 'p' }, 'x')).toBe(
      `kubectl patch pod p -p '{"metadata":{"finalizers":null}}'`,
    );
    expect(() => fill('pod {pod}', undefined, {}, 'HS999 title')).toThrow('HS999 title: no value for {pod}');
    expect(() => fill({ a: 'x' }, 'b', {}, 'HS999 fix')).toThrow('HS999 fix: no text for variant "b"');
    expect(variants(CATALOGUE.HS102)).toEqual(['unlisted', 'externalName', 'portless']);
  });

  it('a fix pastes every value shell-quoted, and is not printed when a value holds a newline (#36 item 8)', () => {
    const hs113 = CATALOGUE.HS113.fix;
    const args = { namespace: 'shop', service: 'web', port: 'http', routeClass: 'haproxy' };
    expect(fill(hs113, 'none', args, 'HS113 fix', true)).toBe(
      "create a route HAPTIC renders: kubectl -n shop create ingress web --class=haproxy --rule='/*=web:http'",
    );
    // a field selector's value is free text: `;`, `$(…)`, spaces and quotes are one word to the shell
    expect(fill(hs113, 'none', { ...args, routeClass: "x; rm -rf ~ $(id) 'q'" }, 'HS113 fix', true)).toBe(
      `create a route HAPTIC renders: kubectl -n shop create ingress web --class='x; rm -rf ~ $(id) '\\''q'\\''' --rule='/*=web:http'`,
    );
    // inside the template's own quotes only the quote is escaped
    expect(fill(hs113, 'none', { ...args, port: "a'b c" }, 'HS113 fix', true)).toBe(
      "create a route HAPTIC renders: kubectl -n shop create ingress web --class=haproxy --rule='/*=web:a'\\''b c'",
    );
    for (const bad of ['haproxy\nkubectl delete ns shop', 'a\rb', 'a\u2028b'])
      expect(fill(hs113, 'none', { ...args, routeClass: bad }, 'HS113 fix', true)).toBe(
        '(no command printed: the routeClass it needs holds a control character, which a pasted command would run as a new line)',
      );
    // titles are prose: filled as they are
    expect(fill('{name} waits', undefined, { name: 'a b' }, 'x')).toBe('a b waits');
  });

  it('every fix text quotes in pairs: an unpaired quote would make fill() misread what is quoted', () => {
    for (const [id, entry] of entries)
      for (const text of typeof entry.fix === 'string' ? [entry.fix] : Object.values(entry.fix ?? {}))
        expect(shellQuotes(text) % 2, `${id}: ${text}`).toBe(0);
    expect(shellQuotes("HAPTIC's pods: kubectl -p '{}' --rule='/*=a'")).toBe(4);
  });

  it('the doctor has exactly the ids of its issue (#10), DR207 of #24, DR606 and DR607 of #34', () => {
    const ids = entries.map(([id]) => id).filter((id) => id.startsWith('DR'));
    expect(ids).toEqual([
      'DR101',
      'DR102',
      'DR103',
      'DR104',
      'DR201',
      'DR202',
      'DR203',
      'DR204',
      'DR205',
      'DR206',
      'DR207',
      'DR301',
      'DR302',
      'DR303',
      'DR401',
      'DR402',
      'DR403',
      'DR404',
      'DR501',
      'DR502',
      'DR601',
      'DR602',
      'DR603',
      'DR604',
      'DR605',
      'DR606',
      'DR607',
    ]);
  });

  it('a form can carry its own severity, which finding() takes from the catalogue', () => {
    const args = { container: 'app', endpoint: 'httpGet HTTP :8080/healthz', liveness: 30, readiness: 30 };
    expect(finding('DR101', args, [], { variant: 'restartsFirst' }).severity).toBe('error');
    expect(finding('DR101', args, [], { variant: 'later' }).severity).toBe('warning');
  });

  it('describes a finding with its title, fix and docs link', () => {
    const f = finding('HS206', { name: 'web', namespace: 'shop' }, ['spec.paused: true']);
    expect(describeFinding(f)).toEqual({
      id: 'HS206',
      severity: 'warning',
      title: 'deployment web is paused: the rollout does not progress until it is resumed',
      evidence: ['spec.paused: true'],
      fix: 'kubectl -n shop rollout resume deployment/web',
      docs: 'docs/checks.md#hs206',
    });
  });
});

describe('docs generated from the catalogue (npm run docs)', () => {
  it('docs/checks.md is up to date', () => {
    expect(readFileSync(new URL('docs/checks.md', root), 'utf8')).toBe(checksPage());
  });

  it("every id has its section in docs/checks.md, and a row linked to it in its family's table", () => {
    const page = checksPage();
    for (const [id, entry] of entries) {
      expect(page).toContain(`\n### ${id}\n`);
      expect(page).toContain(`\n| [${id}](#${id.toLowerCase()}) | `);
      expect(page).toContain(`| ${entry.summary.replace(/\|/g, '\\|')} |\n`);
    }
  });
});
