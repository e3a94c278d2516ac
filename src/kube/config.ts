// kubeconfig → a connection, the way kubectl (client-go's clientcmd) reads it. This is the one place that knows
// kubeconfig semantics.
//
// Why not @kubernetes/client-node's KubeConfig, which the plugin used before: it reads kubeconfigs differently from
// kubectl, and each difference was a bug a user could hit:
// - it reads `token-file`, kubectl reads `tokenFile`: requests went out anonymous;
// - a context without a user, or naming an unknown one, lost the cluster's CA, insecure-skip-tls-verify and
//   tls-server-name (its TLS options are built only when there is a user);
// - an `http://` server (kubectl proxy) was refused unless insecure-skip-tls-verify was set;
// - exec plugins: a relative `command` was not resolved against the kubeconfig's folder, KUBERNETES_EXEC_INFO was
//   not set, `installHint` never shown, no timeout, and the plugin's stderr or stdout (a token) ended up in the
//   error message;
// - insecure-skip-tls-verify together with a CA was accepted, garbage CA data silently ignored;
// - HTTPS_PROXY/NO_PROXY ignored; an empty file in KUBECONFIG failed the merge; a YAML error's message quoted the
//   file (tokens and keys included).
// So the files are read here with js-yaml and resolved with client-go's rules and error wording (validation.go,
// client_config.go, loader.go, the exec authenticator). client-node is still used for one thing only, the `oidc`
// auth-provider's token refresh, loaded when a kubeconfig needs it (see authProvider below).
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, dirname, isAbsolute, join, resolve } from 'node:path';
import { load } from 'js-yaml';
import { rememberSecret } from '../lib/redact.ts';
import { execCredential, type ExecConfig, type ExecResult } from './exec-credential.ts';
import { CredentialError, headerSafe, KubeConfigError } from './errors.ts';
import { proxyFor } from './proxy.ts';

export interface ConnectionOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  requestTimeoutMs?: number | undefined;
  /** without --request-timeout: give up when no response header arrives for this long (default 60 s) */
  headersTimeoutMs?: number | undefined;
  /** without --request-timeout: give up when the body of a (non-watch) response stalls this long (default 30 s) */
  bodyIdleTimeoutMs?: number | undefined;
}

/** TLS settings of the connection; the same object while they do not change (the client keeps one pool per object). */
export interface TlsSettings {
  ca?: Buffer | undefined;
  cert?: Buffer | string | undefined;
  key?: Buffer | string | undefined;
  rejectUnauthorized: boolean;
  servername?: string | undefined;
}

/** What one request carries: headers (Authorization, Impersonate-*) and the TLS settings (a plugin's client cert). */
export interface Credentials {
  headers: [string, string][];
  tls: TlsSettings;
}

export interface Connection {
  contextName: string;
  /** the server URL as printed: never with a user or password in it */
  server: string;
  /** the server URL requests go to (no userinfo: a URL password is sent as basic auth, as Go does) */
  serverUrl: URL;
  /** --namespace, else the context's namespace, else "default" */
  namespace: string;
  /** where the namespace came from, for error messages */
  namespaceSource: string;
  /** --request-timeout; 0: none */
  requestTimeoutMs: number;
  headersTimeoutMs: number;
  bodyIdleTimeoutMs: number;
  /** proxy URL for the server (the cluster's proxy-url, else HTTPS_PROXY/HTTP_PROXY unless NO_PROXY matches) */
  proxy: string | undefined;
  /** every context name of the merged kubeconfig (completion) */
  contexts: string[];
  /** why requests go without credentials: the context names no user, or one the kubeconfig does not have */
  anonymous?: string | undefined;
  /** credentials for the next request: runs the exec plugin when it has none or they expired, bound by `signal` */
  credentials(signal?: AbortSignal): Promise<Credentials>;
}

export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;
export const DEFAULT_BODY_IDLE_TIMEOUT_MS = 30_000;

// ---------------------------------------------------------------------------------------------------------------
// Reading and merging files

