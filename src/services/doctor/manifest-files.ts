import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { shownInput, UserError } from '../../lib/errors.ts';
import { parseManifests, type ParsedManifests } from '../../model/doctor/manifests.ts';

const MANIFEST = /\.(ya?ml|json)$/;

/** The most read of one file or of standard input: rendered charts are megabytes; a string cannot hold 512 MiB. */
export const MAX_MANIFEST_BYTES = 256 * 1024 * 1024;
const TOO_LARGE = `larger than ${MAX_MANIFEST_BYTES / 1024 / 1024} MiB`;

/** Standard input, read once to its end (at most MAX_MANIFEST_BYTES). */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    size += bytes.length;
    if (size > MAX_MANIFEST_BYTES) throw new UserError(`standard input is ${TOO_LARGE}`);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Why a path cannot be read, in kubectl's words where it has some; an input error, never an unexpected one. */
function unreadablePath(path: string, err: unknown): UserError {
  const code = (err as { code?: string }).code;
  const shown = shownInput(path);
  if (code === 'ELOOP') return new UserError(`the path "${shown}" is a loop of symbolic links`);
  if (code === 'EACCES' || code === 'EPERM')
    return new UserError(`the path "${shown}" cannot be read: permission denied`);
  if (code === 'ENOENT' || code === 'ENOTDIR') return new UserError(`the path "${shown}" does not exist`);
  return new UserError(`the path "${shown}" cannot be read (${code ?? 'error'})`);
}

function readManifestFile(file: string): string {
  let st: ReturnType<typeof statSync>;
  try {
    st = statSync(file);
  } catch (err) {
    throw unreadablePath(file, err);
  }
  // a device or a FIFO never ends or never answers: only regular files are read (standard input is -)
  if (!st.isFile()) throw new UserError(`the path "${shownInput(file)}" is not a file or a folder`);
  if (st.size > MAX_MANIFEST_BYTES) throw new UserError(`the file "${shownInput(file)}" is ${TOO_LARGE}`);
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw unreadablePath(file, err);
  }
}

/** The .yaml/.yml/.json files of a folder in name order, and with `recursive` those of its sub-folders (depth first). */
function manifestFilesIn(dir: string, recursive: boolean): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recursive) files.push(...manifestFilesIn(path, true));
    } else if (MANIFEST.test(entry.name)) {
      // a link is followed as kubectl follows it; a dangling one or a loop is an input error when it is read
      if (entry.isSymbolicLink()) {
        let target: ReturnType<typeof statSync> | undefined;
        try {
          target = statSync(path);
        } catch (err) {
          throw unreadablePath(path, err);
        }
        if (target.isDirectory()) continue;
      }
      files.push(path);
    }
  }
  return files;
}

export interface ManifestReadOptions {
  stdin?: (() => Promise<string>) | undefined;
  /** folders: their sub-folders too, as kubectl apply -f DIR -R */
  recursive?: boolean | undefined;
}

/**
 * The manifests `-f` names, like `kubectl apply -f`: a file, the .yaml/.yml/.json files of a folder (its sub-folders
 * with -R), or `-` for standard input. A path that does not exist is an input error.
 */
export async function readManifestFiles(
  paths: string[],
  options: ManifestReadOptions = {},
): Promise<ParsedManifests[]> {
  const stdin = options.stdin ?? (() => readStdin());
  const parsed: ParsedManifests[] = [];
  for (const path of paths) {
    if (path === '-') {
      // named as kubectl names it in its messages
      parsed.push(parseManifests(await stdin(), 'STDIN'));
      continue;
    }
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch (err) {
      throw unreadablePath(path, err);
    }
    const files = isDir ? manifestFilesIn(path, !!options.recursive) : [path];
    if (isDir && !files.length)
      throw new UserError(
        `no .yaml, .yml or .json files in "${shownInput(path)}"${options.recursive ? '' : ' (-R reads its sub-folders too)'}`,
      );
    for (const file of files) parsed.push(parseManifests(readManifestFile(file), file));
  }
  return parsed;
}
