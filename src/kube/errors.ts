// Errors of talking to the API server, classified once, at the client boundary (client.ts), by status code; and
// errors of reading the kubeconfig. The CLI maps each kind to an exit code (src/cli/errors.ts).

export type ApiErrorKind =
  | 'NotFound'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Unreachable'
  | 'Conflict'
  | 'Invalid'
  | 'Timeout'
  | 'Gone'
  | 'TooManyRequests'
  /** the answer is not what the API server sends: not JSON, not a list, a redirect, larger than the cap */
  | 'BadResponse'
  | 'ServerError';

/** What the client was doing when the error happened: enough to say which verb on which resource failed. */
export interface RequestTarget {
  verb: string;
  resource: string;
  namespace?: string | undefined;
  name?: string | undefined;
}

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly status: number | undefined;
  readonly target: RequestTarget;
  /** what the API server answered: its Status object (reason, details, code), or the text of a non-JSON answer */
  readonly body: unknown;
  constructor(
    kind: ApiErrorKind,
    message: string,
    target: RequestTarget,
    status?: number,
    cause?: unknown,
    body?: unknown,
  ) {
    super(message, { cause });
    this.name = 'ApiError';
    this.kind = kind;
    this.status = status;
    this.target = target;
    this.body = body;
  }
}

export function isApiError(err: unknown, kind?: ApiErrorKind): err is ApiError {
  return err instanceof ApiError && (kind === undefined || err.kind === kind);
}

const kindByStatus: Record<number, ApiErrorKind> = {
  400: 'Invalid',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'NotFound',
  409: 'Conflict',
  410: 'Gone',
  422: 'Invalid',
  429: 'TooManyRequests',
  504: 'Timeout',
};

function describe(target: RequestTarget): string {
  const what = target.name ? `${target.resource} "${target.name}"` : target.resource;
  return target.namespace ? `${what} in namespace "${target.namespace}"` : what;
}

/**
 * Maps an HTTP status and the API server's answer (a Status object, or text such as a proxy's error page) to a typed
 * error with a one-line message; the answer stays on the error as `body`.
 */
export function apiErrorFromStatus(
  status: number,
  body: unknown,
  target: RequestTarget,
  server: string,
  anonymous?: string,
): ApiError {
  const kind = kindByStatus[status] ?? 'ServerError';
  const serverMessage =
    typeof body === 'string'
      ? body.slice(0, 200)
      : typeof body === 'object' && body !== null && 'message' in body
        ? String((body as { message: unknown }).message)
        : '';
  let message: string;
  switch (kind) {
    case 'NotFound':
      message = `${describe(target)} not found`;
      break;
    case 'Forbidden':
      message =
        `forbidden: cannot ${target.verb} ${target.resource}${target.namespace ? ` in namespace "${target.namespace}"` : ''}` +
        (serverMessage ? ` (${serverMessage})` : '') +
        (anonymous ? `; ${anonymous}` : '');
      break;
    case 'Unauthorized':
      message = anonymous
        ? `unauthorized: the API server at ${server} requires credentials, and ${anonymous}; check the context's user in --kubeconfig/--context`
        : `unauthorized: the API server at ${server} rejected the credentials of the current context; log in again or check --kubeconfig/--context`;
      break;
    case 'TooManyRequests':
      message = `the API server at ${server} is overloaded: it answered ${target.verb} ${describe(target)} with HTTP 429 Too Many Requests${serverMessage ? ` (${serverMessage})` : ''}; try again later`;
      break;
    case 'Conflict':
      message = `conflict: ${describe(target)} was changed by someone else while this command ran${serverMessage ? ` (${serverMessage})` : ''}`;
      break;
    default:
      message = serverMessage || `${target.verb} ${describe(target)} failed with HTTP ${status}`;
  }
  return new ApiError(kind, message.replace(/\s*\n\s*/g, ' '), target, status, undefined, body);
}

/** Node's codes of a server certificate that does not verify. */
const TLS_VERIFY =
  /^(UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|CERT_|ERR_TLS_CERT_ALTNAME_INVALID|HOSTNAME_MISMATCH)/;

