/** Columns aligned like kubectl's tables: width by visible characters (ANSI colour codes do not count). */
export function table(rows: string[][], gap = 3): string[] {
  const visible = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').length;
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, visible(cell))));
  return rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visible(cell) + gap))).join('').trimEnd());
}
