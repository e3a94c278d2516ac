import { Command, Config, Errors, type Interfaces } from '@oclif/core';
import { KubeClient } from '../kube/client.ts';
import { connect } from '../kube/config.ts';
import { namespaceNameProblem } from '../kube/resources.ts';
import { redact, redactDeep } from '../lib/redact.ts';
import { parseDuration } from './duration.ts';
import { exitCodeOf, hintOf, isKnownError } from './errors.ts';
import { ExitCode, oneLine, UserError } from '../lib/errors.ts';
import { kubeFlags, type KubeFlags } from './flags.ts';
import { colorEnabled, painter, type Painter } from '../ui/style.ts';

/**
 * KUBECTL_HAPTIC_PAGE_SIZE: objects per list page instead of 500 (kubectl's --chunk-size default). The end-to-end
 * tests set a small one to see lists span several pages on a small cluster; it is read here only.
 */
function pageSizeFromEnv(fallback: number): number {
  const text = process.env.KUBECTL_HAPTIC_PAGE_SIZE;
  if (text === undefined || text === '') return fallback;
  if (!/^[1-9]\d{0,5}$/.test(text))
    throw new UserError('KUBECTL_HAPTIC_PAGE_SIZE is not a whole number of objects per list page (1 to 999999)');
  return Number(text);
}

/** The keys of a GateRecord whose pod templates the text view dumps as YAML (ui/gate-text.ts). */
const TEMPLATES: ReadonlySet<string> = new Set(['templateBefore', 'templateAfter']);

/**
 * Base of every command: connection from kubectl-style flags, and errors as one line with a documented exit code.
 * Everything it prints of an error goes through redact() (no secret, no terminal control sequence), and commands
 * hand what they render through safe() first: the boundary of the rule in docs/security.md.
 */
export abstract class KubeCommand extends Command {
  static override baseFlags = kubeFlags;
  private debugErrors = false;

  /**
   * oclif's Command.run, except that a Config already loaded (src/cli/run.ts loads one; Config#runCommand hands it
   * over) is the command's as it is. oclif's own run loads a second Config from it: the plugins and every command's
   * permutations again, and the user's help theme, read with node:fs/promises, which a command never draws in; 4–5
   * ms of every start. Given anything else (a folder, oclif's load options), oclif's run.
   */
  static override async run<T extends Command>(
    this: new (
      argv: string[],
      config: Config,
    ) => T,
    argv: string[] = process.argv.slice(2),
    opts?: Interfaces.LoadOptions,
  ): Promise<ReturnType<T['run']>> {
    // biome-ignore lint/complexity/noThisInStatic: oclif's run is that of the class it is called on, as here
    if (!(opts instanceof Config)) return super.run(argv, opts) as Promise<ReturnType<T['run']>>;
    const command = new this(argv, opts) as T & { _run(): Promise<ReturnType<T['run']>> };
    return command._run();
  }

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
    if (problem)
      throw new UserError(`invalid namespace "${connection.namespace}" (${connection.namespaceSource}): ${problem}`);
    const client = new KubeClient(connection);
    client.pageSize = pageSizeFromEnv(client.pageSize);
    return client;
  }

  /**
   * Data from the API server or a file, made safe to render: redact() over every string. Rendered as text (`output`,
   * the -o format, undefined), every string is kept on one line too, so a name or message holding a newline
   * cannot forge a line; JSON and YAML escape newlines themselves and keep the value as it is. A gate record's pod
   * templates keep theirs in text too: the text view dumps them as YAML.
   */
  protected safe<T>(data: T, output?: string): T {
    return redactDeep(data, {
      oneLine: output === undefined,
      linesKeptUnder: TEMPLATES,
    });
  }

  /** Text of several lines this command rendered itself (a YAML dump, which quotes every value): redact() only. */
  protected safeLines(rendered: string): string {
    return redact(rendered);
  }

  /** A line on stderr about what the command had to leave out, as kubectl prints a warning. */
  protected note(line: string): void {
    process.stderr.write(`Warning: ${this.safe(line)}\n`);
  }

  /** Colours for stdout: --no-color, FORCE_COLOR, NO_COLOR, a terminal (ui/style.ts). */
  protected paint(flags: Pick<KubeFlags, 'no-color'>): Painter {
    return painter(colorEnabled(flags['no-color']));
  }

  /** Ends the command with this code (0 returns normally). */
  protected finish(code: ExitCode): void {
    if (code !== ExitCode.ok) this.exit(code);
  }

  /** As kubectl (cobra) says a flag it does not know, with the closest one when there is one. */
  private async unknownFlags(flags: string[]): Promise<void> {
    const { suggestionsFor } = await import('../lib/suggest.ts');
    const known = Object.entries(this.ctor.flags ?? {})
      .filter(([, f]) => !f.hidden)
      .map(([name]) => name);
    for (const typed of flags) {
      const bare = typed.replace(/^-+/, '').replace(/=.*$/s, '');
      const what = /^-[^-]/.test(typed)
        ? `unknown shorthand flag: '${bare[0] ?? ''}' in ${typed}`
        : `unknown flag: ${typed}`;
      process.stderr.write(`error: ${redact(JSON.stringify(what).slice(1, -1))}\n`);
      const close = suggestionsFor(bare, known);
      if (close.length) process.stderr.write(`Did you mean ${close.map((c) => `--${c}`).join(' or ')}?\n`);
    }
    process.stderr.write(`See 'kubectl haptic ${this.id ?? ''} --help' for usage.\n`);
  }

  protected override async catch(err: Error): Promise<unknown> {
    if (err instanceof Errors.ExitError) throw err;
    const known = isKnownError(err);
    const parseFailure = !known && err instanceof Errors.CLIError;
    const unknownFlags = parseFailure ? (err as { flags?: unknown }).flags : undefined;
    if (Array.isArray(unknownFlags) && unknownFlags.every((f) => typeof f === 'string')) {
      await this.unknownFlags(unknownFlags);
      if (this.debugErrors || process.argv.includes('--debug')) process.stderr.write(`${redact(err.stack ?? '')}\n`);
      this.exit(ExitCode.usage);
    }
    process.stderr.write(`error: ${redact(oneLine(err))}\n`);
    const hint = hintOf(err);
    if (hint) process.stderr.write(`${redact(hint)}\n`);
    if (this.debugErrors || process.argv.includes('--debug')) process.stderr.write(`${redact(err.stack ?? '')}\n`);
    else if (!known && !parseFailure)
      process.stderr.write('(unexpected error: rerun with --debug for the stack trace and report it)\n');
    this.exit(parseFailure ? ExitCode.usage : exitCodeOf(err));
  }
}
