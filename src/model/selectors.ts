import type { LabelSelector } from '../types/kube.ts';

/** Whether a label selector (matchLabels and matchExpressions) selects these labels. An empty selector selects all. */
export function selectorMatches(selector: LabelSelector | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector) return false;
  for (const [key, value] of Object.entries(selector.matchLabels ?? {})) if (labels[key] !== value) return false;
  for (const expr of selector.matchExpressions ?? []) {
    const has = Object.hasOwn(labels, expr.key);
    const value = labels[expr.key];
    const values = expr.values ?? [];
    switch (expr.operator) {
      case 'In':
        if (!has || !values.includes(value as string)) return false;
        break;
      case 'NotIn':
        if (has && values.includes(value as string)) return false;
        break;
      case 'Exists':
        if (!has) return false;
        break;
      case 'DoesNotExist':
        if (has) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** A Service selector (plain map): selects when every key/value is among the labels. No selector selects nothing. */
export function mapSelects(selector: Record<string, string> | undefined, labels: Record<string, string> = {}): boolean {
  if (!selector || Object.keys(selector).length === 0) return false;
  return Object.entries(selector).every(([k, v]) => labels[k] === v);
}

/** `app=web,tier=front` — the form kubectl prints and -l takes. */
export function formatSelector(selector: Record<string, string> | LabelSelector | undefined): string {
  if (!selector) return '<none>';
  const isLabelSelector = 'matchLabels' in selector || 'matchExpressions' in selector;
  const matchLabels = isLabelSelector
    ? ((selector as LabelSelector).matchLabels ?? {})
    : (selector as Record<string, string>);
  const parts = Object.entries(matchLabels).map(([k, v]) => `${k}=${v}`);
  if (isLabelSelector) {
    for (const e of (selector as LabelSelector).matchExpressions ?? []) {
      if (e.operator === 'Exists') parts.push(e.key);
      else if (e.operator === 'DoesNotExist') parts.push(`!${e.key}`);
      else parts.push(`${e.key} ${e.operator.toLowerCase()} (${(e.values ?? []).join(',')})`);
    }
  }
  return parts.length ? parts.join(',') : '<none>';
}

/** Keys where a Service selector fails to match the labels, with what was wanted and found: for "almost matches". */
export function selectorMismatches(
  selector: Record<string, string>,
  labels: Record<string, string> = {},
): { key: string; want: string; have: string | undefined }[] {
  return Object.entries(selector)
    .filter(([k, v]) => labels[k] !== v)
    .map(([key, want]) => ({ key, want, have: labels[key] }));
}
