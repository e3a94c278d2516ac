import { Command, Errors } from '@oclif/core';
import { KubeClient } from '../kube/client.ts';
import { connect } from '../kube/config.ts';
import { parseDuration } from './duration.ts';
import { exitCodeOf, ExitCode, isKnownError, oneLine } from './errors.ts';
import { kubeFlags, type KubeFlags } from './flags.ts';

/** Base of every command: connection from kubectl-style flags, and errors as one line with a documented exit code. */
export abstract class KubeCommand extends Command {
  static override baseFlags = kubeFlags;
  private debugErrors = false;

  protected client(flags: KubeFlags): KubeClient {
    this.debugErrors = flags.debug;
    return new KubeClient(
      connect({
        kubeconfig: flags.kubeconfig,
        context: flags.context,
        namespace: flags.namespace,
        requestTimeoutMs: parseDuration(flags['request-timeout'], '--request-timeout'),
      }),
    );
  }

  /** Ends the command with this code (0 returns normally). */
  protected finish(code: ExitCode): void {
    if (code !== ExitCode.ok) this.exit(code);
  }

  protected override async catch(err: Error): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err;
    const known = isKnownError(err);
    const parseFailure = !known && err instanceof Errors.CLIError;
    process.stderr.write(`error: ${oneLine(err)}\n`);
    if (this.debugErrors || process.argv.includes('--debug')) process.stderr.write(`${err.stack ?? ''}\n`);
    else if (!known && !parseFailure) process.stderr.write('(unexpected error: rerun with --debug for the stack trace and report it)\n');
    this.exit(parseFailure ? ExitCode.usage : exitCodeOf(err));
  }
}
