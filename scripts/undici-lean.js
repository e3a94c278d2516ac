// What the bundle uses of undici, without undici's index. Its index.js requires every dispatcher, the mock agents,
// the cache stores, WebSocket, EventSource and more at load time (≈1.3 MB of CommonJS evaluated on every start);
// kubectl-haptic and client-node's KubeConfig use only fetch, Agent and ProxyAgent. scripts/build.js resolves the
// bare import "undici" here. This file is ESM on purpose: importing a name it does not export fails the build
// instead of yielding undefined at run time.
import api from 'undici/lib/api/index.js';
import Agent from 'undici/lib/dispatcher/agent.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import ProxyAgent from 'undici/lib/dispatcher/proxy-agent.js';
import fetchModule from 'undici/lib/web/fetch/index.js';

// As undici's index.js: dispatchers get request/stream/pipeline/connect/upgrade.
Object.assign(Dispatcher.prototype, api);

export { Agent, ProxyAgent };

// As undici's index.js (bundled, so without __filename): the stack of a failed fetch points at the caller.
export function fetch(init, options = undefined) {
  return fetchModule.fetch(init, options).catch((err) => {
    if (err && typeof err === 'object') Error.captureStackTrace(err, fetch);
    throw err;
  });
}
