// Credential plugins that misbehave: one that never exits is stopped at a default limit when --request-timeout does
// not bound it, and a token no HTTP header can carry is refused as a bad credential, not an unreachable server.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialError } from '../../../src/kube/errors.ts';
import { execCredential, type ExecConfig } from '../../../src/kube/exec-credential.ts';

function plugin(body: string): ExecConfig {
  const dir = mkdtempSync(join(tmpdir(), 'kh-exec-'));
  const command = join(dir, 'plugin');
  writeFileSync(command, `#!/bin/sh\n${body}\n`);
  chmodSync(command, 0o755);
  return {
    command,
    args: [],
    env: [],
    apiVersion: 'client.authentication.k8s.io/v1',
    interactiveMode: 'Never',
    provideClusterInfo: false,
    user: 'u',
    kubeconfig: '/k',
  };
}

const credential = (token: string) =>
  JSON.stringify({ apiVersion: 'client.authentication.k8s.io/v1', kind: 'ExecCredential', status: { token } });

describe('execCredential', () => {
  it('stops a plugin that never exits at the default limit, and says so', async () => {
    const config = plugin('exec sleep 600');
    const started = Date.now();
    const attempt = execCredential(config, { limitMs: 300 });
    await expect(attempt).rejects.toThrow(CredentialError);
    await expect(attempt).rejects.toThrow(
      `exec: executable ${config.command} did not return a credential within 0.3s, the limit for credential plugins without --request-timeout (exec plugin of user "u" in /k)`,
    );
    expect(Date.now() - started).toBeLessThan(30_000);
  });

  it('with --request-timeout the request deadline bounds it instead (no default limit)', async () => {
    const config = plugin(`sleep 0.5; echo '${credential('slow-token-123456')}'`);
    expect((await execCredential(config, { limitMs: 100, unlimited: true })).token).toBe('slow-token-123456');
  });

  it('refuses a token an HTTP header cannot carry', async () => {
    const config = plugin(`printf '%s' '${credential('tok\r\nX-Injected: 1')}'`);
    await expect(execCredential(config)).rejects.toThrow(
      'the token the exec plugin returned (exec plugin of user "u" in /k) holds a character an HTTP header cannot carry (a control character or a non-ASCII one)',
    );
  });
});
