import { UserError } from '../lib/errors.ts';

const unitMs: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
/** Go's time.Duration holds at most 2^63-1 ns (about 292 years): kubectl refuses longer ones, so does this. */
const MAX_MS = (2 ** 63 - 1) / 1e6;

/**
 * Parses a duration the way kubectl does for --request-timeout and --timeout: a bare number is seconds,
 * otherwise Go's form (`1h2m3s`, `500ms`). `0` means no limit and returns 0. Any length Go accepts is kept as it
 * is (timers longer than setTimeout's 24.8 days are waited for in steps, src/lib/timers.ts).
 */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  let ms: number;
  if (/^\d+(\.\d+)?$/.test(trimmed)) ms = Number(trimmed) * 1000;
  else {
    const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)];
    if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) {
      throw new UserError(`invalid ${flag} "${text}": use a duration such as 30s, 5m or 1h`);
    }
    ms = parts.reduce((sum, p) => sum + Number(p[1]) * (unitMs[p[2] as string] as number), 0);
  }
  if (!Number.isFinite(ms) || ms > MAX_MS)
    throw new UserError(
      `invalid ${flag} "${text}": longer than the longest duration kubectl accepts (about 292 years)`,
    );
  return ms > 0 && ms < 1 ? 1 : Math.round(ms);
}
