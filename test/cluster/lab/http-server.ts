// The lab's application: what the node stand-in runs for the image lab.kubectl-haptic.dev/http-server, inside the
// pod's network namespace (so 0.0.0.0 is the pod IP). A plain HTTP server as teams write them:
// - every path answers 200 with the pod's name; `?delay=<ms>` (or $RESPONSE_DELAY_MS) makes the answer that slow;
// - GET /healthz answers 200 while serving, 503 once stopping (its readiness endpoint);
// - on SIGTERM ($ON_SIGTERM=graceful, the default): stops listening (new connections are refused), closes idle
//   keep-alive connections, finishes the requests it accepted, exits 0; $ON_SIGTERM=exit: exits at once, dropping
//   what it was serving (the two servers seed 003 compares); $ON_SIGTERM=ignore: keeps serving until killed.
// It runs as PID 1 of its container, which only receives the signals it handles: it handles SIGTERM and SIGINT.
import { createServer } from 'node:http';

const port = Number(process.env.PORT ?? 8080);
const name = process.env.POD_NAME ?? 'http-server';
const defaultDelay = Number(process.env.RESPONSE_DELAY_MS ?? 0);
let stopping = false;
let active = 0;

const server = createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://pod');
  if (url.pathname === '/healthz') {
    res.writeHead(stopping ? 503 : 200, { 'content-type': 'text/plain' }).end(stopping ? 'stopping\n' : 'ok\n');
    return;
  }
  active++;
  const delay = Number(url.searchParams.get('delay') ?? defaultDelay) || 0;
  setTimeout(
    () => {
      active--;
      res.writeHead(200, { 'content-type': 'text/plain' }).end(`${name}\n`);
    },
    Math.min(Math.max(delay, 0), 60_000),
  );
});

server.listen(port, '0.0.0.0', () => process.stdout.write(`${name}: serving on :${port}\n`));

function stop(signal: string): void {
  if (process.env.ON_SIGTERM === 'ignore') {
    process.stdout.write(`${name}: ${signal}, ignored\n`);
    return;
  }
  if (process.env.ON_SIGTERM === 'exit') {
    process.stdout.write(`${name}: ${signal}, exiting at once with ${active} requests in flight\n`);
    process.exit(0);
  }
  if (stopping) return;
  stopping = true;
  process.stdout.write(`${name}: ${signal}, draining ${active} requests\n`);
  server.close(() => {
    process.stdout.write(`${name}: drained, exiting\n`);
    process.exit(0);
  });
  server.closeIdleConnections();
}

process.on('SIGTERM', () => stop('SIGTERM'));
process.on('SIGINT', () => stop('SIGINT'));
