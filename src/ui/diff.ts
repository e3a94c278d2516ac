import { diffLines } from 'diff';

/**
 * A line diff for before/after previews (dry runs): `+ `/`- ` for changed lines, `  ` for the `context` unchanged
 * lines around each change, and `  ...` where unchanged lines are left out.
 */
export function lineDiff(before: string, after: string, context = 2): string[] {
  const ops: { mark: ' ' | '-' | '+'; line: string }[] = [];
  for (const part of diffLines(`${before.trimEnd()}\n`, `${after.trimEnd()}\n`)) {
    const mark = part.added ? '+' : part.removed ? '-' : ' ';
    for (const line of part.value.replace(/\n$/, '').split('\n')) ops.push({ mark, line });
  }
  const near = (k: number) => ops.slice(Math.max(0, k - context), k + context + 1).some((o) => o.mark !== ' ');
  const out: string[] = [];
  let skipped = false;
  ops.forEach((op, k) => {
    if (op.mark !== ' ' || near(k)) {
      out.push(`${op.mark} ${op.line}`);
      skipped = false;
    } else if (!skipped && out.length) {
      out.push('  ...');
      skipped = true;
    }
  });
  return out;
}
