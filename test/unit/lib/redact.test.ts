import { describe, expect, it } from 'vitest';
import { keepOnOneLine, redact, redactDeep, rememberSecret, stripControl } from '../../../src/lib/redact.ts';
import { MAX_TIMER_MS, setLongTimeout, timeoutSignal } from '../../../src/lib/timers.ts';
import { vi } from 'vitest';

describe('redact', () => {
  it('strips CSI, OSC (title, clipboard, hyperlink), 8-bit C1, C0 but newline and tab, DEL and carriage return', () => {
    const hostile =
      'a\u001b[31mred\u001b[0m b\u001b]0;title\u0007 c\u001b]52;c;cm0gLXJmIH4=\u001b\\ d\u001b]8;;http://x\u0007link\u001b]8;;\u0007 e\u009b2J f\u0007\u0000\u007f g\r\nh\ti\u001bc';
    expect(stripControl(hostile)).toBe('ared b c dlink e f g\nh\ti');
    expect(redact('unterminated \u001b]0;title that never ends')).toBe('unterminated ');
  });

  it('masks remembered secrets, line by line and as decoded base64 PEM', () => {
    rememberSecret('s3cr3t-value-1');
    rememberSecret('abc'); // too short to mask everywhere
    const pem =
      '-----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg\n-----END PRIVATE KEY-----\n';
    rememberSecret(Buffer.from(pem).toString('base64'));
    expect(redact('x s3cr3t-value-1 y abc')).toBe('x [REDACTED] y abc');
    expect(redact('line MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQg')).toBe('line [REDACTED]');
  });

  it('masks what looks like a credential whoever printed it', () => {
    expect(redact('Authorization: Bearer abcdefgh12345678')).toBe('Authorization: Bearer [REDACTED]');
    expect(redact('Basic auth is off')).toBe('Basic auth is off');
    expect(redact('https://admin:pw@host:6443/x and ftp://u@h')).toBe(
      'https://[REDACTED]@host:6443/x and ftp://[REDACTED]@h',
    );
    expect(redact('token: abcdef, "password":"hunter22" id-token=xyz')).toBe(
      'token: [REDACTED], "password":"[REDACTED]" id-token=[REDACTED]',
    );
    expect(redact('open /x/no-such-token: no such file')).toBe('open /x/no-such-token: no such file');
    expect(redact('jwt eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0.c2ln ok')).toBe('jwt [REDACTED TOKEN] ok');
    expect(redact('-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE----- after')).toBe('[REDACTED PEM] after');
    expect(redact(`data ${'A'.repeat(200)}`)).toBe('data [REDACTED DATA]');
    expect(redact('sha256:2a923b9eb3f6 web-7f5f5b8fd6-dl48n 10.0.0.3')).toBe(
      'sha256:2a923b9eb3f6 web-7f5f5b8fd6-dl48n 10.0.0.3',
    );
  });

  it('strips what reorders or hides text: bidi overrides and isolates, zero-width characters, Unicode separators', () => {
    const row = 'web-\u202Eterces\u202C 1/1 \u2066x\u2069 \u200Bzw\uFEFF \u2028line\u2029 \u200F\u061C';
    expect(redact(row)).toBe('web-terces 1/1 x zw line ');
  });

  it('stays linear on text crafted against its patterns (a scheme that never ends)', () => {
    const crafted = `${'a.'.repeat(100_000)}://`;
    const start = performance.now();
    expect(redact(crafted)).toBe(crafted);
    // quadratic was 17 s for 200 KB; linear is a few ms — a bound far from both, not a timing goal
    expect(performance.now() - start).toBeLessThan(2_000);
  });

  it('masks a remembered secret of any length or number: never fails open', () => {
    const huge = 'T'.repeat(40_000).replace(/^T/, 'x');
    rememberSecret(huge);
    for (let i = 0; i < 2_000; i++) rememberSecret(`many-secrets-${i}-${'z'.repeat(40)}`);
    expect(redact(`token echoed ${huge} back`)).toBe('token echoed [REDACTED] back');
    expect(redact(`a many-secrets-1999-${'z'.repeat(40)} b`)).toBe('a [REDACTED] b');
  });

  it('redactDeep maps every string of plain data and leaves other objects alone', () => {
    const err = new Error('x');
    const out = redactDeep({ a: ['\u001b[2Jb', 1, null], b: { c: 'token: abcdef' }, err });
    expect(out).toEqual({ a: ['b', 1, null], b: { c: 'token: [REDACTED]' }, err });
    expect(out.err).toBe(err);
  });

  it('keeps a value on one line for text: newlines and tabs shown escaped, everything else as it is', () => {
    expect(keepOnOneLine('evil\nforged line\t')).toBe('evil\\nforged line\\t');
    expect(keepOnOneLine('web-1 ✓ a\\b')).toBe('web-1 ✓ a\\b');
    // redact() first: the carriage return and the escape sequence go, the newline is kept for keepOnOneLine
    expect(keepOnOneLine(redact('a\r\n\u001b[2Jb'))).toBe('a\\nb');
  });

  it('redactDeep for text keeps every string on one line, keys included, but what is under linesKeptUnder', () => {
    const template = { spec: { containers: [{ name: 'app', command: ['sh', '-c', 'a\nb'] }] } };
    const input = {
      name: 'evil\nforged',
      'key\twith tab': ['x\ty', { message: 'one\ntwo' }],
      templateAfter: template,
      again: template,
    };
    expect(redactDeep(input, { oneLine: true, linesKeptUnder: new Set(['templateAfter']) })).toEqual({
      name: 'evil\\nforged',
      'key\\twith tab': ['x\\ty', { message: 'one\\ntwo' }],
      templateAfter: template,
      // the same object elsewhere is text like any other
      again: { spec: { containers: [{ name: 'app', command: ['sh', '-c', 'a\\nb'] }] } },
    });
    // for JSON and YAML the value stays whole: they escape it themselves
    expect(redactDeep(input)).toEqual(input);
  });

  it('redactDeep copies a part shared by several places once, and leaves the input as it was', () => {
    const shared = { servers: [{ pod: 'web-1', note: '\u001b[31mred' }], token: 'password=hunter2hunter2' };
    const input = { items: [{ installations: [shared] }, { installations: [shared] }], again: shared };
    const before = JSON.stringify(input);
    const out = redactDeep(input);
    const expected = { servers: [{ pod: 'web-1', note: 'red' }], token: 'password=[REDACTED]' };
    expect(out).toEqual({ items: [{ installations: [expected] }, { installations: [expected] }], again: expected });
    expect(out.items[0]!.installations[0]).toBe(out.items[1]!.installations[0]);
    expect(out.again).toBe(out.items[0]!.installations[0]);
    expect(out.again).not.toBe(shared);
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('long timers', () => {
  it('waits past setTimeout’s limit in steps, without a TimeoutOverflowWarning', () => {
    vi.useFakeTimers();
    const warn = vi.spyOn(process, 'emitWarning');
    try {
      const fn = vi.fn();
      setLongTimeout(fn, MAX_TIMER_MS * 2 + 5);
      vi.advanceTimersByTime(MAX_TIMER_MS * 2);
      expect(fn).not.toHaveBeenCalled();
      vi.advanceTimersByTime(10);
      expect(fn).toHaveBeenCalledOnce();
      const signal = timeoutSignal(MAX_TIMER_MS + 1000);
      vi.advanceTimersByTime(MAX_TIMER_MS);
      expect(signal.aborted).toBe(false);
      vi.advanceTimersByTime(1000);
      expect(signal.aborted).toBe(true);
      expect((signal.reason as DOMException).name).toBe('TimeoutError');
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
      vi.useRealTimers();
    }
  });
});
