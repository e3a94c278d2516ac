import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { connect } from '../../../src/kube/config.ts';
import { KubeConfigError } from '../../../src/kube/errors.ts';

function kubeconfig(dir: string, file: string, body: { contexts: { name: string; cluster: string; namespace?: string }[]; current?: string; clusters: { name: string; server: string }[] }): string {
  const path = join(dir, file);
  const lines = [
    'apiVersion: v1',
    'kind: Config',
    `current-context: ${body.current ?? '""'}`,
    'clusters:',
    ...body.clusters.flatMap((c) => [`- name: ${c.name}`, '  cluster:', `    server: ${c.server}`]),
    'contexts:',
    ...body.contexts.flatMap((c) => [`- name: ${c.name}`, '  context:', `    cluster: ${c.cluster}`, '    user: u', ...(c.namespace ? [`    namespace: ${c.namespace}`] : [])]),
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
    const a = kubeconfig(dir, 'a', { current: 'prod', clusters: [{ name: 'p', server: 'https://prod.example:6443' }], contexts: [{ name: 'prod', cluster: 'p', namespace: 'shop' }] });
    const b = kubeconfig(dir, 'b', { current: 'dev', clusters: [{ name: 'd', server: 'https://dev.example:6443' }], contexts: [{ name: 'dev', cluster: 'd' }] });
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
    const a = kubeconfig(dir, 'a', { current: 'prod', clusters: [{ name: 'p', server: 'https://prod.example:6443' }], contexts: [{ name: 'prod', cluster: 'p', namespace: 'shop' }] });
    expect(connect({ kubeconfig: a, namespace: 'web' }).namespace).toBe('web');
  });

  it('names an unknown context and a missing --kubeconfig file in one line', () => {
    const a = kubeconfig(dir, 'a', { current: 'prod', clusters: [{ name: 'p', server: 'https://prod.example:6443' }], contexts: [{ name: 'prod', cluster: 'p' }] });
    expect(() => connect({ kubeconfig: a, context: 'nope' })).toThrow(new KubeConfigError('context "nope" does not exist in the kubeconfig (--context); see kubectl config get-contexts'));
    expect(() => connect({ kubeconfig: join(dir, 'missing') })).toThrow(/kubeconfig file ".*missing" does not exist \(--kubeconfig\)/);
  });
});
