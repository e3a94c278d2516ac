// Did-you-mean for a typo, as kubectl (cobra's Command.SuggestionsFor) answers one: names within an edit distance of
// 2, or that start with what was typed, case ignored; only the closest of them, in the order given.

/**
 * Edit distance: inserts, deletes and substitutions of one character each, and with `swaps` the swap of two
 * neighbours too (optimal string alignment: `wacth` is one typo from `watch`, two from `wait`).
 */
export function editDistance(a: string, b: string, swaps = false): number {
  let before: number[] = [];
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(
        (prev[j] ?? 0) + 1,
        (row[j - 1] ?? 0) + 1,
        (prev[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
      if (swaps && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        row[j] = Math.min(row[j]!, (before[j - 2] ?? 0) + 1);
    }
    before = prev;
    prev = row;
  }
  return prev[b.length] ?? 0;
}

/**
 * The candidates closest to `typed`: within 2 typos (cobra's SuggestionsMinimumDistance), the fewest first kept, or
 * names it is the start of; in their order.
 */
export function suggestionsFor(typed: string, candidates: string[]): string[] {
  const word = typed.toLowerCase();
  if (!word) return [];
  const scored = candidates
    .filter((c) => c.toLowerCase() !== word)
    .map((c) => ({ c, d: c.toLowerCase().startsWith(word) ? 0 : editDistance(word, c.toLowerCase(), true) }))
    .filter(({ d }) => d <= 2);
  const best = Math.min(...scored.map(({ d }) => d));
  return scored.filter(({ d }) => d === best).map(({ c }) => c);
}
