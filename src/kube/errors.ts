// Errors the user can act on, each with one line of text and a documented exit code.
// API failures are classified once, at the client boundary (client.ts), by status code.

export const ExitCode = {
  ok: 0,
  /** rollout failed, stall cause found, a target refused or failed */
  failed: 1,
  timeout: 2,
  usage: 3,
  cluster: 4,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

export type ApiErrorKind =
  | 'NotFound'
  | 'Forbidden'
  | 'Unauthorized'
  | 'Unreachable'
  | 'Conflict'
  | 'Invalid'
  | 'Timeout'
  | 'Gone'
  | 'ServerError';

/** What the client was doing when the error happened: enough to say which verb on which resource failed. */
export interface RequestTarget {
  verb: string;
  resource: string;
  namespace?: string | undefined;
  name?: string | undefined;
}

/** A user-fixable problem: bad flag, unknown object, no match. Exit 3 unless told otherwise. */
export class UserError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, options: { exitCode?: ExitCode; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'UserError';
    this.exitCode = options.exitCode ?? ExitCode.usage;
  }
}

export class ApiError extends Error {
  readonly kind: ApiErrorKind;
  readonly status: number | undefined;
  readonly target: RequestTarget;
  readonly exitCode: ExitCode;
  constructor(kind: ApiErrorKind, message: string, target: RequestTarget, status?: number, cause?: unknown) {
    super(message, { cause });
    this.name = 'ApiError';
    this.kind = kind;
    this.status = status;
    this.target = target;
    this.exitCode = kind === 'NotFound' || kind === 'Invalid' ? ExitCode.usage : kind === 'Timeout' ? ExitCode.timeout : ExitCode.cluster;
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
  504: 'Timeout',
};

function describe(target: RequestTarget): string {
  const what = target.name ? `${target.resource} "${target.name}"` : target.resource;
  return target.namespace ? `${what} in namespace "${target.namespace}"` : what;
}

/** Maps an HTTP status and the API server's Status body to a typed error with a one-line message. */
export function apiErrorFromStatus(status: number, body: unknown, target: RequestTarget, server: string): ApiError {
  const kind = kindByStatus[status] ?? 'ServerError';
  const serverMessage = typeof body === 'object' && body !== null && 'message' in body ? String((body as { message: unknown }).message) : '';
  let message: string;
  switch (kind) {
    case 'NotFound':
      message = `${describe(target)} not found`;
      break;
    case 'Forbidden':
      message = `forbidden: cannot ${target.verb} ${target.resource}${target.namespace ? ` in namespace "${target.namespace}"` : ''}` +
        (serverMessage ? ` (${serverMessage})` : '');
      break;
    case 'Unauthorized':
      message = `unauthorized: the API server at ${server} rejected the credentials of the current context; log in again or check --kubeconfig/--context`;
      break;
    case 'Conflict':
      message = `conflict: ${describe(target)} was changed by someone else while this command ran${serverMessage ? ` (${serverMessage})` : ''}`;
      break;
    default:
      message = serverMessage || `${target.verb} ${describe(target)} failed with HTTP ${status}`;
  }
  return new ApiError(kind, message.replace(/\s*\n\s*/g, ' '), target, status);
}

export function unreachable(server: string, target: RequestTarget, cause: unknown): ApiError {
  const reason = networkReason(cause);
  return new ApiError('Unreachable', `cannot reach the Kubernetes API server at ${server}${reason ? ` (${reason})` : ''}; check --context/--kubeconfig and that the cluster is running`, target, undefined, cause);
}

export function requestTimedOut(server: string, target: RequestTarget, ms: number, cause: unknown): ApiError {
  return new ApiError('Timeout', `the API server at ${server} did not answer ${target.verb} ${describe(target)} within ${ms / 1000}s (--request-timeout)`, target, undefined, cause);
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

/** One line for any error: the user-facing text of ours, or a short description of anything else. */
export function oneLine(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? String(err);
  return String(err);
}

export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof UserError || err instanceof ApiError) return err.exitCode;
  return ExitCode.failed;
}
