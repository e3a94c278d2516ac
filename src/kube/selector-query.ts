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
