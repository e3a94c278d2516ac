// Kubernetes manifests as `kubectl apply -f` and `helm template` write them: multi-document YAML, or JSON, with
// `kind: List` (or any `*List`) flattened into its items. Each object keeps where it came from (file and line of its
// document) so findings can point at it. Nothing here throws on bad input: a document that cannot be read (not
// YAML or JSON, not an object with a kind and a name, an unrendered template) is said in `unreadable`, naming the
// file, the document and why — never its content, which may be a Secret's. Pure: text in.
import { CORE_SCHEMA, load, YAMLException } from 'js-yaml';
import type { SourceRef } from '../../types/doctor.ts';
import type { KubeObject } from '../../types/kube.ts';

export type ManifestObject = KubeObject & { kind: string; apiVersion?: string; [key: string]: unknown };

export interface ParsedManifests {
  objects: { object: ManifestObject; source: SourceRef }[];
  /** documents that could not be read, in words: a check that skipped them is incomplete */
  unreadable: string[];
  /** documents that are not objects but are known (a kustomization), in words */
  notes: string[];
}

/** `{{ … }}` where a rendered manifest has a kind, a name, labels, a selector or an image: Helm syntax left in. */
function unrendered(o: Record<string, unknown>): boolean {
  const spec = (o.spec ?? {}) as Record<string, unknown>;
  const template = (spec.template ?? {}) as { spec?: { containers?: unknown } };
  const images = Array.isArray(template.spec?.containers)
    ? template.spec.containers.map((c) => (c as { image?: unknown } | null)?.image)
    : [];
  const meta = (o.metadata ?? {}) as Record<string, unknown>;
  // not annotations: their values may hold templates of their own (a snippet, a scrape config)
  const identity = [o.kind, o.apiVersion, meta.name, meta.namespace, meta.labels, spec.selector, spec.replicas, images];
  return /\{\{.*\}\}/.test(JSON.stringify(identity) ?? '');
}

/** Document boundaries: `---` lines (with an optional comment or content after them) and `...` end markers. */
function documents(text: string): { text: string; first: number; line: number }[] {
  const docs: { text: string; first: number; line: number }[] = [];
  let lines: string[] = [];
  let start = 1;
  const flush = () => {
    if (lines.some((l) => l.trim() && !l.trim().startsWith('#'))) {
      const skipped = lines.findIndex((l) => l.trim() && !l.trim().startsWith('#'));
      docs.push({ text: lines.join('\n'), first: start, line: start + skipped });
    }
    lines = [];
  };
  text.split('\n').forEach((raw, i) => {
    const marker = /^---(\s|$)/.exec(raw);
    if (marker || /^\.\.\.\s*$/.test(raw)) {
      flush();
      start = i + 1;
      // content on the marker line belongs to the new document
      lines.push(marker ? raw.slice(3) : '');
      return;
    }
    lines.push(raw);
  });
  flush();
  return docs;
}

/** Where a JSON.parse error happened, without the text around it (which could be a Secret's). */
function jsonErrorWhere(err: unknown, text: string): string {
  const message = err instanceof Error ? err.message : '';
  const line = /line (\d+)/.exec(message)?.[1];
  if (line) return ` at line ${line}`;
  const position = /position (\d+)/.exec(message)?.[1];
  return position ? ` at line ${text.slice(0, Number(position)).split('\n').length}` : '';
}

function flatten(doc: unknown, where: string, source: SourceRef, out: ParsedManifests): void {
  if (doc === null || doc === undefined) return;
  if (typeof doc !== 'object' || Array.isArray(doc)) {
    out.unreadable.push(`${where}: not a Kubernetes object (a ${Array.isArray(doc) ? 'list' : typeof doc}); skipped`);
    return;
  }
  const o = doc as Record<string, unknown>;
  if (typeof o.kind === 'string' && o.kind.endsWith('List') && Array.isArray(o.items)) {
    // a List's items share its line: each is told apart by its index (a List within a List keeps the outer index)
    o.items.forEach((item, i) => {
      flatten(item, `${where} item ${i + 1}`, source.item === undefined ? { ...source, item: i + 1 } : source, out);
    });
    return;
  }
  const metadata = o.metadata as { name?: unknown } | undefined;
  if (typeof o.kind !== 'string' || !o.kind) {
    out.unreadable.push(`${where}: no kind; skipped`);
    return;
  }
  if (o.kind === 'Kustomization' || o.kind === 'Component') {
    if (String(o.apiVersion ?? '').startsWith('kustomize.config.k8s.io/')) {
      out.notes.push(
        `${where}: a kustomize ${o.kind}, not an object: check its output, kubectl kustomize DIR | kubectl haptic doctor -f -`,
      );
      return;
    }
  }
  if (unrendered(o)) {
    out.unreadable.push(
      `${where}: an unrendered template ({{ … }} left in it; render it first, e.g. helm template); skipped`,
    );
    return;
  }
  if (typeof metadata !== 'object' || metadata === null || typeof metadata.name !== 'string' || !metadata.name) {
    out.unreadable.push(`${where}: ${o.kind} without metadata.name; skipped`);
    return;
  }
  out.objects.push({ object: o as ManifestObject, source });
}

/**
 * Where each block-scalar value (`key: |`) under a document's top-level `data:` starts, as file lines: a finding on a
 * ConfigMap's haproxy.cfg can then point at its `server` line instead of the ConfigMap's first line.
 */
function dataLines(text: string, first: number): Record<string, number> | undefined {
  const lines = text.split('\n');
  const data = lines.findIndex((l) => /^data:\s*(#.*)?$/.test(l));
  if (data < 0) return undefined;
  const found: Record<string, number> = {};
  for (let i = data + 1; i < lines.length; i++) {
    const line = lines[i] as string;
    if (/^\S/.test(line)) break;
    const key = /^\s+(?:"([^"]+)"|'([^']+)'|([^\s:'"][^:]*?)):\s*[|>][-+0-9]*\s*(#.*)?$/.exec(line);
    if (key) found[(key[1] ?? key[2] ?? key[3]) as string] = first + i + 1;
  }
  return Object.keys(found).length ? found : undefined;
}

/** The objects of one file (or of standard input, named `STDIN`). */
export function parseManifests(text: string, file: string): ParsedManifests {
  const out: ParsedManifests = { objects: [], unreadable: [], notes: [] };
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const line = text.slice(0, text.length - trimmed.length).split('\n').length;
    try {
      const doc = JSON.parse(text) as unknown;
      const docs = Array.isArray(doc) ? doc : [doc];
      docs.forEach((d, i) => {
        flatten(d, `${file}${docs.length > 1 ? ` item ${i + 1}` : ''}`, { file, line }, out);
      });
    } catch (err) {
      out.unreadable.push(`${file}: not valid JSON${jsonErrorWhere(err, text)}; skipped`);
    }
    return out;
  }
  documents(text).forEach((d, i) => {
    const where = `${file} document ${i + 1} (line ${d.line})`;
    try {
      const doc = load(d.text, { schema: CORE_SCHEMA, filename: file });
      const lines = (doc as { kind?: unknown } | null)?.kind === 'ConfigMap' ? dataLines(d.text, d.first) : undefined;
      flatten(doc, where, { file, line: d.line, ...(lines ? { dataLines: lines } : {}) }, out);
    } catch (err) {
      // js-yaml's message quotes the lines around the error; only its reason and position are kept
      const reason =
        err instanceof YAMLException ? `${err.reason} at line ${d.first + (err.mark?.line ?? 0)}` : 'cannot be read';
      out.unreadable.push(`${where}: not valid YAML (${reason}); skipped`);
    }
  });
  return out;
}
