// Hostile inputs, table-driven (issue #9): the real bundle (bin/kubectl-haptic) as a process, against small local
// servers this file controls and odd kubeconfigs. Each row asserts the exit code, the first stderr line, and that no
// secret planted in the kubeconfig, a token file, a credential plugin or the cluster's objects appears anywhere in
// stdout or stderr, nor any terminal control sequence — once without and once with --debug.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  connectProxy,
  controllerPod,
  deployment,
  emptyList,
  fakeCluster,
  gatedRollout,
  HAPTIC_NS,
  haproxyCfg,
  haproxyPod,
  hapticInstallation,
  hostileServer,
  masterCli,
  NS,
  objectCluster,
  PROMPT,
  showStat,
  statRow,
  templateConfig,
  testPki,
  type Exec,
  type ExecIo,
  type ExecTalk,
  type HostileServer,
  type Received,
  type Reply,
  type Route,
} from './server.ts';

const repoRoot = new URL('../..', import.meta.url).pathname.replace(/\/$/, '');

// Planted secrets: none may ever be printed.
const TOKEN = 'hostile-token-6f1c2a9e77d04b1e';
const BYSTANDER_TOKEN = 'bystander-token-0c8d7e6f5a4b3c2d';
const PASSWORD = 'hostile-password-93b1d5c7';
const URL_PASSWORD = 'url-password-5e7a9c1b';
const TOKEN_FILE_TOKEN = 'token-file-token-2b4d6f8a0c';
const EXEC_TOKEN = 'exec-token-7a9b1c3d5e7f';
const EXEC_STDERR = 'exec-stderr-secret-4c6e8a0b';
const EXEC_ENV = 'exec-env-secret-1f3e5d7c';
const ENV_VALUE = 'env-value-secret-8d6b4f2a';
// an id-token client-node's OpenIDConnectAuth sends as it is: a JWT whose exp is a day away
const OIDC_TOKEN = `${[{ alg: 'none' }, { sub: 'oidc-id-token-3a5c7e9b1d', exp: Math.floor(Date.now() / 1000) + 86_400 }].map((part) => Buffer.from(JSON.stringify(part)).toString('base64url')).join('.')}.c2ln`;

function secrets(): string[] {
  const pki = testPki();
  const keyLines = pki.clientKey.split('\n').filter((l) => l && !l.startsWith('-----'));
  const keyB64 = Buffer.from(pki.clientKey).toString('base64');
  return [
    TOKEN,
    BYSTANDER_TOKEN,
    PASSWORD,
    URL_PASSWORD,
    TOKEN_FILE_TOKEN,
    EXEC_TOKEN,
    EXEC_STDERR,
    EXEC_ENV,
    ENV_VALUE,
    OIDC_TOKEN,
    ...keyLines,
    keyB64.slice(20, 80),
  ];
}

interface Ctx {
  dir: string;
  server: HostileServer;
  /** a CONNECT/forwarding proxy of this run (rows with `proxy`) */
  proxy?: { url: string; targets: string[] } | undefined;
  /** the kubeconfig file written for the row */
  kubeconfig: string;
}

type Obj = Record<string, unknown>;

interface Row {
  name: string;
  /** the plugin's arguments (a function when they name the row's own files) */
  args: string[] | ((ctx: Ctx) => string[]);
  /** the server the kubeconfig points at (default: a fake cluster over HTTP) */
  route?: Route;
  tls?: boolean;
  /** TLS offering HTTP/2, as a kube-apiserver does (rows replayed over HTTP/2 below) */
  h2?: boolean;
  /** the kubeconfig: an object (written as YAML-compatible JSON) or raw text; default: `kubeconfig(ctx)` */
  config?: (ctx: Ctx) => Obj | string;
  /** files to write in the row's folder before it runs (path → content; executable when it starts with #!) */
  files?: (ctx: Ctx) => Record<string, string>;
  env?: (ctx: Ctx) => Record<string, string>;
  code: number;
  /** the first stderr line: exact, or a pattern */
  stderr: string | RegExp;
  /** more checks on the result */
  check?: (ctx: Ctx, r: Result) => void;
  slow?: boolean;
  /** start a proxy for the run (ctx.proxy) */
  proxy?: boolean;
  /** the server's answers to pods/exec upgrades (a real WebSocket) */
  exec?: Exec;
  /** run the plugin under /usr/bin/time, for its peak RSS (Result.peakRssKb) */
  rss?: boolean;
}

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  /** wall time from spawn to exit */
  elapsedMs: number;
  /** the process's peak resident set (kB), when the row asked for it */
  peakRssKb?: number | undefined;
}

/** A kubeconfig with the row's server, its user `u` (a token) and a bystander user full of secrets. */
function kubeconfig(
  ctx: Ctx,
  options: { user?: Obj | undefined; cluster?: Obj; context?: Obj; extraUsers?: Obj[] } = {},
): Obj {
  const pki = testPki();
  const tls = ctx.server.url.startsWith('https')
    ? { 'certificate-authority-data': Buffer.from(pki.caCert).toString('base64') }
    : {};
  return {
    apiVersion: 'v1',
    kind: 'Config',
    'current-context': 'c',
    clusters: [{ name: 'k', cluster: { server: ctx.server.url, ...tls, ...options.cluster } }],
    users: [
      ...(options.user === undefined
        ? [{ name: 'u', user: { token: TOKEN } }]
        : Object.keys(options.user).length
          ? [{ name: 'u', user: options.user }]
          : []),
      {
        name: 'bystander',
        user: {
          token: BYSTANDER_TOKEN,
          'client-certificate-data': Buffer.from(pki.clientCert).toString('base64'),
          'client-key-data': Buffer.from(pki.clientKey).toString('base64'),
        },
      },
      { name: 'basic', user: { username: 'admin', password: PASSWORD } },
      ...(options.extraUsers ?? []),
    ],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', namespace: NS, ...options.context } }],
  };
}

const status = (code: number, reason: string, message: string): Reply => ({
  status: code,
  json: { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message },
});
const webPath = `/apis/apps/v1/namespaces/${NS}/deployments/web`;
/** The web Deployment with the readiness gate, and after disable-gate removed it (generation 2). */
const gated = () => {
  const d = deployment();
  (d.spec.template.spec as Record<string, unknown>).readinessGates = [
    { conditionType: 'haproxy-haptic.org/load-balancer-ready' },
  ];
  return d;
};
/** A fake cluster's override answering its namespace's events with one Event about Deployment web. */
const withEvents =
  (event: Obj) =>
  (req: Received): Reply | undefined =>
    req.path === `/api/v1/namespaces/${NS}/events`
      ? {
          json: {
            items: [
              {
                metadata: { name: 'e1', namespace: NS },
                involvedObject: { kind: 'Deployment', name: 'web' },
                ...event,
              },
            ],
          },
        }
      : undefined;
const ungated = () => {
  const d = deployment();
  return { ...d, metadata: { ...d.metadata, generation: 2, resourceVersion: '11' } };
};
const onWeb = (reply: Reply | ((req: Received, n: number) => Reply | undefined)): Route =>
  fakeCluster((req, _n, received) => {
    if (req.path !== webPath || req.method !== 'GET') return undefined;
    // n: the how-many-th request for the Deployment this is
    return typeof reply === 'function' ? reply(req, received.filter((r) => r.path === webPath).length) : reply;
  });
const credential = (status: Obj) =>
  JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status });
const execUser = (command: string, extra: Obj = {}) => ({
  exec: {
    apiVersion: 'client.authentication.k8s.io/v1',
    command,
    interactiveMode: 'Never',
    env: [{ name: 'SECRET_ENV', value: EXEC_ENV }],
    ...extra,
  },
});
const script = (body: string) => `#!/bin/sh\n${body}\n`;
const requireToken =
  (token: string, route: Route): Route =>
  (req, n, received) =>
    req.headers.authorization === `Bearer ${token}`
      ? route(req, n, received)
      : status(401, 'Unauthorized', 'Unauthorized');

// #36 round three: HAPTIC routing the gated rollout of web (server.ts gatedRollout, hapticInstallation), its HAProxy
// pods read through pods/exec over a real WebSocket
const BACKEND = `ing_${NS}_web_web_80`;
/** show stat of one worker: web-old-1 (10.0.0.1) and web-new-1 (10.0.0.3) with these scur */
const webStat = (old: string | number, fresh: string | number = 0) =>
  showStat(statRow(BACKEND, 'web-old-1', '10.0.0.1:8080', old), statRow(BACKEND, 'web-new-1', '10.0.0.3:8080', fresh));
const sessionsCluster = (extra: Obj[] = [], haproxy = ['haptic-haproxy-a'], terminating = false): Route =>
  objectCluster([...gatedRollout({ terminating }), ...hapticInstallation(haproxy), ...(extra as never[])]);
interface PodOut {
  name: string;
  sessions?: { sessions?: number; atLeast?: number; on: { haproxyPod: string; sessions?: number; problem?: string }[] };
}
const rolloutOut = (r: Result) =>
  JSON.parse(r.stdout) as { newPods: PodOut[]; oldPods: PodOut[]; sessions?: { problems: string[] } };
/** stdout in pieces of 64 KiB, each its own WebSocket message (under the 4 MiB a message may hold) */
const sendPieces = (io: ExecIo, text: string) => {
  for (let at = 0; at < text.length; at += 65_536) io.send(1, text.slice(at, at + 65_536));
};
/** a show stat answer of `bytes` of other backends' servers, then web-old-1 holding 5 sessions */
const hugeStat = (bytes: number) => {
  const filler = statRow('other_backend', 'srv', '10.9.0.1:80', 0);
  const rows = Array.from({ length: Math.ceil(bytes / (filler.length + 1)) }, () => filler);
  return showStat(...rows, statRow(BACKEND, 'web-old-1', '10.0.0.1:8080', 5));
};
/** A master CLI that also keeps what the plugin wrote to it, in `asked`. */
const recording =
  (asked: string[], cli: ExecTalk): ExecTalk =>
  (stdin, io) => {
    asked.push(stdin);
    cli(stdin, io);
  };