type Obj = Record<string, unknown>;
interface Named {
  value: Obj;
  /** the folder of the file that defined it: relative paths resolve against it */
  dir: string;
  file: string;
}
interface Merged {
  clusters: Map<string, Named>;
  users: Map<string, Named>;
  contexts: Map<string, Named>;
  currentContext: string;
  files: string[];
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The kubeconfig files kubectl would read: --kubeconfig, else $KUBECONFIG's list, else ~/.kube/config. */
function kubeconfigPaths(explicit: string | undefined): { paths: string[]; explicit: boolean } {
  if (explicit) return { paths: [explicit], explicit: true };
  const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  return { paths: fromEnv.length ? fromEnv : [join(homedir(), '.kube', 'config')], explicit: false };
}

/** One file: an empty one (or only comments) is an empty config, as in client-go's loader. */
function readKubeconfig(path: string): Obj {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new KubeConfigError(`cannot read kubeconfig file "${path}": ${ioReason(err)}`, { cause: err });
  }
  if (!text.trim()) return {};
  let data: unknown;
  try {
    data = load(text);
  } catch (err) {
    // js-yaml's message quotes the lines around the error, which may hold a token or key: only the reason and place
    const e = err as { reason?: unknown; mark?: { line?: number; column?: number } };
    const where = e.mark?.line === undefined ? '' : ` at line ${e.mark.line + 1}, column ${(e.mark.column ?? 0) + 1}`;
    throw new KubeConfigError(
      `cannot load kubeconfig file "${path}": not valid YAML${where}${typeof e.reason === 'string' ? ` (${e.reason})` : ''}`,
    );
  }
  if (data === undefined || data === null) return {};
  if (!isObj(data))
    throw new KubeConfigError(
      `cannot load kubeconfig file "${path}": not a kubeconfig (a YAML mapping with clusters, users and contexts)`,
    );
  return data;
}

function namedList(
  data: Obj,
  key: 'clusters' | 'users' | 'contexts',
  inner: 'cluster' | 'user' | 'context',
  file: string,
): Named[] {
  const list = data[key];
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new KubeConfigError(`cannot load kubeconfig file "${file}": ${key} is not a list`);
  return list.map((entry, i) => {
    if (!isObj(entry) || typeof entry.name !== 'string' || !entry.name)
      throw new KubeConfigError(`cannot load kubeconfig file "${file}": ${key}[${i}] has no name`);
    const value = entry[inner] ?? {};
    if (!isObj(value))
      throw new KubeConfigError(
        `cannot load kubeconfig file "${file}": ${key}[${i}] ("${entry.name}") has no ${inner} mapping`,
      );
    return { value: { ...value, name: entry.name }, dir: dirname(resolve(file)), file };
  });
}

/**
 * What names a credential, in an auth-provider's config or a credential plugin's environment: tokens, secrets,
 * passwords, keys. Not configuration (AWS_PROFILE=production, an issuer URL, a client id): masking those would
 * turn a namespace called production into [REDACTED].
 */
const CREDENTIAL_NAME = /token|secret|passw|credential|private|(^|[-_])key($|[-_])|api[-_]?key|auth$/i;

/** Every credential of every user is remembered for redaction, used or not: none may be printed. */
function rememberUserSecrets(users: Iterable<Named>): void {
  for (const { value: u } of users) {
    for (const key of ['token', 'password', 'client-key-data', 'client-certificate-data'])
      if (typeof u[key] === 'string') rememberSecret(u[key] as string);
    const provider = u['auth-provider'];
    if (isObj(provider) && isObj(provider.config))
      for (const [k, v] of Object.entries(provider.config))
        if (typeof v === 'string' && CREDENTIAL_NAME.test(k)) rememberSecret(v);
    if (isObj(u.exec) && Array.isArray(u.exec.env))
      for (const e of u.exec.env)
        if (isObj(e) && typeof e.value === 'string' && typeof e.name === 'string' && CREDENTIAL_NAME.test(e.name))
          rememberSecret(e.value);
  }
}

const configError = (message: string) => new KubeConfigError(`invalid configuration: ${message}`);

/** A Basic credential as it travels (base64 of user:password): a server that echoes it must not print it either. */
function basicCredential(username: string | undefined, password: string | undefined): string {
  const encoded = Buffer.from(`${username ?? ''}:${password ?? ''}`).toString('base64');
  if (password) rememberSecret(encoded);
  return `Basic ${encoded}`;
}

