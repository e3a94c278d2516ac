// A small local HTTP server that plays the API server for protocol-level tests of KubeClient and Informer: each
// test answers requests itself (lists, watch streams as newline-delimited JSON, Status errors) and reads what the
// client sent.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { KubeClient } from '../../../src/kube/client.ts';
import { connect, type ConnectionOptions } from '../../../src/kube/config.ts';

export interface Received {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
}

export type Handler = (req: Received, res: ServerResponse) => void;

export interface FakeApiServer {
  client: KubeClient;
  received: Received[];
  close(): Promise<void>;
}

/** A kubeconfig file for `server` with a bearer token `t` (or the given user), in a fresh temporary folder. */
export function kubeconfigFor(
  server: string,
  user: Record<string, unknown> = { token: 't' },
  cluster: Record<string, unknown> = {},
): string {
  const dir = mkdtempSync(join(tmpdir(), 'kh-fake-'));
  const path = join(dir, 'config');
  writeFileSync(
    path,
    JSON.stringify({
      apiVersion: 'v1',
      kind: 'Config',
      clusters: [{ name: 'c', cluster: { server, ...cluster } }],
      users: [{ name: 'u', user }],
      contexts: [{ name: 'x', context: { cluster: 'c', user: 'u', namespace: 'ns' } }],
      'current-context': 'x',
    }),
  );
  return path;
}

export async function fakeApiServer(
  handler: Handler,
  options: Omit<ConnectionOptions, 'kubeconfig'> = {},
): Promise<FakeApiServer> {
  const received: Received[] = [];
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const r = { method: req.method ?? '', path: url.pathname, query: url.searchParams, headers: req.headers, body };
      received.push(r);
      handler(r, res);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const kubeconfig = kubeconfigFor(url);
  const client = new KubeClient(connect({ kubeconfig, ...options }));
  rmSync(dirname(kubeconfig), { recursive: true, force: true });
  return {
    client,
    received,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

export function pod(name: string, rv: string, extra: Record<string, unknown> = {}) {
  return { metadata: { name, namespace: 'ns', uid: `uid-${name}`, resourceVersion: rv }, ...extra };
}

/** A JSON answer (a list, an object, or a Status with `status` as the HTTP code). */
export function answer(res: ServerResponse, body: unknown, status = 200): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The API server's Status object for an error. */
export function statusBody(code: number, reason: string, message: string) {
  return { kind: 'Status', apiVersion: 'v1', status: 'Failure', code, reason, message };
}

/** Writes watch events, one JSON object per line, leaving the stream open unless `end`. */
export function stream(res: ServerResponse, events: unknown[], end = false): void {
  if (!res.headersSent) res.writeHead(200, { 'content-type': 'application/json' });
  for (const event of events) res.write(`${JSON.stringify(event)}\n`);
  if (end) res.end();
}

/** Polls until `check` holds; fails with `what` after two seconds. */
export async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (check()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`timed out waiting for ${what}`);
}
