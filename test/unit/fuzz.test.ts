// Property-based: malformed API answers never crash the model, the rules or the output (issue #21). A healthy gated
// rollout, with HAPTIC's objects and the events and slices around it, is spoiled at random paths (a string where a
// list belongs, [null], null, a number, an object, a missing field) and goes where a server's answer goes: the
// trimmers of the loaders, the rollout model, why-stalled's rules, the doctor's live checks, every output format and
// the redaction of what is printed. Each run must end with an answer, never an exception. So do every route kind
// HAPTIC renders, and what HAProxy's master CLI answers over pods/exec, read into each pod's sessions (issue #36).
//
// `npm test` runs FUZZ_RUNS (default 300) cases; `npm run fuzz` 10,000. The seed is printed; FUZZ_SEED=<n> replays.
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
import { withSessions } from '../../src/model/rollout/sessions.ts';
import { rolloutModels } from '../../src/services/rollout-snapshots.ts';
import { promptsSeen, readingOfExec, workersShown } from '../../src/services/sessions.ts';
import type { RolloutModel } from '../../src/model/rollout/rollout.ts';
import type { HAProxyReading } from '../../src/types/sessions.ts';
import type { RolloutSnapshot } from '../../src/types/snapshot.ts';
import { doctorOutput } from '../../src/ui/doctor/output.ts';
import { doctorText } from '../../src/ui/doctor/text.ts';
import { formatStructured } from '../../src/ui/output.ts';
import { rolloutOutput, statusText } from '../../src/ui/status-text.ts';
import { painter } from '../../src/ui/style.ts';
import { diagnosisOutput, whyText } from '../../src/ui/why-text.ts';
import type { Gateway, GatewayRoute, ParentReference, ReferenceGrant } from '../../src/types/routes.ts';
import {
  CHART_WATCHED_RESOURCES,
  GATE,
  hapticInputs,
  ingress,
  NOW,
  pod,
  podEvent,
  slice,
  snapshot,
} from './fixtures/rollout.ts';
import { loadScenario, snapshotOf } from '../fixtures/load.ts';

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);
/** a hang is a failure too, but a slow machine is not: 10 ms a case on top of 10 s */
const TIME_LIMIT = 10_000 + RUNS * 10;
/** one case that takes this long hangs (a case takes a few ms; a quadratic read of a long line would take seconds) */
const CASE_LIMIT_MS = 2000;

/** Runs one case, and fails it when it takes longer than CASE_LIMIT_MS. */
function bounded(run: () => void): void {
  const start = performance.now();
  run();
  const took = performance.now() - start;
  if (took > CASE_LIMIT_MS) throw new Error(`one case took ${Math.round(took)} ms: a hang`);
}
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
function spoilAny<T>(
  value: T,
  edits: [number, number][],
  where: (p: Path) => boolean = (p) => p.length >= 2,
  replacements: unknown[] = REPLACEMENTS,
): T {
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
    const replacement = replacements[r % replacements.length];
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
  printAll(snap, model);
}

/**
 * Every output of one snapshot's model (status, why-stalled and doctor; text, JSON and YAML), checked as printed:
 * printable, no planted credential, JSON that parses. With `sessions`, the readings doctor --sessions is given.
 */
function printAll(
  snap: RolloutSnapshot,
  model: RolloutModel,
  sessions?: { readings: HAProxyReading[] },
): { printed: string[]; outputs: unknown[] } {
  const diagnosis = diagnose(diagnoseContext(snap, model, NOW));
  const results = [{ model, diagnosis }];
  const rollout = rolloutOutput([model], true);
  const diagnosed = diagnosisOutput(results);
  const printed = [
    statusText(model, NOW, painter(false)),
    formatStructured(rollout, 'json'),
    formatStructured(rollout, 'yaml'),
    whyText(results, painter(false)),
    formatStructured(diagnosed, 'json'),
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
      ...(sessions ? { sessions } : {}),
    },
    NOW,
  );
  const doctored = doctorOutput(doctor);
  printed.push(doctorText(doctor, painter(false)), formatStructured(doctored, 'json'));
  assertPrintable(printed);
  for (const json of [printed[1], printed[4], printed[6]]) JSON.parse(json as string);
  return { printed, outputs: [rollout, diagnosed, doctored] };
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
        bounded(() => run(value));
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