/** kubectl's merge: files in order, the first definition of a name wins, the first current-context set wins. */
function loadMerged(paths: string[], explicit: boolean): Merged {
  const merged: Merged = { clusters: new Map(), users: new Map(), contexts: new Map(), currentContext: '', files: [] };
  for (const path of paths) {
    if (!existsSync(path)) {
      if (explicit) throw new KubeConfigError(`kubeconfig file "${path}" does not exist (--kubeconfig)`);
      continue;
    }
    const data = readKubeconfig(path);
    merged.files.push(path);
    for (const [key, inner, into] of [
      ['clusters', 'cluster', merged.clusters],
      ['users', 'user', merged.users],
      ['contexts', 'context', merged.contexts],
    ] as const) {
      for (const named of namedList(data, key, inner, path))
        if (!into.has(named.value.name as string)) into.set(named.value.name as string, named);
    }
    if (
      data['current-context'] !== undefined &&
      data['current-context'] !== null &&
      typeof data['current-context'] !== 'string'
    ) {
      throw new KubeConfigError(`cannot load kubeconfig file "${path}": current-context is not a string`);
    }
    merged.currentContext ||= (data['current-context'] as string | undefined) ?? '';
  }
  rememberUserSecrets(merged.users.values());
  return merged;
}

// ---------------------------------------------------------------------------------------------------------------
// Resolving one context

const str = (v: unknown, what: string, file: string): string | undefined => {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string')
    throw new KubeConfigError(`cannot load kubeconfig file "${file}": ${what} is not a string`);
  return v;
};

function ioReason(err: unknown): string {
  const code = (err as { code?: string }).code;
  const words: Record<string, string> = {
    ENOENT: 'no such file or directory',
    EACCES: 'permission denied',
    EISDIR: 'is a directory',
    ENOTDIR: 'not a directory',
  };
  return (code && words[code]) ?? (err instanceof Error ? err.message : String(err));
}

function readFileRef(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (err) {
    throw new KubeConfigError(
      `invalid configuration: unable to read ${what} ${path} due to open ${path}: ${ioReason(err)}`,
      { cause: err },
    );
  }
}

/** base64 of *-data fields, strictly (Node's decoder would skip garbage silently; Go's refuses it). */
function base64Field(value: string, what: string, file: string): Buffer {
  const compact = value.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(compact) || compact.length % 4 !== 0) {
    throw new KubeConfigError(`cannot load kubeconfig file "${file}": ${what} is not base64 data`);
  }
  return Buffer.from(compact, 'base64');
}

/** client-go's rootCertPool: at least one PEM CERTIFICATE that parses, else kubectl's error. */
function checkCa(ca: Buffer, cluster: string): void {
  const blocks = ca.toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  if (!blocks.length)
    throw new KubeConfigError(
      `unable to load root certificates of cluster "${cluster}": unable to parse bytes as PEM block`,
    );
  for (const block of blocks) {
    try {
      new X509Certificate(block);
    } catch {
      throw new KubeConfigError(
        `unable to load root certificates of cluster "${cluster}": failed to parse certificate`,
      );
    }
  }
}

/** kubectl's DefaultServerURL: a URL, or host:port (https assumed). */
function parseServer(
  raw: string,
  cluster: string,
): { url: URL; display: string; username?: string; password?: string } {
  const userinfo = /^[a-z][a-z0-9+.-]*:\/\/(.*)@/i.exec(raw)?.[1];
  if (userinfo) rememberSecret(userinfo.slice(userinfo.indexOf(':') + 1));
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(raw) ? raw : `https://${raw}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw new KubeConfigError(
      `invalid configuration: server "${raw}" of cluster "${cluster}" is not a URL (host must be a URL or a host:port pair)`,
    );
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') {
    throw new KubeConfigError(
      `invalid configuration: server "${raw}" of cluster "${cluster}" has scheme "${url.protocol.slice(0, -1)}": use https:// (or http://)`,
    );
  }
  if (!url.hostname)
    throw new KubeConfigError(`invalid configuration: server "${raw}" of cluster "${cluster}" has no host`);
  const username = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  // remembered as written (above) and as it is sent and may be echoed: decoded
  rememberSecret(password);
  url.username = '';
  url.password = '';
  url.search = '';
  url.hash = '';
  const display = url.toString().replace(/\/$/, '');
  return { url, display, ...(username || password ? { username, password } : {}) };
}

