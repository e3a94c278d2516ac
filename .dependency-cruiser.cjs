// The dependency rules of the whole tree (docs/architecture.md), checked by dependency-cruiser in CI
// (`npm run lint:deps`) and by test/unit/dependencies.test.ts. Every rule holds without exceptions: where a module
// needed one, the module moved.
//
// src/ is layered: each folder may import only the folders below it in this table (and itself). The flow is
// commands → cli → services/ui → kube/diagnose → model → types/haptic, with lib/ a leaf of helpers that know nothing
// of Kubernetes. The pure layers (model/, diagnose/) take from lib/ only its pure modules order.ts and suggest.ts: no
// I/O, no clock.
const LAYERS = {
  types: [],
  lib: [],
  haptic: ['types'],
  kube: ['types', 'haptic', 'lib'],
  model: ['types', 'haptic', 'lib/(order|suggest)\\.ts$'],
  diagnose: ['types', 'haptic', 'model', 'lib/(order|suggest)\\.ts$'],
  ui: ['types', 'haptic', 'model', 'diagnose', 'lib'],
  services: ['types', 'haptic', 'kube', 'model', 'diagnose', 'lib'],
  cli: ['types', 'haptic', 'kube', 'model', 'diagnose', 'services', 'ui', 'lib'],
  commands: ['types', 'haptic', 'model', 'diagnose', 'services', 'ui', 'cli', 'lib'],
};

const layerRules = Object.entries(LAYERS).map(([layer, may]) => ({
  name: `layer-${layer}`,
  comment: `src/${layer}/ may import only ${may.length ? may.map((m) => m.replace('\\.ts$', '.ts')).join(', ') : 'itself'} (docs/architecture.md)`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: '^src/', pathNot: [`^src/${layer}/`, ...may.map((m) => `^src/${m}${m.endsWith('$') ? '' : '/'}`)] },
}));

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'no import cycles anywhere, type-only imports included: a cycle means two modules are one concept',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'src-entry',
      comment: "the files at src/'s top (the entry and oclif's command tables) import only cli/ and commands/",
      severity: 'error',
      from: { path: '^src/[^/]+$' },
      to: { path: '^src/', pathNot: ['^src/[^/]+$', '^src/(cli|commands)/'] },
    },
    {
      name: 'src-is-the-product',
      comment: 'the plugin never imports its tests, scripts or benchmarks',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^(test|scripts|bench)/' },
    },
    {
      name: 'standins-imitate-on-their-own',
      comment:
        "the local cluster and its stand-ins (test/cluster/) imitate the kubelet and HAPTIC from their sources, never from the plugin's model, rules or views; they share only the API client",
      severity: 'error',
      from: { path: '^test/cluster/' },
      to: { path: '^src/', pathNot: ['^src/(kube|types|lib)/'] },
    },
    {
      name: 'bench-and-scripts',
      comment: 'benchmarks and scripts use the plugin and the bundled local cluster (test/cluster/), not the tests',
      severity: 'error',
      from: { path: '^(bench|scripts)/' },
      to: { path: '^test/', pathNot: '^test/cluster/' },
    },
    {
      name: 'suites-apart',
      comment:
        'each test suite stands on its own; they share the local cluster (test/cluster/), the fixtures, the hostile servers, and the end-to-end helpers and terminal',
      severity: 'error',
      from: { path: '^test/([^/]+)/' },
      to: {
        path: '^test/',
        pathNot: [
          '^test/$1/',
          '^test/cluster/',
          '^test/fixtures/',
          '^test/hostile/server\\.ts$',
          '^test/e2e/support\\.ts$',
          '^test/e2e/terminal\\.ts$',
        ],
      },
    },
    {
      name: 'no-unresolvable',
      comment: 'every relative import names a file that exists',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true, pathNot: '^kubectl-haptic:' },
    },
  ],
  options: {
    // TypeScript 7 has no JavaScript API for dependency-cruiser to parse with; swc parses TypeScript and tells
    // type-only imports apart
    parser: 'swc',
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist|release)/' },
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.js', '.mjs', '.cjs', '.d.ts'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
