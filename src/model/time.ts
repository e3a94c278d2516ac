// Time as the model sees it: always relative to a `now` passed in, never Date.now().

/** Milliseconds since an RFC 3339 time, or undefined when the time is absent. */
export function ageMs(time: string | null | undefined, now: number): number | undefined {
  if (!time) return undefined;
  const t = Date.parse(time);
  return Number.isNaN(t) ? undefined : now - t;
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
