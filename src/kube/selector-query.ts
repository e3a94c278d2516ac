import type { LabelSelector } from '../types/kube.ts';

/**
 * A LabelSelector as the `labelSelector` query parameter of a list or watch: `a=b,c in (d,e),f,!g` (the API's
 * selector syntax). An empty selector selects everything: no parameter at all.
 */
export function labelSelectorQuery(selector: LabelSelector): string | undefined {
  const parts = Object.entries(selector.matchLabels ?? {}).map(([k, v]) => `${k}=${v}`);
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === 'Exists') parts.push(e.key);
    else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
    else parts.push(`${e.key} ${e.operator.toLowerCase()} (${(e.values ?? []).join(',')})`);
  }
  return parts.length ? parts.join(',') : undefined;
}

/** A union selector longer than this is not sent: some proxies refuse URLs of 8 KiB, and the list is asked for whole instead. */
export const MAX_UNION_SELECTOR = 4096;

/** What one selector asks of one key, when it asks the key to be there: these values (In, =), or any (Exists). */
type Positive = Set<string> | 'any';

function positives(selector: LabelSelector): Map<string, Positive> {
  const keys = new Map<string, Positive>();
  const narrow = (key: string, values: Positive) => {
    const had = keys.get(key);
    if (had === undefined || had === 'any') keys.set(key, values);
    else if (values !== 'any') keys.set(key, new Set([...had].filter((v) => values.has(v))));
  };
  for (const [k, v] of Object.entries(selector.matchLabels ?? {})) narrow(k, new Set([v]));
  for (const e of selector.matchExpressions ?? []) {
    if (e.operator === 'In') narrow(e.key, new Set(e.values ?? []));
    else if (e.operator === 'Exists') narrow(e.key, 'any');
  }
  return keys;
}

/**
 * One label selector that selects everything any of `selectors` selects, for one list in place of one per selector;
 * undefined when there is none to send (then the caller lists without a selector and filters itself).
 *
 * A label selector is a conjunction, so the union of several is not one in general; what is sent is its tightest
 * cover of set-based requirements: every key that each selector requires to be present (by `=`, `in` or `exists`)
 * becomes `key in (all their values)`, or `key` when one of them takes any value. Objects of other Deployments
 * that share those labels come too and are filtered out on arrival by each Deployment's own selector.
 * Requirements that exclude (`notin`, `!key`) are left to that filter. One selector is sent as it is, whole.
 */
export function unionSelector(selectors: LabelSelector[]): string | undefined {
  const distinct = [...new Map(selectors.map((s) => [labelSelectorQuery(s) ?? '', s])).entries()];
  if (distinct.length === 1) return distinct[0]![0] || undefined;
  const each = distinct.map(([, s]) => positives(s));
  const first = each[0] ?? new Map<string, Positive>();
  const parts: string[] = [];
  for (const key of [...first.keys()].sort()) {
    if (!each.every((p) => p.has(key))) continue;
    const wanted = each.map((p) => p.get(key)!);
    const values = [...new Set(wanted.flatMap((w) => (w === 'any' ? [] : [...w])))].sort();
    if (wanted.includes('any')) parts.push(key);
    // no value at all: those selectors select nothing; the API server refuses an empty set, and leaving the key out
    // only widens the cover
    else if (values.length) parts.push(`${key} in (${values.join(',')})`);
  }
  const query = parts.join(',');
  return query && query.length <= MAX_UNION_SELECTOR ? query : undefined;
}
