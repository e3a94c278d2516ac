// client-go's exec credential plugins (plugin/pkg/client/auth/exec): run the kubeconfig's command with
// KUBERNETES_EXEC_INFO, read an ExecCredential from its stdout, cache it until its expirationTimestamp. Errors follow
// client-go's wording, but never carry what the plugin printed: its stdout holds the credential, and its stderr may
// too, so neither is shown (client-go passes stderr to the terminal; this plugin cannot tell a prompt from a token).
import { rememberSecret } from '../lib/redact.ts';
import { CredentialError, headerSafe } from './errors.ts';

export interface ExecConfig {
  command: string;
  args: string[];
  env: [string, string][];
  apiVersion: string;
  interactiveMode: 'Never' | 'IfAvailable' | 'Always';
  installHint?: string | undefined;
  provideClusterInfo: boolean;
  /** the kubeconfig user and file, for messages */
  user: string;
  kubeconfig: string;
}

export interface ExecResult {
  token?: string | undefined;
  cert?: string | undefined;
  key?: string | undefined;
  /** ms since the epoch; undefined: valid for the life of the process */
  expiresAt?: number | undefined;
}

/** Cached credentials by plugin configuration, as client-go's global authenticator cache. */
const cache = new Map<string, ExecResult>();
const running = new Map<string, Promise<ExecResult>>();

/** What the plugin's output may be, at most: an ExecCredential is a few KiB. */
const MAX_OUTPUT = 1024 * 1024;
/** How long a credential plugin may run when --request-timeout does not say: a browser sign-in included. */
export const DEFAULT_PLUGIN_LIMIT_MS = 120_000;

export async function execCredential(
  config: ExecConfig,
  options: {
    signal?: AbortSignal | undefined;
    cluster?: unknown;
    /** --request-timeout bounds the plugin instead (its deadline is in `signal`) */
    unlimited?: boolean | undefined;
    /** the limit without --request-timeout (DEFAULT_PLUGIN_LIMIT_MS) */
    limitMs?: number | undefined;
  } = {},
): Promise<ExecResult> {
  const key = JSON.stringify([config, options.cluster]);
  const cached = cache.get(key);
  if (cached && (cached.expiresAt === undefined || cached.expiresAt > Date.now())) return cached;
  let pending = running.get(key);
  if (!pending) {
    pending = run(config, options).finally(() => running.delete(key));
    running.set(key, pending);
  }
  const result = await pending;
  cache.set(key, result);
  return result;
}

function run(config: ExecConfig, options: Parameters<typeof execCredential>[1] & {}): Promise<ExecResult> {
  const who = `(exec plugin of user "${config.user}" in ${config.kubeconfig})`;
  if (config.interactiveMode === 'Always') {
    return Promise.reject(
      new CredentialError(
        `exec plugin cannot support interactive mode: kubectl-haptic does not hand its terminal to credential plugins ${who}; use interactiveMode IfAvailable or Never`,
      ),
    );
  }
  const execInfo = {
    apiVersion: config.apiVersion,
    kind: 'ExecCredential',
    spec: { interactive: false, ...(options.cluster ? { cluster: options.cluster } : {}) },
  };
  const env = { ...process.env, ...Object.fromEntries(config.env), KUBERNETES_EXEC_INFO: JSON.stringify(execInfo) };
  return new Promise<ExecResult>((resolvePromise, reject) => {
    // a plugin that never exits must not hold the command for ever: without --request-timeout, a default limit
    const limitMs = options.limitMs ?? DEFAULT_PLUGIN_LIMIT_MS;
    const limit = options.unlimited ? undefined : AbortSignal.timeout(limitMs);
    const signal = AbortSignal.any([...(options.signal ? [options.signal] : []), ...(limit ? [limit] : [])]);
    if (signal.aborted) return reject(abortError(signal, config, who, limit && { signal: limit, ms: limitMs }));
    // child_process loads when a kubeconfig names a credential plugin, not on every start (most use certificates or tokens)
    const child = process
      .getBuiltinModule('node:child_process')
      .spawn(config.command, config.args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    const stdout: Buffer[] = [];
    let size = 0;
    let settled = false;
    const finish = (err: Error | undefined, result?: ExecResult) => {
      if (settled) return;
      settled = true;
      signal.removeEventListener('abort', onAbort);
      if (err) reject(err);
      else resolvePromise(result as ExecResult);
    };
    const onAbort = () => {
      child.kill('SIGKILL');
      finish(abortError(signal, config, who, limit && { signal: limit, ms: limitMs }));
    };
    signal.addEventListener('abort', onAbort, { once: true });
    child.stdout.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > MAX_OUTPUT) {
        child.kill('SIGKILL');
        finish(
          new CredentialError(
            `exec: executable ${config.command} printed more than 1 MiB: not an ExecCredential ${who}`,
          ),
        );
        return;
      }
      stdout.push(chunk);
    });
    // read and dropped: it may hold a credential (see above)
    child.stderr.resume();
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT' || err.code === 'EACCES') {
        const hint = config.installHint
          ? config.installHint
          : 'It looks like you are trying to use a client-go credential plugin that is not installed. To learn more about this feature, consult the documentation available at: https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins';
        const why = err.code === 'EACCES' ? ' (not executable: permission denied)' : '';
        finish(new CredentialError(`exec: executable ${config.command} not found${why} ${who}`, { hint }));
      } else {
        finish(new CredentialError(`exec: ${err.message} ${who}`));
      }
    });
    child.on('close', (code, sig) => {
      if (settled) return;
      const out = Buffer.concat(stdout).toString('utf8');
      rememberSecret(out);
      if (code !== 0) {
        const how = sig ? `was killed by ${sig}` : `failed with exit code ${code}`;
        return finish(
          new CredentialError(
            `exec: executable ${config.command} ${how} ${who}; what it printed is not shown, as it may hold credentials: run it yourself to see why`,
          ),
        );
      }
      try {
        finish(undefined, decode(out, config, who));
      } catch (err) {
        finish(err as Error);
      }
    });
  });
}