interface AuthPlan {
  headers: [string, string][];
  cert?: Buffer | undefined;
  key?: Buffer | undefined;
  tokenFile?: string | undefined;
  exec?: ExecConfig | undefined;
  authProvider?: Obj | undefined;
}

const EXEC_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'];

/** validateAuthInfo of client-go, then what each credential kind needs. */
function planAuth(user: Named): AuthPlan {
  const u = user.value;
  const name = u.name as string;
  const f = user.file;
  const path = (p: string | undefined) => (p === undefined ? undefined : isAbsolute(p) ? p : join(user.dir, p));
  const token = str(u.token, `users "${name}" token`, f);
  const tokenFile = path(str(u.tokenFile, `users "${name}" tokenFile`, f));
  const username = str(u.username, `users "${name}" username`, f);
  const password = str(u.password, `users "${name}" password`, f);
  const certData = str(u['client-certificate-data'], `users "${name}" client-certificate-data`, f);
  const certFile = path(str(u['client-certificate'], `users "${name}" client-certificate`, f));
  const keyData = str(u['client-key-data'], `users "${name}" client-key-data`, f);
  const keyFile = path(str(u['client-key'], `users "${name}" client-key`, f));
  for (const secret of [token, password, certData, keyData]) rememberSecret(secret);
  headerSafe(token, `users "${name}" token`, configError);
  headerSafe(username, `users "${name}" username`, configError);
  headerSafe(password, `users "${name}" password`, configError);
  const methods = [...(token || tokenFile ? ['token'] : []), ...(username || password ? ['basicAuth'] : [])];
  if (methods.length > 1)
    throw new KubeConfigError(
      `invalid configuration: more than one authentication method found for ${name}; found [${methods.join(' ')}], only one is allowed`,
    );
  if (isObj(u.exec) && u['auth-provider'] !== undefined)
    throw new KubeConfigError(
      `invalid configuration: authProvider cannot be provided in combination with an exec plugin for ${name}`,
    );

  const plan: AuthPlan = { headers: [] };
  if (certData || certFile || keyData || keyFile) {
    if (certData && certFile)
      throw new KubeConfigError(
        `invalid configuration: client-cert-data and client-cert are both specified for ${name}. client-cert-data will override.`,
      );
    if (keyData && keyFile)
      throw new KubeConfigError(
        `invalid configuration: client-key-data and client-key are both specified for ${name}; client-key-data will override`,
      );
    if (!keyData && !keyFile)
      throw new KubeConfigError(
        `invalid configuration: client-key-data or client-key must be specified for ${name} to use the clientCert authentication method.`,
      );
    if (!certData && !certFile)
      throw new KubeConfigError(
        `invalid configuration: client-certificate-data or client-certificate must be specified for ${name} to use the clientCert authentication method.`,
      );
    plan.cert = certData
      ? base64Field(certData, `users "${name}" client-certificate-data`, f)
      : readFileRef(certFile as string, `client-cert`);
    plan.key = keyData
      ? base64Field(keyData, `users "${name}" client-key-data`, f)
      : readFileRef(keyFile as string, `client-key`);
    rememberSecret(plan.key);
    rememberSecret(plan.cert);
    // as tls.createSecureContext would load them, without building a TLS context and its root store just to check
    let matches = false;
    try {
      matches = new X509Certificate(plan.cert).checkPrivateKey(createPrivateKey(plan.key));
    } catch {
      // not PEM, or not a certificate and a private key
    }
    if (!matches) {
      throw new KubeConfigError(
        `invalid configuration: the client certificate and key of user "${name}" do not load as a PEM certificate and its private key`,
      );
    }
  }
  if (tokenFile) plan.tokenFile = tokenFile;
  else if (token) plan.headers.push(['authorization', `Bearer ${token}`]);
  if (username || password) plan.headers.push(['authorization', basicCredential(username, password)]);

  const as = str(u.as, `users "${name}" as`, f);
  const groups = u['as-groups'];
  const uid = str(u['as-uid'], `users "${name}" as-uid`, f);
  const extra = u['as-user-extra'];
  if ((uid || (Array.isArray(groups) && groups.length) || isObj(extra)) && !as) {
    throw new KubeConfigError(
      `invalid configuration: requesting uid, groups or user-extra for ${name} without impersonating a user`,
    );
  }
  if (as) plan.headers.push(['impersonate-user', as]);
  if (uid) plan.headers.push(['impersonate-uid', uid]);
  if (Array.isArray(groups)) for (const g of groups) plan.headers.push(['impersonate-group', String(g)]);
  if (isObj(extra))
    for (const [k, vs] of Object.entries(extra))
      for (const v of Array.isArray(vs) ? vs : [vs])
        plan.headers.push([`impersonate-extra-${encodeURIComponent(k)}`, String(v)]);

  if (u.exec !== undefined && u.exec !== null) {
    if (!isObj(u.exec))
      throw new KubeConfigError(`cannot load kubeconfig file "${f}": users "${name}" exec is not a mapping`);
    plan.exec = execConfig(u.exec, name, user);
  } else if (u['auth-provider'] !== undefined && u['auth-provider'] !== null) {
    if (!isObj(u['auth-provider']))
      throw new KubeConfigError(`cannot load kubeconfig file "${f}": users "${name}" auth-provider is not a mapping`);
    plan.authProvider = u['auth-provider'];
    authProviderSupported(plan.authProvider);
  }
  return plan;
}