// --- HAPTIC's route inputs: every kind the route model reads (routes.ts), spoiled ---

/** A route of kind-to-be to service web in namespace `ns`, attached to `parents`. */
const gatewayRoute = (name: string, parents: ParentReference[], ns = 'shop', port = 80): GatewayRoute => ({
  metadata: { name, namespace: ns },
  spec: {
    parentRefs: parents,
    hostnames: ['web.example.com'],
    rules: [{ backendRefs: [{ name: 'web', namespace: 'shop', port }] }],
  },
});

/**
 * The base rollout routed by every kind HAPTIC renders: its Ingress, an HTTPRoute and a GRPCRoute on Gateway public,
 * a TLSRoute and a TCPRoute on its TLS and TCP listeners, and an HTTPRoute from namespace front that a ReferenceGrant
 * lets reach the Service; the template config watches them all.
 */
function routesBase(): RolloutSnapshot {
  const snap = base();
  const gateway: Gateway = {
    metadata: { name: 'public', namespace: 'shop' },
    spec: {
      gatewayClassName: 'haproxy',
      listeners: [
        { name: 'http', protocol: 'HTTP', port: 80 },
        { name: 'tls', protocol: 'TLS', port: 443 },
        { name: 'tcp', protocol: 'TCP', port: 5432 },
      ],
    },
  };
  const grant: ReferenceGrant = {
    metadata: { name: 'from-front', namespace: 'shop' },
    spec: {
      from: [{ group: 'gateway.networking.k8s.io', kind: 'HTTPRoute', namespace: 'front' }],
      to: [{ group: '', kind: 'Service', name: 'web' }],
    },
  };
  const h = snap.haptic;
  h.templateConfigs.items[0]!.spec!.watchedResources = {
    ...CHART_WATCHED_RESOURCES,
    tlsroutes: { apiVersion: 'gateway.networking.k8s.io/v1alpha2', resources: 'tlsroutes' },
    tcproutes: { apiVersion: 'gateway.networking.k8s.io/v1alpha2', resources: 'tcproutes' },
    referencegrants: { apiVersion: 'gateway.networking.k8s.io/v1beta1', resources: 'referencegrants' },
  };
  h.ingresses.items = [ingress(), ingress('web-api', 'haproxy', 'web', { name: 'http' })];
  h.gateways.items = [gateway];
  h.httpRoutes.items = [
    gatewayRoute('web-http', [{ name: 'public', sectionName: 'http' }]),
    gatewayRoute('web-front', [{ name: 'public', namespace: 'shop' }], 'front'),
  ];
  h.grpcRoutes.items = [
    gatewayRoute('web-grpc', [{ name: 'public', group: 'gateway.networking.k8s.io', kind: 'Gateway' }]),
  ];
  h.tlsRoutes.items = [gatewayRoute('web-tls', [{ name: 'public', sectionName: 'tls' }], 'shop', 8443)];
  h.tcpRoutes.items = [gatewayRoute('web-tcp', [{ name: 'public', sectionName: 'tcp', port: 5432 }])];
  h.referenceGrants.items = [grant];
  return snap;
}

const ROUTE_LISTS = ['ingresses', 'httpRoutes', 'grpcRoutes', 'tlsRoutes', 'tcpRoutes', 'gateways', 'referenceGrants'];
/** A path inside a route, a Gateway or a ReferenceGrant (an item, or any field of one). */
const routePath = (path: Path) =>
  path[0] === 'haptic' && ROUTE_LISTS.includes(path[1] as string) && path[2] === 'items' && path.length >= 4;

