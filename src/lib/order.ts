// The order of names in everything the plugin prints and every table it builds.

/**
 * Orders strings by UTF-16 code unit, as Go's sort.Strings orders kubectl's. Not String#localeCompare: its first
 * call builds an ICU collator, 8–9 ms of a one-shot command's start. Kubernetes names (lowercase letters, digits,
 * '-', '.') and command and finding ids sort the same either way.
 */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
