// Bundles the plugin with esbuild. `node scripts/build.js` writes dist/ for the npm install (bin/kubectl-haptic runs
// dist/kubectl-haptic.js): the entry, oclif's command table and shared chunks, so start-up loads a few files instead
// of hundreds of modules, and a command's code only when it runs. scripts/package.js bundles the single
// executable's main (one file, as `node --build-sea` takes it) with the same options (`bundleOptions`).
// Both embed package.json's oclif settings and oclif's manifest of the commands (`embedOclif`): oclif starts without
// reading a package directory or loading a command module.
import { build } from 'esbuild';
import { mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire, isBuiltin } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Start-up is most of a one-shot command's time (see bench/README.md). These keep it short:
 * - @kubernetes/client-node is plain ESM without side effects (its only one, a `File` polyfill for Node 18, is moot
 *   on Node ≥ 22), but does not say so in package.json; told, esbuild drops the generated API and model classes
 *   (≈0.9 MB) that KubeConfig's import of `./gen/index.js` would otherwise keep.
 * - the bare import "undici" resolves to scripts/undici-lean.js, which loads only fetch, Agent and ProxyAgent (and
 *   only when a request goes over HTTP/1.1: src/kube/h2.ts speaks HTTP/2 to an API server itself).
 * - the bare import "wsl-utils" resolves to scripts/wsl-utils-lean.js: is-wsl alone, which oclif asks on every start.
 * - oclif's require("debug") resolves to scripts/debug-lean.cjs: the debug package (which loads node:tty and
 *   node:stream as it loads) only when DEBUG is set, the only time it logs anything.
 * - an `import … from 'node:…'` of a Node built-in becomes a require() where the importing module is initialised.
 *   esbuild hoists the static imports of every bundled ES module to the top of its output file, so a command's
 *   module would otherwise load tls, net, https, zlib, child_process… before any code runs, whatever the command
 *   (in the single executable's one file: every built-in the plugin ever uses, ≈100 ms on a busy 2-core machine).
 *   And for an ESM import Node builds a facade that reads every export: node:http's WebSocket/CloseEvent/
 *   MessageEvent getters would load Node's own copy of undici (≈6 ms per start).
 * - oclif's modules require, as they load, what only paths of oclif this plugin never takes use: file globbing and
 *   plugin matching (commands and plugins found on disk), semver (its Node version check, which reads a package.json
 *   the bundle does not have), spinners, ESM detection and package.json reading of files, child_process (Windows
 *   shell detection), readline (arguments piped on stdin), perf_hooks (its timings under DEBUG) and fs/promises
 *   (which loads readline's and fs.watch's internals too). Those requires get a stand-in that requires the module on
 *   first use (LAZY_IN_OCLIF).
 * And Ink's React DevTools bridge (ink/build/devtools.js) stays out: Ink imports it only when DEV=true and the
 * react-devtools-core package resolves, which it never does here; left a dynamic import, it is never reached.
 */
const LAZY_IN_OCLIF = new Set([
  'tinyglobby',
  'minimatch',
  'semver',
  'cli-spinners',
  'get-package-type',
  'lilconfig',
  'node:child_process',
  'node:readline',
  'node:perf_hooks',
  'node:fs/promises',
]);

/** The exports of a module, loaded when first read. `__esModule` is answered without loading (oclif's interop reads it). */
function lazyModule(specifier, esModule) {
  return `let loaded;
const real = () => (loaded ??= require(${JSON.stringify(specifier)}));
module.exports = new Proxy({}, {
  get: (_, key) => (key === '__esModule' ? ${esModule} : real()[key]),
  has: (_, key) => key in real(),
  ownKeys: () => Reflect.ownKeys(real()),
  getOwnPropertyDescriptor: (_, key) => {
    const descriptor = Reflect.getOwnPropertyDescriptor(real(), key);
    return descriptor && { ...descriptor, configurable: true };
  },
});`;
}

const leanDependencies = {
  name: 'lean-dependencies',
  setup(build) {
    build.onResolve({ filter: /./ }, (args) => {
      if (
        args.kind !== 'require-call' ||
        !LAZY_IN_OCLIF.has(args.path) ||
        !args.importer.includes('/node_modules/@oclif/core/')
      )
        return undefined;
      return { path: args.path, namespace: 'lazy', pluginData: { resolveDir: args.resolveDir } };
    });
    build.onLoad({ filter: /.*/, namespace: 'lazy' }, (args) => {
      const esModule = isBuiltin(args.path)
        ? false
        : Boolean(createRequire(join(args.pluginData.resolveDir, 'x.js'))(args.path).__esModule);
      return { contents: lazyModule(args.path, esModule), loader: 'js', resolveDir: args.pluginData.resolveDir };
    });
    const debugLean = fileURLToPath(new URL('./debug-lean.cjs', import.meta.url));
    build.onResolve({ filter: /^debug$/ }, (args) =>
      args.importer.includes('/node_modules/@oclif/core/') ? { path: debugLean } : undefined,
    );
    const undiciLean = fileURLToPath(new URL('./undici-lean.js', import.meta.url));
    build.onResolve({ filter: /^undici$/ }, () => ({ path: undiciLean }));
    const wslUtilsLean = fileURLToPath(new URL('./wsl-utils-lean.js', import.meta.url));
    build.onResolve({ filter: /^wsl-utils$/ }, (args) =>
      args.importer === wslUtilsLean ? undefined : { path: wslUtilsLean },
    );
    build.onResolve({ filter: /^\.\/devtools\.js$/ }, (args) =>
      args.importer.includes('/node_modules/ink/') ? { path: args.path, external: true } : undefined,
    );
    build.onResolve({ filter: /^[a-z_]+(\/[a-z_]+)?$|^node:/ }, (args) => {
      if (args.kind !== 'import-statement' || !isBuiltin(args.path)) return undefined;
      return { path: args.path.startsWith('node:') ? args.path : `node:${args.path}`, namespace: 'cjs-builtin' };
    });
    build.onLoad({ filter: /.*/, namespace: 'cjs-builtin' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(args.path)});`,
      loader: 'js',
    }));
    build.onResolve({ filter: /.*/ }, async (args) => {
      if (args.pluginData?.leanDependencies) return undefined;
      const fromClientNode =
        args.path.startsWith('@kubernetes/client-node') ||
        args.importer.includes('/node_modules/@kubernetes/client-node/');
      if (!fromClientNode) return undefined;
      const resolved = await build.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: { leanDependencies: true },
      });
      if (resolved.errors.length) return { errors: resolved.errors };
      const inClientNode = resolved.path.includes('/node_modules/@kubernetes/client-node/');
      return { ...resolved, sideEffects: inClientNode ? false : resolved.sideEffects };
    });
  },
};

/** package.json's fields that oclif reads at run time; commands and hooks come from the embedded manifest instead. */
export function embeddedPjson() {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8'));
  const { commands: _commands, hooks: _hooks, ...oclif } = pkg.oclif;
  return { name: pkg.name, version: pkg.version, description: pkg.description, type: pkg.type, oclif };
}

/**
 * oclif's manifest of src/commands.ts, computed as `oclif manifest` does (oclif's own Plugin over the explicit
 * command table, flag defaults marked noCacheDefault left out): the command table is bundled into a scratch folder
 * and loaded in this process.
 */
export async function oclifManifest() {
  const scratch = mkdtempSync(join(tmpdir(), 'kh-manifest-'));
  try {
    // oclif imports (rather than requires) the table of an ESM package; the table awaits its modules at top level
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
    await build({
      ...bundleOptions(),
      entryPoints: { commands: 'src/commands.ts' },
      outdir: scratch,
      splitting: false,
      sourcemap: false,
      plugins: [leanDependencies],
    });
    const { Plugin } = await import('@oclif/core');
    const pjson = embeddedPjson();
    const plugin = new Plugin({
      root: scratch,
      isRoot: true,
      ignoreManifest: true,
      errorOnManifestCreate: true,
      respectNoCacheDefault: true,
      pjson: {
        ...pjson,
        oclif: { ...pjson.oclif, commands: { strategy: 'explicit', target: './commands.js', identifier: 'COMMANDS' } },
      },
    });
    await plugin.load();
    const { COMMANDS } = await import(pathToFileURL(join(scratch, 'commands.js')).href);
    const missing = Object.keys(COMMANDS).filter((id) => !plugin.manifest.commands[id]);
    if (missing.length) throw new Error(`oclif's manifest lacks ${missing.join(', ')}`);
    return plugin.manifest;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** The virtual module `kubectl-haptic:oclif` (declared in src/types/embedded.d.ts): `pjson` and `manifest`. */
export function embedOclif(embedded) {
  return {
    name: 'embed-oclif',
    setup(build) {
      build.onResolve({ filter: /^kubectl-haptic:oclif$/ }, (args) => ({ path: args.path, namespace: 'embedded' }));
      build.onLoad({ filter: /.*/, namespace: 'embedded' }, () => ({
        contents: JSON.stringify(embedded),
        loader: 'json',
      }));
    },
  };
}

/** What every bundle of the plugin shares; `embedded` is { pjson, manifest } (see embedOclif). */
export function bundleOptions(embedded) {
  return {
    absWorkingDir: repoRoot,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node22',
    jsx: 'automatic',
    minifySyntax: true,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: embedded ? [leanDependencies, embedOclif(embedded)] : [leanDependencies],
    define: { 'process.env.NODE_ENV': '"production"' },
    // CommonJS dependencies bundled into ESM still call require() for Node built-ins.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  };
}

/**
 * Modules the single executable keeps out of its main, as files of their own among the executable's assets, each
 * compiled when first imported: undici, which only proxies, http:// servers and servers without HTTP/2 use, and
 * client-node's OIDC auth-provider (which imports undici too), together 0.9 of the main's 3.3 MB, which every start
 * read and checked: status, --version and --help each about 12 ms sooner without them.
 */
const SEA_ASSETS = {
  undici: { asset: 'undici.cjs', entry: fileURLToPath(new URL('./undici-lean.js', import.meta.url)) },
  '@kubernetes/client-node/dist/oidc_auth.js': {
    asset: 'oidc.cjs',
    entry: '@kubernetes/client-node/dist/oidc_auth.js',
  },
};

/** The plugin's imports of SEA_ASSETS' modules become loaders of the asset, in the single executable's main. */
const seaAssetLoaders = {
  name: 'sea-assets',
  setup(build) {
    build.onResolve({ filter: /./ }, (args) =>
      Object.hasOwn(SEA_ASSETS, args.path) && args.importer.includes('/src/')
        ? { path: args.path, namespace: 'sea-asset' }
        : undefined,
    );
    // CommonJS compiled as Node compiles a module; its require reaches Node's built-ins (all the bundle needs)
    build.onLoad({ filter: /.*/, namespace: 'sea-asset' }, (args) => ({
      contents: `const { getAsset } = require('node:sea');
const { compileFunction } = require('node:vm');
const { createRequire } = require('node:module');
const name = ${JSON.stringify(SEA_ASSETS[args.path].asset)};
const loaded = { exports: {} };
compileFunction(getAsset(name, 'utf8'), ['exports', 'require', 'module'], { filename: name })(loaded.exports, createRequire(process.execPath), loaded);
module.exports = loaded.exports;`,
      loader: 'js',
    }));
  },
};

/**
 * The single executable's main: src/entry.ts and everything it may load but SEA_ASSETS, in one file, in ASCII
 * alone. esbuild escapes what is not ASCII in strings and names, not in comments or regular expressions (undici's
 * comments, a regular expression of ansis): one such character made V8 hold the whole 3 MB main as a two-byte
 * string, converted from UTF-8 at every start — 15 ms of each (`--version`: 1.28× a single executable that only
 * prints a line, 1.09× in ASCII). `\uXXXX` means the same in comments, strings and regular expressions. Writes
 * SEA_ASSETS' bundles beside it and returns them, as --build-sea's `assets` takes them.
 */
export async function buildSeaMain(outfile, embedded) {
  const options = bundleOptions(embedded);
  await build({
    ...options,
    plugins: [seaAssetLoaders, ...options.plugins],
    entryPoints: ['src/entry.ts'],
    outfile,
    splitting: false,
    sourcemap: false,
  });
  const { text, made } = eagerModules(asciiOnly(readFileSync(outfile, 'utf8')));
  assertEager(made);
  writeFileSync(outfile, text);
  const assets = {};
  for (const { asset, entry } of Object.values(SEA_ASSETS)) {
    assets[asset] = join(dirname(outfile), asset);
    await build({
      ...bundleOptions(),
      format: 'cjs',
      banner: {},
      entryPoints: [entry],
      outfile: assets[asset],
      splitting: false,
      sourcemap: false,
    });
  }
  return assets;
}

/**
 * Packages in the single executable's main that no one-shot start runs: the watch UI (Ink, React), SOCKS proxies,
 * the gate's patches, and what oclif loads on first use (LAZY_IN_OCLIF). Their module bodies stay lazily compiled
 * (eagerModules). SEA_ASSETS are not in the main at all.
 */
const NOT_ON_A_START =
  /^"node_modules\/(?:socks|ip-address|smart-buffer|ink|react|react-reconciler|scheduler|yoga-layout|@alcalzone|slice-ansi|cli-boxes|fast-json-patch|semver|minimatch|picomatch|tinyglobby|fdir|lilconfig|cli-spinners|get-package-type)\//;

/**
 * esbuild wraps each bundled module's body in a function that runs when the module is first required or imported
 * (`__commonJS({ "path"(exports, module) {…} })`, `__esm({ "path"() {…} })`). Written as methods, V8 compiles them
 * lazily: not when --build-sea makes the single executable's code cache, so every start compiled the bodies of
 * oclif's ~70 modules and the plugin's own again. In parentheses V8 compiles them eagerly and the cache holds them:
 * status and --help each about 20 ms sooner (25 interleaved runs). Packages no start runs stay lazy, so the cache
 * does not grow by what is never used (making every body eager was slower than none). The npm bundle gained
 * nothing measurable from the same (Node's compile cache), so it keeps esbuild's text. Returns the text and how many
 * bodies it made eager.
 */
export function eagerModules(text) {
  let made = 0;
  const out = text.replace(
    /(= __(?:commonJS|esm)\(\{\n {2})("[^"\n]+")\(([^)\n]*)\) \{\n((?:(?! {2}\}\n\}\);\n)[\s\S])*?) {2}\}\n\}\);\n/g,
    (all, head, key, params, body) => {
      if (NOT_ON_A_START.test(key)) return all;
      made++;
      return `${head}${key}: (function(${params}) {\n${body}  })\n});\n`;
    },
  );
  return { text: out, made };
}

/** esbuild's wrappers changed shape: fail the build rather than ship a slower plugin unnoticed. */
function assertEager(made) {
  if (made < 100) throw new Error(`eagerModules: only ${made} module bodies found in esbuild's output`);
}

/** JavaScript text with every UTF-16 unit beyond ASCII written as a \uXXXX escape. */
export function asciiOnly(text) {
  return text.replace(/[^\0-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** dist/ for the npm install; built beside dist/ and swapped in, so a running plugin or test never sees half of it. */
export async function buildDist(embedded) {
  const dist = join(repoRoot, 'dist');
  const next = `${dist}.next-${process.pid}`;
  const old = `${dist}.old-${process.pid}`;
  await build({
    ...bundleOptions(embedded),
    entryPoints: { 'kubectl-haptic': 'src/entry.ts', commands: 'src/commands.ts' },
    outdir: next,
    splitting: true,
    sourcemap: 'linked',
  });
  rmSync(old, { recursive: true, force: true });
  try {
    renameSync(dist, old);
  } catch {
    // no previous build
  }
  renameSync(next, dist);
  rmSync(old, { recursive: true, force: true });
}

if (import.meta.main) {
  await buildDist({ pjson: embeddedPjson(), manifest: await oclifManifest() });
}
