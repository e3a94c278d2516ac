import { dump } from 'js-yaml';

/** Machine-readable output: the documented, versioned record shapes, as JSON or YAML. */
export function formatStructured(data: unknown, format: 'json' | 'yaml'): string {
  if (format === 'json') return `${JSON.stringify(data, null, 2)}\n`;
  return dump(data, { noRefs: true, lineWidth: -1, sortKeys: false });
}

export function toYaml(data: unknown): string {
  return dump(data, { noRefs: true, lineWidth: -1 });
}
