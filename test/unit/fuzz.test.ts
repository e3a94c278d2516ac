// Property-based: malformed API answers never crash the model, the rules or the output (issue #21). A healthy gated
// rollout, with HAPTIC's objects and the events and slices around it, is spoiled at random paths (a string where a
// list belongs, [null], null, a number, an object, a missing field) and goes where a server's answer goes: the
// trimmers of the loaders, the rollout model, why-stalled's rules, the doctor's live checks, every output format and
// the redaction of what is printed. Each run must end with an answer, never an exception.
//
// `npm test` runs FUZZ_RUNS (default 300) cases; `npm run fuzz` 2,000. The seed is printed; FUZZ_SEED=<n> replays.
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { diagnoseContext } from '../../src/diagnose/context.ts';
import { runDoctor } from '../../src/diagnose/doctor/index.ts';
import { diagnose } from '../../src/diagnose/index.ts';
import { connect } from '../../src/kube/config.ts';
import { conform } from '../../src/kube/conform.ts';
import { CredentialError, KubeConfigError } from '../../src/kube/errors.ts';
import { trimEvent, trimObject, trimPod, trimSlice } from '../../src/kube/trim.ts';
import { redactDeep, rememberSecret } from '../../src/lib/redact.ts';
import { manifestInputs } from '../../src/model/doctor/manifest-inputs.ts';
import { parseManifests } from '../../src/model/doctor/manifests.ts';
import { rolloutModels } from '../../src/services/rollout-snapshots.ts';
import type { RolloutSnapshot } from '../../src/types/snapshot.ts';
import { doctorOutput } from '../../src/ui/doctor/output.ts';
import { doctorText } from '../../src/ui/doctor/text.ts';
import { formatStructured } from '../../src/ui/output.ts';
import { rolloutOutput, statusText } from '../../src/ui/status-text.ts';
import { painter } from '../../src/ui/style.ts';
import { diagnosisOutput, whyText } from '../../src/ui/why-text.ts';
import { GATE, hapticInputs, NOW, pod, podEvent, slice, snapshot } from './fixtures/rollout.ts';
import { loadScenario, snapshotOf } from '../fixtures/load.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** a hang is a failure too, but a slow machine is not: 10 ms a case on top of 10 s */
const TIME_LIMIT = 10_000 + RUNS * 10;
/** a credential remembered as the kubeconfig's (rememberSecret), planted in an answer */
const PLANTED = 'fuzz-planted-credential-5b7d9f';
rememberSecret(PLANTED);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);

/** A rollout midway: two old pods (one terminating), a new one waiting for the gate, HAPTIC routing some of them. */
function base(): RolloutSnapshot {
  return snapshot({
    pods: [
      pod({ name: 'web-old-1', rs: '1', ip: '10.0.0.1' }),
      pod({ name: 'web-old-2', rs: '1', ip: '10.0.0.2', terminatingDeadlineIn: 9 }),
      pod({ name: 'web-new-1', rs: '2', ip: '10.0.0.3', gate: 'missing' }),
    ],
    slices: [
      slice([
        { pod: 'web-old-1', ip: '10.0.0.1', ready: true },
        { pod: 'web-old-2', ip: '10.0.0.2', ready: false, serving: true, terminating: true },
        { pod: 'web-new-1', ip: '10.0.0.3', ready: false },
      ]),
    ],
    events: [
      podEvent('web-new-1', 'Unhealthy', 'Readiness probe failed: connection refused'),
      // a message that quotes a credential the kubeconfig holds: it must never be printed
      podEvent('web-new-1', 'Failed', `pull failed: unauthorized for token ${PLANTED}`),
    ],
    haptic: hapticInputs({
      servers: [
        { pod: 'web-new-1', ip: '10.0.0.3', disabled: false },
        { pod: 'web-old-2', ip: '10.0.0.2', disabled: true },
      ],
      fleet: [
        { name: 'haptic-haproxy-a', runs: 'current' },
        { name: 'haptic-haproxy-b', runs: 'retained' },
      ],
    }),
  });
}

type Path = (string | number)[];

/** Every path to a value in plain JSON, the root excluded. */
function paths(value: unknown, at: Path = [], out: Path[] = []): Path[] {
  if (Array.isArray(value))
    value.forEach((v, i) => {
      out.push([...at, i]);
      paths(v, [...at, i], out);
    });
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      out.push([...at, k]);
      paths(v, [...at, k], out);
    }
  return out;
}

const DELETE = Symbol('delete');
/** What a broken or hostile server puts where a value belongs. */
const REPLACEMENTS: unknown[] = [
  DELETE,
  null,
  'x',
  '',
  0,
  -1,
  1e308,
  true,
  [],
  [null],
  ['x'],
  {},
  { x: 1 },
  '2026-13-99T99:99:99Z',
];

/**
 * Where a server's answer can be malformed: inside an object of a list (an item, or any field of one), or any field
 * of the Deployment read by name. The lists themselves and HAPTIC's wrapper of each list are the client's (a list
 * without items is refused there, exit 4).
 */
