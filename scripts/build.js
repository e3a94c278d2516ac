// Bundles the plugin into dist/ with esbuild: one entry for the executable, one for oclif's command table, and
// shared chunks, so start-up loads one file instead of hundreds of modules (Ink/React load only in watch mode).
import { build } from 'esbuild';
import { renameSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * Start-up is most of a one-shot command's time (see bench/README.md). Three things keep it short:
 * - @kubernetes/client-node is plain ESM without side effects (its only one, a `File` polyfill for Node 18, is moot
 *   on Node ≥ 22), but does not say so in package.json; told, esbuild drops the generated API and model classes
 *   (≈0.9 MB) that KubeConfig's import of `./gen/index.js` would otherwise keep.
 * - the bare import "undici" resolves to scripts/undici-lean.js, which loads only fetch, Agent and ProxyAgent.
 * - `import … from 'node:http'` becomes a require(): for an ESM import Node builds a facade that reads every export,
 *   and node:http's WebSocket/CloseEvent/MessageEvent getters load Node's own copy of undici (≈6 ms per start).
 */
const leanDependencies = {
  name: 'lean-dependencies',
  setup(build) {
    const undiciLean = fileURLToPath(new URL('./undici-lean.js', import.meta.url));
    build.onResolve({ filter: /^undici$/ }, () => ({ path: undiciLean }));
    build.onResolve({ filter: /^(node:)?http$/ }, (args) => (args.kind === 'import-statement' ? { path: 'node:http', namespace: 'cjs-builtin' } : undefined));
    build.onLoad({ filter: /.*/, namespace: 'cjs-builtin' }, (args) => ({ contents: `module.exports = require(${JSON.stringify(args.path)});`, loader: 'js' }));
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.leanDependencies) return undefined;
      const fromClientNode = args.path.startsWith('@kubernetes/client-node') || args.importer.includes('/node_modules/@kubernetes/client-node/');
      if (!fromClientNode) return undefined;
      const resolved = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { leanDependencies: true } });
      if (resolved.errors.length) return { errors: resolved.errors };
      const inClientNode = resolved.path.includes('/node_modules/@kubernetes/client-node/');
      return { ...resolved, sideEffects: inClientNode ? false : resolved.sideEffects };
    });
  },
};

// Build beside dist/ and swap it in, so a running plugin or test never sees a half-written bundle.
const dist = new URL('../dist', import.meta.url).pathname;
const next = `${dist}.next-${process.pid}`;
const old = `${dist}.old-${process.pid}`;
await build({
  entryPoints: { 'kubectl-haptic': 'src/entry.ts', commands: 'src/commands.ts', 'hooks/command-not-found': 'src/hooks/command-not-found.ts' },
  outdir: next,
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
  plugins: [leanDependencies],
  // Ink loads React DevTools only when DEV=true; it is not shipped.
  external: ['react-devtools-core'],
  define: { 'process.env.NODE_ENV': '"production"' },
  // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
});
rmSync(old, { recursive: true, force: true });
try {
  renameSync(dist, old);
} catch {
  // no previous build
}
renameSync(next, dist);
rmSync(old, { recursive: true, force: true });
