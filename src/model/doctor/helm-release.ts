// Helm 3 keeps each revision of a release in a Secret `sh.helm.release.v1.<release>.v<N>` (labels owner=helm,
// name=<release>, version=<N>): data.release is the API's base64 of Helm's own base64 of a gzipped JSON record
// whose `manifest` field is the rendered YAML. The doctor reads only the PodDisruptionBudgets out of it; nothing
// decoded here is ever printed beyond kinds, names and revision numbers. Pure.
import { gunzipSync } from 'node:zlib';
import type { LabelSelector, Secret } from '../../types/kube.ts';
import { parseManifests } from './manifests.ts';

export interface HelmRevision {
  secret: string;
  release: string;
  version: number;
  status: string;
  pdbs: { name: string; selector: LabelSelector | undefined }[];
}

const GZIP = [0x1f, 0x8b];
/** The most a release record is read to, gunzipped: Helm's own records are far smaller (a Secret holds 1 MiB). */
export const MAX_RELEASE_BYTES = 32 * 1024 * 1024;

function releaseRecord(encoded: string): unknown {
  const helmText = Buffer.from(encoded, 'base64').toString('utf8');
  const bytes = Buffer.from(helmText, 'base64');
  const raw =
    bytes[0] === GZIP[0] && bytes[1] === GZIP[1] ? gunzipSync(bytes, { maxOutputLength: MAX_RELEASE_BYTES }) : bytes;
  return JSON.parse(raw.toString('utf8'));
}

/** One revision's PodDisruptionBudgets, or why the Secret could not be read (never its content). */
export function helmRevision(secret: Secret): HelmRevision | { secret: string; error: string } {
  const name = secret.metadata.name;
  const encoded = secret.data?.release;
  if (typeof encoded !== 'string') return { secret: name, error: 'no data.release' };
  let record: { name?: unknown; version?: unknown; info?: { status?: unknown }; manifest?: unknown };
  try {
    record = releaseRecord(encoded) as typeof record;
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE')
      return { secret: name, error: `data.release expands to more than ${MAX_RELEASE_BYTES / 1024 / 1024} MiB` };
    return { secret: name, error: 'data.release is not a Helm release record (base64, gzip, JSON)' };
  }
  const labels = secret.metadata.labels ?? {};
  const version = typeof record.version === 'number' ? record.version : Number(labels.version);
  const manifest = typeof record.manifest === 'string' ? record.manifest : '';
  const pdbs = parseManifests(manifest, name)
    .objects.filter(({ object }) => object.kind === 'PodDisruptionBudget')
    .map(({ object }) => ({
      name: object.metadata.name,
      selector: ((object.spec as { selector?: LabelSelector } | undefined)?.selector ?? undefined) as
        | LabelSelector
        | undefined,
    }));
  return {
    secret: name,
    release: typeof record.name === 'string' ? record.name : (labels.name ?? '?'),
    version: Number.isFinite(version) ? version : 0,
    status: typeof record.info?.status === 'string' ? record.info.status : (labels.status ?? '?'),
    pdbs,
  };
}

/** The release that manages an object: Helm 3 stamps meta.helm.sh/release-name on everything it installs. */
export function helmReleaseOf(
  annotations: Record<string, string> | undefined,
): { name: string; namespace: string | undefined } | undefined {
  const name = annotations?.['meta.helm.sh/release-name'];
  return name ? { name, namespace: annotations?.['meta.helm.sh/release-namespace'] } : undefined;
}
