// Exit codes and the user-facing errors of the CLI. Lower layers throw typed errors of their own (ApiError,
// KubeConfigError, CredentialError); this is the one place that maps every error to a documented exit code.
import { ApiError, CredentialError, KubeConfigError } from '../kube/errors.ts';
import { stripControl } from '../lib/redact.ts';

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

/**
 * One line for any error: the user-facing text of ours, or a short description of anything else. oclif's parse
 * errors are several lines ("The following error occurred:", the reasons, "See more help with --help"): their
 * reasons are joined into the line instead.
 */
export function oneLine(err: unknown): string {
  if (!(err instanceof Error)) return String(err);
  const lines = stripControl(err.message)
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^The following errors? occurred:$/.test(l) && l !== 'See more help with --help');
  return lines.reduce((line, next) => (line ? `${line}${line.endsWith(':') ? ' ' : '; '}${next}` : next), '') || err.name;
}

export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof UserError) return err.exitCode;
  if (err instanceof KubeConfigError) return ExitCode.usage;
  if (err instanceof CredentialError) return err.timeout ? ExitCode.timeout : ExitCode.cluster;
  if (err instanceof ApiError) return err.kind === 'NotFound' || err.kind === 'Invalid' ? ExitCode.usage : err.kind === 'Timeout' ? ExitCode.timeout : ExitCode.cluster;
  return ExitCode.failed;
}

/** Errors this CLI expects and explains in one line (anything else is a bug: it asks for --debug). */
export function isKnownError(err: unknown): boolean {
  return err instanceof UserError || err instanceof ApiError || err instanceof KubeConfigError || err instanceof CredentialError;
}

/** A hint printed after the error line (an exec plugin's installHint). */
export function hintOf(err: unknown): string | undefined {
  return err instanceof CredentialError ? err.hint : undefined;
}
