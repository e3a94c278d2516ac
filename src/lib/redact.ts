// The one rule for text that leaves the process (stdout, stderr, any format, with or without --debug): no secret
// and no terminal control sequence. Lower layers remember the secrets they read (rememberSecret); the CLI passes
// every error line and every piece of data it renders through redact() / redactDeep() just before printing.

const secrets = new Set<string>();
/** the remembered secrets, longest first (a whole value is masked before one of its lines) */
let ordered: string[] | undefined;

/** Shorter values are not remembered: masking a 3-letter word everywhere would garble output, not protect it. */
const MIN_SECRET_LENGTH = 6;

/**
 * Remembers a value read from a kubeconfig, a token file or a credential plugin, so that it is masked wherever it
 * would be printed (an API server echoing it, an error quoting it). Multi-line values (PEM, plugin output) are
 * remembered line by line too, and base64 data also decoded.
 */
export function rememberSecret(value: string | Buffer | undefined | null): void {
  if (value === undefined || value === null) return;
  const text = typeof value === 'string' ? value : value.toString('utf8');
  const add = (s: string) => {
    const t = s.trim();
    if (t.length >= MIN_SECRET_LENGTH && !secrets.has(t)) {
      secrets.add(t);
      ordered = undefined;
    }
  };
  add(text);
  for (const line of text.split(/\r?\n/)) add(line);
  if (/^[A-Za-z0-9+/=\s]+$/.test(text) && text.trim().length >= 16) {
    const decoded = Buffer.from(text, 'base64').toString('utf8');
    if (decoded.includes('-----BEGIN')) rememberSecret(decoded);
  }
}

/**
 * Every remembered secret masked, by plain string search (linear in the text for each secret, whatever their length
 * or number: a pattern built of them could fail to compile, and redaction must never fail open).
 */
function maskSecrets(text: string): string {
  ordered ??= [...secrets].sort((a, b) => b.length - a.length);
  let out = text;
  for (const secret of ordered) if (out.includes(secret)) out = out.split(secret).join('[REDACTED]');
  return out;
}

/**
 * Terminal control sequences: CSI (ESC [ … final byte), OSC (ESC ] … BEL or ST), DCS/SOS/PM/APC strings, other
 * two-byte ESC sequences, their 8-bit C1 forms, and every other C0/C1 control character and DEL. Newline and tab
 * stay (a multi-line value is still readable); a carriage return goes (it can overwrite what was printed). So do
 * the invisible characters that reorder or hide text: bidirectional overrides and isolates (U+202A–202E,
 * U+2066–2069, U+200E/F, U+061C: a pod name could reverse the rest of its table row), zero-width characters
 * (U+200B–200D, U+2060, U+FEFF) and the Unicode line and paragraph separators (U+2028, U+2029).
 */
