// Starts oclif from what the build embedded: package.json's oclif settings and oclif's manifest of every command
// (ids, flags, args, help texts), so neither a package directory nor a command module is read before a command
// runs. The single executable has no package directory at all; the npm bundle starts the same way.
import { arch, platform } from 'node:os';
import type { Command, Config, Interfaces, Plugin } from '@oclif/core';
import { redact } from '../lib/redact.ts';
import { ExitCode } from '../lib/errors.ts';
import { compareText } from '../lib/order.ts';

export interface Embedded {
  /** package.json's name, version and oclif settings */
  pjson: Interfaces.PJSON;
  /** oclif's manifest of the command table, as `oclif manifest` writes it */
  manifest: Interfaces.Manifest;
  /** where the plugin runs from: the package's folder, or the executable's */
  root: string;
  /** loads the class of one command */
  load(id: string): Promise<Command.Class>;
}

/** oclif, loaded when needed (a CommonJS module: its exports are the import's default). */
async function oclif(): Promise<typeof import('@oclif/core')> {
  return (await import('@oclif/core')).default;
}

/** oclif's root plugin, filled in from the embedded manifest instead of reading package.json and command modules. */
export async function embeddedPlugin(embedded: Embedded): Promise<Plugin> {
  const { Plugin } = await oclif();
  const { pjson, manifest, root } = embedded;
  const plugin = new Plugin({ root, pjson, isRoot: true, type: 'core' });
  const load = async (id: string): Promise<Command.Class> => {
    const command = await embedded.load(id);
    command.id = id;
    command.plugin = plugin;
    return command;
  };
  Object.assign(plugin, {
    name: pjson.name,
    alias: pjson.name,
    version: pjson.version,
    pjson,
    root,
    type: 'core',
    isRoot: true,
    valid: true,
    hooks: {},
    moduleType: 'module',
    manifest,
    hasManifest: true,
    commandIDs: Object.keys(manifest.commands),
    commands: Object.entries(manifest.commands)
      .map(([id, cached]) => ({ ...cached, pluginAlias: pjson.name, pluginType: 'core', load: () => load(id) }))
      .sort((a, b) => compareText(a.id, b.id)),
  });
  return plugin;
}

/**
 * oclif's `execute()` for the embedded plugin: --version, --help, the command, and oclif's handling of its errors.
 * --version answers before oclif loads (it is a third of a start), with the line oclif would print.
 */
export async function run(embedded: Embedded, argv = process.argv.slice(2)): Promise<void> {
  if (argv[0] === '--version') {
    process.stdout.write(`${await userAgent(embedded.pjson)}\n`);
    return;
  }
  const { Config, Errors, flush } = await oclif();
  try {
    const plugin = await embeddedPlugin(embedded);
    const help = wantsHelp(embedded.pjson, argv);
    // Config.load, but help alone is drawn in oclif's theme: a command does not read the user's theme.json (nor load
    // node:fs/promises to read it) on every start
    const config = new Config({
      root: embedded.root,
      pjson: embedded.pjson,
      plugins: new Map([[plugin.name, plugin]]),
    });
    if (!help) config.loadTheme = () => Promise.resolve(undefined);
    await config.load();
    await dispatch(config, argv, help);
    await flush();
  } catch (error) {
    await Errors.handle(error instanceof Error ? error : new Error(String(error)));
  }
}

/** oclif's Config#userAgent, which --version prints: `kubectl-haptic/0.1.0 linux-x64 node-v26.10.0`. */
export async function userAgent(pjson: Pick<Interfaces.PJSON, 'name' | 'version'>): Promise<string> {
  const { isWsl } = await import('wsl-utils');
  return `${pjson.name}/${pjson.version} ${isWsl ? 'wsl' : platform()}-${arch() === 'ia32' ? 'x86' : arch()} node-${process.version}`;
}

/** No arguments, or a help flag before `--`: oclif's help, not a command. */
function wantsHelp(pjson: Interfaces.PJSON, argv: string[]): boolean {
  const helpFlags = ['--help', ...(pjson.oclif.additionalHelpFlags ?? [])];
  const end = argv.indexOf('--');
  const beforeEnd = end === -1 ? argv : argv.slice(0, end);
  return argv.length === 0 || beforeEnd.some((a) => helpFlags.includes(a));
}

/** As oclif's main (after --version): help, then the command; an unknown command is a usage error like kubectl's. */
async function dispatch(config: Config, argv: string[], help: boolean): Promise<void> {
  const { Errors } = await oclif();
  const { loadHelpClass, normalizeArgv } = (await import('@oclif/core/help')).default;
  if (help) {
    const Help = await loadHelpClass(config);
    await new Help(config, config.pjson.oclif.helpOptions).showHelp(argv);
    return;
  }
  const [id = '', ...rest] = normalizeArgv(config, argv);
  const command = config.findCommand(id);
  if (!command) {
    // the word typed, not oclif's id (which joins the next argument: "stauts:web"), quoted as Go's %q; kubectl's
    // did-you-mean (cobra's command.go)
    const typed = argv[0] ?? id;
    const { suggestionsFor } = await import('../lib/suggest.ts');
    const visible = config.commands.filter((c) => !c.hidden).map((c) => c.id);
    const close = suggestionsFor(typed, visible);
    process.stderr.write(
      `error: unknown command ${JSON.stringify(redact(typed))} for "kubectl haptic"${close.length ? `\n\nDid you mean this?\n${close.map((c) => `\t${c}\n`).join('')}` : ''}\nRun 'kubectl haptic --help' for usage.\n`,
    );
    if (argv.includes('--debug')) process.stderr.write(`${new Error('unknown command').stack ?? ''}\n`);
    Errors.exit(ExitCode.usage);
  }
  await config.runCommand(id, rest, command);
}
