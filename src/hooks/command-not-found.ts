import type { Hook } from '@oclif/core';
import { ExitCode } from '../cli/errors.ts';
import { redact } from '../lib/redact.ts';

/** `kubectl haptic nope`: one line like kubectl's, and the usage exit code. */
const hook: Hook.CommandNotFound = async function ({ id }) {
  process.stderr.write(`error: unknown command "${redact(id)}" for "kubectl haptic"; see kubectl haptic --help\n`);
  this.exit(ExitCode.usage);
};

export default hook;