function abortError(
  signal: AbortSignal,
  config: ExecConfig,
  who: string,
  limit?: { signal: AbortSignal; ms: number },
): Error {
  if (limit?.signal.aborted && signal.reason === limit.signal.reason)
    return new CredentialError(
      `exec: executable ${config.command} did not return a credential within ${limit.ms / 1000}s, the limit for credential plugins without --request-timeout ${who}`,
      { timeout: true },
    );
  const reason = signal.reason as { name?: string } | undefined;
  if (reason?.name === 'TimeoutError')
    return new CredentialError(
      `exec: executable ${config.command} did not return a credential within the request timeout ${who}`,
      { timeout: true },
    );
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}

/** client-go's checks of the plugin's answer, without quoting it. */
function decode(out: string, config: ExecConfig, who: string): ExecResult {
  let data: unknown;
  try {
    data = JSON.parse(out);
  } catch {
    throw new CredentialError(
      `exec: decoding stdout of ${config.command}: not a JSON ExecCredential (${out.trim() ? `${out.length} bytes, not shown` : 'it printed nothing'}) ${who}`,
    );
  }
  const cred = data as { apiVersion?: unknown; kind?: unknown; status?: Record<string, unknown> | null };
  if (typeof cred !== 'object' || cred === null || Array.isArray(cred))
    throw new CredentialError(`exec: decoding stdout of ${config.command}: not a JSON ExecCredential object ${who}`);
  if (cred.kind !== 'ExecCredential')
    throw new CredentialError(
      `exec: decoding stdout of ${config.command}: kind is ${JSON.stringify(String(cred.kind ?? ''))}, not ExecCredential ${who}`,
    );
  if (cred.apiVersion !== config.apiVersion) {
    throw new CredentialError(
      `exec plugin is configured to use API version ${config.apiVersion}, plugin returned version ${String(cred.apiVersion ?? '')} ${who}`,
    );
  }
  const status = cred.status;
  if (!status || typeof status !== 'object')
    throw new CredentialError(`exec plugin didn't return a status field ${who}`);
  const text = (v: unknown) => (typeof v === 'string' && v ? v : undefined);
  const token = text(status.token);
  const cert = text(status.clientCertificateData);
  const key = text(status.clientKeyData);
  for (const s of [token, cert, key]) rememberSecret(s);
  headerSafe(token, `the token the exec plugin returned ${who}`, (m) => new CredentialError(m));
  if (!token && !cert && !key) throw new CredentialError(`exec plugin didn't return a token or cert/key pair ${who}`);
  if (!cert !== !key) throw new CredentialError(`exec plugin returned only certificate or key, not both ${who}`);
  const expiry = text(status.expirationTimestamp);
  const expiresAt = expiry ? Date.parse(expiry) : undefined;
  if (expiry && Number.isNaN(expiresAt))
    throw new CredentialError(
      `exec: decoding stdout of ${config.command}: status.expirationTimestamp is not a time ${who}`,
    );
  return { token, cert, key, expiresAt };
}