function answerPath(path: Path): boolean {
  // the Deployment's name is how it was read (a GET by name answered without one is refused: exit 4); its kind is
  // the plugin's tag, not the server's
  if (path[0] === 'workload') return path.length >= 3 && !(path[1] === 'metadata' && path[2] === 'name');
  if (path[0] === 'haptic') return path[2] === 'items' && path.length >= 4;
  return path.length >= 2;
}

/** The edits spoil() made last, in words, for the failure message. */
let applied: string[] = [];

function spoil(snap: RolloutSnapshot, edits: [number, number][]): RolloutSnapshot {
  return spoilAny(snap, edits, answerPath) as RolloutSnapshot;
}

/** Edits at paths of a copy of `value` (those `where` allows): each replaces or deletes what is there. */
function spoilAny<T>(value: T, edits: [number, number][], where: (p: Path) => boolean = (p) => p.length >= 2): T {
  const copy = structuredClone(value) as unknown as Record<string, unknown>;
  const all = paths(copy).filter(where);
  applied = [];
  for (const [p, r] of edits) {
    const path = all[p % all.length] as Path;
    let parent = copy as Record<string | number, unknown>;
    for (const key of path.slice(0, -1)) {
      const next = parent?.[key];
      if (!next || typeof next !== 'object') {
        parent = undefined as never;
        break;
      }
      parent = next as Record<string | number, unknown>;
    }
    if (!parent) continue;
    const last = path.at(-1) as string | number;
    const replacement = REPLACEMENTS[r % REPLACEMENTS.length];
    applied.push(`${path.join('.')} = ${replacement === DELETE ? '(deleted)' : JSON.stringify(replacement)}`);
    if (replacement === DELETE) {
      if (Array.isArray(parent)) parent.splice(last as number, 1);
      else delete parent[last];
    } else parent[last] = structuredClone(replacement);
  }
  return copy as unknown as T;
}

/** The kind of each of HAPTIC's lists, as its query names it (haptic-snapshot.ts). */
const HAPTIC_KINDS: Record<string, string> = {
  templateConfigs: 'HAProxyTemplateConfig',
  haproxyCfgs: 'HAProxyCfg',
  pods: 'Pod',
  leases: 'Lease',
  clusterRoles: 'ClusterRole',
  clusterRoleBindings: 'ClusterRoleBinding',
  ingresses: 'Ingress',
  httpRoutes: 'HTTPRoute',
  grpcRoutes: 'GRPCRoute',
  tlsRoutes: 'TLSRoute',
  tcpRoutes: 'TCPRoute',
  referenceGrants: 'ReferenceGrant',
  gateways: 'Gateway',
};

/** What the loaders do with each object as it arrives: conform it to its kind (conform.ts), then trim it. */
function arrived(snap: RolloutSnapshot): RolloutSnapshot {
  const each = <T>(list: unknown, kind: string, trim: (o: never) => T): T[] =>
    (list as unknown[]).flatMap((raw) => {
      const o = conform(raw, kind);
      return o ? [trim(o as never)] : [];
    });
  const haptic = Object.fromEntries(
    Object.entries(snap.haptic).map(([k, v]) => [
      k,
      { ...v, items: each(v.items, HAPTIC_KINDS[k] ?? 'Any', trimObject) },
    ]),
  );
  const kind = snap.workload.kind;
  const workload = conform<RolloutSnapshot['workload']>(snap.workload, kind);
  if (!workload) throw new Error('the workload read by name is always an object with a name (or exit 4)');
  return {
    ...snap,
    workload: { ...trimObject(workload), kind } as RolloutSnapshot['workload'],
    replicaSets: each(snap.replicaSets, 'ReplicaSet', trimObject),
    claims: each(snap.claims, 'PersistentVolumeClaim', trimObject),
    pods: each(snap.pods, 'Pod', trimPod),
    services: each(snap.services, 'Service', trimObject),
    slices: each(snap.slices, 'EndpointSlice', trimSlice),
    events: each(snap.events, 'Event', trimEvent),
    haptic: haptic as unknown as RolloutSnapshot['haptic'],
  } as RolloutSnapshot;
}

/** Everything a one-shot status, why-stalled and live doctor would compute and print of one snapshot. */
function answer(raw: RolloutSnapshot): void {
  const snap = arrived(raw);
  const [model] = rolloutModels([snap], NOW, GATE);
  if (!model) throw new Error('no model');
  const diagnosis = diagnose(diagnoseContext(snap, model, NOW));
  const results = [{ model, diagnosis }];
  const printed = [
    statusText(model, NOW, painter(false)),
    formatStructured(rolloutOutput([model], true), 'json'),
    formatStructured(rolloutOutput([model], true), 'yaml'),
    whyText(results, painter(false)),
    formatStructured(diagnosisOutput(results), 'json'),
  ];
  const w = snap.workload;
  const doctor = runDoctor(
    {
      mode: 'live',
      targets: [w as never],
      deployments: w.kind === 'Deployment' ? [w] : [],
      statefulSets: w.kind === 'StatefulSet' ? [w] : [],
      services: snap.services,
      slices: snap.slices,
      pdbs: [],
      hpas: [],
      configMaps: [],
      events: snap.events,
      pods: snap.pods,
      haptic: snap.haptic,
      sources: {},
      notes: [],
    },
    NOW,
  );
  printed.push(doctorText(doctor, painter(false)), formatStructured(doctorOutput(doctor), 'json'));
  assertPrintable(printed);
  for (const json of [printed[1], printed[4]]) JSON.parse(json as string);
}

