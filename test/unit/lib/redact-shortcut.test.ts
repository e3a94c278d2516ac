// redact() prints text without any of its triggers and without a remembered secret as it is, without running the
// patterns. This checks that the shortcut never changes an answer, before and after secrets are remembered: over
// every string of the test fixtures (keys and values) and strings built around each pattern's trigger and secret.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { loadAll } from 'js-yaml';
import { describe, expect, it } from 'vitest';
import { redact, redactEveryPattern, rememberSecret } from '../../../src/lib/redact.ts';

const FIXTURES = new URL('../../fixtures/', import.meta.url).pathname;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(json|ya?ml|txt|cfg)$/.test(name) ? [path] : [];
  });
}

function strings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) strings(v, out);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push(k);
      strings(v, out);
    }
  return out;
}

describe('redact() shortcut', () => {
  it('answers as every pattern would, for every string of the fixtures', () => {
    const corpus = files(FIXTURES).flatMap((file) => {
      const text = readFileSync(file, 'utf8');
      const lines = [text, ...text.split('\n')];
      try {
        return [
          ...lines,
          ...strings(file.endsWith('.json') ? JSON.parse(text) : /\.ya?ml$/.test(file) ? loadAll(text) : []),
        ];
      } catch {
        return lines; // not one document (JSON lines, a hostile fixture): its text and lines
      }
    });
    expect(corpus.length).toBeGreaterThan(1000);
    for (const s of corpus) expect(redact(s), s).toBe(redactEveryPattern(s));
  });

  it('answers as every pattern would around each trigger, in any case', () => {
    const triggers = [
      ...Array.from({ length: 0xa0 }, (_, c) => String.fromCharCode(c)),
      '\u001b[31m',
      '\u001b]0;t\u0007',
      '\u009b2J',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
      '-----begin x-----',
      'Bearer abcdefgh12345678',
      'bAsIc dXNlcjpwYXNzd29yZA==',
      'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln',
      'EYJ',
      'https://admin:pw@host',
      'a://b@c',
      'token: abcdef',
      'ID-TOKEN=x',
      'access_token = y',
      'Password: "p"',
      'passwd=q',
      'secret: s',
      'client-key-data: k',
      'clientCertificateData: c',
      'A'.repeat(119),
      'A'.repeat(120),
      `${'a/+'.repeat(50)}==`,
    ];
    for (const t of triggers)
      for (const s of [t, `x ${t} y`, `${t}${t}`, t.toUpperCase(), t.toLowerCase()])
        expect(redact(s), JSON.stringify(s)).toBe(redactEveryPattern(s));
  });

  it('answers as every pattern would once secrets are remembered, where a secret is in the text or cut by control characters', () => {
    rememberSecret('hunter2-the-secret');
    rememberSecret(`line-one-of-a-key\nline-two-of-a-key`);
    for (const s of [
      'x hunter2-the-secret y',
      'hunter2-the-\u001b[0msecret',
      'line-two-of-a-key',
      'line-one-of-a-ke',
      'nothing here',
      'web-7f5f5b8fd6-dl48n',
    ]) {
      expect(redact(s), JSON.stringify(s)).toBe(redactEveryPattern(s));
    }
    expect(redact('x hunter2-the-secret y')).toBe('x [REDACTED] y');
  });

  it('leaves plain text as it is', () => {
    for (const s of [
      'web-7f5f5b8fd6-dl48n',
      'enabled 2/2',
      'haproxy-haptic.org/load-balancer-ready',
      '✓ 0s (+1s)',
      'tab\tand\nnewline',
    ])
      expect(redact(s)).toBe(s);
  });
});
