// A small reader of haproxy.cfg: sections and their directive lines, split into words the way HAProxy does
// (configuration manual §2.2: blanks separate words, `#` starts a comment, backslash escapes, single quotes are
// literal, double quotes group words). It reads what the doctor needs and never fails: an unknown keyword is just a
// line of its section. Pure: text in, sections out.

export interface CfgLine {
  /** 1-based line number in the text */
  line: number;
  words: string[];
  /** the line without its comment, trimmed, for evidence */
  text: string;
}

export interface CfgSection {
  keyword: string;
  /** the section's name (`backend be_redis` → be_redis); global and unnamed defaults have none */
  name: string | undefined;
  /** `backend x from <defaults>`: the named defaults section it takes its defaults from */
  from: string | undefined;
  line: number;
  lines: CfgLine[];
}

export interface HAProxyConfig {
  sections: CfgSection[];
}

/** Keywords that open a section (HAProxy 3.x; an unknown one would be read as a directive of the previous section). */
export const SECTION_KEYWORDS = new Set([
  'global',
  'defaults',
  'frontend',
  'backend',
  'listen',
  'resolvers',
  'peers',
  'userlist',
  'mailers',
  'program',
  'http-errors',
  'ring',
  'cache',
  'log-forward',
  'fcgi-app',
  'crt-store',
  'traces',
  'acme',
]);

/** Splits one line into words; a `#` outside quotes (and not escaped) ends it. */
export function splitWords(line: string): string[] {
  const words: string[] = [];
  let word: string | undefined;
  let quote: '"' | "'" | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i] as string;
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\' && quote === '"' && i + 1 < line.length) word = `${word ?? ''}${line[++i]}`;
      else word = `${word ?? ''}${c}`;
      continue;
    }
    if (c === '#') break;
    if (c === ' ' || c === '\t' || c === '\r') {
      if (word !== undefined) words.push(word);
      word = undefined;
      continue;
    }
    word ??= '';
    if (c === '"' || c === "'") quote = c;
    else if (c === '\\' && i + 1 < line.length) word += line[++i];
    else word += c;
  }
  if (word !== undefined) words.push(word);
  return words;
}

/** The code part of a line (without its comment), for evidence. */
function codeOf(line: string): string {
  let quote: string | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = undefined;
      else if (c === '\\') i++;
    } else if (c === '"' || c === "'") quote = c;
    else if (c === '\\') i++;
    else if (c === '#') return line.slice(0, i).trim();
  }
  return line.trim();
}

export function parseHAProxyConfig(text: string): HAProxyConfig {
  const sections: CfgSection[] = [];
  let current: CfgSection | undefined;
  text.split('\n').forEach((raw, i) => {
    const words = splitWords(raw);
    const first = words[0];
    if (first === undefined) return;
    const line: CfgLine = { line: i + 1, words, text: codeOf(raw) };
    if (SECTION_KEYWORDS.has(first)) {
      const from = words[2] === 'from' ? words[3] : words[1] === 'from' ? words[2] : undefined;
      current = { keyword: first, name: words[1] === 'from' ? undefined : words[1], from, line: i + 1, lines: [] };
      sections.push(current);
      return;
    }
    // Lines before any section belong to no section; HAProxy would refuse them, the doctor just skips them.
    current?.lines.push(line);
  });
  return { sections };
}

/** HAProxy's time format: a number with an optional unit (us, ms, s, m, h, d), milliseconds when none is given. */
export function parseTimeMs(value: string | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?)(us|ms|s|m|h|d)?$/.exec(value ?? '');
  if (!m) return undefined;
  const factor = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] ?? 'ms'] ?? 1;
  return Number(m[1]) * factor;
}

/** `backend be_redis`, `global`: how a section is named in evidence. */
export function sectionLabel(s: CfgSection): string {
  return s.name ? `${s.keyword} ${s.name}` : s.keyword;
}