/** A parentRef list longer than any real one: its names and sections escapes, credentials and Gateways that exist. */
const HUGE_PARENTS = Array.from({ length: 5000 }, (_, i) => ({
  name: ['public', `gw-${i}\u001b[2J`, PLANTED, `p\r\u009b${i}`][i % 4],
  ...(i % 3 ? { sectionName: ['tls', 'tcp', '\u001b]0;x\u0007'][i % 3] } : {}),
  ...(i % 5 === 0 ? { namespace: `ns-${i}` } : {}),
}));
/** What else a hostile server puts in a route: names with escapes, a credential, a name too long, huge lists. */
const ROUTE_REPLACEMENTS: unknown[] = [
  ...REPLACEMENTS,
  'web\u001b[2J\u001b[H',
  'gw\u001b]8;;http://x\u0007',
  'a\rb\u009b31m',
  PLANTED,
  `route-${PLANTED}`,
  '\u202epublic',
  'x'.repeat(10_000),
  HUGE_PARENTS,
  Array.from({ length: 2000 }, (_, i) => ({ name: 'public', sectionName: i % 2 ? 'tls' : 'tcp' })),
  [
    { name: 'web', port: 80 },
    { name: 'web\u001b[2J', port: 1e308 },
  ],
];

// --- HAProxy's master CLI over pods/exec: what show proc and each worker's show stat answer, spoiled ---

/** The master socket HAPTIC's chart gives HAProxy (`-S`), where the read sends its commands. */
const SOCKET = { container: 'haproxy', path: '/etc/haproxy/haproxy-master.sock' };
const PROMPT = 'master> ';

/**
 * One read of a HAProxy pod as it ends, from the lab's 2.6 reload transcript (a current and an old worker), its
 * servers put at the base rollout's pods: web-new-1 by the config's name, web-old-2 by name, web-old-1 by address
 * only. The answer to a worker that is not there is left off: show proc lists two.
 */
const goodTranscript = (): string => (GOOD_TRANSCRIPT ??= transcript());
let GOOD_TRANSCRIPT: string | undefined;
function transcript(): string {
  const text = readFileSync('test/fixtures/sessions/haproxy-2.6-reload.txt', 'utf8');
  const lines = text.slice(0, text.lastIndexOf(PROMPT) + PROMPT.length).split('\n');
  const header = lines.find((l) => l.includes('# pxname'))!;
  const names = header.slice(header.indexOf('# pxname') + 2).split(',');
  const ttime = names.indexOf('ttime');
  const rows = lines.flatMap((l) => {
    if (!l.startsWith('b,web')) return [l];
    const f = l.split(',');
    const [server, addr] = f[1] === 'web1' ? ['web-new-1', '10.0.0.3:8080'] : ['web-old-2', '10.0.0.2:8080'];
    f[0] = 'ing_shop_web_web_80';
    f[1] = server;
    f[names.indexOf('addr')] = addr;
    f[ttime] = '42500';
    const old = [...f];
    old[1] = 'SRV_3';
    old[names.indexOf('addr')] = '10.0.0.1:8080';
    old[names.indexOf('scur')] = '4';
    return server === 'web-old-2' ? [f.join(','), old.join(',')] : [f.join(',')];
  });
  return rows.join('\n');
}

/** What a broken, old or hostile HAProxy writes where a counter belongs. */
const COUNTERS = [
  'NaN',
  'Infinity',
  '-Infinity',
  '-1',
  '0x1F',
  '1e309',
  '1.5',
  ' 1',
  '-0',
  '',
  '9'.repeat(16),
  '9'.repeat(400),
  '999999999999999',
  '0',
  '00012',
];
/** ... where a backend's or a server's name belongs: escapes, a credential, a name too long to print. */
const NAMES = [
  'srv\u001b[2J\u001b[H',
  'srv\u001b]0;owned\u0007',
  'a\rb',
  'csi\u009b31m',
  PLANTED,
  `web-${PLANTED}`,
  'x'.repeat(5000),
  'web-new-1',
  '',
  '\u202eevil',
  'tab\there',
  'ing_shop_web_web_80',
];
/** ... and what else a session says: noise on stderr, a line of escapes in an answer. */
const NOISE = [
  'socat[12] E connect(5, AF=1 "/etc/haproxy/haproxy-master.sock", 33): No such file or directory',
  `\u001b[2J\u001b]8;;http://x\u0007${PLANTED}\r\u009b`,
  'OCI runtime exec failed: exec: "socat": executable file not found in $PATH',
  'x'.repeat(70_000),
  `Unknown command: '${PLANTED}'`,
  '\u0000\u0001\u0002',
];

/** One spoiling of a session: which (0..19), on which HAProxy pod, and where. */
type Edit = [op: number, pod: number, a: number, b: number, c: number];