function execConfig(e: Obj, user: string, named: Named): ExecConfig {
  const f = named.file;
  const command = str(e.command, `users "${user}" exec.command`, f);
  const apiVersion = str(e.apiVersion, `users "${user}" exec.apiVersion`, f);
  if (!command)
    throw new KubeConfigError(
      `invalid configuration: command must be specified for ${user} to use exec authentication plugin`,
    );
  if (!apiVersion)
    throw new KubeConfigError(
      `invalid configuration: apiVersion must be specified for ${user} to use exec authentication plugin`,
    );
  if (!EXEC_VERSIONS.includes(apiVersion))
    throw new KubeConfigError(`exec plugin: invalid apiVersion "${apiVersion}" (user "${user}")`);
  // client-go defaults interactiveMode to IfAvailable for v1beta1 only; v1 must say it
  const mode =
    str(e.interactiveMode, `users "${user}" exec.interactiveMode`, f) ??
    (apiVersion.endsWith('v1beta1') ? 'IfAvailable' : undefined);
  if (!mode)
    throw new KubeConfigError(
      `invalid configuration: interactiveMode must be specified for ${user} to use exec authentication plugin`,
    );
  if (!['Never', 'IfAvailable', 'Always'].includes(mode))
    throw new KubeConfigError(`invalid configuration: invalid interactiveMode for ${user}: "${mode}"`);
  const env: [string, string][] = [];
  if (e.env !== undefined && e.env !== null) {
    if (!Array.isArray(e.env))
      throw new KubeConfigError(`cannot load kubeconfig file "${f}": users "${user}" exec.env is not a list`);
    for (const v of e.env) {
      if (!isObj(v) || typeof v.name !== 'string' || !v.name)
        throw new KubeConfigError(
          `invalid configuration: env variable name must be specified for ${user} to use exec authentication plugin`,
        );
      const value = v.value === undefined || v.value === null ? '' : String(v.value);
      rememberSecret(value);
      env.push([v.name, value]);
    }
  }
  const args = Array.isArray(e.args) ? e.args.map(String) : [];
  // client-go's ResolvePaths: a command with a path separator is relative to the kubeconfig's folder; a bare name
  // is looked up on PATH
  const resolved = command.includes('/') && !isAbsolute(command) ? join(named.dir, command) : command;
  return {
    command: resolved,
    args,
    env,
    apiVersion,
    interactiveMode: mode as ExecConfig['interactiveMode'],
    installHint: str(e.installHint, `users "${user}" exec.installHint`, f),
    provideClusterInfo: e.provideClusterInfo === true,
    user,
    kubeconfig: f,
  };
}

