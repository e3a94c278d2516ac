import type { SourceRef } from '../../types/doctor.ts';

/** Where an object of the manifests is, as printed: `file:line`, and `item N` inside a List. */
export function sourceText(source: SourceRef): string {
  return `${source.file}:${source.line}${source.item === undefined ? '' : ` item ${source.item}`}`;
}