interface Session {
  stdout: string;
  stderr: string;
  truncated: boolean;
  exitCode?: number;
  message?: string;
  /** no reading at all of this pod (not read yet) */
  unread?: boolean;
  /** the backends each worker was asked for (one answer each), as statBackends gives them; else every server */
  backends?: string[];
}

/** The `k`th occurrence of `what` in `text`, or -1. */
function nth(text: string, what: string, k: number): number {
  const all: number[] = [];
  for (let i = text.indexOf(what); i >= 0; i = text.indexOf(what, i + 1)) all.push(i);
  return all.length ? all[k % all.length]! : -1;
}

/** The edits spoilSession() made last, in words, for the failure message. */
let said: string[] = [];

function spoilSession(s: Session, [op, , a, b, c]: Edit): void {
  const lines = s.stdout.split('\n');
  const li = a % lines.length;
  const fields = lines[li]!.split(',');
  const fi = b % fields.length;
  const line = (l: string) => {
    lines[li] = l;
    s.stdout = lines.join('\n');
  };
  switch (op % 20) {
    case 0: {
      const cut = a % (s.stdout.length + 1);
      s.stdout = s.stdout.slice(0, cut);
      said.push(`cut at byte ${cut}`);
      return;
    }
    case 1: {
      const at = nth(s.stdout, PROMPT, a);
      if (at >= 0) s.stdout = s.stdout.slice(0, at) + s.stdout.slice(at + PROMPT.length);
      said.push(`prompt ${a} dropped`);
      return;
    }
    case 2: {
      const at = nth(s.stdout, PROMPT, a);
      if (at >= 0) s.stdout = `${s.stdout.slice(0, at)}${PROMPT}\n${s.stdout.slice(at)}`;
      said.push(`prompt ${a} duplicated`);
      return;
    }
    case 3:
      fields.splice(fi, 1);
      said.push(`line ${li} field ${fi} dropped`);
      line(fields.join(','));
      return;
    case 4:
      fields.splice(fi, 0, COUNTERS[c % COUNTERS.length]!);
      said.push(`line ${li} field added at ${fi}`);
      line(fields.join(','));
      return;
    case 5:
      lines.splice(li, 1);
      s.stdout = lines.join('\n');
      said.push(`line ${li} dropped`);
      return;
    case 6: {
      // a header reordered: two of its names swapped (the rows keep their order)
      const h = lines.findIndex((l, i) => i >= li && l.includes('# pxname'));
      if (h < 0) return;
      const names = lines[h]!.split(',');
      const [x, y] = [b % names.length, c % names.length];
      [names[x], names[y]] = [names[y]!, names[x]!];
      lines[h] = names.join(',');
      s.stdout = lines.join('\n');
      said.push(`header ${h}: columns ${x} and ${y} swapped`);
      return;
    }
    case 7:
    case 8:
      fields[fi] = COUNTERS[c % COUNTERS.length]!;
      said.push(`line ${li} field ${fi} = ${JSON.stringify(fields[fi])}`);
      line(fields.join(','));
      return;
    case 9:
      fields[b % 2] = NAMES[c % NAMES.length]!;
      said.push(`line ${li} name ${b % 2} = ${JSON.stringify(fields[b % 2]!.slice(0, 40))}`);
      line(fields.join(','));
      return;
    case 10:
      lines.splice(li, 0, c % 2 ? ','.repeat(60_000) : 'y'.repeat(200_000));
      s.stdout = lines.join('\n');
      said.push(`a very long line before line ${li}`);
      return;
    case 11:
      s.stderr += NOISE[c % NOISE.length];
      said.push(`stderr noise ${c % NOISE.length}`);
      return;
    case 12:
      s.truncated = true;
      said.push('truncated');
      return;
    case 13:
      s.exitCode = c % 2 ? 127 : 1;
      s.message = NOISE[c % NOISE.length]!;
      said.push(`exit ${s.exitCode}, message ${c % NOISE.length}`);
      return;
    case 14:
      said.push(`line ${li} = noise ${c % NOISE.length}`);
      line(NOISE[c % NOISE.length]!);
      return;
    case 15:
      // many servers: a row repeated (its counters summed as many times)
      lines.splice(li, 0, ...Array.from({ length: c % 64 }, () => lines[li]!));
      s.stdout = lines.join('\n');
      said.push(`line ${li} repeated ${c % 64} times`);
      return;
    case 16:
      s.stdout = s.stdout.replaceAll('\n', '\r\n');
      said.push('CRLF line ends');
      return;
    case 17: {
      // more workers than answers: show proc lists leaving workers the session has no answer for
      const at = s.stdout.indexOf('# old workers\n');
      const more = Array.from(
        { length: 1 + (c % 40) },
        (_, i) => `${20000 + i}           worker          ${i}               0d00h00m0${i % 10}s     2.6.12`,
      );
      if (at >= 0) s.stdout = `${s.stdout.slice(0, at + 14)}${more.join('\n')}\n${s.stdout.slice(at + 14)}`;
      said.push(`${more.length} more old workers`);
      return;
    }
    case 18: {
      // asked per backend, one or two answers a worker, one of them HAProxy's for a backend its config lacks
      s.backends = c % 2 ? ['ing_shop_web_web_80'] : ['ing_other_80', 'ing_shop_web_web_80'];
      const at = nth(s.stdout, 'master> ', 2 + (a % 3));
      if (at >= 0) s.stdout = `${s.stdout.slice(0, at + 8)}No such proxy.\n\nmaster> ${s.stdout.slice(at + 8)}`;
      said.push(`asked for ${s.backends.length} backends, No such proxy. after prompt ${2 + (a % 3)}`);
      return;
    }
    default:
      s.unread = true;
      said.push('not read');
      return;
  }
}

