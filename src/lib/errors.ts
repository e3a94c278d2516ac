// The exit codes every command documents, and the user-fixable error that carries one. A leaf: the CLI maps every
// error to an exit code (src/cli/errors.ts); services throw UserError where a user can fix the cause.
import { stripControl } from './redact.ts';

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

/**
 * A value the user typed, as an error message quotes it: at most 64 characters and one line, so an error never
 * repeats a whole input (a manifest piped where a name was expected may hold a Secret).
 */
export function shownInput(text: string): string {
  const line = text.replace(/\s+/g, ' ');
  return line.length > 64 ? `${line.slice(0, 63)}…` : line;
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
  return (
    lines.reduce((line, next) => (line ? `${line}${line.endsWith(':') ? ' ' : '; '}${next}` : next), '') || err.name
  );
}
