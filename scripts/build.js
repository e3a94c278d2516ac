// Bundles the plugin into dist/ with esbuild: one entry for the executable, one for oclif's command table, and
// shared chunks, so start-up loads one file instead of hundreds of modules (Ink/React load only in watch mode).
import { build } from 'esbuild';
import { rmSync } from 'node:fs';

rmSync(new URL('../dist', import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { 'kubectl-haptic': 'src/entry.ts', commands: 'src/commands.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node22',
  jsx: 'automatic',
  minifySyntax: true,
  legalComments: 'none',
  sourcemap: 'linked',
  logLevel: 'warning',
  // Ink loads React DevTools only when DEV=true; it is not shipped.
  external: ['react-devtools-core'],
  define: { 'process.env.NODE_ENV': '"production"' },
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