/**
 * readHAProxyPod's reading of one session, through the functions it calls: stdout arrives in pieces of `sizes`
 * bytes, ExecSession.until stops at the piece where promptsSeen(2) holds (show proc answered; if never, the command
 * ended first), then readingOfExec reads the end.
 */
function readSession(pod: string, s: Session, sizes: number[]): HAProxyReading {
  const seen = promptsSeen(2);
  let shown: string | undefined = seen('') ? '' : undefined;
  for (let at = 0, i = 0; shown === undefined && at < s.stdout.length; i++) {
    at += sizes[i % sizes.length]!;
    if (seen(s.stdout.slice(at - sizes[i % sizes.length]!, at))) shown = s.stdout.slice(0, at);
  }
  const workers = shown === undefined ? undefined : workersShown(shown);
  return readingOfExec({ namespace: 'haptic', pod }, SOCKET, workers, s, NOW, s.backends);
}

/** The base rollout, its HAProxy config with a hard-stop-after (doctor --sessions compares ttime with it). */
function sessionsBase(): { snap: RolloutSnapshot; model: RolloutModel } {
  const raw = base();
  const cfg = raw.haptic.haproxyCfgs.items[0]!;
  cfg.spec!.content = `global\n  hard-stop-after 10s\n\n${cfg.spec!.content}`;
  const snap = arrived(raw);
  const [model] = rolloutModels([snap], NOW, GATE);
  if (!model) throw new Error('no model');
  return { snap, model };
}

/**
 * A number printed as one: NaN or Infinity not inside a name, a quoted value or a quoted CSV line of HAProxy's (a
 * problem quotes the header it could not read: `(# pxname,NaN)`).
 */