/** 10,000 Gateways and 10,000 HTTPRoutes of 32 parentRefs each in namespace `other`, none routing web */
const manyGateways = (): Obj[] => [
  ...Array.from({ length: 10_000 }, (_, i) => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'Gateway',
    metadata: { name: `gw-${i}`, namespace: 'other' },
    spec: { gatewayClassName: 'haproxy', listeners: [{ name: 'http', port: 80, protocol: 'HTTP' }] },
  })),
  ...Array.from({ length: 10_000 }, (_, i) => ({
    apiVersion: 'gateway.networking.k8s.io/v1',
    kind: 'HTTPRoute',
    metadata: { name: `route-${i}`, namespace: 'other' },
    spec: {
      parentRefs: Array.from({ length: 32 }, (_, j) => ({ name: `gw-${(i * 32 + j) % 10_000}` })),
      rules: [{ backendRefs: [{ name: `app-${i}`, port: 80 }] }],
    },
  })),
];

const rows: Row[] = [
  // ----- the kubeconfig itself (exit 3, naming the file, context, cluster or user)
  {
    name: 'kubeconfig that is not YAML, with a token and key on the lines around the error',
    args: ['status', 'web'],
    config: (_ctx) =>
      `apiVersion: v1\nusers:\n- name: u\n  user:\n    token: ${TOKEN}\n    client-key-data: ${Buffer.from(testPki().clientKey).toString('base64')}\n   bad: [indent\n`,
    code: 3,
    stderr: /^error: cannot load kubeconfig file ".*\/kubeconfig": not valid YAML at line \d+, column \d+ \(.+\)$/,
  },
  {
    name: 'kubeconfig that is a YAML list',
    args: ['status', 'web'],
    config: () => '- a\n- b\n',
    code: 3,
    stderr: /^error: cannot load kubeconfig file ".*": not a kubeconfig/,
  },
  {
    name: 'clusters is not a list',
    args: ['status', 'web'],
    config: () => 'clusters: nope\n',
    code: 3,
    stderr: /^error: cannot load kubeconfig file ".*": clusters is not a list$/,
  },
  {
    name: 'server: not a url',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { cluster: { server: 'not a url' } }),
    code: 3,
    stderr:
      'error: invalid configuration: server "not a url" of cluster "k" is not a URL (host must be a URL or a host:port pair)',
  },
  {
    name: 'server with an ftp:// scheme',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { cluster: { server: 'ftp://127.0.0.1:21' } }),
    code: 3,
    stderr: /^error: invalid configuration: server "ftp:\/\/127\.0\.0\.1:21" of cluster "k" has scheme "ftp"/,
  },
  {
    name: 'cluster without a server',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { cluster: { server: '' } }),
    code: 3,
    stderr: 'error: invalid configuration: no server found for cluster "k"',
  },
  {
    name: 'context naming a missing cluster',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { context: { cluster: 'gone' } }),
    code: 3,
    stderr: 'error: invalid configuration: cluster "gone" was not found for context "c"',
  },
  {
    name: 'current-context naming a missing context',
    args: ['status', 'web'],
    config: (ctx) => ({ ...kubeconfig(ctx), 'current-context': 'gone' }),
    code: 3,
    stderr: /^error: invalid configuration: context was not found for specified context: gone/,
  },
  {
    name: '--context naming a missing context',
    args: ['status', 'web', '--context', 'nope'],
    code: 3,
    stderr: 'error: context "nope" does not exist in the kubeconfig (--context); see kubectl config get-contexts',
  },
  {
    name: 'no current context',
    args: ['status', 'web'],
    config: (ctx) => ({ ...kubeconfig(ctx), 'current-context': '' }),
    code: 3,
    stderr: /^error: no current context in the kubeconfig in .*kubeconfig: set one with kubectl config use-context/,
  },
  {
    name: '--kubeconfig naming a missing file',
    args: ['status', 'web', '--kubeconfig', '/nonexistent/kubeconfig'],
    code: 3,
    stderr: 'error: kubeconfig file "/nonexistent/kubeconfig" does not exist (--kubeconfig)',
  },
  {
    name: 'KUBECONFIG naming only files that do not exist: said so, not "no current context"',
    args: ['status', 'web'],
    env: () => ({ KUBECONFIG: '/nonexistent/a:/nonexistent/b' }),
    code: 3,
    stderr:
      'error: KUBECONFIG names no kubeconfig file that exists (/nonexistent/a, /nonexistent/b): point it at your kubeconfig, or pass --kubeconfig',
  },
  {
    name: 'no KUBECONFIG and no ~/.kube/config',
    args: ['status', 'web'],
    env: (ctx) => ({ KUBECONFIG: '', HOME: ctx.dir }),
    code: 3,
    stderr: /^error: no kubeconfig: .*\/\.kube\/config does not exist and KUBECONFIG is not set/,
  },
  {
    name: 'a typo of a command: the word typed, and the closest command, as kubectl says it',
    args: ['stauts', 'web'],
    code: 3,
    stderr: 'error: unknown command "stauts" for "kubectl haptic"',
    check: (_c, r) =>
      expect(r.stderr).toMatch(
        /^error: unknown command "stauts" for "kubectl haptic"\n\nDid you mean this\?\n\tstatus\n\nRun 'kubectl haptic --help' for usage\.\n/,
      ),
  },
  {
    name: 'a typo of a flag: the closest flag, and where the help is',
    args: ['status', 'web', '--wacth'],
    code: 3,
    stderr: 'error: unknown flag: --wacth',
    check: (_c, r) =>
      expect(r.stderr).toMatch(
        /^error: unknown flag: --wacth\nDid you mean --watch\?\nSee 'kubectl haptic status --help' for usage\.\n/,
      ),
  },
  {
    name: 'missing client-certificate file',
    args: ['status', 'web'],
    config: (ctx) =>
      kubeconfig(ctx, {
        user: {
          'client-certificate': 'missing.crt',
          'client-key-data': Buffer.from(testPki().clientKey).toString('base64'),
        },
      }),
    code: 3,
    stderr:
      /^error: invalid configuration: unable to read client-cert \/.*\/missing\.crt due to open .*missing\.crt: no such file or directory$/,
  },
  {
    name: 'client certificate without a key',
    args: ['status', 'web'],
    config: (ctx) =>
      kubeconfig(ctx, { user: { 'client-certificate-data': Buffer.from(testPki().clientCert).toString('base64') } }),
    code: 3,
    stderr:
      'error: invalid configuration: client-key-data or client-key must be specified for u to use the clientCert authentication method.',
  },
  {
    name: 'client key data that is not a key',
    args: ['status', 'web'],
    config: (ctx) =>
      kubeconfig(ctx, {
        user: {
          'client-certificate-data': Buffer.from(testPki().clientCert).toString('base64'),
          'client-key-data': Buffer.from(`${PASSWORD}-not-a-key`).toString('base64'),
        },
      }),
    code: 3,
    stderr:
      'error: invalid configuration: the client certificate and key of user "u" do not load as a PEM certificate and its private key',
  },
  {
    name: 'garbage certificate-authority-data',
    args: ['status', 'web'],
    tls: true,
    config: (ctx) =>
      kubeconfig(ctx, {
        cluster: { 'certificate-authority-data': Buffer.from('garbage, not a certificate').toString('base64') },
      }),
    code: 3,
    stderr: 'error: unable to load root certificates of cluster "k": unable to parse bytes as PEM block',
  },
  {
    name: 'certificate-authority-data that is not base64',
    args: ['status', 'web'],
    tls: true,
    config: (ctx) => kubeconfig(ctx, { cluster: { 'certificate-authority-data': '%%% not base64 %%%' } }),
    code: 3,
    stderr: /^error: cannot load kubeconfig file ".*": clusters "k" certificate-authority-data is not base64 data$/,
  },
  {
    name: 'insecure-skip-tls-verify together with a CA',
    args: ['status', 'web'],
    tls: true,
    config: (ctx) => kubeconfig(ctx, { cluster: { 'insecure-skip-tls-verify': true } }),
    code: 3,
    stderr: /^error: specifying a root certificates file with the insecure flag is not allowed/,
  },
  {
    name: 'token and password for one user',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { user: { token: TOKEN, username: 'admin', password: PASSWORD } }),
    code: 3,
    stderr:
      'error: invalid configuration: more than one authentication method found for u; found [token basicAuth], only one is allowed',
  },
  {
    name: 'tokenFile that does not exist',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { user: { tokenFile: 'no-such-token' } }),
    code: 3,
    stderr:
      /^error: invalid configuration: unable to read tokenFile \/.*\/no-such-token for u due to open .*: no such file or directory$/,
  },
  {
    name: 'empty tokenFile',
    args: ['status', 'web'],
    files: () => ({ 'empty-token': '\n' }),
    config: (ctx) => kubeconfig(ctx, { user: { tokenFile: 'empty-token' } }),
    code: 3,
    stderr: /^error: read empty token from file ".*\/empty-token" \(tokenFile of user "u"\)$/,
  },
  {
    name: 'exec plugin with an unknown apiVersion',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { user: execUser('cred', { apiVersion: 'client.authentication.k8s.io/v9' }) }),
    code: 3,
    stderr: 'error: exec plugin: invalid apiVersion "client.authentication.k8s.io/v9" (user "u")',
  },
  {
    name: 'exec plugin v1 without interactiveMode',
    args: ['status', 'web'],
    config: (ctx) =>
      kubeconfig(ctx, { user: { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'cred' } } }),
    code: 3,
    stderr: 'error: invalid configuration: interactiveMode must be specified for u to use exec authentication plugin',
  },
  {
    name: 'the removed gcp auth-provider',
    args: ['status', 'web'],
    config: (ctx) =>
      kubeconfig(ctx, { user: { 'auth-provider': { name: 'gcp', config: { 'access-token': OIDC_TOKEN } } } }),
    code: 3,
    stderr: /^error: The gcp auth plugin has been removed\. Please use the "gke-gcloud-auth-plugin"/,
  },
  {
    name: 'proxy-url with an unsupported scheme',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { cluster: { 'proxy-url': `ftp://user:${URL_PASSWORD}@proxy:21` } }),
    code: 3,
    stderr: /^error: invalid configuration: invalid 'proxy-url' "ftp:\/\/\[REDACTED\]@proxy:21" for cluster "k"/,
  },

  // ----- names the API server would refuse, checked before any request (exit 3, no request sent)
  ...(
    [
      [['status', '.'], 'error: invalid name ".": may not be \'.\''],
      [['status', '..'], 'error: invalid name "..": may not be \'..\''],
      [['status', 'deployment/a/b'], 'error: invalid Deployment name "a/b": may not contain \'/\''],
      [['status', 'sts/a/b'], 'error: invalid StatefulSet name "a/b": may not contain \'/\''],
      [
        ['status', 'job/web'],
        'error: job "web": only Deployments, StatefulSets, DaemonSets and Rollouts are supported',
      ],
      [
        ['why-stalled', 'Web'],
        /^error: invalid name "Web": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters/,
      ],
      [['status', 'web', '-n', '..'], 'error: invalid namespace ".." (-n/--namespace): may not be \'..\''],
      [
        ['enable-gate', 'web', '-n', 'Shop_1'],
        /^error: invalid namespace "Shop_1" \(-n\/--namespace\): a lowercase RFC 1123 label/,
      ],
    ] as const
  ).map(
    ([args, stderr]): Row => ({
      name: `name ${args.join(' ')}`,
      args: [...args],
      code: 3,
      stderr,
      check: (ctx) => expect(ctx.server.received).toEqual([]),
    }),
  ),
  {
    name: 'context namespace that is not a DNS label',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { context: { namespace: '../kube-system' } }),
    code: 3,
    stderr: 'error: invalid namespace "../kube-system" (the namespace of context "c"): may not contain \'/\'',
    check: (ctx) => expect(ctx.server.received).toEqual([]),
  },

  // ----- flags
  {
    name: '--watch --wait',
    args: ['status', 'web', '--watch', '--wait'],
    code: 3,
    stderr: 'error: --wait=true cannot also be provided when using --watch',
  },
  {
    name: '--request-timeout that is not a duration',
    args: ['status', 'web', '--request-timeout', '5 parsecs'],
    code: 3,
    stderr: 'error: invalid --request-timeout "5 parsecs": use a duration such as 30s, 5m or 1h',
  },
  {
    name: '--timeout beyond what Go can hold',
    args: ['status', 'web', '--wait', '--timeout', '9999999999h'],
    code: 3,
    stderr:
      'error: invalid --timeout "9999999999h": longer than the longest duration kubectl accepts (about 292 years)',
  },
  {
    name: "--request-timeout 2147484 (past setTimeout's limit) works",
    args: ['status', 'web', '--request-timeout', '2147484', '-o', 'json'],
    code: 0,
    stderr: '',
    check: (_c, r) => expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'Rollout', name: 'web' }),
  },
  {
    name: '--timeout 1000h on a complete rollout',
    args: ['status', 'web', '--wait', '--timeout', '1000h'],
    code: 0,
    stderr: '',
    check: (_c, r) => expect(r.stdout).toMatch(/successfully rolled out/),
  },

  // ----- credential plugins (exit 4, or 2 when it times out; the command named, what it printed never shown)
  {
    name: 'exec command that does not exist, with its installHint',
    args: ['status', 'web'],
    config: (ctx) =>
      kubeconfig(ctx, {
        user: execUser('./bin/no-such-plugin', { installHint: 'Install it with: brew install no-such-plugin' }),
      }),
    code: 4,
    stderr: /^error: exec: executable \/.*\/bin\/no-such-plugin not found \(exec plugin of user "u" in .*kubeconfig\)$/,
    check: (_c, r) => expect(r.stderr.split('\n')[1]).toBe('Install it with: brew install no-such-plugin'),
  },
  {
    name: 'exec plugin that exits 1 printing secrets on stderr and stdout',
    args: ['status', 'web'],
    files: () => ({ 'fail.sh': script(`echo "${EXEC_STDERR}" >&2; echo "${EXEC_TOKEN}"; exit 1`) }),
    config: (ctx) => kubeconfig(ctx, { user: execUser(join(ctx.dir, 'fail.sh')) }),
    code: 4,
    stderr:
      /^error: exec: executable \/.*\/fail\.sh failed with exit code 1 \(exec plugin of user "u" in .*\); what it printed is not shown, as it may hold credentials: run it yourself to see why$/,
  },
  {
    name: 'exec plugin that prints a bare token',
    args: ['status', 'web'],
    files: () => ({ 'bare.sh': script(`echo "${EXEC_TOKEN}"`) }),
    config: (ctx) => kubeconfig(ctx, { user: execUser(join(ctx.dir, 'bare.sh')) }),
    code: 4,
    stderr: /^error: exec: decoding stdout of \/.*\/bare\.sh: not a JSON ExecCredential \(\d+ bytes, not shown\)/,
  },
  {
    name: 'exec plugin that prints nothing',
    args: ['status', 'web'],
    files: () => ({ 'silent.sh': script('exit 0') }),
    config: (ctx) => kubeconfig(ctx, { user: execUser(join(ctx.dir, 'silent.sh')) }),
    code: 4,
    stderr: /^error: exec: decoding stdout of \/.*\/silent\.sh: not a JSON ExecCredential \(it printed nothing\)/,
  },
  {
    name: 'exec plugin whose credential has no status',
    args: ['status', 'web'],
    files: () => ({
      'nostatus.sh': script(`echo '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential"}'`),
    }),
    config: (ctx) => kubeconfig(ctx, { user: execUser(join(ctx.dir, 'nostatus.sh')) }),
    code: 4,
    stderr: /^error: exec plugin didn't return a status field/,
  },
  {
    name: 'exec plugin answering another apiVersion',
    args: ['status', 'web'],
    files: () => ({ 'v1b1.sh': script(`echo '${credential({ token: EXEC_TOKEN }).replace('/v1"', '/v1beta1"')}'`) }),
    config: (ctx) => kubeconfig(ctx, { user: execUser(join(ctx.dir, 'v1b1.sh')) }),
    code: 4,
    stderr:
      /^error: exec plugin is configured to use API version client\.authentication\.k8s\.io\/v1, plugin returned version client\.authentication\.k8s\.io\/v1beta1/,
  },
  {
    name: 'exec plugin that hangs, bound by --request-timeout',
    args: ['status', 'web', '--request-timeout', '1s'],
    files: () => ({ 'hang.sh': script('sleep 30') }),
    config: (ctx) => kubeconfig(ctx, { user: execUser(join(ctx.dir, 'hang.sh')) }),
    code: 2,
    stderr: /^error: exec: executable \/.*\/hang\.sh did not return a credential within the request timeout/,
  },
  {
    name: 'exec plugin that is not executable',
    args: ['status', 'web'],
    files: () => ({ 'noexec.txt': 'echo hi' }),
    config: (ctx) => kubeconfig(ctx, { user: execUser(join(ctx.dir, 'noexec.txt')) }),
    code: 4,
    stderr: /^error: exec: executable \/.*\/noexec\.txt not found \(not executable: permission denied\)/,
  },

  // ----- answers that are not an API server's (exit 4, the real problem named)
  {
    name: '200 with an HTML body',
    args: ['status', 'web'],
    route: onWeb({ body: '<html><body>Welcome to nginx!</body></html>', headers: { 'content-type': 'text/html' } }),
    code: 4,
    stderr:
      /^error: the server at http:\/\/127\.0\.0\.1:\d+ answered get deployments\.apps "web" in namespace "ns" with a body that is not JSON \(content-type text\/html, 43 bytes\); is the kubeconfig's server URL an API server\?$/,
  },
  {
    name: '200 with {} for a Deployment',
    args: ['status', 'web'],
    route: onWeb({ json: {} }),
    code: 4,
    stderr: /with a JSON object without metadata\.name, not a Kubernetes object;/,
  },
  {
    name: '200 with null',
    args: ['status', 'web'],
    route: onWeb({ json: null }),
    code: 4,
    stderr: /with JSON that is not an object \(null\);/,
  },
  {
    name: '200 with an empty body',
    args: ['why-stalled', 'web'],
    route: onWeb({ body: '' }),
    code: 4,
    stderr: /with an empty body instead of JSON;/,
  },
  {
    name: '200 with {} for a list (not "not found")',
    args: ['status', '-o', 'json'],
    route: fakeCluster((req) => (req.path === `/apis/apps/v1/namespaces/${NS}/deployments` ? { json: {} } : undefined)),
    code: 4,
    stderr:
      /^error: the server at .* answered list deployments\.apps in namespace "ns" with a JSON object without an items list, not a Kubernetes list;/,
  },
  {
    name: 'a list whose items have no names',
    args: ['status'],
    route: fakeCluster((req) =>
      req.path === `/apis/apps/v1/namespaces/${NS}/deployments` ? { json: { items: [{}, 'x'] } } : undefined,
    ),
    code: 4,
    stderr: /with a list with items that have no metadata\.name/,
  },
  {
    name: 'a body that stalls, with --request-timeout 2s',
    args: ['status', 'web', '--request-timeout', '2s'],
    route: onWeb({ stallAfterHeaders: true, body: '{"kind":"Deploy', headers: { 'content-type': 'application/json' } }),
    code: 2,
    stderr:
      /^error: the API server at .* did not answer get deployments\.apps "web" in namespace "ns" within 2s \(--request-timeout\)$/,
  },
  {
    name: 'a body that trickles past --request-timeout',
    args: ['status', 'web', '--request-timeout', '1s'],
    route: onWeb({ trickle: { bytes: 4, everyMs: 200 }, json: deployment() }),
    code: 2,
    stderr: /did not answer get deployments\.apps "web" in namespace "ns" within 1s \(--request-timeout\)$/,
  },
  {
    name: 'no answer at all, with --request-timeout 1s',
    args: ['status', 'web', '--request-timeout', '1s'],
    route: onWeb({ hang: true }),
    code: 2,
    stderr: /did not answer get deployments\.apps "web" in namespace "ns" within 1s \(--request-timeout\)$/,
  },
  {
    name: 'a body that stalls, without --request-timeout (default 30 s read timeout)',
    slow: true,
    args: ['status', 'web'],
    route: onWeb({ stallAfterHeaders: true, body: '{"kind":"Deploy', headers: { 'content-type': 'application/json' } }),
    code: 2,
    stderr:
      /^error: the API server at .* stopped sending its answer to get deployments\.apps "web" in namespace "ns" for 30s \(default read timeout; --request-timeout sets a limit for the whole request\)$/,
  },
  {
    name: 'a 300 MiB body',
    slow: true,
    args: ['status', 'web'],
    route: onWeb({ hugeBytes: 300 * 1024 * 1024 }),
    code: 4,
    stderr: /with an answer larger than 256 MiB, which is refused;/,
    check: (_c, r) => expect(r.stderr).not.toMatch(/heap|memory/i),
  },
  {
    name: 'a Content-Length of 1 GiB',
    args: ['status', 'web'],
    route: onWeb({
      stallAfterHeaders: true,
      headers: { 'content-length': String(1024 ** 3), 'content-type': 'application/json' },
    }),
    code: 4,
    stderr: /with an answer larger than 256 MiB, which is refused;/,
  },
  {
    name: 'the connection closed without an answer',
    args: ['status', 'web'],
    route: onWeb({ destroy: true }),
    code: 4,
    stderr:
      /^error: cannot reach the Kubernetes API server at http:\/\/127\.0\.0\.1:\d+ \(.+\); check --context\/--kubeconfig and that the cluster is running$/,
  },
  {
    name: 'a redirect to another host, not followed',
    args: ['status', 'web'],
    route: onWeb({ status: 302, headers: { location: `https://evil.example/steal?token=${TOKEN}` } }),
    code: 4,
    stderr: /with a redirect \(HTTP 302 to https:\/\/evil\.example\/steal\), which is not followed;/,
    check: (ctx) => expect(ctx.server.count(webPath)).toBe(1),
  },
  {
    name: 'a redirect on the same host, not followed either',
    args: ['status', 'web'],
    route: (req, n, received) =>
      req.path === '/elsewhere'
        ? { json: deployment() }
        : onWeb({ status: 307, headers: { location: '/elsewhere' } })(req, n, received),
    code: 4,
    stderr: /with a redirect \(HTTP 307 to http:\/\/127\.0\.0\.1:\d+\/elsewhere\), which is not followed;/,
    check: (ctx) => expect(ctx.server.count('/elsewhere')).toBe(0),
  },

  // ----- status codes
  {
    name: '429 with Retry-After, retried like kubectl until it passes',
    args: ['status', 'web', '-o', 'json'],
    route: onWeb((_req, n) =>
      n <= 2 ? { ...status(429, 'TooManyRequests', 'slow down'), headers: { 'retry-after': '1' } } : undefined,
    ),
    code: 0,
    stderr: '',
    check: (ctx) => expect(ctx.server.count(webPath)).toBe(3),
  },
  {
    name: '429 with Retry-After: 0 forever: 10 retries, then exit 4',
    args: ['status', 'web'],
    route: onWeb({
      ...status(429, 'TooManyRequests', 'the server has received too many requests'),
      headers: { 'retry-after': '0' },
    }),
    code: 4,
    stderr:
      /^error: the API server at .* is overloaded: it answered get deployments\.apps "web" in namespace "ns" with HTTP 429 Too Many Requests \(the server has received too many requests\); try again later \(after 10 retries\)$/,
    check: (ctx) => expect(ctx.server.count(webPath)).toBe(11),
  },
  {
    name: '429 without Retry-After: no retry',
    args: ['status', 'web'],
    route: onWeb(status(429, 'TooManyRequests', 'busy')),
    code: 4,
    stderr: /HTTP 429 Too Many Requests \(busy\); try again later$/,
    check: (ctx) => expect(ctx.server.count(webPath)).toBe(1),
  },
  {
    name: '503 with Retry-After once, then an answer',
    args: ['status', 'web', '-o', 'json'],
    route: onWeb((_req, n) =>
      n === 1 ? { status: 503, body: 'upstream unavailable', headers: { 'retry-after': '1' } } : undefined,
    ),
    code: 0,
    stderr: '',
  },
  {
    name: '503 with Retry-After past --request-timeout',
    args: ['status', 'web', '--request-timeout', '1s'],
    route: onWeb({ status: 503, body: 'unavailable', headers: { 'retry-after': '5' } }),
    code: 2,
    stderr: /within 1s \(--request-timeout\)$/,
  },
  {
    name: '401',
    args: ['why-stalled', 'web'],
    route: onWeb(status(401, 'Unauthorized', 'Unauthorized')),
    code: 4,
    stderr:
      /^error: unauthorized: the API server at http:\/\/127\.0\.0\.1:\d+ rejected the credentials of the current context; log in again or check --kubeconfig\/--context$/,
  },
  {
    name: '401 for a context without a user names the missing credentials',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { context: { user: undefined } }),
    route: onWeb(status(401, 'Unauthorized', 'Unauthorized')),
    code: 4,
    stderr:
      /^error: unauthorized: the API server at .* requires credentials, and context "c" names no user, so requests were sent without credentials;/,
  },
  {
    name: '403 whose message carries terminal escapes (colour, title, clipboard)',
    args: ['status', 'web'],
    route: onWeb(
      status(
        403,
        'Forbidden',
        `deployments "web" is forbidden: \u001b[31mred\u001b[0m \u001b]0;pwned title\u0007 \u001b]52;c;${Buffer.from('rm -rf ~').toString('base64')}\u0007 \u009b2J bell\u0007 cr\rend`,
      ),
    ),
    code: 4,
    stderr:
      'error: forbidden: cannot get deployments.apps in namespace "ns" (deployments "web" is forbidden: red    bell crend)',
  },
  {
    name: "500 whose text echoes the request's token and password URL",
    args: ['status', 'web'],
    route: onWeb((req) => ({
      status: 500,
      body: `internal error; you sent ${req.headers.authorization} from https://admin:${URL_PASSWORD}@proxy`,
    })),
    code: 4,
    stderr: 'error: internal error; you sent Bearer [REDACTED] from https://[REDACTED]@proxy',
  },
  {
    // (items that are not objects with a name make the whole list a bad answer, exit 4: tested above)
    name: 'status on pods whose fields have the wrong type, one of them a HAProxy pod of another namespace',
    args: ['status', 'web'],
    route: fakeCluster((req) => {
      const malformed = [
        {
          metadata: { name: 'web-1', namespace: NS, labels: { app: 'web' }, ownerReferences: 'x' },
          spec: { readinessGates: 'x', containers: [null] },
          status: { conditions: [null], containerStatuses: 'x', podIP: 7 },
        },
        {
          metadata: { name: 'haptic-haproxy-x', namespace: 'elsewhere', creationTimestamp: 'yesterday' },
          spec: { containers: { name: 'haproxy' } },
          status: { conditions: 'x' },
        },
      ];
      return req.path === `/api/v1/namespaces/${NS}/pods` || req.path === '/api/v1/pods'
        ? { json: { kind: 'PodList', apiVersion: 'v1', metadata: { resourceVersion: '1' }, items: malformed } }
        : undefined;
    }),
    code: 0,
    stderr: '',
    check: (_c, r) => expect(r.stdout).toMatch(/deployment\.apps\/web/),
  },
  {
    name: '404 for the namespace',
    args: ['status', 'web'],
    route: fakeCluster((req) =>
      req.path.startsWith(`/apis/apps/v1/namespaces/${NS}/deployments/`) || req.path === `/api/v1/namespaces/${NS}`
        ? status(404, 'NotFound', 'not found')
        : undefined,
    ),
    code: 3,
    stderr: `error: namespace "${NS}" not found`,
  },
  {
    // #36: the work is bounded by the pods and claims that exist, not by spec.replicas (it was ~20 minutes)
    name: 'a StatefulSet of 2^31-1 replicas with two claim templates: answered at once, naming the claim that exists',
    args: ['why-stalled', 'sts/db'],
    route: fakeCluster((req) => {
      const db = {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name: 'db', namespace: NS, uid: 'u-db', generation: 1, resourceVersion: '5' },
        spec: {
          replicas: 2_147_483_647,
          selector: { matchLabels: { app: 'db' } },
          serviceName: 'db',
          template: { metadata: { labels: { app: 'db' } }, spec: { containers: [{ name: 'db', image: 'db:1' }] } },
          volumeClaimTemplates: [{ metadata: { name: 'data' } }, { metadata: { name: 'logs' } }],
        },
        status: {
          observedGeneration: 1,
          replicas: 1,
          readyReplicas: 0,
          currentRevision: 'db-1',
          updateRevision: 'db-1',
        },
      };
      const claim = (name: string) => ({
        apiVersion: 'v1',
        kind: 'PersistentVolumeClaim',
        metadata: { name, namespace: NS, labels: { app: 'db' } },
        spec: { storageClassName: 'slow' },
        status: { phase: 'Pending' },
      });
      const list = (items: unknown[]) => ({ json: { ...emptyList(req), items } });
      if (req.query.get('watch') === 'true') return undefined;
      if (req.path === `/apis/apps/v1/namespaces/${NS}/statefulsets/db`) return { json: db };
      if (req.path === `/apis/apps/v1/namespaces/${NS}/statefulsets`) return list([db]);
      if (req.path === `/api/v1/namespaces/${NS}/pods`)
        return list([
          {
            apiVersion: 'v1',
            kind: 'Pod',
            metadata: {
              name: 'db-0',
              namespace: NS,
              uid: 'u-db-0',
              creationTimestamp: '2026-01-01T00:00:00Z',
              labels: { app: 'db', 'controller-revision-hash': 'db-1', 'apps.kubernetes.io/pod-index': '0' },
              ownerReferences: [
                { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'db', uid: 'u-db', controller: true },
              ],
            },
            spec: {
              containers: [{ name: 'db', image: 'db:1' }],
              volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-db-0' } }],
            },
            status: {
              phase: 'Pending',
              conditions: [{ type: 'PodScheduled', status: 'False', reason: 'Unschedulable' }],
            },
          },
        ]);
      if (req.path === `/api/v1/namespaces/${NS}/persistentvolumeclaims`)
        return list([claim('data-db-0'), claim('data-db-00'), claim('logs-db-4294967296')]);
      return undefined;
    }),
    code: 1,
    stderr: '',
    check: (_c, r) => {
      expect(r.stdout).toContain('data-db-0');
      expect(r.stdout).not.toContain('data-db-00');
      expect(r.stdout).not.toContain('logs-db-4294967296');
    },
  },
  // #36 round three
  {
    name: 'a show stat answer past the 4 MiB an exec keeps: the pod past the cut is unknown, never 0 (#36 item 1)',
    args: ['status', 'web', '--sessions', '-o', 'json'],
    route: sessionsCluster(),
    exec: () =>
      masterCli({
        answer: (_stdin, io) => {
          sendPieces(io, `${hugeStat(4.2 * 1024 * 1024)}${PROMPT}${webStat(1)}${PROMPT}`);
          io.end();
        },
      }),
    code: 0,
    stderr: '',
    check: (_c, r) => {
      const out = rolloutOut(r);
      const old = out.oldPods[0]!.sessions!;
      // the first worker's answer was cut before web-old-1's row: not 0 or 1, at least what was read, said as such
      expect(old.sessions).toBeUndefined();
      expect(old.on[0]!.problem).toBeDefined();
      expect(out.sessions!.problems.join('\n')).toMatch(/went past 4 MiB and was cut/);
    },
  },
  {
    name: 'why-stalled --sessions on an old pod past its grace period whose show stat was cut at 4 MiB: not "holds no session" (#36 item 1)',
    args: ['why-stalled', 'web', '--sessions'],
    route: sessionsCluster([], undefined, true),
    exec: () =>
      masterCli({
        answer: (_stdin, io) => {
          sendPieces(io, `${hugeStat(4.2 * 1024 * 1024)}${PROMPT}${webStat(0)}${PROMPT}`);
          io.end();
        },
      }),
    code: 0,
    stderr: '',
    check: (_c, r) => {
      expect(r.stdout).toMatch(/\[HS208\] pod web-old-1/);
      expect(r.stdout).toMatch(/HAProxy could not be read on every HAProxy pod/);
      expect(r.stdout).not.toMatch(/holds no session/);
    },
  },
  (() => {
    const asked: string[] = [];
    return {
      name: "HAProxy is asked for the rollout's backends only: 4.2 MiB of other backends' servers stay unsent, the count is whole (#36 item 1)",
      args: ['status', 'web', '--sessions', '-o', 'json'],
      route: sessionsCluster(),
      // a master CLI that answers `show stat -1 4 -1` with every backend, past the 4 MiB an exec keeps
      exec: () => recording(asked, masterCli({ stat: () => hugeStat(4.2 * 1024 * 1024) })),
      code: 0,
      stderr: '',
      check: (_c, r) => {
        expect(asked.join('')).toContain(
          `@!13333 show stat ${BACKEND} 4 -1\n@!13313 show stat ${BACKEND} 4 -1\nquit\n`,
        );
        expect(asked.join('')).not.toContain('show stat -1');
        const out = rolloutOut(r);
        // web-old-1 holds 5 in each of the two workers: read whole, no cut
        expect(out.oldPods[0]!.sessions!.sessions).toBe(10);
        expect(out.sessions!.problems).toEqual([]);
      },
    } satisfies Row;
  })(),
  (() => {
    const asked: string[] = [];
    return {
      name: 'a backend name HAProxy would not take as one word (a `;` starts a second master CLI command) is never sent: every server is asked for (#36 item 1)',
      args: ['status', 'web', '--sessions', '-o', 'json'],
      route: objectCluster([
        ...gatedRollout(),
        ...hapticInstallation().map((o) =>
          o.kind === 'HAProxyCfg'
            ? {
                ...o,
                spec: {
                  ...(o.spec as Obj),
                  content: String((o.spec as Obj).content).replace(`backend ${BACKEND}`, 'backend web;shutdown'),
                },
              }
            : o,
        ),
      ] as never[]),
      exec: () => recording(asked, masterCli({ stat: () => webStat(2) })),
      code: 0,
      stderr: '',
      check: (_c, r) => {
        expect(asked.join('')).toContain('@!13333 show stat -1 4 -1\n@!13313 show stat -1 4 -1\nquit\n');
        expect(asked.join('')).not.toMatch(/shutdown|;/);
        expect(rolloutOut(r).oldPods[0]!.sessions!.sessions).toBe(4);
      },
    } satisfies Row;
  })(),
  {
    name: '4,000 KiB, then thousands of one-byte frames, from a master CLI that never ends: within the 5 s deadline (#36 item 3)',
    args: ['status', 'web', '--sessions', '-o', 'json'],
    route: sessionsCluster(),
    exec: () => (stdin, io) => {
      if (!stdin.startsWith('prompt\n')) return;
      sendPieces(io, `${PROMPT}${'x'.repeat(4000 * 1024)}`);
      for (let i = 0; i < 8192; i++) io.send(1, 'y');
      // never a prompt, never the end
    },
    code: 0,
    stderr: '',
    check: (_c, r) => {
      // the exec's deadline is 5 s; the rest is the plugin's start and its reads (rows run side by side)
      expect(r.elapsedMs).toBeLessThan(12_000);
      const out = rolloutOut(r);
      expect(out.oldPods[0]!.sessions!.sessions).toBeUndefined();
      expect(out.newPods[0]!.sessions!.sessions).toBeUndefined();
      expect(out.sessions!.problems.join('\n')).toMatch(/no end within 5000 ms/);
    },
  },
  {
    name: "another namespace's HAProxyTemplateConfig and its ready HAProxy pod: never exec'd, its sessions not added (#36 item 4)",
    args: ['status', 'web', '--sessions', '-o', 'json'],
    route: sessionsCluster([
      templateConfig('other-lb', 'haptic-config', 'spec.ingressClassName=other'),
      haproxyCfg('other-lb', 'haptic-config', [], ['lb-x']),
      controllerPod('other-lb'),
      haproxyPod('lb-x', '10.2.0.11', 'other-lb'),
    ]),
    // lb-x would answer servers at web-old-1's address (another HAProxy sending to the same pod IP)
    exec: (call) => masterCli({ stat: () => webStat(call.path.includes('/other-lb/') ? 70 : 3) }),
    code: 0,
    stderr: '',
    check: (ctx, r) => {
      expect(ctx.server.execs.map((e) => e.path)).toEqual(['/api/v1/namespaces/haptic/pods/haptic-haproxy-a/exec']);
      const old = rolloutOut(r).oldPods[0]!.sessions!;
      // two workers of haptic-haproxy-a, 3 each
      expect(old.sessions).toBe(6);
      expect(old.on.map((o) => o.haproxyPod)).toEqual(['haptic/haptic-haproxy-a']);
    },
  },
  {
    name: 'why-stalled --sessions beside 10,000 HTTPRoutes × 32 parentRefs and 10,000 Gateways of another namespace: seconds (#36 item 5)',
    args: ['why-stalled', 'web', '--sessions'],
    route: (() => {
      const gateways = manyGateways();
      return sessionsCluster(gateways);
    })(),
    exec: () => masterCli({ stat: () => webStat(1) }),
    code: 0,
    stderr: '',
    slow: true,
    check: (_c, r) => {
      expect(r.elapsedMs).toBeLessThan(20_000);
      expect(r.stdout).toMatch(/^deployment\.apps\/web -n ns: not stalled \(progressing\)$/m);
      expect(r.stdout).toMatch(/\[HS110\] every HAProxy pod routes to web-new-1/);
    },
  },
  {
    name: 'status --sessions beside 10,000 HTTPRoutes × 32 parentRefs and 10,000 Gateways of another namespace: seconds (#36 item 5)',
    args: ['status', 'web', '--sessions', '-o', 'json'],
    route: sessionsCluster(manyGateways()),
    exec: () => masterCli({ stat: () => webStat(1) }),
    code: 0,
    stderr: '',
    slow: true,
    check: (_c, r) => {
      expect(r.elapsedMs).toBeLessThan(20_000);
      expect(rolloutOut(r).oldPods[0]!.sessions!.sessions).toBe(2);
    },
  },
  {
    name: 'one WebSocket message of 120 MiB: the stream ends at the cap, the reading unknown, no ballooning (#36 item 6)',
    args: ['status', 'web', '--sessions', '-o', 'json'],
    route: sessionsCluster(),
    exec: () => (stdin, io) => {
      if (stdin.startsWith('prompt\n')) io.sendHuge(1, 120 * 1024 * 1024);
    },
    rss: true,
    code: 0,
    stderr: '',
    check: (_c, r) => {
      expect(r.elapsedMs).toBeLessThan(12_000);
      expect(r.peakRssKb).toBeLessThan(300 * 1024);
      const out = rolloutOut(r);
      expect(out.oldPods[0]!.sessions!.sessions).toBeUndefined();
      expect(out.sessions!.problems.join('\n')).toMatch(/could not read HAProxy in haptic-haproxy-a/);
    },
  },
  ...(['status', 'why-stalled'] as const).map(
    (command): Row => ({
      name: `${command}: show stat counters NaN, Infinity, -3 and 0x1F are not counts, never printed as one (#36 item 7)`,
      args: command === 'status' ? ['status', 'web', '--sessions', '-o', 'json'] : ['why-stalled', 'web', '--sessions'],
      route: sessionsCluster([], ['hp-nan', 'hp-inf', 'hp-neg', 'hp-hex'], command === 'why-stalled'),
      exec: (call) => {
        const value = { nan: 'NaN', inf: 'Infinity', neg: '-3', hex: '0x1F' }[/hp-(\w+)\/exec$/.exec(call.path)![1]!]!;
        return masterCli({ stat: () => webStat(value) });
      },
      code: 0,
      stderr: '',
      check: (_c, r) => {
        // the values are named only where the reading says they are not counts
        const said = r.stdout.replace(/show stat gave scur \\?"(NaN|Infinity|-3|0x1F)\\?", not a count/g, '');
        expect(said.match(/.*(NaN|Infinity|\b31\b|null).*/g) ?? []).toEqual([]);
        if (command === 'why-stalled') {
          // web-old-1 is past its grace period: HS208 says what HAProxy holds of it, here that it is unknown
          expect(r.stdout).toMatch(/\[HS208\] pod web-old-1/);
          expect(r.stdout).toMatch(/HAProxy could not be read on every HAProxy pod/);
          return;
        }
        const out = rolloutOut(r);
        const old = out.oldPods[0]!.sessions!;
        expect(old.sessions).toBeUndefined();
        expect(old.atLeast).toBe(0);
        const problems = out.sessions!.problems.join('\n');
        for (const v of ['"NaN"', '"Infinity"', '"-3"', '"0x1F"'])
          expect(problems).toContain(`show stat gave scur ${v}, not a count`);
      },
    }),
  ),
  ...(
    [
      ['; touch /tmp/x', 'a field selector holding `; touch /tmp/x`: the fix is quoted, one command', '; touch /tmp/x'],
      // text keeps every value on one line (#36 item 10): the newline arrives as the two characters \n, inert in quotes
      ['\ntouch /tmp/x', 'a field selector holding a newline: one inert command', '\\ntouch /tmp/x'],
    ] as const
  ).map(
    ([tail, what, word]): Row => ({
      name: `HS113's fix, ${what} (#36 item 8)`,
      args: ['why-stalled', 'web'],
      route: objectCluster([
        ...gatedRollout({ ingress: false }),
        ...hapticInstallation().map((o) =>
          o.kind === 'HAProxyTemplateConfig'
            ? (templateConfig(HAPTIC_NS, 'haptic-config', `spec.ingressClassName=haproxy${tail}`) as never)
            : o.kind === 'HAProxyCfg'
              ? (haproxyCfg(HAPTIC_NS, 'haptic-config', [], ['haptic-haproxy-a']) as never)
              : o,
        ),
      ]),
      exec: () => masterCli({ stat: () => webStat(0) }),
      code: 1,
      stderr: '',
      check: (_c, r) => {
        expect(r.stdout).toMatch(/\[HS113\]/);
        const fix = /^\s+fix: create a route HAPTIC renders: (.*)$/m.exec(r.stdout);
        const line = fix![1]!;
        // pasted into a shell whose kubectl records its words and which finds no other command: one command, the
        // field selector one word of it
        const dir = mkdtempSync(join(tmpdir(), 'kh-hostile-fix-'));
        try {
          writeFileSync(join(dir, 'fix.sh'), `kubectl() { printf '%s\\n' "$@" > ${dir}/words; }\n${line}\n`);
          execFileSync('sh', ['-n', join(dir, 'fix.sh')]);
          const ran = spawnSync('/bin/sh', [join(dir, 'fix.sh')], {
            env: { PATH: join(dir, 'no-bin') },
            encoding: 'utf8',
          });
          expect(ran.stderr, line).toBe('');
          expect(ran.status, line).toBe(0);
          expect(readFileSync(join(dir, 'words'), 'utf8').split('\n'), line).toContain(`--class=haproxy${word}`);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    }),
  ),
  {
    name: "a HAProxy pod named '..': never exec'd as another URL, the read refused (#36 item 9)",
    args: ['status', 'web', '--sessions', '-o', 'json'],
    route: sessionsCluster([], ['..']),
    exec: () => masterCli({ stat: () => webStat(4) }),
    code: 0,
    stderr: '',
    check: (ctx, r) => {
      expect(ctx.server.execs).toEqual([]);
      expect(ctx.server.received.filter((q) => q.path === '/api/v1/namespaces/haptic/exec')).toEqual([]);
      const out = rolloutOut(r);
      expect(out.oldPods[0]!.sessions!.sessions).toBeUndefined();
      expect(out.sessions!.problems.join('\n')).toMatch(/exec into \.\. failed: .*may not be '\.\.'/);
    },
  },

  // ----- TLS and transports
  {
    name: 'https server signed by an unknown CA',
    args: ['status', 'web'],
    tls: true,
    config: (ctx) =>
      kubeconfig(ctx, {
        cluster: { 'certificate-authority-data': Buffer.from(testPki().otherCaCert).toString('base64') },
      }),
    code: 4,
    stderr:
      /^error: cannot verify the TLS certificate of the API server at https:\/\/127\.0\.0\.1:\d+ \([A-Z_]+\); check the cluster's certificate-authority and tls-server-name in the kubeconfig$/,
  },
  {
    name: 'tls-server-name that the certificate does not name',
    args: ['status', 'web'],
    tls: true,
    config: (ctx) => kubeconfig(ctx, { cluster: { 'tls-server-name': 'other.example' } }),
    code: 4,
    stderr:
      /^error: cannot verify the TLS certificate of the API server at https:\/\/127\.0\.0\.1:\d+ \(ERR_TLS_CERT_ALTNAME_INVALID\)/,
  },
  {
    name: 'a password in the server URL is used, never printed',
    args: ['status', 'web'],
    config: (ctx) =>
      kubeconfig(ctx, {
        user: {},
        context: { user: undefined },
        cluster: { server: ctx.server.url.replace('//', `//admin:${URL_PASSWORD}@`) },
      }),
    route: onWeb((req) =>
      req.headers.authorization === `Basic ${Buffer.from(`admin:${URL_PASSWORD}`).toString('base64')}`
        ? status(403, 'Forbidden', 'no')
        : status(401, 'Unauthorized', 'Unauthorized'),
    ),
    code: 4,
    stderr: /^error: forbidden: cannot get deployments\.apps in namespace "ns" \(no\); context "c" names no user/,
  },

  // ----- kubeconfig read like kubectl: these work
  {
    name: 'an http:// server (kubectl proxy)',
    args: ['status', 'web', '-o', 'json'],
    config: (ctx) => kubeconfig(ctx, { user: {}, context: { user: undefined } }),
    code: 0,
    stderr: '',
    check: (ctx) => expect(ctx.server.received.every((r) => r.headers.authorization === undefined)).toBe(true),
  },
  {
    name: "a context without a user keeps the cluster's CA",
    args: ['status', 'web', '-o', 'json'],
    tls: true,
    config: (ctx) => kubeconfig(ctx, { context: { user: undefined } }),
    code: 0,
    stderr: '',
  },
  {
    name: 'a context naming an unknown user keeps the CA and tls-server-name',
    args: ['status', 'web', '-o', 'json'],
    tls: true,
    config: (ctx) =>
      kubeconfig(ctx, { context: { user: 'nobody' }, cluster: { 'tls-server-name': 'hostile.example' } }),
    code: 0,
    stderr: '',
  },
  {
    name: 'insecure-skip-tls-verify without a CA',
    args: ['status', 'web', '-o', 'json'],
    tls: true,
    config: (ctx) => ({
      ...kubeconfig(ctx),
      clusters: [{ name: 'k', cluster: { server: ctx.server.url, 'insecure-skip-tls-verify': true } }],
    }),
    code: 0,
    stderr: '',
  },
  {
    name: "tokenFile (kubectl's key) is sent, relative to the kubeconfig",
    args: ['status', 'web', '-o', 'json'],
    files: () => ({ 'sa-token': `${TOKEN_FILE_TOKEN}\n` }),
    config: (ctx) => kubeconfig(ctx, { user: { tokenFile: 'sa-token' } }),
    route: requireToken(TOKEN_FILE_TOKEN, fakeCluster()),
    code: 0,
    stderr: '',
  },
  {
    name: "an oidc auth-provider's unexpired id-token is sent",
    args: ['status', 'web', '-o', 'json'],
    config: (ctx) =>
      kubeconfig(ctx, {
        user: {
          'auth-provider': {
            name: 'oidc',
            config: { 'id-token': OIDC_TOKEN, 'idp-issuer-url': 'https://issuer.example', 'client-id': 'kubectl' },
          },
        },
      }),
    route: requireToken(OIDC_TOKEN, fakeCluster()),
    code: 0,
    stderr: '',
  },
  {
    name: 'client certificate from files relative to the kubeconfig, over TLS',
    args: ['status', 'web', '-o', 'json'],
    tls: true,
    files: () => ({ 'pki/client.crt': testPki().clientCert, 'pki/client.key': testPki().clientKey }),
    config: (ctx) =>
      kubeconfig(ctx, { user: { 'client-certificate': 'pki/client.crt', 'client-key': 'pki/client.key' } }),
    code: 0,
    stderr: '',
  },
  {
    name: 'exec plugin: relative command, KUBERNETES_EXEC_INFO, env',
    args: ['status', 'web', '-o', 'json'],
    files: () => ({
      'bin/cred.sh': script(
        `case "$KUBERNETES_EXEC_INFO" in *'"kind":"ExecCredential"'*'"interactive":false'*) ;; *) echo "no exec info" >&2; exit 3 ;; esac\n[ "$SECRET_ENV" = "${EXEC_ENV}" ] || exit 4\necho '${credential({ token: EXEC_TOKEN })}'`,
      ),
    }),
    config: (ctx) => kubeconfig(ctx, { user: execUser('./bin/cred.sh') }),
    route: requireToken(EXEC_TOKEN, fakeCluster()),
    code: 0,
    stderr: '',
  },
  {
    name: 'an empty file in the KUBECONFIG list is skipped',
    args: ['status', 'web', '-o', 'json'],
    files: () => ({ empty: '' }),
    env: (ctx) => ({ KUBECONFIG: `${join(ctx.dir, 'empty')}:${ctx.kubeconfig}` }),
    code: 0,
    stderr: '',
  },
  {
    name: 'HTTP_PROXY is honoured',
    args: ['status', 'web', '-o', 'json'],
    proxy: true,
    config: (ctx) => kubeconfig(ctx, { cluster: { server: ctx.server.url.replace('127.0.0.1', 'hostile.localtest') } }),
    env: (ctx) => ({ HTTP_PROXY: ctx.proxy?.url ?? '' }),
    code: 0,
    stderr: '',
    check: (ctx) => {
      expect(ctx.proxy?.targets.some((t) => t.includes('hostile.localtest'))).toBe(true);
      expect(ctx.server.count(webPath)).toBeGreaterThan(0);
    },
  },
  {
    name: 'HTTPS_PROXY is honoured for an https server (CONNECT), TLS to the server inside',
    args: ['status', 'web', '-o', 'json'],
    tls: true,
    proxy: true,
    config: (ctx) => kubeconfig(ctx, { cluster: { server: ctx.server.url.replace('127.0.0.1', 'hostile.example') } }),
    env: (ctx) => ({ https_proxy: ctx.proxy?.url ?? '' }),
    code: 0,
    stderr: '',
    check: (ctx) => expect(ctx.proxy?.targets.some((t) => /^CONNECT hostile\.example:\d+$/.test(t))).toBe(true),
  },
  {
    name: 'NO_PROXY bypasses HTTP_PROXY',
    args: ['status', 'web'],
    proxy: true,
    config: (ctx) => kubeconfig(ctx, { cluster: { server: ctx.server.url.replace('127.0.0.1', 'hostile.localtest') } }),
    env: (ctx) => ({ HTTP_PROXY: ctx.proxy?.url ?? '', NO_PROXY: 'example.com,.localtest' }),
    code: 4,
    stderr:
      /^error: cannot reach the Kubernetes API server at http:\/\/hostile\.localtest:\d+ \((ENOTFOUND|EAI_AGAIN)\)/,
    check: (ctx) => expect(ctx.proxy?.targets).toEqual([]),
  },
  {
    name: 'HTTP_PROXY that is down',
    args: ['status', 'web'],
    config: (ctx) => kubeconfig(ctx, { cluster: { server: ctx.server.url.replace('127.0.0.1', 'hostile.localtest') } }),
    env: () => ({ HTTP_PROXY: 'http://127.0.0.1:9' }),
    code: 4,
    stderr: /^error: cannot reach the Kubernetes API server at http:\/\/hostile\.localtest:\d+ \(ECONNREFUSED\)/,
  },

  // ----- commands against hostile objects
  {
    name: 'enable-gate --dry-run=client shows env vars by name only',
    args: ['enable-gate', 'web', '--dry-run=client', '--force'],
    route: fakeCluster(
      undefined,
      deployment({
        env: [
          { name: 'API_KEY', valueFrom: { secretKeyRef: { name: 'api', key: 'key' } } },
          { name: 'DB_PASSWORD', value: ENV_VALUE },
        ],
      }),
    ),
    code: 0,
    stderr: '',
    check: (_c, r) => {
      // the diff's context is the two lines before the change: the last env var, by name (its value would follow)
      expect(r.stdout).toMatch(/ {4} {6,}key: key\n {4} {6,}- name: DB_PASSWORD\n {4}\+ {3}readinessGates:/);
      expect(r.stdout).toContain('+     - conditionType: haproxy-haptic.org/load-balancer-ready');
    },
  },
  {
    name: 'objects whose strings carry escape sequences',
    args: ['why-stalled', 'web'],
    route: fakeCluster(withEvents({ reason: 'X\u001b[2J', message: '\u001b]0;owned\u0007boom' }), {
      ...deployment(),
      status: {
        ...deployment().status,
        conditions: [
          {
            type: 'Progressing',
            status: 'True',
            reason: 'NewReplicaSetAvailable',
            message: '\u001b[31mred\u001b[0m \u009b2J done',
          },
        ],
      },
    }),
    code: 0,
    stderr: '',
  },
  {
    // #36 item 10: redact() keeps newlines and tabs; a value printed inside a line keeps them escaped, as \\n and \\t
    name: 'a name and a message holding newlines and tabs are printed on their own line, never as forged lines',
    args: ['why-stalled', 'web'],
    route: fakeCluster(
      withEvents({
        type: 'Warning',
        reason: 'Forged\nFORGED reason',
        message: 'quota\nFORGED ✓ [HS000] all good\tcolumn',
      }),
      {
        ...deployment(),
        metadata: { ...deployment().metadata, generation: 2 },
        status: {
          ...deployment().status,
          observedGeneration: 2,
          updatedReplicas: 0,
          conditions: [
            {
              type: 'Progressing',
              status: 'False',
              reason: 'ProgressDeadlineExceeded',
              message: 'ReplicaSet "web-2" has timed out progressing.\nFORGED line\tx',
            },
          ],
        },
      },
    ),
    code: 1,
    stderr: '',
    check: (_c, r) => {
      expect(r.stdout).not.toMatch(/^\s*FORGED/m);
      expect(r.stdout).not.toContain('\t');
      expect(r.stdout).toContain('has timed out progressing.\\nFORGED line\\tx');
    },
  },
  {
    name: 'enable-gate whose PATCH is written but whose read-back fails',
    args: ['enable-gate', 'web', '--force'],
    route: fakeCluster((req, _n, received) => {
      if (req.method === 'PATCH')
        return {
          json: {
            ...deployment(),
            metadata: { ...deployment().metadata, generation: 2 },
            status: { ...deployment().status, observedGeneration: 1 },
          },
        };
      if (req.path === webPath && req.method === 'GET' && received.some((r) => r.method === 'PATCH'))
        return status(500, 'InternalError', 'etcd leader changed');
      return undefined;
    }),
    code: 0,
    stderr: '',
    check: (_c, r) => {
      expect(r.stdout).toMatch(/^deployment\.apps\/web gate added$/m);
      expect(r.stdout).toMatch(
        /warning: the gate was written, but reading the Deployment back for its new revision failed: etcd leader changed/,
      );
    },
  },
  {
    name: 'disable-gate whose PATCH is applied but answered 500: read back, it says removed',
    args: ['disable-gate', 'web'],
    route: fakeCluster((req, _n, received) => {
      if (req.method === 'PATCH') return status(500, 'InternalError', 'etcd request timed out after the write');
      if (req.path === webPath && req.method === 'GET')
        return { json: received.some((r) => r.method === 'PATCH') ? ungated() : gated() };
      return undefined;
    }, gated()),
    code: 0,
    stderr: '',
    check: (_c, r) => {
      expect(r.stdout).toMatch(/^deployment\.apps\/web gate removed$/m);
      expect(r.stdout).toMatch(
        /warning: the API server answered the PATCH with: .*etcd request timed out after the write; read back, the Deployment has the change/,
      );
    },
  },
  {
    name: 'disable-gate whose PATCH is applied, answered 503 with Retry-After, and retried: removed, not unchanged',
    args: ['disable-gate', 'web'],
    route: fakeCluster((req, _n, received) => {
      const patches = received.filter((r) => r.method === 'PATCH').length;
      // the first is written, then answered 503 (client-go retries it); the retry's guard no longer holds: 422
      if (req.method === 'PATCH')
        return patches <= 1
          ? { ...status(503, 'ServiceUnavailable', 'try again'), headers: { 'retry-after': '1' } }
          : status(422, 'Invalid', 'the server rejected our request due to an error in our request');
      if (req.path === webPath && req.method === 'GET') return { json: patches > 0 ? ungated() : gated() };
      return undefined;
    }, gated()),
    code: 0,
    stderr: '',
    check: (_c, r) => {
      expect(r.stdout).toMatch(/^deployment\.apps\/web gate removed$/m);
      expect(r.stdout).not.toMatch(/unchanged/);
      expect(r.stdout).toMatch(
        /warning: the API server answered the PATCH with: .*; read back, the Deployment has the change/,
      );
    },
  },
  {
    name: 'enable-gate whose PATCH times out',
    // 3s, not 1s: the reads before the PATCH are answered by this test's own process, which a loaded machine slows.
    args: ['enable-gate', 'web', '--force', '--request-timeout', '3s'],
    route: fakeCluster((req) => (req.method === 'PATCH' ? { hang: true } : undefined)),
    code: 2,
    stderr: '',
    check: (_c, r) =>
      expect(r.stdout).toMatch(
        /^deployment\.apps\/web failed: the API server at .* did not answer patch deployments\.apps "web" in namespace "ns" within 3s \(--request-timeout\); the patch may or may not have been applied: check with kubectl get deployment web -n ns -o yaml$/m,
      ),
  },
  {
    name: 'status --wait --drained while every pods list answers 401',
    args: ['status', 'web', '--wait', '--drained', '--timeout', '20s'],
    route: fakeCluster((req) =>
      req.path === `/api/v1/namespaces/${NS}/pods` ? status(401, 'Unauthorized', 'Unauthorized') : undefined,
    ),
    code: 4,
    stderr: /^error: unauthorized: the API server at .* rejected the credentials of the current context/,
    check: (_c, r) => expect(r.stdout).not.toMatch(/successfully rolled out/),
  },
  {
    name: 'status --wait while the pods list is forbidden',
    args: ['status', 'web', '--wait', '--timeout', '20s'],
    route: fakeCluster((req) =>
      req.path === `/api/v1/namespaces/${NS}/pods`
        ? status(403, 'Forbidden', 'pods is forbidden: User "x" cannot list resource "pods"')
        : undefined,
    ),
    code: 4,
    stderr: /^error: forbidden: cannot list pods in namespace "ns" \(pods is forbidden/,
    check: (_c, r) => expect(r.stdout).not.toMatch(/successfully rolled out/),
  },
  {
    name: 'doctor on a Deployment whose strings carry escape sequences and an env value',
    args: ['doctor', 'web'],
    // a Service selects the pods of a container without a readinessProbe (DR103): the container's name is evidence
    route: fakeCluster(
      (req) =>
        req.path === `/api/v1/namespaces/${NS}/services` && !req.query.get('watch')
          ? {
              json: {
                ...emptyList(req),
                items: [
                  {
                    apiVersion: 'v1',
                    kind: 'Service',
                    metadata: { name: 'web\u001b]0;owned\u0007', namespace: NS },
                    spec: { selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080 }] },
                  },
                ],
              },
            }
          : undefined,
      (() => {
        const d = deployment({ env: [{ name: 'DB_PASSWORD', value: ENV_VALUE }] });
        const container = {
          ...d.spec.template.spec.containers[0]!,
          name: 'app\u001b[2J\u009b31m',
          ports: [{ containerPort: 8080 }],
          lifecycle: { preStop: { exec: { command: ['sh', '-c', `echo ${ENV_VALUE}; sleep 5`] } } },
        };
        return {
          ...d,
          spec: { ...d.spec, template: { ...d.spec.template, spec: { containers: [container] } } },
        } as typeof d;
      })(),
    ),
    code: 0,
    stderr: '',
    check: (_c, r) => expect(r.stdout).toMatch(/DR103/),
  },
  {
    name: 'doctor -f on manifests holding a Secret, env values and escape sequences',
    args: (ctx) => ['doctor', '-f', join(ctx.dir, 'manifests')],
    files: () => ({
      'manifests/secret.yaml': `apiVersion: v1\nkind: Secret\nmetadata: {name: db, namespace: ${NS}}\nstringData: {password: ${ENV_VALUE}}\ndata: {token: ${Buffer.from(TOKEN).toString('base64')}}\n`,
      'manifests/app.yaml': JSON.stringify(
        (() => {
          const d = deployment({
            env: [
              { name: 'DB_PASSWORD', value: ENV_VALUE },
              { name: 'TOKEN', value: TOKEN },
            ],
          });
          const container = {
            ...d.spec.template.spec.containers[0]!,
            name: 'app\u001b[2J',
            ports: [{ containerPort: 8080 }],
          };
          return {
            ...d,
            spec: { ...d.spec, template: { ...d.spec.template, spec: { containers: [container] } } },
            status: undefined,
          };
        })(),
      ),
      'manifests/service.yaml': `apiVersion: v1\nkind: Service\nmetadata: {name: web, namespace: ${NS}}\nspec: {selector: {app: web}, ports: [{port: 80, targetPort: 8080}]}\n`,
      'manifests/broken.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata: {name: \u001b[2Jx\ndata: {password: ${ENV_VALUE}\n`,
    }),
    // the broken document was not checked: never a pass (exit 3), the rest still reported
    code: 3,
    stderr: 'error: 1 document of the input could not be read and was not checked (listed at the end)',
    check: (_c, r) => expect(r.stdout).toMatch(/DR103/),
  },
  {
    name: 'status --wait on a watch stream of garbage',
    args: ['status', 'web', '--wait', '--timeout', '15s'],
    route: fakeCluster((req) =>
      req.query.get('watch') === 'true' && req.path.endsWith('/pods')
        ? { body: 'this is not json\n\u001b[2Jstill not\n', headers: { 'content-type': 'application/json' } }
        : undefined,
    ),
    code: 0,
    stderr: '',
    check: (_c, r) => expect(r.stdout).toMatch(/successfully rolled out/),
  },
  {
    // #36 item 11: client-go's reflector backs a very short watch off from 800 ms doubling to 30 s; with 200 ms
    // doubling to 5 s this was ~110 requests in 10 s
    name: 'status --wait for 10 s on a server that ends every watch at once: each query is watched at most 4 times',
    args: ['status', 'web', '--wait', '--timeout', '10s'],
    route: fakeCluster(
      (req) => (req.query.get('watch') === 'true' ? { body: '' } : undefined),
      // a spec change the controller has not observed yet: the rollout waits out the timeout
      { ...deployment(), metadata: { ...deployment().metadata, generation: 2 } },
    ),
    code: 2,
    stderr: '',
    check: (ctx, r) => {
      expect(r.stdout).toMatch(/timed out after 10s/);
      const watches = new Map<string, number>();
      for (const r of ctx.server.received.filter((q) => q.query.get('watch') === 'true')) {
        const query = `${r.path}?${r.query.get('labelSelector') ?? ''}&${r.query.get('fieldSelector') ?? ''}`;
        watches.set(query, (watches.get(query) ?? 0) + 1);
      }
      expect(watches.size).toBeGreaterThan(0);
      // at 0 s, then at least 0.8, 2.4 and 5.6 s later; the fifth would come 12 s or more after the first
      for (const [query, n] of watches) expect(n, query).toBeLessThanOrEqual(4);
    },
  },
];

