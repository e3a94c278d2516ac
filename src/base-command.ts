import { Command, Errors, Flags, type Interfaces } from '@oclif/core';
import { KubeClient } from './kube/client.ts';
import { connect } from './kube/config.ts';
import { parseDuration } from './kube/duration.ts';
import { ApiError, exitCodeOf, ExitCode, oneLine, UserError } from './kube/errors.ts';

/** The flags kubectl users type without thinking. kubectl does not pass its global flags to plugins. */
export const kubeFlags = {
  namespace: Flags.string({ char: 'n', summary: 'Namespace to use (default: the current context\'s namespace, else "default").', helpGroup: 'KUBECTL' }),
  context: Flags.string({ summary: 'The kubeconfig context to use.', helpGroup: 'KUBECTL' }),
  kubeconfig: Flags.string({ summary: 'Path to the kubeconfig file (default: $KUBECONFIG, else ~/.kube/config).', helpGroup: 'KUBECTL' }),
  'request-timeout': Flags.string({
    summary: 'How long to wait for one API request before giving up (e.g. 10s, 1m; 0 = no limit).',
    default: '0',
    helpGroup: 'KUBECTL',
  }),
  debug: Flags.boolean({ summary: 'Print stack traces with errors.', helpGroup: 'KUBECTL' }),
  'no-color': Flags.boolean({ summary: 'No colours, even on a terminal (also NO_COLOR=1).', helpGroup: 'KUBECTL' }),
};

export const outputFlag = Flags.string({ char: 'o', summary: 'Output format.', options: ['json', 'yaml'] });

export const EXIT_CODES_HELP =
  'Exit codes: 0 success; 1 rollout failed, stall cause found, or a target refused/failed; 2 timed out; ' +
  '3 usage or input error (bad flag, unknown object); 4 cluster or API error (unreachable, unauthorized, forbidden).';

export type KubeFlags = Interfaces.InferredFlags<typeof kubeFlags>;

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

  protected override async catch(err: Error): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err;
    const known = err instanceof UserError || err instanceof ApiError;
    const parseFailure = !known && err instanceof Errors.CLIError;
    process.stderr.write(`error: ${oneLine(err)}\n`);
    if (this.debugErrors || process.argv.includes('--debug')) process.stderr.write(`${err.stack ?? ''}\n`);
    else if (!known && !parseFailure) process.stderr.write('(unexpected error: rerun with --debug for the stack trace and report it)\n');
    this.exit(parseFailure ? ExitCode.usage : exitCodeOf(err));
  }
}
