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

/** Formats milliseconds like kubectl's ages: 45s, 3m12s, 2h5m, 4d. */
export function formatAge(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000));
  if (s < 120) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 10) return `${m}m${s % 60 ? `${s % 60}s` : ''}`;
  if (m < 180) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h}h${m % 60 && h < 8 ? `${m % 60}m` : ''}`;
  return `${Math.floor(h / 24)}d`;
}