beforeAll(() => {
  testPki();
});
afterAll(() => {
  rmSync(testPki().dir, { recursive: true, force: true });
});

function run(
  args: string[],
  env: Record<string, string>,
  timeoutMs: number,
  rssFile?: string | undefined,
): Promise<Result> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(
      ([k]) =>
        !/^(KUBECONFIG|FORCE_COLOR|HTTPS?_PROXY|NO_PROXY|https?_proxy|no_proxy|KUBERNETES_SERVICE_HOST)$/.test(k),
    ),
  );
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const bin = join(repoRoot, 'bin/kubectl-haptic');
    const [command, argv] = rssFile ? ['/usr/bin/time', ['-o', rssFile, '-f', '%M', bin, ...args]] : [bin, args];
    const child = spawn(command as string, argv as string[], {
      cwd: repoRoot,
      env: { ...inherited, NO_COLOR: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(
        new Error(
          `kubectl-haptic ${args.join(' ')} ran longer than ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`,
        ),
      );
    }, timeoutMs);
    child.on('close', (code) => {
      clearTimeout(timer);
      const elapsedMs = Date.now() - started;
      const rss = rssFile ? Number(/(\d+)\s*$/.exec(readFileSync(rssFile, 'utf8'))?.[1]) : undefined;
      resolve({ code, stdout, stderr, elapsedMs, peakRssKb: rss });
    });
  });
}

