// The part of the kubelet's HTTPS API the lab needs: `GET /containerLogs/{namespace}/{pod}/{container}`, which
// the API server proxies for `pods/{name}/log` (pkg/kubelet/server/server.go, getContainerLogs), and `/exec/…` over
// WebSocket for `pods/{name}/exec` (kubelet-exec.ts), served on each
// fake node's InternalIP and the port its status advertises (daemonEndpoints.kubeletEndpoint, 10250). The logs are
// the CRI files lab/container.ts writes (`<time> <stream> <tag> <line>`); the kubelet's options honoured here:
// `timestamps` (each line prefixed with its RFC 3339 nano time), `tailLines`, `sinceTime`, `previous`. `follow`
// answers what is there and ends. The API server's client certificate is not checked (the real kubelet
// authenticates it and authorizes through the API server).
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { FAKE_NODES } from '../fake-nodes.ts';
import { log } from '../common.ts';
import { type ExecLookup, serveExec } from './kubelet-exec.ts';

export const KUBELET_PORT = 10250;

/** A CRI log file's lines as pods/log shows them. Pure. */
export function containerLog(
  text: string,
  options: { timestamps: boolean; tailLines?: number; sinceTime?: string },
): string {
  const since = options.sinceTime ? Date.parse(options.sinceTime) : undefined;
  let lines = text
    .split('\n')
    .filter(Boolean)
    .flatMap((line) => {
      const match = /^(\S+) (stdout|stderr) ([FP]) (.*)$/.exec(line);
      if (!match) return [];
      const [, time, , , content] = match;
      if (since !== undefined && Date.parse(time!) < since) return [];
      return [options.timestamps ? `${time} ${content}` : content!];
    });
  if (options.tailLines !== undefined && options.tailLines >= 0)
    lines = lines.slice(Math.max(0, lines.length - options.tailLines));
  return lines.map((l) => `${l}\n`).join('');
}

export function serveKubeletApi(opts: {
  cert: string;
  key: string;
  logOf: (key: string, container: string, previous: boolean) => string | undefined;
  execOf: ExecLookup;
}): Promise<Server[]> {
  const servers = FAKE_NODES.map((node) => {
    const server = createServer({ cert: readFileSync(opts.cert), key: readFileSync(opts.key) }, (req, res) => {
      const url = new URL(req.url ?? '/', `https://${node.ip}`);
      if (url.pathname === '/healthz') return void res.writeHead(200).end('ok');
      const match = /^\/containerLogs\/([^/]+)\/([^/]+)\/([^/]+)$/.exec(url.pathname);
      if (req.method !== 'GET' || !match)
        return void res.writeHead(404, { 'content-type': 'text/plain' }).end('404 page not found\n');
      const [, namespace, pod, container] = match.map((m) => decodeURIComponent(m)) as [string, string, string, string];
      const previous = url.searchParams.get('previous') === 'true';
      const file = opts.logOf(`${namespace}/${pod}`, container, previous);
      if (!file) {
        const what = previous
          ? `previous terminated container "${container}" in pod "${pod}" not found`
          : `container "${container}" in pod "${pod}" is not available`;
        return void res.writeHead(400, { 'content-type': 'text/plain' }).end(what);
      }
      const tail = url.searchParams.get('tailLines');
      const body = containerLog(readFileSync(file, 'utf8'), {
        timestamps: url.searchParams.get('timestamps') === 'true',
        ...(tail !== null ? { tailLines: Number(tail) } : {}),
        ...(url.searchParams.get('sinceTime') ? { sinceTime: url.searchParams.get('sinceTime')! } : {}),
      });
      res.writeHead(200, { 'content-type': 'text/plain' }).end(body);
    });
    server.on('upgrade', (req, socket) => serveExec(req, socket, opts.execOf));
    return new Promise<Server>((resolve, reject) => {
      server.once('error', reject);
      server.listen(KUBELET_PORT, node.ip, () => resolve(server));
    });
  });
  return Promise.all(servers).then((list) => {
    log('node', `kubelet API (containerLogs, exec) on ${FAKE_NODES.map((n) => `${n.ip}:${KUBELET_PORT}`).join(', ')}`);
    return list;
  });
}
