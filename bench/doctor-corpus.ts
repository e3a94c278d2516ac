// npm run bench:doctor [-- --runs N]
//
// The doctor on the corpus of other projects' manifests (test/fixtures/doctor/real/, 22 sets): no cluster. Measures
// the checks alone (runDoctor in-process on manifests read once, median of N), reading and checking in-process, and
// the whole command as a fresh process (`bin/kubectl-haptic doctor -f <every set>`), beside kube-score on the same
// files when it is installed (on PATH or in ~/.cache/kubectl-haptic/tools; `go install
// github.com/zegl/kube-score/cmd/kube-score@v1.20.0`). Writes its section of bench/results.json.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { runDoctor } from '../src/diagnose/doctor/index.ts';
import { manifestInputs } from '../src/model/doctor/manifest-inputs.ts';
import { readManifestFiles } from '../src/services/doctor/manifest-files.ts';
import { repoRoot, round } from './lib.ts';

const { values } = parseArgs({ options: { runs: { type: 'string', default: '15' } } });
const RUNS = Number(values.runs);
const CORPUS = join(repoRoot, 'test/fixtures/doctor/real');
const sets = readdirSync(CORPUS)
  .filter((d) => statSync(join(CORPUS, d)).isDirectory())
  .sort()
  .map((d) => join(CORPUS, d));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
async function timed(run: () => unknown | Promise<unknown>): Promise<number> {
  await run(); // warm-up
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await run();
    ms.push(performance.now() - start);
  }
  return round(median(ms), 1);
}

const files = await Promise.all(sets.map((s) => readManifestFiles([s])));
const inputs = files.map((f) => manifestInputs(f, 'default'));
const objects = files.flat().reduce((n, f) => n + f.objects.length, 0);
const workloads = inputs.reduce((n, i) => n + i.targets.length, 0);

const checksMs = await timed(() => {
  for (const i of inputs) runDoctor(i, Date.now());
});
const readAndCheckMs = await timed(async () => {
  for (const s of sets) runDoctor(manifestInputs(await readManifestFiles([s]), 'default'), Date.now());
});
const bin = join(repoRoot, 'bin/kubectl-haptic');
const commandMs = await timed(() =>
  spawnSync(bin, ['doctor', ...sets.flatMap((s) => ['-f', s]), '-o', 'json'], { encoding: 'utf8' }),
);

const kubeScore = [join(homedir(), '.cache/kubectl-haptic/tools/kube-score'), 'kube-score'].find((p) => {
  try {
    execFileSync(p, ['version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
});
const yamlFiles = sets.flatMap((s) =>
  readdirSync(s)
    .filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml')
    .map((f) => join(s, f)),
);
const kubeScoreMs = kubeScore
  ? await timed(() => spawnSync(kubeScore, ['score', '--output-format', 'ci', ...yamlFiles], { encoding: 'utf8' }))
  : undefined;

// scale: 8,000 Deployments, each behind its own Service, in one namespace (the index by namespace and selector keeps
// the checks linear; scanning every Service for each workload took 11 s here)
const generated = Array.from(
  { length: 8000 },
  (_, i) => `apiVersion: apps/v1
kind: Deployment
metadata: {name: app-${i}, namespace: ns}
spec:
  replicas: 2
  selector: {matchLabels: {app: app-${i}}}
  template:
    metadata: {labels: {app: app-${i}}}
    spec:
      containers: [{name: app, image: example/app:1, ports: [{containerPort: 8080, name: http}], readinessProbe: {httpGet: {path: /ready, port: http}}}]
---
apiVersion: v1
kind: Service
metadata: {name: app-${i}, namespace: ns}
spec: {selector: {app: app-${i}}, ports: [{port: 80, targetPort: http}]}`,
).join('\n---\n');
const scaleInputs = manifestInputs(await readManifestFiles(['-'], { stdin: async () => generated }), 'default');
const scaleChecksMs = await timed(() => runDoctor(scaleInputs, Date.now()));

const result = {
  sets: sets.length,
  objects,
  workloads,
  runs: RUNS,
  checksMs,
  readAndCheckMs,
  commandMs,
  scale: { workloads: scaleInputs.targets.length, services: scaleInputs.services.length, checksMs: scaleChecksMs },
  ...(kubeScoreMs !== undefined ? { kubeScoreMs } : {}),
};
console.log(
  `doctor on the corpus: ${sets.length} sets, ${objects} objects, ${workloads} workloads (median of ${RUNS})`,
);
console.log(`  checks only (in-process)               ${checksMs} ms`);
console.log(`  read + checks (in-process)             ${readAndCheckMs} ms`);
console.log(`  kubectl haptic doctor -f … (process)   ${commandMs} ms`);
console.log(`  checks of 8,000 Deployments behind 8,000 Services  ${scaleChecksMs} ms`);
if (kubeScoreMs !== undefined) console.log(`  kube-score score … (process)           ${kubeScoreMs} ms`);
else console.log('  kube-score: not installed, not measured');

const file = join(repoRoot, 'bench/results.json');
const previous = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : { results: {} };
previous.results = {
  ...(previous.results ?? {}),
  doctorCorpus: { measuredAt: new Date().toISOString(), measuredBy: 'npm run bench:doctor', ...result },
};
writeFileSync(file, `${JSON.stringify(previous, null, 2)}\n`);
console.log('wrote the doctorCorpus section of bench/results.json');
