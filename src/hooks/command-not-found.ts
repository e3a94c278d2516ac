import type { Hook } from '@oclif/core';
import { ExitCode } from '../cli/errors.ts';

/** `kubectl haptic nope`: one line like kubectl's, and the usage exit code. */
const hook: Hook.CommandNotFound = async function ({ id }) {
  process.stderr.write(`error: unknown command "${id}" for "kubectl haptic"; see kubectl haptic --help\n`);
  this.exit(ExitCode.usage);
};

export default hook;