/** What is printed, after redaction, holds no control character but newline and tab, and no planted credential. */
function assertPrintable(printed: string[]): void {
  for (const text of redactDeep(printed)) {
    if (text.includes(PLANTED)) throw new Error('a credential would be printed');
    if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/.test(text))
      throw new Error('a control character would be printed');
  }
}

/** Manifests as doctor -f reads them: seed 004's HAProxy in front of redis, spoiled the same way. */
const MANIFESTS = 'test/fixtures/doctor/redis-haproxy-before/manifests';
function manifestObjects(): unknown[] {
  return readdirSync(MANIFESTS)
    .sort()
    .flatMap((f) => parseManifests(readFileSync(join(MANIFESTS, f), 'utf8'), f).objects.map((o) => o.object));
}

function doctorOn(objects: unknown[]): void {
  const parsed = {
    objects: objects.flatMap((o, i) =>
      // what parseManifests would have left out (not an object with a kind and a name) is not an object here either
      o &&
      typeof o === 'object' &&
      typeof (o as { kind?: unknown }).kind === 'string' &&
      typeof (o as { metadata?: { name?: unknown } }).metadata?.name === 'string'
        ? [{ object: o as never, source: { file: 'f.yaml', line: i + 1 } }]
        : [],
    ),
    unreadable: [],
    notes: [],
  };
  const report = runDoctor(manifestInputs([parsed], 'default'), NOW);
  assertPrintable([doctorText(report, painter(false)), formatStructured(doctorOutput(report), 'json')]);
}

/**
 * Runs `run` on `good` and on RUNS spoiled copies of it; a failure names the edits that made it and where it broke
 * (fast-check adds the seed and the shrunk case).
 */
function fuzz<T>(good: T, spoiled: (good: T, edits: [number, number][]) => T, run: (value: T) => void): void {
  process.stderr.write(`fuzz: ${RUNS} cases, seed ${SEED} (FUZZ_SEED=${SEED} replays)\n`);
  expect(() => run(good)).not.toThrow();
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 1, maxLength: 4 }), (edits) => {
      const value = spoiled(good, edits);
      try {
        run(value);
      } catch (err) {
        const stack = err instanceof Error ? (err.stack ?? '').split('\n').slice(0, 4).join('\n') : String(err);
        throw new Error(`${applied.join('; ')}\n${stack}`);
      }
    }),
    { numRuns: RUNS, seed: SEED },
  );
}

/** A kubeconfig with a token user, an exec user and a client-certificate user, as kubectl config view writes it. */
function kubeconfigObject(): Record<string, unknown> {
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: 'https://api.example:6443', 'insecure-skip-tls-verify': true } }],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', namespace: 'shop' } }],
    users: [
      { name: 'u', user: { token: PLANTED } },
      {
        name: 'e',
        user: {
          exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'true', env: [{ name: 'A', value: 'b' }] },
        },
      },
      { name: 'b', user: { username: 'admin', password: 'fuzz-password-1234' } },
    ],
  };
}

const KUBECONFIG_DIR = mkdtempSync(join(tmpdir(), 'kh-fuzz-'));
/** connect() on a kubeconfig: it works, or it says why in a kubeconfig or credential error (exit 3 or 4). */
function connectTo(config: Record<string, unknown>): void {
  const file = join(KUBECONFIG_DIR, 'config');
  writeFileSync(file, JSON.stringify(config));
  try {
    connect({ kubeconfig: file });
  } catch (err) {
    if (err instanceof KubeConfigError || err instanceof CredentialError) {
      assertPrintable([err.message]);
      return;
    }
    throw err;
  }
}

describe('fuzz', () => {
  it(
    `malformed kubeconfigs are kubeconfig errors, never unexpected ones (${RUNS} cases, seed ${SEED})`,
    () => {
      fuzz(kubeconfigObject(), (good, edits) => spoilAny(good, edits, (p) => p.length >= 1), connectTo);
    },
    TIME_LIMIT,
  );

  it(
    `malformed manifests never crash doctor -f (${RUNS} cases, seed ${SEED})`,
    () => {
      fuzz(manifestObjects(), (good, edits) => spoilAny(good, edits), doctorOn);
    },
    TIME_LIMIT,
  );

  it(
    `malformed API answers never crash the model, the rules or the output (${RUNS} cases, seed ${SEED})`,
    () => {
      fuzz(base(), spoil, answer);
    },
    TIME_LIMIT,
  );

  it(
    `malformed answers about a StatefulSet, its pods and claims never crash either (${RUNS} cases, seed ${SEED})`,
    () => {
      fuzz(snapshotOf(loadScenario('hs212-claim-pending'), 'web'), spoil, answer);
    },
    TIME_LIMIT,
  );
});
