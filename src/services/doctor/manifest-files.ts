import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { UserError } from '../../lib/errors.ts';
import { parseManifests, type ParsedManifests } from '../../model/doctor/manifests.ts';

const MANIFEST = /\.(ya?ml|json)$/;

/** Standard input, read once to its end. */
export async function readStdin(stream: NodeJS.ReadableStream = process.stdin): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The manifests `-f` names, like `kubectl apply -f`: a file, the .yaml/.yml/.json files of a folder (not its
 * subfolders, in name order), or `-` for standard input. A path that does not exist is an input error.
 */
export async function readManifestFiles(
  paths: string[],
  stdin: () => Promise<string> = () => readStdin(),
): Promise<ParsedManifests[]> {
  const parsed: ParsedManifests[] = [];
  for (const path of paths) {
    if (path === '-') {
      parsed.push(parseManifests(await stdin(), '-'));
      continue;
    }
    let isDir: boolean;
    try {
      isDir = statSync(path).isDirectory();
    } catch {
      throw new UserError(`the path "${path}" does not exist`);
    }
    const files = isDir
      ? readdirSync(path)
          .filter((f) => MANIFEST.test(f) && statSync(join(path, f)).isFile())
          .sort()
          .map((f) => join(path, f))
      : [path];
    if (isDir && !files.length) throw new UserError(`no .yaml, .yml or .json files in "${path}"`);
    for (const file of files) parsed.push(parseManifests(readFileSync(file, 'utf8'), file));
  }
  return parsed;
}