/** Auth providers: client-go keeps oidc; gcp and azure were removed from kubectl, with these words. */
function authProviderSupported(provider: Obj): void {
  const name = String(provider.name ?? '');
  if (name === 'oidc') return;
  if (name === 'gcp')
    throw new KubeConfigError(
      'The gcp auth plugin has been removed. Please use the "gke-gcloud-auth-plugin" kubectl/client-go credential plugin instead. See https://cloud.google.com/blog/products/containers-kubernetes/kubectl-auth-changes-in-gke for further details',
    );
  if (name === 'azure')
    throw new KubeConfigError(
      'The azure auth plugin has been removed. Please use the https://github.com/Azure/kubelogin kubectl/client-go credential plugin instead. See https://kubernetes.io/docs/reference/access-authn-authz/authentication/#client-go-credential-plugins for further details',
    );
  throw new KubeConfigError(`no Auth Provider found for name "${name}"`);
}

/**
 * The oidc auth-provider's id-token, refreshed with its refresh-token when expired: client-node's implementation
 * (openid-client), loaded only for a kubeconfig that uses it.
 */
async function authProviderToken(provider: Obj, user: string): Promise<string | undefined> {
  const config = isObj(provider.config) ? provider.config : {};
  for (const key of ['id-token', 'refresh-token', 'client-secret'])
    rememberSecret(typeof config[key] === 'string' ? config[key] : undefined);
  const { OpenIDConnectAuth } = await import('@kubernetes/client-node/dist/oidc_auth.js');
  const opts = { headers: {} as Record<string, string> };
  try {
    await new OpenIDConnectAuth().applyAuthentication({ name: user, authProvider: provider } as never, opts as never);
  } catch (err) {
    throw new CredentialError(
      `the oidc auth-provider of user "${user}" could not get a token: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`,
      { cause: err },
    );
  }
  const bearer = opts.headers.Authorization;
  rememberSecret(bearer?.replace(/^Bearer /, ''));
  return bearer;
}

const MAX_TOKEN_FILE_BYTES = 1024 * 1024;

/** Reads a tokenFile as client-go's CachedFileTokenSource does: trimmed, re-read after a minute. */
function tokenFileReader(path: string, user: string): () => string {
  let token = '';
  let readAt = 0;
  const read = () => {
    let text: string;
    try {
      // a token is a few KB: a device (/dev/zero never ends) or a FIFO (blocks the process) is refused before reading
      const st = statSync(path);
      if (!st.isFile())
        throw new KubeConfigError(`invalid configuration: tokenFile ${path} for ${user} is not a regular file`);
      if (st.size > MAX_TOKEN_FILE_BYTES)
        throw new KubeConfigError(
          `invalid configuration: tokenFile ${path} for ${user} is larger than ${MAX_TOKEN_FILE_BYTES / 1024 / 1024} MiB`,
        );
      text = readFileSync(path, 'utf8');
    } catch (err) {
      if (err instanceof KubeConfigError) throw err;
      throw new KubeConfigError(
        `invalid configuration: unable to read tokenFile ${path} for ${user} due to open ${path}: ${ioReason(err)}`,
        { cause: err },
      );
    }
    const trimmed = text.trim();
    if (!trimmed) throw new KubeConfigError(`read empty token from file "${path}" (tokenFile of user "${user}")`);
    rememberSecret(trimmed);
    headerSafe(trimmed, `the token in tokenFile ${path} of user "${user}"`, configError);
    return trimmed;
  };
  token = read();
  readAt = Date.now();
  return () => {
    if (Date.now() - readAt > 60_000) {
      try {
        token = read();
      } catch {
        // keep the token read before, as client-go does when a refresh fails
      }
      readAt = Date.now();
    }
    return token;
  };
}

/** In-cluster configuration, kubectl's fallback when no kubeconfig exists and the process runs in a pod. */
function inCluster(): Merged | undefined {
  const host = process.env.KUBERNETES_SERVICE_HOST;
  const port = process.env.KUBERNETES_SERVICE_PORT;
  const root = '/var/run/secrets/kubernetes.io/serviceaccount';
  if (!host || !port || !existsSync(join(root, 'token'))) return undefined;
  const namespace = existsSync(join(root, 'namespace'))
    ? readFileSync(join(root, 'namespace'), 'utf8').trim()
    : undefined;
  const at = (value: Obj): Named => ({ value, dir: root, file: '(in-cluster configuration)' });
  return {
    clusters: new Map([
      [
        'in-cluster',
        at({
          name: 'in-cluster',
          server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
          'certificate-authority': join(root, 'ca.crt'),
        }),
      ],
    ]),
    users: new Map([['in-cluster', at({ name: 'in-cluster', tokenFile: join(root, 'token') })]]),
    contexts: new Map([
      [
        'in-cluster',
        at({ name: 'in-cluster', cluster: 'in-cluster', user: 'in-cluster', ...(namespace ? { namespace } : {}) }),
      ],
    ]),
    currentContext: 'in-cluster',
    files: [],
  };
}

