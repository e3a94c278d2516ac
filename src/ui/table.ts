/** Visible width of a cell: ANSI colour codes do not count. */
export const visibleWidth = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, '').length;

/** The width of each column: its widest cell. Text and Ink tables lay out their columns with it. */
export function columnWidths(rows: string[][]): number[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleWidth(cell));
    });
  }
  return widths;
}

/** Space between columns, as kubectl's tables have it. */
export const COLUMN_GAP = 3;

/** Columns aligned like kubectl's tables; the last column is not padded. */
export function table(rows: string[][]): string[] {
  const widths = columnWidths(rows);
  return rows.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleWidth(cell) + COLUMN_GAP),
      )
      .join('')
      .trimEnd(),
  );
}
