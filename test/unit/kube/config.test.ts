import { chmodSync, mkdirSync, mkdtempSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../../../src/kube/config.ts';
import { CredentialError, KubeConfigError } from '../../../src/kube/errors.ts';
import { redact } from '../../../src/lib/redact.ts';
import { testPki } from '../../hostile/server.ts';

const b64 = (text: string) => Buffer.from(text).toString('base64');

function kubeconfig(
  dir: string,
  file: string,
  body: {
    contexts: { name: string; cluster: string; namespace?: string }[];
    current?: string;
    clusters: { name: string; server: string }[];
  },
): string {
  const path = join(dir, file);
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${body.current ?? '""'}`,
    'clusters:',
    ...body.clusters.flatMap((c) => [`- name: ${c.name}`, '  cluster:', `    server: ${c.server}`]),
    'contexts:',
    ...body.contexts.flatMap((c) => [
      `- name: ${c.name}`,
      '  context:',
      `    cluster: ${c.cluster}`,
      '    user: u',
      ...(c.namespace ? [`    namespace: ${c.namespace}`] : []),
    ]),
    'users:',
    '- name: u',
    '  user:',
    '    token: t',
  ];
  writeFileSync(path, lines.join('\n'));
  return path;
}

describe('connect', () => {
  let dir: string;
  const saved = process.env.KUBECONFIG;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kh-config-'));
  });
  afterEach(() => {
    if (saved === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = saved;
  });

  it('merges several KUBECONFIG files like kubectl: the first file sets the current context', () => {
    const a = kubeconfig(dir, 'a', {
      current: 'prod',
      clusters: [{ name: 'p', server: 'https://prod.example:6443' }],
      contexts: [{ name: 'prod', cluster: 'p', namespace: 'shop' }],
    });
    const b = kubeconfig(dir, 'b', {
      current: 'dev',
      clusters: [{ name: 'd', server: 'https://dev.example:6443' }],
      contexts: [{ name: 'dev', cluster: 'd' }],
    });
    process.env.KUBECONFIG = `${a}:${b}`;
    const conn = connect({});
    expect(conn.contextName).toBe('prod');
    expect(conn.server).toBe('https://prod.example:6443');
    expect(conn.namespace).toBe('shop');
    const dev = connect({ context: 'dev' });
    expect(dev.server).toBe('https://dev.example:6443');
    expect(dev.namespace).toBe('default');
  });

  it('takes -n over the context namespace', () => {
    const a = kubeconfig(dir, 'a', {
      current: 'prod',
      clusters: [{ name: 'p', server: 'https://prod.example:6443' }],
      contexts: [{ name: 'prod', cluster: 'p', namespace: 'shop' }],
    });
    expect(connect({ kubeconfig: a, namespace: 'web' }).namespace).toBe('web');
  });

  it('names an unknown context and a missing --kubeconfig file in one line', () => {
    const a = kubeconfig(dir, 'a', {
      current: 'prod',
      clusters: [{ name: 'p', server: 'https://prod.example:6443' }],
      contexts: [{ name: 'prod', cluster: 'p' }],
    });
    expect(() => connect({ kubeconfig: a, context: 'nope' })).toThrow(
      new KubeConfigError(
        'context "nope" does not exist in the kubeconfig (--context); see kubectl config get-contexts',
      ),
    );
    expect(() => connect({ kubeconfig: join(dir, 'missing') })).toThrow(
      /kubeconfig file ".*missing" does not exist \(--kubeconfig\)/,
    );
  });

  const CA = Buffer.from(
    '-----BEGIN CERTIFICATE-----\nMIIBdzCCAR2gAwIBAgIUb1ltJH6G0zJm7uUeWcxxyTnqzBMwCgYIKoZIzj0EAwIw\n-----END CERTIFICATE-----\n',
  );
  const write = (name: string, config: unknown) => {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, typeof config === 'string' ? config : JSON.stringify(config));
    return path;
  };
  const config = (
    cluster: Record<string, unknown>,
    user?: Record<string, unknown>,
    context: Record<string, unknown> = {},
  ) => ({
    clusters: [{ name: 'k', cluster: { server: 'https://api.example:6443', ...cluster } }],
    users: user ? [{ name: 'u', user }] : [],
    contexts: [{ name: 'c', context: { cluster: 'k', user: 'u', ...context } }],
    'current-context': 'c',
  });

  it("reads tokenFile (kubectl's key, relative to the kubeconfig), trimmed", async () => {
    write('sub/token', ' file-token-123456 \n');
    const conn = connect({ kubeconfig: write('sub/config', config({}, { tokenFile: 'token' })) });
    expect((await conn.credentials()).headers).toEqual([['authorization', 'Bearer file-token-123456']]);
    expect(redact('echo file-token-123456')).toBe('echo [REDACTED]');
  });

  it("keeps the cluster's TLS settings for a context without a user, or with an unknown one, and says so", async () => {
    const insecure = connect({
      kubeconfig: write(
        'a',
        config({ 'insecure-skip-tls-verify': true, 'tls-server-name': 'api.internal' }, undefined, { user: undefined }),
      ),
    });
    expect(await insecure.credentials()).toEqual({
      headers: [],
      tls: { rejectUnauthorized: false, servername: 'api.internal' },
    });
    expect(insecure.anonymous).toBe('context "c" names no user, so requests were sent without credentials');
    const unknown = connect({
      kubeconfig: write('b', config({ 'tls-server-name': 'api.internal' }, undefined, { user: 'ghost' })),
    });
    expect((await unknown.credentials()).tls).toEqual({ rejectUnauthorized: true, servername: 'api.internal' });
    expect(unknown.anonymous).toBe(
      'context "c" names user "ghost", which the kubeconfig does not have, so requests were sent without credentials',
    );
  });

  it('accepts http:// servers and host:port; takes a URL password as basic auth and never shows it', async () => {
    const proxy = connect({
      kubeconfig: write('a', config({ server: 'http://127.0.0.1:8001' }, undefined, { user: undefined })),
    });
    expect(proxy.server).toBe('http://127.0.0.1:8001');
    expect(connect({ kubeconfig: write('b', config({ server: 'api.example:6443' }, { token: 't' })) }).server).toBe(
      'https://api.example:6443',
    );
    const withPassword = connect({
      kubeconfig: write(
        'c',
        config({ server: 'https://admin:pa%20ss-word@api.example/prefix/' }, undefined, { user: undefined }),
      ),
    });
    expect(withPassword.server).toBe('https://api.example/prefix');
    expect((await withPassword.credentials()).headers).toEqual([
      ['authorization', `Basic ${Buffer.from('admin:pa ss-word').toString('base64')}`],
    ]);
    expect(redact('pa%20ss-word')).toBe('[REDACTED]');
    // as it is sent, and as a server may echo it: decoded, and the whole Basic credential without the word Basic
    expect(redact('echo pa ss-word')).toBe('echo [REDACTED]');
    expect(redact(`got ${Buffer.from('admin:pa ss-word').toString('base64')}`)).toBe('got [REDACTED]');
  });

  it('a credential an HTTP header cannot carry is a kubeconfig error (exit 3), not an unreachable server', () => {
    for (const [user, what] of [
      [{ token: 'abc\r\nX-Injected: 1' }, 'users "u" token'],
      [{ token: 'tökén-value' }, 'users "u" token'],
      [{ username: 'admin', password: 'pass\u001b[2Jword' }, 'users "u" password'],
    ] as const) {
      const attempt = () =>
        connect({ kubeconfig: write(`bad-${what}-${JSON.stringify(user).length}`, config({}, user)) });
      expect(attempt).toThrow(KubeConfigError);
      expect(attempt).toThrow(
        `invalid configuration: ${what} holds a character an HTTP header cannot carry (a control character or a non-ASCII one)`,
      );
    }
  });

  it('a tokenFile that is a device, or larger than any token, is refused before it is read', () => {
    expect(() => connect({ kubeconfig: write('dev-zero', config({}, { tokenFile: '/dev/zero' })) })).toThrow(
      'invalid configuration: tokenFile /dev/zero for u is not a regular file',
    );
    const big = join(dir, 'big-token');
    writeFileSync(big, '');
    truncateSync(big, 2 * 1024 * 1024);
    expect(() => connect({ kubeconfig: write('big', config({}, { tokenFile: big })) })).toThrow(
      `invalid configuration: tokenFile ${big} for u is larger than 1 MiB`,
    );
  });

  it("remembers credentials, not configuration: an unused user's AWS_PROFILE does not hide a namespace", () => {
    const file = config({}, { token: 'used-token-123456' });
    (file.users as unknown[]).push({
      name: 'eks',
      user: {
        exec: {
          apiVersion: 'client.authentication.k8s.io/v1',
          command: 'aws',
          env: [
            { name: 'AWS_PROFILE', value: 'production' },
            { name: 'AWS_SECRET_ACCESS_KEY', value: 'aws-secret-value-123' },
          ],
        },
      },
    });
    (file.users as unknown[]).push({
      name: 'oidc',
      user: {
        'auth-provider': {
          name: 'oidc',
          config: {
            'idp-issuer-url': 'https://issuer.example',
            'client-id': 'kubernetes',
            'id-token': 'oidc-id-token-abc',
          },
        },
      },
    });
    connect({ kubeconfig: write('many-users', file) });
    expect(redact('namespace production, issuer https://issuer.example, client kubernetes')).toBe(
      'namespace production, issuer https://issuer.example, client kubernetes',
    );
    expect(redact('aws-secret-value-123 oidc-id-token-abc')).toBe('[REDACTED] [REDACTED]');
  });

  it('refuses what kubectl refuses, in its words', () => {
    const cases: [unknown, RegExp | string][] = [
      [
        config({ 'insecure-skip-tls-verify': true, 'certificate-authority-data': CA.toString('base64') }),
        /^specifying a root certificates file with the insecure flag is not allowed/,
      ],
      [
        config({ 'certificate-authority-data': Buffer.from('junk').toString('base64') }),
        'unable to load root certificates of cluster "k": unable to parse bytes as PEM block',
      ],
      [
        config({ 'certificate-authority': 'nope.crt' }),
        /^invalid configuration: unable to read certificate-authority .*nope\.crt due to open .*: no such file or directory$/,
      ],
      [
        config({}, { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: 'x' } }),
        'invalid configuration: interactiveMode must be specified for u to use exec authentication plugin',
      ],
      [
        config({}, { exec: { apiVersion: 'client.authentication.k8s.io/v1beta1' } }),
        'invalid configuration: command must be specified for u to use exec authentication plugin',
      ],
      [config({}, { 'auth-provider': { name: 'azure' } }), /^The azure auth plugin has been removed\./],
      [
        config({ server: 'https://[::1' }),
        'invalid configuration: server "https://[::1" of cluster "k" is not a URL (host must be a URL or a host:port pair)',
      ],
      // a certificate and a key that do not belong together (the server's key beside the client's certificate)
      [
        config(
          {},
          { 'client-certificate-data': b64(testPki().clientCert), 'client-key-data': b64(testPki().serverKey) },
        ),
        'invalid configuration: the client certificate and key of user "u" do not load as a PEM certificate and its private key',
      ],
      [
        config(
          {},
          { 'client-certificate-data': b64('not a certificate'), 'client-key-data': b64(testPki().clientKey) },
        ),
        'invalid configuration: the client certificate and key of user "u" do not load as a PEM certificate and its private key',
      ],
    ];
    for (const [c, message] of cases) {
      const err = (() => {
        try {
          connect({ kubeconfig: write('x', c) });
        } catch (e) {
          return e as Error;
        }
      })();
      expect(err, String(message)).toBeInstanceOf(KubeConfigError);
      if (typeof message === 'string') expect(err?.message).toBe(message);
      else expect(err?.message).toMatch(message);
    }
  });

  it('names the place of a YAML error without quoting the file', () => {
    const path = write('bad', 'users:\n- name: u\n  user:\n    token: hidden-token-value\n   oops: [\n');
    expect(() => connect({ kubeconfig: path })).toThrow(
      /^cannot load kubeconfig file ".*bad": not valid YAML at line \d+, column \d+ \([^)]*\)$/,
    );
    try {
      connect({ kubeconfig: path });
    } catch (e) {
      expect((e as Error).message).not.toContain('hidden-token-value');
    }
  });

  it('skips an empty file in KUBECONFIG and takes the next', () => {
    process.env.KUBECONFIG = `${write('empty', '')}:${write('real', config({}, { token: 't' }))}`;
    expect(connect({}).contextName).toBe('c');
  });

  it('runs an exec plugin like client-go: relative command, KUBERNETES_EXEC_INFO, env, cached until it expires', async () => {
    const log = join(dir, 'calls');
    write(
      'bin/cred',
      `#!/bin/sh\necho "$KUBERNETES_EXEC_INFO|$FOO" >> ${log}\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"exec-token-abcdef"}}'\n`,
    );
    chmodSync(join(dir, 'bin/cred'), 0o755);
    const conn = connect({
      kubeconfig: write(
        'config',
        config(
          { 'tls-server-name': 'n' },
          {
            exec: {
              apiVersion: 'client.authentication.k8s.io/v1',
              command: './bin/cred',
              interactiveMode: 'Never',
              provideClusterInfo: true,
              env: [{ name: 'FOO', value: 'bar' }],
            },
          },
        ),
      ),
    });
    expect((await conn.credentials()).headers).toEqual([['authorization', 'Bearer exec-token-abcdef']]);
    await conn.credentials();
    const { readFileSync } = await import('node:fs');
    const calls = readFileSync(log, 'utf8').trim().split('\n');
    expect(calls).toHaveLength(1);
    const [info, foo] = calls[0]!.split('|');
    expect(foo).toBe('bar');
    expect(JSON.parse(info!)).toEqual({
      apiVersion: 'client.authentication.k8s.io/v1',
      kind: 'ExecCredential',
      spec: { interactive: false, cluster: { server: 'https://api.example:6443', 'tls-server-name': 'n' } },
    });
  });

  it("bounds an exec plugin by the request's signal, and shows none of its output", async () => {
    write('bin/slow', '#!/bin/sh\necho leaked-stderr-123456 >&2\nsleep 5\n');
    chmodSync(join(dir, 'bin/slow'), 0o755);
    const conn = connect({
      kubeconfig: write(
        'config',
        config(
          {},
          { exec: { apiVersion: 'client.authentication.k8s.io/v1', command: './bin/slow', interactiveMode: 'Never' } },
        ),
      ),
    });
    const err = (await conn.credentials(AbortSignal.timeout(200)).catch((e: unknown) => e)) as CredentialError;
    expect(err).toBeInstanceOf(CredentialError);
    expect(err.timeout).toBe(true);
    expect(err.message).toMatch(
      /^exec: executable .*\/bin\/slow did not return a credential within the request timeout/,
    );
  });
});
