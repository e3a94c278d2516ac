// The executable's entry (the npm bundle's dist/kubectl-haptic.js and the single executable's main): Node's compile
// cache before the rest of the bundle loads, then oclif started from the embedded manifest; a command's module loads
// only when that command runs.
import module from 'node:module';
import { isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import { manifest, pjson } from 'kubectl-haptic:oclif';
import { COMMAND_MODULES, type CommandId } from './command-modules.ts';

// the single executable's main carries V8's code cache and loads nothing else from disk
if (!isSea()) module.enableCompileCache?.();
// not awaited at the top level: a reader that stops early (`| head`) would leave it unsettled, and Node warns
void import('./cli/run.ts')
  .then(({ run }) =>
    run({
      pjson,
      manifest,
      root: fileURLToPath(new URL('.', import.meta.url)),
      load: async (id) => (await COMMAND_MODULES[id as CommandId]()).default,
    }),
  )
  .then(exitWhenWritten);

/**
 * A command that returned is done (oclif exits on its own after an error): end the process as soon as stdout and
 * stderr hold nothing unwritten, as kubectl does, instead of waiting for Node to find its loop idle, which takes
 * another 15 ms or so while it winds down the API server connection. With output still queued (a slow pipe), Node
 * ends it once written.
 */
function exitWhenWritten(): void {
  if (process.stdout.writableLength === 0 && process.stderr.writableLength === 0) process.exit();
}
