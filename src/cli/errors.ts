// Exit codes and the user-facing errors of the CLI. Lower layers throw typed errors of their own (ApiError,
// KubeConfigError); this is the one place that maps every error to a documented exit code.
import { ApiError, KubeConfigError } from '../kube/errors.ts';

export const ExitCode = {
  ok: 0,
  /** rollout failed, stall cause found, a target refused or failed */
  failed: 1,
  timeout: 2,
  usage: 3,
  cluster: 4,
  interrupted: 130,
} as const;
export type ExitCode = (typeof ExitCode)[keyof typeof ExitCode];

/** A user-fixable problem: bad flag, unknown object, no match. Exit 3 unless told otherwise. */
export class UserError extends Error {
  readonly exitCode: ExitCode;
  constructor(message: string, options: { exitCode?: ExitCode; cause?: unknown } = {}) {
    super(message, { cause: options.cause });
    this.name = 'UserError';
    this.exitCode = options.exitCode ?? ExitCode.usage;
  }
}

/** One line for any error: the user-facing text of ours, or a short description of anything else. */
export function oneLine(err: unknown): string {
  if (err instanceof Error) return err.message.split('\n')[0] ?? String(err);
  return String(err);
}

export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof UserError) return err.exitCode;
  if (err instanceof KubeConfigError) return ExitCode.usage;
  if (err instanceof ApiError) return err.kind === 'NotFound' || err.kind === 'Invalid' ? ExitCode.usage : err.kind === 'Timeout' ? ExitCode.timeout : ExitCode.cluster;
  return ExitCode.failed;
}

/** Errors this CLI expects and explains in one line (anything else is a bug: it asks for --debug). */
export function isKnownError(err: unknown): boolean {
  return err instanceof UserError || err instanceof ApiError || err instanceof KubeConfigError;
}