async function runRow(row: Row, debug: boolean): Promise<{ ctx: Ctx; result: Result }> {
  const dir = mkdtempSync(join(tmpdir(), 'kh-hostile-'));
  const server = await hostileServer(row.route ?? fakeCluster(), { tls: row.tls, h2: row.h2, exec: row.exec });
  const proxy = row.proxy ? await connectProxy() : undefined;
  const ctx: Ctx = { dir, server, proxy, kubeconfig: join(dir, 'kubeconfig') };
  try {
    for (const [path, content] of Object.entries(row.files?.(ctx) ?? {})) {
      mkdirSync(join(dir, path, '..'), { recursive: true });
      writeFileSync(join(dir, path), content);
      if (content.startsWith('#!')) chmodSync(join(dir, path), 0o755);
    }
    const config = (row.config ?? kubeconfig)(ctx);
    writeFileSync(ctx.kubeconfig, typeof config === 'string' ? config : JSON.stringify(config, null, 1));
    const args = [...(typeof row.args === 'function' ? row.args(ctx) : row.args), ...(debug ? ['--debug'] : [])];
    const result = await run(
      args,
      { KUBECONFIG: ctx.kubeconfig, HOME: dir, ...row.env?.(ctx) },
      row.slow ? 60_000 : 20_000,
      row.rss ? join(dir, 'rss') : undefined,
    );
    return { ctx, result };
  } finally {
    await server.close();
    await proxy?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

function assertRow(row: Row, ctx: Ctx, r: Result, debug: boolean): void {
  const where = `${row.name}${debug ? ' (--debug)' : ''}\nstdout:\n${r.stdout}\nstderr:\n${r.stderr}`;
  expect(r.code, where).toBe(row.code);
  const first = r.stderr.split('\n')[0] ?? '';
  if (typeof row.stderr === 'string') expect(first, where).toBe(row.stderr);
  else expect(first, where).toMatch(row.stderr);
  for (const secret of secrets()) {
    expect(r.stdout.includes(secret), `${where}\nstdout holds secret ${secret}`).toBe(false);
    expect(r.stderr.includes(secret), `${where}\nstderr holds secret ${secret}`).toBe(false);
  }
  // eslint-disable-next-line no-control-regex
  expect(`${r.stdout}${r.stderr}`, `${where}\ncontrol characters printed`).not.toMatch(
    /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/,
  );
  // --debug adds the stack of an error, never more of what the error is about
  if (debug && first.startsWith('error:')) expect(r.stderr, where).toMatch(/\n\s+at /);
  row.check?.(ctx, r);
}

/**
 * The answers and transports a real API server would carry over HTTP/2 (kube-apiserver offers h2 by ALPN, and the
 * plugin takes it): the same rows against a server that speaks it, each request checked to have come in HTTP/2.
 */
const OVER_HTTP2 = [
  '200 with an HTML body',
  '200 with {} for a list (not "not found")',
  'a body that stalls, with --request-timeout 2s',
  'a body that trickles past --request-timeout',
  'no answer at all, with --request-timeout 1s',
  'a body that stalls, without --request-timeout (default 30 s read timeout)',
  'a 300 MiB body',
  'a Content-Length of 1 GiB',
  'the connection closed without an answer',
  'a redirect to another host, not followed',
  '429 with Retry-After, retried like kubectl until it passes',
  '503 with Retry-After past --request-timeout',
  '401',
  "500 whose text echoes the request's token and password URL",
  'https server signed by an unknown CA',
  'tls-server-name that the certificate does not name',
  'insecure-skip-tls-verify without a CA',
  'client certificate from files relative to the kubeconfig, over TLS',
  'exec plugin: relative command, KUBERNETES_EXEC_INFO, env',
  'enable-gate whose PATCH times out',
  'status --wait --drained while every pods list answers 401',
];
const https = (pattern: string | RegExp): string | RegExp =>
  typeof pattern === 'string'
    ? pattern.replaceAll('http://', 'https://')
    : new RegExp(pattern.source.replaceAll('http:\\/\\/', 'https:\\/\\/'), pattern.flags);
rows.push(
  ...OVER_HTTP2.map((name): Row => {
    const row = rows.find((r) => r.name === name);
    if (!row) throw new Error(`no row named ${name}`);
    return {
      ...row,
      name: `${name} (HTTP/2)`,
      tls: false,
      h2: true,
      stderr: https(row.stderr),
      check: (ctx, r) => {
        expect(ctx.server.received.map((q) => q.httpVersion)).toEqual(ctx.server.received.map(() => '2.0'));
        row.check?.(ctx, r);
      },
    };
  }),
  {
    name: 'an https server without HTTP/2 is spoken to in HTTP/1.1',
    args: ['status', 'web', '-o', 'json'],
    tls: true,
    code: 0,
    stderr: '',
    check: (ctx, r) => {
      expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'Rollout', name: 'web' });
      expect(new Set(ctx.server.received.map((q) => q.httpVersion))).toEqual(new Set(['1.1']));
    },
  },
  {
    name: 'one HTTP/2 connection carries every request of a command',
    args: ['why-stalled', 'web'],
    h2: true,
    code: 0,
    stderr: '',
    check: (ctx) => {
      expect(ctx.server.received.length).toBeGreaterThan(5);
      expect(ctx.server.connections()).toBe(1);
    },
  },
);

describe.concurrent('hostile inputs: exit code, first stderr line, no secret, no control sequence', () => {
  it('has at least 40 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(40);
    expect(new Set(rows.map((r) => r.name)).size).toBe(rows.length);
  });
  for (const row of rows) {
    it(row.name, { timeout: row.slow ? 150_000 : 60_000 }, async () => {
      for (const debug of [false, true]) {
        const { ctx, result } = await runRow(row, debug);
        assertRow(row, ctx, result, debug);
      }
    });
  }
});
