// What scripts/build.js does to the single executable's main after esbuild: written in ASCII alone (the escapes
// must mean what the characters meant, in strings, templates, regular expressions and comments), and the module
// bodies a start runs compiled eagerly (the same modules, run the same way).
import { describe, expect, it } from 'vitest';

// scripts/ are plain JavaScript, without type declarations
const { asciiOnly, eagerModules } = (await import('../../../scripts/build.js' as string)) as {
  asciiOnly: (text: string) => string;
  eagerModules: (text: string) => { text: string; made: number };
};

const program = `// the pod’s state
const mark = '✓ ready · 2×';
const template = \`→ \${mark} ✗\`;
const units = /(\\d+)(ns|us|µs|ms)/;
const csi = /[\\u001b\\u009b][[()#;?]*/g;
const astral = '🚦 gate';
return [mark, template, units.exec('5µs')?.[2], 'a\\u009b[31mb'.replace(csi, '|'), astral, astral.length];`;

describe('asciiOnly', () => {
  it('writes every character beyond ASCII as an escape that means the same', async () => {
    const escaped = asciiOnly(program);
    expect(escaped).toMatch(/^[\0-\x7f]*$/);
    expect(new Function(escaped)()).toEqual(new Function(program)());
    expect(new Function(escaped)()).toEqual(['✓ ready · 2×', '→ ✓ ready · 2× ✗', 'µs', 'a|31mb', '🚦 gate', 7]);
  });
});

// esbuild's output for bundled modules: its helpers, a CommonJS module, an ES module's initialiser (one empty), and
// a package no start runs
const helpers = `var __getOwnPropNames = Object.getOwnPropertyNames;
var __esm = (fn, res) => function() { return fn && (res = (0, fn[__getOwnPropNames(fn)[0]])(fn = 0)), res; };
var __commonJS = (cb, mod) => function() { return mod || (0, cb[__getOwnPropNames(cb)[0]])((mod = { exports: {} }).exports, mod), mod.exports; };
`;
const wrapper = (kind: string, key: string, params: string, body: string) =>
  `var ${kind === 'esm' ? 'init' : 'require'}_${key.replace(/\W/g, '_')} = __${kind}({\n  "${key}"(${params}) {\n${body}  }\n});\n`;
const modules = [
  wrapper(
    'commonJS',
    'node_modules/@oclif/core/lib/args.js',
    'exports, module',
    '    "use strict";\n    exports.args = (n) => ({ n, self: typeof this });\n    module.exports.kind = "cjs";\n',
  ),
  wrapper('esm', 'src/model/pod.ts', '', '    ready = "ready";\n'),
  wrapper('esm', 'node_modules/wsl-utils/utilities.js', '', ''),
  wrapper('commonJS', 'node_modules/ink/build/index.js', 'exports', '    exports.render = () => "rendered";\n'),
].join('');
const use = `var ready;
return [require_node_modules__oclif_core_lib_args_js().args(1), require_node_modules__oclif_core_lib_args_js().kind, (init_src_model_pod_ts(), ready), init_node_modules_wsl_utils_utilities_js(), require_node_modules_ink_build_index_js().render()];`;

describe('eagerModules', () => {
  it('puts the module bodies a start runs in parentheses, so V8 compiles them with the code cache, and runs them the same', () => {
    const program = helpers + modules + use;
    const { text: eager, made } = eagerModules(program);
    expect(made).toBe(3);
    expect(eager).toContain('"node_modules/@oclif/core/lib/args.js": (function(exports, module) {');
    expect(eager).toContain('"src/model/pod.ts": (function() {');
    expect(eager).toContain('"node_modules/wsl-utils/utilities.js": (function() {\n  })\n});');
    expect(eager).toContain('"node_modules/ink/build/index.js"(exports) {');
    expect(eager.split('\n')).toHaveLength(program.split('\n').length);
    const run = (text: string) => new Function(text)();
    expect(run(eager)).toEqual(run(program));
    expect(run(eager)).toEqual([{ n: 1, self: 'undefined' }, 'cjs', 'ready', undefined, 'rendered']);
  });
});
