// Fake but consistent container runtime identifiers, derived from stable inputs so restarts reproduce them.
import { sha256Hex } from './common.ts';

/** Docker-style normalisation: `nginx` → `docker.io/library/nginx:latest`. */
export function normalizeImage(image: string): string {
  const slash = image.indexOf('/');
  const first = slash < 0 ? '' : image.slice(0, slash);
  const hasRegistry = first.includes('.') || first.includes(':') || first === 'localhost';
  let ref = hasRegistry ? image : slash < 0 ? `docker.io/library/${image}` : `docker.io/${image}`;
  const lastPart = ref.slice(ref.lastIndexOf('/') + 1);
  if (!lastPart.includes(':') && !ref.includes('@')) ref += ':latest';
  return ref;
}

export function imageID(image: string): string {
  const ref = normalizeImage(image);
  const repo = ref.includes('@') ? ref.slice(0, ref.indexOf('@')) : ref.slice(0, ref.lastIndexOf(':'));
  return `${repo}@sha256:${sha256Hex(ref)}`;
}

export function containerID(podUID: string, container: string, attempt: number): string {
  return `containerd://${sha256Hex(`${podUID}/${container}/${attempt}`)}`;
}

export function pullError(image: string): string {
  const ref = normalizeImage(image);
  return `rpc error: code = NotFound desc = failed to pull and unpack image "${ref}": failed to resolve reference "${ref}": ${ref}: not found`;
}
