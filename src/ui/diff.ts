/**
 * A unified line diff with a little context, for readable before/after previews (dry runs). Small inputs only
 * (a pod template): plain LCS.
 */
export function lineDiff(before: string, after: string, context = 2): string[] {
  const a = before.trimEnd().split('\n');
  const b = after.trimEnd().split('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      const row = lcs[i] as number[];
      row[j] = a[i] === b[j] ? (lcs[i + 1]?.[j + 1] ?? 0) + 1 : Math.max(lcs[i + 1]?.[j] ?? 0, row[j + 1] ?? 0);
    }
  }
  const ops: { mark: ' ' | '-' | '+'; line: string }[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push({ mark: ' ', line: a[i] as string });
      i++;
      j++;
    } else if (j < b.length && (i >= a.length || (lcs[i]?.[j + 1] ?? 0) >= (lcs[i + 1]?.[j] ?? 0))) ops.push({ mark: '+', line: b[j++] as string });
    else ops.push({ mark: '-', line: a[i++] as string });
  }
  const keep = ops.map((op, k) => op.mark !== ' ' || ops.slice(Math.max(0, k - context), k + context + 1).some((o) => o.mark !== ' '));
  const out: string[] = [];
  ops.forEach((op, k) => {
    if (keep[k]) out.push(`${op.mark} ${op.line}`);
    else if (keep[k - 1]) out.push('  ...');
  });
  return out;
}