const NOT_A_NUMBER = /(?<![\w"'./\\,-])-?(NaN|Infinity)(?![\w"'./\\,-])|: \.(nan|inf)\b/i;

/** Every number in the outputs is finite, and every session count a safe non-negative integer. */
function assertCounts(value: unknown, at = ''): void {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error(`${at} is ${value}`);
  if (Array.isArray(value)) for (const [i, v] of value.entries()) assertCounts(v, `${at}[${i}]`);
  else if (value && typeof value === 'object')
    for (const [k, v] of Object.entries(value)) {
      if (['sessions', 'atLeast', 'queued', 'onLeaving', 'scur'].includes(k) && typeof v === 'number')
        if (!Number.isSafeInteger(v) || v < 0) throw new Error(`${at}.${k} is ${v}, not a count`);
      assertCounts(v, `${at}.${k}`);
    }
}

/** A pod's sessions are a count, or said unknown with the part read as a lower bound (never 0 for unknown). */
function assertPodSessions(model: RolloutModel): void {
  for (const p of [...model.newPods, ...model.oldPods]) {
    const s = p.sessions;
    if (!s) continue;
    if (s.sessions === undefined && s.atLeast === undefined)
      throw new Error(`${p.name}: sessions neither counted nor bounded`);
    if (s.sessions !== undefined && s.on.some((o) => o.problem !== undefined))
      throw new Error(`${p.name}: counted ${s.sessions} while a HAProxy pod was unreadable`);
  }
}

/** The readings of both HAProxy pods after `edits`, through the model, the rules, doctor and every output. */
function sessionsAnswer(
  good: { snap: RolloutSnapshot; model: RolloutModel },
  edits: Edit[],
  sizes: number[],
): RolloutModel {
  const pods = ['haptic-haproxy-a', 'haptic-haproxy-b'];
  const sessions: Session[] = pods.map(() => ({ stdout: goodTranscript(), stderr: '', truncated: false }));
  said = [];
  for (const e of edits) spoilSession(sessions[e[1] % pods.length]!, e);
  const readings = pods.flatMap((pod, i) => (sessions[i]!.unread ? [] : [readSession(pod, sessions[i]!, sizes)]));
  const model = withSessions(good.model, { readings }, new Map());
  assertPodSessions(model);
  const { printed, outputs } = printAll(good.snap, model, { readings });
  for (const o of outputs) assertCounts(o);
  for (const text of printed) {
    const bad = NOT_A_NUMBER.exec(text);
    if (bad) throw new Error(`printed ${bad[0]}: …${text.slice(Math.max(0, bad.index - 80), bad.index + 20)}`);
  }
  return model;
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

  it(
    `malformed routes of every kind, Gateways and parentRefs never crash or print escapes (${RUNS} cases, seed ${SEED})`,
    () => {
      const good = routesBase();
      const [model] = rolloutModels([arrived(good)], NOW, GATE);
      // the good routes: every kind reaches service web, each rendered by HAPTIC
      expect(
        model?.routing.services.flatMap((s) =>
          s.routes.map((r) => `${r.kind} ${r.namespace}/${r.name} ${r.miss ?? 'rendered'}`),
        ),
      ).toEqual([
        'Ingress shop/web rendered',
        'Ingress shop/web-api rendered',
        'HTTPRoute shop/web-http rendered',
        'HTTPRoute front/web-front rendered',
        'GRPCRoute shop/web-grpc rendered',
        'TLSRoute shop/web-tls rendered',
        'TCPRoute shop/web-tcp rendered',
      ]);
      fuzz(good, (g, edits) => spoilAny(g, edits, routePath, ROUTE_REPLACEMENTS), answer);
    },
    TIME_LIMIT,
  );

  it(
    `spoiled master CLI sessions (show proc, show stat) never crash, print escapes, secrets or non-counts (${RUNS} cases, seed ${SEED})`,
    () => {
      process.stderr.write(`fuzz: ${RUNS} cases, seed ${SEED} (FUZZ_SEED=${SEED} replays)\n`);
      const good = sessionsBase();
      // the good sessions, on two HAProxy pods: web-new-1 by its config's name, web-old-1 by its address only
      const counted = sessionsAnswer(good, [], [4096]);
      expect(
        Object.fromEntries([...counted.newPods, ...counted.oldPods].map((p) => [p.name, p.sessions?.sessions])),
      ).toEqual({ 'web-new-1': 6, 'web-old-1': 16, 'web-old-2': 0 });
      const edit = fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat(), fc.nat());
      fc.assert(
        fc.property(
          fc.array(edit, { minLength: 1, maxLength: 5 }),
          fc.array(fc.integer({ min: 1, max: 5000 }), { minLength: 1, maxLength: 4 }),
          (edits, sizes) => {
            try {
              bounded(() => sessionsAnswer(good, edits, sizes));
            } catch (err) {
              const stack = err instanceof Error ? (err.stack ?? '').split('\n').slice(0, 4).join('\n') : String(err);
              throw new Error(`${said.join('; ')} (pieces of ${sizes.join(', ')})\n${stack}`);
            }
          },
        ),
        { numRuns: RUNS, seed: SEED },
      );
    },
    TIME_LIMIT,
  );
});
