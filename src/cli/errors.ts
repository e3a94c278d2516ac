// The one place that maps every error to a documented exit code (src/lib/errors.ts). Lower layers throw typed errors
// of their own (ApiError, KubeConfigError, CredentialError, UserError).
import { ApiError, CredentialError, KubeConfigError } from '../kube/errors.ts';
import { ExitCode, UserError } from '../lib/errors.ts';

export function exitCodeOf(err: unknown): ExitCode {
  if (err instanceof UserError) return err.exitCode;
  if (err instanceof KubeConfigError) return ExitCode.usage;
  if (err instanceof CredentialError) return err.timeout ? ExitCode.timeout : ExitCode.cluster;
  if (err instanceof ApiError)
    return err.kind === 'NotFound' || err.kind === 'Invalid'
      ? ExitCode.usage
      : err.kind === 'Timeout'
        ? ExitCode.timeout
        : ExitCode.cluster;
  return ExitCode.failed;
}

/** Errors this CLI expects and explains in one line (anything else is a bug: it asks for --debug). */
export function isKnownError(err: unknown): boolean {
  return (
    err instanceof UserError ||
    err instanceof ApiError ||
    err instanceof KubeConfigError ||
    err instanceof CredentialError
  );
}

/** A hint printed after the error line (an exec plugin's installHint). */
export function hintOf(err: unknown): string | undefined {
  return err instanceof CredentialError ? err.hint : undefined;
}