export function unreachable(server: string, target: RequestTarget, cause: unknown): ApiError {
  const reason = networkReason(cause);
  if (TLS_VERIFY.test(reason)) {
    return new ApiError(
      'Unreachable',
      `cannot verify the TLS certificate of the API server at ${server} (${reason}); check the cluster's certificate-authority and tls-server-name in the kubeconfig`,
      target,
      undefined,
      cause,
    );
  }
  return new ApiError(
    'Unreachable',
    `cannot reach the Kubernetes API server at ${server}${reason ? ` (${reason})` : ''}; check --context/--kubeconfig and that the cluster is running`,
    target,
    undefined,
    cause,
  );
}

export function requestTimedOut(server: string, target: RequestTarget, ms: number, cause: unknown): ApiError {
  return new ApiError(
    'Timeout',
    `the API server at ${server} did not answer ${target.verb} ${describe(target)} within ${ms / 1000}s (--request-timeout)`,
    target,
    undefined,
    cause,
  );
}

/** Without --request-timeout: no header, or no byte of the body, for the default read timeout. */
export function readTimedOut(server: string, target: RequestTarget, what: 'headers' | 'body', ms: number): ApiError {
  const did =
    what === 'headers'
      ? `sent no answer to ${target.verb} ${describe(target)} for ${ms / 1000}s`
      : `stopped sending its answer to ${target.verb} ${describe(target)} for ${ms / 1000}s`;
  return new ApiError(
    'Timeout',
    `the API server at ${server} ${did} (default read timeout; --request-timeout sets a limit for the whole request)`,
    target,
  );
}

/**
 * Whether a write that failed may have taken effect all the same: it timed out, or its answer was a server error or
 * not an API server's (the request reached a server, which may have written before it failed). A 4xx is a refusal.
 */
export function mayHaveTakenEffect(err: unknown): boolean {
  if (isApiError(err, 'Timeout') || isApiError(err, 'BadResponse')) return true;
  const status = (err as { status?: unknown }).status;
  return typeof status === 'number' && status >= 500;
}

/** An answer that is not what an API server sends (the body, if any, stays on the error, never in the message). */
export function badResponse(
  server: string,
  target: RequestTarget,
  what: string,
  status?: number,
  body?: unknown,
): ApiError {
  return new ApiError(
    'BadResponse',
    `the server at ${server} answered ${target.verb} ${describe(target)} with ${what}; is the kubeconfig's server URL an API server?`,
    target,
    status,
    undefined,
    body,
  );
}

function networkReason(cause: unknown): string {
  let err: unknown = cause;
  for (let depth = 0; depth < 4 && err instanceof Error; depth++) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    err = err.cause;
  }
  return cause instanceof Error ? cause.message : '';
}

/** The kubeconfig cannot be used as asked: missing file, unknown context, no current context, bad content. */
export class KubeConfigError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'KubeConfigError';
  }
}

/**
 * No credential could be obtained: the kubeconfig's exec plugin is missing, failed, printed no credential or timed
 * out (`timeout`), or an auth provider failed. `hint` is the plugin's installHint, printed after the error line.
 */
export class CredentialError extends Error {
  readonly hint: string | undefined;
  readonly timeout: boolean;
  constructor(message: string, options: { cause?: unknown; hint?: string | undefined; timeout?: boolean } = {}) {
    super(message, { cause: options.cause });
    this.name = 'CredentialError';
    this.hint = options.hint;
    this.timeout = options.timeout ?? false;
  }
}

/**
 * A credential goes in an HTTP header, which carries visible ASCII and tabs only (RFC 9110 field values; Node
 * refuses anything else before a byte is sent, which would read as an unreachable server): a CR, LF, ESC or
 * non-ASCII character in one is a configuration error, said as such (the value itself is never shown).
 */
export function headerSafe(value: string | undefined, what: string, fail: (message: string) => Error): void {
  if (value !== undefined && /[^\t\x20-\x7e]/.test(value))
    throw fail(`${what} holds a character an HTTP header cannot carry (a control character or a non-ASCII one)`);
}
