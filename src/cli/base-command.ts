import { Command, Errors } from '@oclif/core';
import { KubeClient } from '../kube/client.ts';
import { connect } from '../kube/config.ts';
import { namespaceNameProblem } from '../kube/resources.ts';
import { redact, redactDeep } from '../lib/redact.ts';
import { parseDuration } from './duration.ts';
import { exitCodeOf, ExitCode, hintOf, isKnownError, oneLine, UserError } from './errors.ts';
import { kubeFlags, type KubeFlags } from './flags.ts';

/**
 * Base of every command: connection from kubectl-style flags, and errors as one line with a documented exit code.
 * Everything it prints of an error goes through redact() (no secret, no terminal control sequence), and commands
 * hand what they render through safe() first: the boundary of the rule in README "Secrets and hostile input".
 */
export abstract class KubeCommand extends Command {
  static override baseFlags = kubeFlags;
  private debugErrors = false;

  protected client(flags: KubeFlags): KubeClient {
    this.debugErrors = flags.debug;
    const connection = connect({
      kubeconfig: flags.kubeconfig,
      context: flags.context,
      namespace: flags.namespace,
      requestTimeoutMs: parseDuration(flags['request-timeout'], '--request-timeout'),
    });
    // the API server would refuse it, and "." or ".." would address another URL: refuse it before any request
    const problem = namespaceNameProblem(connection.namespace);
    if (problem) throw new UserError(`invalid namespace "${connection.namespace}" (${connection.namespaceSource}): ${problem}`);
    return new KubeClient(connection);
  }

  /** Data from the API server or a file, made safe to render: redact() over every string. */
  protected safe<T>(data: T): T {
    return redactDeep(data);
  }

  /** Ends the command with this code (0 returns normally). */
  protected finish(code: ExitCode): void {
    if (code !== ExitCode.ok) this.exit(code);
  }

  protected override async catch(err: Error): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err;
    const known = isKnownError(err);
    const parseFailure = !known && err instanceof Errors.CLIError;
    process.stderr.write(`error: ${redact(oneLine(err))}\n`);
    const hint = hintOf(err);
    if (hint) process.stderr.write(`${redact(hint)}\n`);
    if (this.debugErrors || process.argv.includes('--debug')) process.stderr.write(`${redact(err.stack ?? '')}\n`);
    else if (!known && !parseFailure) process.stderr.write('(unexpected error: rerun with --debug for the stack trace and report it)\n');
    this.exit(parseFailure ? ExitCode.usage : exitCodeOf(err));
  }
}