/**
 * Turns kubectl-style flags into a connection the way kubectl does: --kubeconfig wins, else KUBECONFIG (several
 * files merged, first definition wins; missing and empty files skipped), else ~/.kube/config, else the in-cluster
 * service account; --context overrides the current context. Every problem of the kubeconfig is a KubeConfigError
 * naming the file, context, cluster or user, and never quoting a credential.
 */
export function connect(options: ConnectionOptions): Connection {
  const { paths, explicit } = kubeconfigPaths(options.kubeconfig);
  let merged = loadMerged(paths, explicit);
  if (!merged.files.length && !explicit) merged = inCluster() ?? merged;
  const contextName = options.context || merged.currentContext;
  if (!merged.files.length && !merged.contexts.size) {
    // nothing to connect with: say which files were looked for, not that a context is missing
    const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean).length > 0;
    throw new KubeConfigError(
      fromEnv
        ? `KUBECONFIG names no kubeconfig file that exists (${paths.join(', ')}): point it at your kubeconfig, or pass --kubeconfig`
        : `no kubeconfig: ${paths.join(', ')} does not exist and KUBECONFIG is not set (nor is this a pod with a service account); pass --kubeconfig or set KUBECONFIG`,
    );
  }
  if (!contextName) {
    const where = merged.files.length
      ? `in ${merged.files.join(', ')}`
      : `(no kubeconfig file found: ${paths.join(', ')})`;
    throw new KubeConfigError(
      `no current context in the kubeconfig ${where}: set one with kubectl config use-context, or pass --context/--kubeconfig`,
    );
  }
  const context = merged.contexts.get(contextName);
  if (!context) {
    if (options.context)
      throw new KubeConfigError(
        `context "${contextName}" does not exist in the kubeconfig (--context); see kubectl config get-contexts`,
      );
    throw new KubeConfigError(
      `invalid configuration: context was not found for specified context: ${contextName} (current-context of the kubeconfig); see kubectl config get-contexts`,
    );
  }
  const cf = context.file;
  const clusterName = str(context.value.cluster, `contexts "${contextName}" cluster`, cf);
  if (!clusterName)
    throw new KubeConfigError(`invalid configuration: cluster was not specified for context "${contextName}"`);
  const cluster = merged.clusters.get(clusterName);
  if (!cluster)
    throw new KubeConfigError(
      `invalid configuration: cluster "${clusterName}" was not found for context "${contextName}"`,
    );
  const c = cluster.value;
  const rawServer = str(c.server, `clusters "${clusterName}" server`, cluster.file);
  if (!rawServer) throw new KubeConfigError(`invalid configuration: no server found for cluster "${clusterName}"`);
  const server = parseServer(rawServer.trim(), clusterName);

  // TLS of the cluster, whoever the user is (client-node dropped it for a context without a known user)
  const insecure = c['insecure-skip-tls-verify'] === true;
  const caData = str(
    c['certificate-authority-data'],
    `clusters "${clusterName}" certificate-authority-data`,
    cluster.file,
  );
  const caFileRaw = str(c['certificate-authority'], `clusters "${clusterName}" certificate-authority`, cluster.file);
  const caFile = caFileRaw && (isAbsolute(caFileRaw) ? caFileRaw : join(cluster.dir, caFileRaw));
  if (caData && caFile)
    throw new KubeConfigError(
      `invalid configuration: certificate-authority-data and certificate-authority are both specified for ${clusterName}. certificate-authority-data will override.`,
    );
  if (insecure && (caData || caFile))
    throw new KubeConfigError(
      `specifying a root certificates file with the insecure flag is not allowed (cluster "${clusterName}": remove insecure-skip-tls-verify or the certificate authority)`,
    );
  const ca = caData
    ? base64Field(caData, `clusters "${clusterName}" certificate-authority-data`, cluster.file)
    : caFile
      ? readFileRef(caFile, 'certificate-authority')
      : undefined;
  if (ca) checkCa(ca, clusterName);
  const servername = str(c['tls-server-name'], `clusters "${clusterName}" tls-server-name`, cluster.file);
  const proxyUrl = str(c['proxy-url'], `clusters "${clusterName}" proxy-url`, cluster.file);
  if (proxyUrl) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(proxyUrl);
    } catch {
      // reported below
    }
    if (!parsed || !['http:', 'https:', 'socks5:'].includes(parsed.protocol)) {
      throw new KubeConfigError(
        `invalid configuration: invalid 'proxy-url' "${proxyUrl}" for cluster "${clusterName}": use http://, https:// or socks5://`,
      );
    }
  }

  // the user: none, or an unknown name, means anonymous requests, as kubectl sends them
  const userName = str(context.value.user, `contexts "${contextName}" user`, cf);
  const user = userName ? merged.users.get(userName) : undefined;
  const anonymous = !userName
    ? `context "${contextName}" names no user, so requests were sent without credentials`
    : !user
      ? `context "${contextName}" names user "${userName}", which the kubeconfig does not have, so requests were sent without credentials`
      : undefined;
  const auth: AuthPlan = user ? planAuth(user) : { headers: [] };
  if (
    server.username !== undefined &&
    !auth.headers.some(([h]) => h === 'authorization') &&
    !auth.tokenFile &&
    !auth.exec &&
    !auth.authProvider
  ) {
    auth.headers.push(['authorization', basicCredential(server.username, server.password)]);
  }

  const namespaceFlag = options.namespace;
  const contextNamespace = str(context.value.namespace, `contexts "${contextName}" namespace`, cf);
  const staticTls: TlsSettings = {
    rejectUnauthorized: !insecure,
    ...(ca ? { ca } : {}),
    ...(servername ? { servername } : {}),
    ...(auth.cert ? { cert: auth.cert, key: auth.key } : {}),
  };
  const readToken = auth.tokenFile ? tokenFileReader(auth.tokenFile, userName ?? '') : undefined;
  const requestTimeoutMs = options.requestTimeoutMs ?? 0;
  let execTls: { result: ExecResult; tls: TlsSettings } | undefined;
  const clusterInfo = {
    server: server.display,
    'tls-server-name': servername,
    'insecure-skip-tls-verify': insecure || undefined,
    'certificate-authority-data': ca?.toString('base64'),
    'proxy-url': proxyUrl,
  };

  return {
    contextName,
    server: server.display,
    serverUrl: server.url,
    namespace: namespaceFlag || contextNamespace || 'default',
    namespaceSource: namespaceFlag
      ? '-n/--namespace'
      : contextNamespace
        ? `the namespace of context "${contextName}"`
        : 'the default',
    requestTimeoutMs,
    headersTimeoutMs: options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS,
    bodyIdleTimeoutMs: options.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_TIMEOUT_MS,
    proxy: proxyUrl ?? proxyFor(server.url),
    contexts: [...merged.contexts.keys()],
    anonymous,
    async credentials(signal?: AbortSignal): Promise<Credentials> {
      const headers = [...auth.headers];
      if (readToken) headers.push(['authorization', `Bearer ${readToken()}`]);
      if (auth.authProvider) {
        const bearer = await authProviderToken(auth.authProvider, userName ?? '');
        if (bearer) headers.push(['authorization', bearer]);
      }
      if (!auth.exec) return { headers, tls: staticTls };
      // client-go: a token, basic auth or client certificate in the kubeconfig takes precedence over the plugin
      if (headers.some(([h]) => h === 'authorization') || auth.cert) return { headers, tls: staticTls };
      const result = await execCredential(auth.exec, {
        signal,
        unlimited: requestTimeoutMs > 0,
        cluster: auth.exec.provideClusterInfo ? clusterInfo : undefined,
      });
      if (result.token) headers.push(['authorization', `Bearer ${result.token}`]);
      if (!result.cert) return { headers, tls: staticTls };
      if (execTls?.result !== result) execTls = { result, tls: { ...staticTls, cert: result.cert, key: result.key } };
      return { headers, tls: execTls.tls };
    },
  };
}