const CONTROL =
  // eslint-disable-next-line no-control-regex
  /\u001b\[[0-?]*[ -/]*[@-~]|\u009b[0-?]*[ -/]*[@-~]|\u001b[\]PX^_][\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|[\u009d\u0090\u0098\u009e\u009f][\s\S]*?(?:\u0007|\u001b\\|\u009c|$)|\u001b[ -/]*[0-~]?|[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]/g;

/** Things that look like credentials whoever printed them: PEM blocks, bearer/basic headers, JWTs, URL passwords, key: value pairs. */
const PATTERNS: [RegExp, string][] = [
  [/-----BEGIN [A-Z0-9 ]+-----[\s\S]*?(?:-----END [A-Z0-9 ]+-----|$)/g, '[REDACTED PEM]'],
  [/\b(Bearer|Basic)\s+[A-Za-z0-9._~+/=-]{8,}/gi, '$1 [REDACTED]'],
  [/\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]+\.?[A-Za-z0-9_-]*/g, '[REDACTED TOKEN]'],
  // a scheme is short (RFC 3986 allows any length; every real one is under 32): bounded, the pattern stays linear on
  // text such as a.a.a.a…:// that would make an unbounded one try every start
  [/\b([a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@'"]+@/gi, '$1[REDACTED]@'],
  [
    /(?<![\w./-])(token|id-token|refresh-token|access[-_]?token|password|passwd|secret|client-key-data|client-certificate-data|clientKeyData|clientCertificateData)(["']?[ \t]*[:=][ \t]*["']?)[^\s"',}]+/gi,
    '$1$2[REDACTED]',
  ],
  // base64 runs as long as key or certificate data
  [/[A-Za-z0-9+/]{120,}={0,2}/g, '[REDACTED DATA]'],
];

/**
 * What every match of CONTROL and of PATTERNS contains (a C0/C1 control character, or one of these words): text
 * without any, and without a remembered secret, is printed as it is, without running each pattern over it. Most strings of a model are names and
 * numbers; a status of a few hundred pods has tens of thousands of them, keys included.
 */
// eslint-disable-next-line no-control-regex
const MAY_NEED_REDACTING =
  /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200b-\u200f\u2028-\u202e\u2060\u2066-\u2069\ufeff]|-----BEGIN|bearer|basic|eyJ|:\/\/|token|passw|secret|client|[A-Za-z0-9+/]{120}/i;

/** Removes terminal control sequences only. */
export function stripControl(text: string): string {
  return text.replace(CONTROL, '');
}

/**
 * Makes text safe to print: no terminal control sequence, no remembered secret, nothing shaped like a credential.
 * Every error line and every string of rendered data goes through here.
 */
export function redact(text: string): string {
  // without control characters, the text the patterns see is this one: a secret must be in it as it is
  if (!MAY_NEED_REDACTING.test(text) && !holdsSecret(text)) return text;
  return redactEveryPattern(text);
}

function holdsSecret(text: string): boolean {
  for (const secret of secrets) if (text.includes(secret)) return true;
  return false;
}

/** redact() without the shortcut: every pattern run over the text (exported for the test of the shortcut). */
export function redactEveryPattern(text: string): string {
  let out = maskSecrets(stripControl(text));
  for (const [pattern, replacement] of PATTERNS) out = out.replace(pattern, replacement);
  return out;
}

/**
 * A value printed inside a line of text (a name, a message, a field selector): its newlines and tabs shown as `\n`
 * and `\t`, as Go's %q would, so a value from the API server cannot start a line of its own (a forged finding, an
 * unindented row) or shift the columns of a table. Run after redact(), which keeps both.
 */
export function keepOnOneLine(text: string): string {
  return text.includes('\n') || text.includes('\t') ? text.replaceAll('\n', '\\n').replaceAll('\t', '\\t') : text;
}

export interface RedactDeepOptions {
  /** every string kept on one line too (keepOnOneLine): for data rendered as text, not as JSON or YAML */
  oneLine?: boolean;
  /** keys whose values keep their newlines even so: objects the text view dumps as YAML, which quotes them itself */
  linesKeptUnder?: ReadonlySet<string>;
}

/**
 * redact() over every string of a plain data structure (a model, records, an update), keys included. Within one
 * call each distinct string is redacted once and each object or array copied once: the models of `status -A` share
 * HAPTIC's installations (and their thousands of servers), and pods repeat the same names and words.
 */
export function redactDeep<T>(value: T, options: RedactDeepOptions = {}): T {
  // per mode (one line or lines kept): each distinct string and object is done once in each
  const strings = [new Map<string, string>(), new Map<string, string>()];
  const copies = [new Map<object, unknown>(), new Map<object, unknown>()];
  const text = (s: string, flat: boolean): string => {
    const cache = strings[flat ? 1 : 0]!;
    let safe = cache.get(s);
    if (safe === undefined) {
      safe = flat ? keepOnOneLine(redact(s)) : redact(s);
      cache.set(s, safe);
    }
    return safe;
  };
  const walk = (v: unknown, flat: boolean): unknown => {
    if (typeof v === 'string') return text(v, flat);
    if (!v || typeof v !== 'object') return v;
    const cache = copies[flat ? 1 : 0]!;
    if (cache.has(v)) return cache.get(v);
    let out: unknown;
    if (Array.isArray(v)) out = v.map((x) => walk(x, flat));
    else if (Object.getPrototypeOf(v) === Object.prototype) {
      const o: Record<string, unknown> = {};
      for (const [k, x] of Object.entries(v)) o[text(k, flat)] = walk(x, flat && !options.linesKeptUnder?.has(k));
      out = o;
    } else return v;
    cache.set(v, out);
    return out;
  };
  return walk(value, options.oneLine === true) as T;
}
