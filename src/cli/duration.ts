import { UserError } from './errors.ts';

const unitMs: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/**
 * Parses a duration the way kubectl does for --request-timeout and --timeout: a bare number is seconds,
 * otherwise Go's form (`1h2m3s`, `500ms`). `0` means no limit and returns 0.
 */
export function parseDuration(text: string, flag: string): number {
  const trimmed = text.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000);
  const parts = [...trimmed.matchAll(/(\d+(?:\.\d+)?)(ms|s|m|h)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join('') !== trimmed) {
    throw new UserError(`invalid ${flag} "${text}": use a duration such as 30s, 5m or 1h`);
  }
  return Math.round(parts.reduce((sum, p) => sum + Number(p[1]) * (unitMs[p[2] as string] as number), 0));
}
