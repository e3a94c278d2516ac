import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { load, dump } from 'js-yaml';
import { beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../cluster/cluster.ts';
import {
  adminApi,
  cluster,
  gatedDeployment,
  grantReadOnly,
  newNamespace,
  routedService,
  runPlugin,
  waitFor,
} from './support.ts';

// kubectl habits: the same kubeconfig handling, one-line errors with documented exit codes.
describe('cluster access like kubectl', () => {
  let ns: string;
  let dir: string;
  beforeAll(async () => {
    ns = await newNamespace('access');
    await adminApi().apply([
      gatedDeployment({ name: 'web', namespace: ns, replicas: 1 }),
      ...routedService({ name: 'web', namespace: ns, selector: { app: 'web' } }),
    ]);
    dir = mkdtempSync(join(tmpdir(), 'kh-access-'));
  });

  const admin = () => load(readFileSync(cluster().adminKubeconfig, 'utf8')) as any;
  const write = (name: string, config: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, dump(config));
    return path;
  };

  it('names the server when it cannot be reached (exit 4)', async () => {
    const closed = await new Promise<number>((resolve) => {
      const probe = createServer().listen(0, '127.0.0.1', () => {
        const { port } = probe.address() as AddressInfo;
        probe.close(() => resolve(port));
      });
    });
    const config = admin();
    config.clusters[0].cluster.server = `https://127.0.0.1:${closed}`;
    const r = await runPlugin(['status', 'web', '-n', ns], { kubeconfig: write('down', config) });
    expect({ code: r.code, stderr: r.stderr }).toEqual({
      code: 4,
      stderr: `error: cannot reach the Kubernetes API server at https://127.0.0.1:${closed} (ECONNREFUSED); check --context/--kubeconfig and that the cluster is running\n`,
    });
  });

  it('says the credentials were rejected (401, exit 4)', async () => {
    const config = admin();
    config.users[0].user = { token: 'not-a-valid-token' };
    const r = await runPlugin(['why-stalled', 'web', '-n', ns], { kubeconfig: write('badtoken', config) });
    expect(r.code).toBe(4);
    expect(r.stderr).toBe(
      `error: unauthorized: the API server at ${cluster().server} rejected the credentials of the current context; log in again or check --kubeconfig/--context\n`,
    );
  });

  it('authenticates with an exec credential plugin, as client-node supports it', async () => {
    const config = admin();
    const user = config.users[0].user;
    const credential = {
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      status: {
        clientCertificateData: Buffer.from(user['client-certificate-data'], 'base64').toString(),
        clientKeyData: Buffer.from(user['client-key-data'], 'base64').toString(),
      },
    };
    const plugin = join(dir, 'credential-plugin.sh');
    writeFileSync(plugin, `#!/bin/sh\ncat <<'JSON'\n${JSON.stringify(credential)}\nJSON\n`, { mode: 0o755 });
    config.users[0].user = {
      exec: { apiVersion: 'client.authentication.k8s.io/v1', command: plugin, interactiveMode: 'Never' },
    };
    const r = await runPlugin(['status', 'web', '-n', ns, '-o', 'json'], { kubeconfig: write('exec', config) });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'Rollout', name: 'web', namespace: ns });
  });

  it('names the verb, resource and namespace of a 403 (exit 4)', async () => {
    const other = await newNamespace('access-denied');
    const r = await runPlugin(['status', '-n', other], { kubeconfig: cluster().limitedKubeconfig });
    expect(r.code).toBe(4);
    expect(r.stderr).toMatch(
      new RegExp(
        `^error: forbidden: cannot list deployments\\.apps in namespace "${other}" \\(.*User "limited" cannot list resource "deployments".*\\)\\n$`,
      ),
    );
  });

  it('a read-only user still gets status, without HAPTIC objects it may not read', async () => {
    await grantReadOnly(ns);
    const r = await runPlugin(['status', 'web', '-n', ns, '-o', 'json'], { kubeconfig: cluster().limitedKubeconfig });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    const model = JSON.parse(r.stdout);
    expect(model).toMatchObject({ kind: 'Rollout', name: 'web', namespace: ns, installations: [] });
    expect(model.hapticUnreadable).toMatch(
      /^cannot read HAProxyTemplateConfigs: forbidden: cannot list haproxytemplateconfigs\.haproxy-haptic\.org/,
    );
  });

  it('merges KUBECONFIG files like kubectl, takes --context, and the context namespace as default', async () => {
    const base = admin();
    const withNamespace = {
      ...base,
      contexts: [{ name: 'in-ns', context: { ...base.contexts[0].context, namespace: ns } }],
      'current-context': 'in-ns',
    };
    const first = write('first', withNamespace);
    const second = write('second', {
      ...base,
      contexts: [{ name: 'elsewhere', context: { ...base.contexts[0].context, namespace: 'kube-system' } }],
      'current-context': 'elsewhere',
    });
    const merged = await runPlugin(['status', 'web', '-o', 'json'], { env: { KUBECONFIG: `${first}:${second}` } });
    expect(merged.code).toBe(0);
    expect(JSON.parse(merged.stdout).namespace).toBe(ns);
    const switched = await runPlugin(['status', 'web', '--context', 'elsewhere'], {
      env: { KUBECONFIG: `${first}:${second}` },
    });
    expect(switched).toMatchObject({
      code: 3,
      stderr:
        'error: deployments.apps, statefulsets.apps, daemonsets.apps or rollouts.argoproj.io "web" not found in namespace "kube-system"\n',
    });
    const unknown = await runPlugin(['status', 'web', '--context', 'nope'], {
      env: { KUBECONFIG: `${first}:${second}` },
    });
    expect(unknown).toMatchObject({
      code: 3,
      stderr: 'error: context "nope" does not exist in the kubeconfig (--context); see kubectl config get-contexts\n',
    });
  });

  it('completes Deployment names from the cluster through kubectl_complete-haptic', async () => {
    const { spawnSync } = await import('node:child_process');
    const complete = (...words: string[]) =>
      spawnSync(join(repoRoot, 'bin/kubectl_complete-haptic'), words, {
        env: { ...process.env, KUBECONFIG: cluster().adminKubeconfig },
        encoding: 'utf8',
      }).stdout;
    expect(complete('status', '-n', ns, '')).toBe('web\n:4\n');
    expect(complete('why-', '')).toBe(':4\n');
    expect(complete('why-')).toBe(
      'why-stalled\tExplain why a gated rollout is stalled, with evidence and a fix.\n:4\n',
    );
    expect(complete('status', '-n', ns.slice(0, -2))).toContain(`${ns}\n`);
  });

  it('answers an empty namespace like kubectl get (a note on stderr, an empty list with -o, exit 0); why-stalled and --wait refuse it (exit 3)', async () => {
    const empty = await newNamespace('access-empty');
    expect(await runPlugin(['status', '-n', empty])).toEqual({
      code: 0,
      stdout: '',
      stderr: `No Deployments, StatefulSets, DaemonSets or Rollouts found in namespace "${empty}".\n`,
    });
    // nothing to explain is an input error: exit 0 would read as "not stalled"
    expect(await runPlugin(['why-stalled', '-n', empty, '-l', 'app=x'])).toEqual({
      code: 3,
      stdout: '',
      stderr: `error: no Deployments, StatefulSets, DaemonSets or Rollouts in namespace "${empty}" match -l app=x\n`,
    });
    // a bound on a wait that was not asked for is refused, not ignored
    expect(await runPlugin(['status', '-n', empty, '--timeout', '5s'])).toEqual({
      code: 3,
      stdout: '',
      stderr: 'error: --timeout bounds a --wait; without --wait, status answers at once\n',
    });
    const json = await runPlugin(['status', '-n', empty, '-o', 'json']);
    expect(json.code).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({ apiVersion: 'kubectl-haptic/v1', kind: 'RolloutList', items: [] });
    const wait = await runPlugin(['status', '-n', empty, '--wait']);
    expect(wait).toMatchObject({
      code: 3,
      stderr: `error: no Deployments, StatefulSets, DaemonSets or Rollouts in namespace "${empty}"\n`,
    });
  });

  it('rejects unknown flags and commands as usage errors (exit 3)', async () => {
    const flag = await runPlugin(['status', '--bogus']);
    expect(flag.code).toBe(3);
    expect(flag.stderr).toBe("error: unknown flag: --bogus\nSee 'kubectl haptic status --help' for usage.\n");
    const command = await runPlugin(['nope']);
    expect(command.code).toBe(3);
    expect(command.stderr).toBe(
      'error: unknown command "nope" for "kubectl haptic"\nRun \'kubectl haptic --help\' for usage.\n',
    );
  });

  // Users other than admin and limited: service accounts of the test namespace, each with the rights a test gives it
  // and a token from the TokenRequest API (POST serviceaccounts/<sa>/token, as kubectl create token does).
  async function serviceAccountKubeconfig(
    name: string,
    rules: { namespaced?: unknown[]; cluster?: unknown[] },
  ): Promise<string> {
    const sa = { kind: 'ServiceAccount', name, namespace: ns };
    const objects: any[] = [{ apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name, namespace: ns } }];
    if (rules.namespaced) {
      objects.push(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'Role',
          metadata: { name, namespace: ns },
          rules: rules.namespaced,
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'RoleBinding',
          metadata: { name, namespace: ns },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name },
          subjects: [sa],
        },
      );
    }
    if (rules.cluster) {
      objects.push(
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRole',
          metadata: { name: `${ns}-${name}` },
          rules: rules.cluster,
        },
        {
          apiVersion: 'rbac.authorization.k8s.io/v1',
          kind: 'ClusterRoleBinding',
          metadata: { name: `${ns}-${name}` },
          roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: `${ns}-${name}` },
          subjects: [sa],
        },
      );
    }
    await adminApi().apply(objects);
    const request = await adminApi().request('POST', `/api/v1/namespaces/${ns}/serviceaccounts/${name}/token`, {
      apiVersion: 'authentication.k8s.io/v1',
      kind: 'TokenRequest',
      spec: { expirationSeconds: 3600 },
    });
    const token = request.status.token as string;
    expect(token).toMatch(/^eyJ/);
    // kubectl's key is tokenFile, relative to the kubeconfig's folder; the token is read from there, never printed
    const folder = join(dir, name);
    const { mkdirSync } = await import('node:fs');
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, 'token'), `${token}\n`, { mode: 0o600 });
    const config = admin();
    config.users = [{ name, user: { tokenFile: 'token' } }];
    config.contexts = [{ name, context: { cluster: config.clusters[0].name, user: name, namespace: ns } }];
    config['current-context'] = name;
    const path = join(folder, 'kubeconfig');
    writeFileSync(path, dump(config));
    tokens.push(token);
    return path;
  }
  const tokens: string[] = [];
  const noToken = (r: { stdout: string; stderr: string }) => {
    for (const t of tokens) expect(`${r.stdout}${r.stderr}`.includes(t)).toBe(false);
  };
  const read = ['get', 'list', 'watch'];

  it('authenticates with tokenFile holding a TokenRequest token (requests went out anonymous before)', async () => {
    const kubeconfig = await serviceAccountKubeconfig('reader', {
      namespaced: [
        { apiGroups: ['apps'], resources: ['deployments', 'replicasets'], verbs: read },
        { apiGroups: [''], resources: ['pods', 'services', 'events'], verbs: read },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
      ],
    });
    const r = await waitFor(() => runPlugin(['status', 'web', '-o', 'json'], { kubeconfig }), {
      what: 'the service account to read web (RBAC)',
      until: (x) => x.code === 0,
    });
    expect(r.stderr).toBe('');
    expect(JSON.parse(r.stdout)).toMatchObject({ kind: 'Rollout', name: 'web', namespace: ns });
    noToken(r);
    // and the same token file with a token the API server did not issue is refused as the credentials it is
    writeFileSync(join(dir, 'reader', 'token'), 'not-a-token-the-server-issued\n');
    const refused = await runPlugin(['status', 'web'], { kubeconfig });
    expect(refused.code).toBe(4);
    expect(refused.stderr).toBe(
      `error: unauthorized: the API server at ${cluster().server} rejected the credentials of the current context; log in again or check --kubeconfig/--context\n`,
    );
  });

  it('enable-gate refuses for a user who may patch Deployments but not read Leases or ClusterRoles: the checks it cannot read block', async () => {
    await adminApi().apply([
      gatedDeployment({ name: 'ungated', namespace: ns, replicas: 1, gates: [] }),
      ...routedService({ name: 'ungated', namespace: ns, selector: { app: 'ungated' } }),
    ]);
    const kubeconfig = await serviceAccountKubeconfig('patcher', {
      namespaced: [
        { apiGroups: ['apps'], resources: ['deployments'], verbs: ['get', 'list', 'patch'] },
        { apiGroups: [''], resources: ['services'], verbs: ['list'] },
      ],
      // HAPTIC's own objects and pods, cluster-wide, but no Leases and no ClusterRoles/Bindings
      cluster: [
        { apiGroups: ['haproxy-haptic.org'], resources: ['haproxytemplateconfigs', 'haproxycfgs'], verbs: ['list'] },
        { apiGroups: [''], resources: ['pods'], verbs: ['list'] },
      ],
    });
    const before = await adminApi().get<any>('apps/v1', 'Deployment', 'ungated', ns);
    const r = await waitFor(() => runPlugin(['enable-gate', 'ungated'], { kubeconfig }), {
      what: 'the service account to read ungated and HAPTIC (RBAC)',
      until: (x) => /HG105/.test(x.stdout) && /HG107/.test(x.stdout),
    });
    expect(r.stderr).toBe('');
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^deployment\.apps\/ungated refused: 2 preflight checks failed; nothing written/);
    // each blocker names the check it could not do, and why: the read that was refused
    expect(r.stdout).toMatch(
      /✗ \[HG105\] Could not check whether HAPTIC installation \S+ may set the gate\n\s+cannot read RBAC: forbidden: cannot list clusterroles\.rbac\.authorization\.k8s\.io \(clusterroles\.rbac\.authorization\.k8s\.io is forbidden: User "system:serviceaccount:[^:]+:patcher" cannot list resource "clusterroles"/,
    );
    expect(r.stdout).toMatch(
      /✗ \[HG107\] Could not check whether HAPTIC installation \S+ has a controller leader\n\s+lease \S+: could not be read \(forbidden: cannot list leases\.coordination\.k8s\.io in namespace "\S+" \(leases\.coordination\.k8s\.io is forbidden: User "system:serviceaccount:[^:]+:patcher" cannot list resource "leases"/,
    );
    noToken(r);
    const after = await adminApi().get<any>('apps/v1', 'Deployment', 'ungated', ns);
    expect(after.metadata.generation).toBe(before.metadata.generation);
    expect(after.spec.template.spec.readinessGates).toBeUndefined();
  });

  it('status --wait exits 4 for a user who may not list pods, never "successfully rolled out"', async () => {
    const kubeconfig = await serviceAccountKubeconfig('nopods', {
      namespaced: [
        { apiGroups: ['apps'], resources: ['deployments', 'replicasets'], verbs: read },
        { apiGroups: [''], resources: ['services', 'events'], verbs: read },
        { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: read },
      ],
    });
    for (const drained of [[], ['--drained']]) {
      const r = await waitFor(
        () => runPlugin(['status', 'web', '--wait', '--timeout', '60s', ...drained], { kubeconfig }),
        { what: 'the service account to read web (RBAC)', until: (x) => x.stderr.includes('pods') },
      );
      expect(r.code).toBe(4);
      expect(r.stderr).toMatch(
        new RegExp(
          `^error: forbidden: cannot list pods in namespace "${ns}" \\(pods is forbidden: User "system:serviceaccount:${ns}:nopods" cannot list resource "pods" in API group "" in the namespace "${ns}"\\)\n$`,
        ),
      );
      expect(r.stdout).not.toMatch(/successfully rolled out/);
      noToken(r);
    }
  });
});
