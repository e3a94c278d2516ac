// Every relative link of the project's markdown points at a file or folder that exists, and every #anchor at a
// heading of the page it names: README.md, docs/ (the command pages included), and the READMEs beside the code.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

function markdownUnder(dir: string): string[] {
  return readdirSync(join(root, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(dir, f));
}

const PAGES = [
  'README.md',
  ...markdownUnder('docs'),
  'bench/README.md',
  'test/cluster/README.md',
  'test/fixtures/sarif/README.md',
];

/** The text of a page without its code blocks and code spans, where brackets and parentheses are not links. */
function withoutCode(text: string): string {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
}

/** The links of a page: inline `[text](target)` and `[text]: target` definitions. */
function linksOf(text: string): string[] {
  const plain = withoutCode(text);
  const inline = [...plain.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const defined = [...plain.matchAll(/^\s*\[[^\]]+\]:\s*<?(\S+?)>?(?:\s|$)/gm)].map((m) => m[1]!);
  return [...inline, ...defined];
}

/** GitHub's anchors for the headings of a page: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchorsOf(text: string): Set<string> {
  const seen = new Map<string, number>();
  const anchors = new Set<string>();
  const headings = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm);
  for (const [, heading] of headings) {
    const words = heading!.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '');
    const slug = words
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  return anchors;
}

/** What is wrong with a link of `page`, or undefined when it resolves. */
function problem(page: string, link: string): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link)) return undefined; // https:, mailto:, … : not a file of the repository
  const [path = '', anchor] = link.split('#', 2) as [string, string | undefined];
  const target = path === '' ? join(root, page) : join(root, dirname(page), decodeURIComponent(path));
  if (!target.startsWith(root)) return `${link}: leaves the repository`;
  if (!existsSync(target)) return `${link}: no such file ${relative(root, target)}`;
  if (anchor === undefined) return undefined;
  if (statSync(target).isDirectory() || !target.endsWith('.md'))
    return `${link}: an anchor on what is not a markdown page`;
  if (!anchorsOf(readFileSync(target, 'utf8')).has(anchor))
    return `${link}: ${relative(root, target)} has no heading #${anchor}`;
  return undefined;
}

describe('links of the markdown pages', () => {
  it('reads links and anchors as GitHub does', () => {
    expect(linksOf('see [a](docs/a.md#x "title") and `[b](nope.md)`, [c]: ../c.md\n```\n[d](gone.md)\n```\n')).toEqual([
      'docs/a.md#x',
    ]);
    expect(linksOf('[c]: ../c.md\n')).toEqual(['../c.md']);
    expect([
      ...anchorsOf('# Exit codes\n## `status --wait` and CI\n## Exit codes\n```\n# not a heading\n```\n'),
    ]).toEqual(['exit-codes', 'status---wait-and-ci', 'exit-codes-1']);
  });

  it.each(PAGES)('%s: every relative link resolves', (page) => {
    const links = linksOf(readFileSync(join(root, page), 'utf8'));
    expect(links.map((l) => problem(page, l)).filter(Boolean)).toEqual([]);
  });

  it("README.md names HAPTIC's public repository", () => {
    const links = linksOf(readFileSync(join(root, 'README.md'), 'utf8'));
    expect(links).toContain('https://github.com/HAProxy-Template-IC/haproxy-template-ingress-controller');
    expect(links.filter((l) => /github\.com\/haproxy-haptic\//i.test(l))).toEqual([]);
  });
});
