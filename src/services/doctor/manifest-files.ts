import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { shownInput, UserError } from '../../lib/errors.ts';
import { parseManifests, type ParsedManifests } from '../../model/doctor/manifests.ts';

const MANIFEST = /\.(ya?ml|json)$/;

/** Standard input, read once to its end. */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString('utf8');
}

/** The .yaml/.yml/.json files of a folder in name order, and with `recursive` those of its sub-folders (depth first). */
function manifestFilesIn(dir: string, recursive: boolean): string[] {
  const files: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (recursive) files.push(...manifestFilesIn(path, true));
    } else if (MANIFEST.test(entry.name) && statSync(path).isFile()) files.push(path);
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
    } catch {
      throw new UserError(`the path "${shownInput(path)}" does not exist`);
    }
    const files = isDir ? manifestFilesIn(path, !!options.recursive) : [path];
    if (isDir && !files.length)
      throw new UserError(
        `no .yaml, .yml or .json files in "${shownInput(path)}"${options.recursive ? '' : ' (-R reads its sub-folders too)'}`,
      );
    for (const file of files) parsed.push(parseManifests(readFileSync(file, 'utf8'), file));
  }
  return parsed;
}
