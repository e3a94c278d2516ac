// The executable's entry: turn on Node's compile cache before the bundle loads, then hand over to oclif.
import module from 'node:module';

module.enableCompileCache?.();
const { run } = await import('./cli/run.ts');
await run();
