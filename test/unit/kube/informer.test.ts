import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { KubeConfig } from '@kubernetes/client-node';
import { afterEach, describe, expect, it } from 'vitest';
import { KubeClient } from '../../../src/kube/client.ts';
import { Informer } from '../../../src/kube/informer.ts';
import { R } from '../../../src/kube/resources.ts';

// The real API server's watch cache makes a 410 Gone hard to provoke on demand, so this protocol-level test plays
// the server: a list, then a watch that expires with an ERROR event of code 410, then the relist and a live watch.
let server: Server | undefined;
afterEach(() => server?.close());

function pod(name: string, rv: string) {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv } };
}

describe('Informer', () => {
  it('relists after a watch expires with 410 Gone, then follows the new watch', async () => {
    const requests: string[] = [];
    let lists = 0;
    server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      requests.push(`${url.searchParams.get('watch') ? 'watch' : 'list'} rv=${url.searchParams.get('resourceVersion') ?? ''}`);
      res.setHeader('content-type', 'application/json');
      if (!url.searchParams.get('watch')) {
        lists++;
        const items = lists === 1 ? [pod('a', '10')] : [pod('a', '10'), pod('b', '20')];
        res.end(JSON.stringify({ metadata: { resourceVersion: lists === 1 ? '10' : '20' }, items }));
      } else if (url.searchParams.get('resourceVersion') === '10') {
        res.end(`${JSON.stringify({ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired', message: 'too old resource version: 10 (15)' } })}\n`);
      } else {
        res.write(`${JSON.stringify({ type: 'ADDED', object: pod('c', '21') })}\n`);
        res.write(`${JSON.stringify({ type: 'BOOKMARK', object: { metadata: { resourceVersion: '22' } } })}\n`);
      }
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const port = (server.address() as AddressInfo).port;
    const kubeConfig = new KubeConfig();
    kubeConfig.loadFromOptions({
      clusters: [{ name: 'c', server: `http://127.0.0.1:${port}`, skipTLSVerify: true }],
      users: [{ name: 'u', token: 't' }],
      contexts: [{ name: 'x', cluster: 'c', user: 'u' }],
      currentContext: 'x',
    });
    const client = new KubeClient({ kubeConfig, contextName: 'x', server: `http://127.0.0.1:${port}`, namespace: 'ns', requestTimeoutMs: 0 });
    const informer = new Informer(client, { resource: R.pods, namespace: 'ns' }, () => {}, { backoffMs: () => 10 });
    informer.start();
    try {
      for (let i = 0; i < 100 && informer.items().length < 3; i++) await new Promise((r) => setTimeout(r, 20));
      expect(informer.items().map((p) => p.metadata.name).sort()).toEqual(['a', 'b', 'c']);
      expect(informer.lists).toBe(2);
      expect(informer.error).toBeUndefined();
      expect(requests.slice(0, 4)).toEqual(['list rv=', 'watch rv=10', 'list rv=', 'watch rv=20']);
    } finally {
      informer.stop();
    }
  });
});
