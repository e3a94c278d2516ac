// What the bundle uses of undici, without undici's index. Its index.js requires every dispatcher, the mock agents,
// the cache stores, WebSocket, EventSource and more at load time (≈1.3 MB of CommonJS evaluated on every start);
// kubectl-haptic and client-node's KubeConfig use only fetch, Agent and ProxyAgent. scripts/build.js resolves the
// bare import "undici" here. This file is ESM on purpose: importing a name it does not export fails the build
// instead of yielding undefined at run time.
import Agent from 'undici/lib/dispatcher/agent.js';
import fetchModule from 'undici/lib/web/fetch/index.js';

export { Agent };

// As undici's index.js (bundled, so without __filename): the stack of a failed fetch points at the caller.
export function fetch(init, options = undefined) {
  return fetchModule.fetch(init, options).catch((err) => {
    if (err && typeof err === 'object') Error.captureStackTrace(err, fetch);
    throw err;
  });
}

let proxyAgent;

/**
 * undici's ProxyAgent, loaded on first use (a kubeconfig's proxy-url or HTTPS_PROXY; most starts have neither).
 * It tunnels with Dispatcher#connect, one of the methods undici's index.js gives every dispatcher (request, stream,
 * pipeline, connect, upgrade): they are given here, when the first ProxyAgent is made. fetch and Agent need none.
 */
export class ProxyAgent {
  constructor(options) {
    if (!proxyAgent) {
      Object.assign(require('undici/lib/dispatcher/dispatcher.js').prototype, require('undici/lib/api/index.js'));
      proxyAgent = require('undici/lib/dispatcher/proxy-agent.js');
    }
    // the real ProxyAgent is what `new ProxyAgent(…)` gives
    // biome-ignore lint/correctness/noConstructorReturn: a stand-in class whose instances are the real ProxyAgent's
    return new proxyAgent(options);
  }
}

let webSocket;

/**
 * undici's WebSocket, loaded on first use (status reading HAProxy's sessions through pods/exec: most starts never
 * open one). Dialled through the dispatcher given in its init, as undici's own.
 */
export class WebSocket {
  constructor(url, init) {
    webSocket ??= require('undici/lib/web/websocket/websocket.js').WebSocket;
    // biome-ignore lint/correctness/noConstructorReturn: a stand-in class whose instances are the real WebSocket's
    return new webSocket(url, init);
  }
}
