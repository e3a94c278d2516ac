// The reference page of every public command, docs/commands/<id>.md, and their index docs/commands/README.md,
// generated from oclif's manifest of src/commands.ts: the one scripts/build.js embeds in the plugin, so a page says
// what `kubectl haptic <id> --help` says. The words live in each command's summary, description, examples and flag
// summaries (src/commands/*.ts, src/cli/flags.ts); a page keeps, below its generated part, what was written there by
// hand. `npm run docs` writes them; a unit test fails when they drift from the commands.
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Command, Interfaces } from '@oclif/core';

const root = fileURLToPath(new URL('..', import.meta.url));
export const COMMANDS_DIR = `${root}docs/commands/`;

/** Ends the generated part of a page; what follows it is written by hand and kept as it is. */
export const HAND_WRITTEN =
  '<!-- end of the generated reference: what follows is written by hand, and npm run docs keeps it -->';

/** oclif's manifest of src/commands.ts, as the build computes and embeds it. */
export async function commandManifest(): Promise<Interfaces.Manifest> {
  // scripts/build.js is plain JavaScript, without type declarations
  const { oclifManifest } = (await import('./build.js' as string)) as {
    oclifManifest: () => Promise<Interfaces.Manifest>;
  };
  return oclifManifest();
}

/** The commands a user sees (`--help` lists them): not the hidden completion back end. */
export function publicCommands(manifest: Interfaces.Manifest): Command.Cached[] {
  return Object.values(manifest.commands).filter((c) => !c.hidden);
}

/** How package.json names the plugin on a command line: `kubectl haptic`. */
function binName(): string {
  return JSON.parse(readFileSync(`${root}package.json`, 'utf8')).oclif.bin as string;
}

/** Text for a markdown paragraph: the characters markdown would take for markup, escaped. */
function prose(text: string): string {
  return text.replace(/[\\`*_<>[\]]/g, (c) => `\\${c}`);
}

/** Text for a markdown table cell. */
function cell(text: string): string {
  return prose(text).replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/** A code span for a table cell (a `|` escaped, as GitHub's tables need inside code too). */
function code(text: string): string {
  return `\`${text.replace(/\|/g, '\\|')}\``;
}

/** The usage line: the command, its arguments, flags. */
function usage(bin: string, command: Command.Cached): string {
  return [bin, command.id, ...Object.values(command.args).map((a) => argName(command, a)), '[flags]'].join(' ');
}

/** An argument as oclif's help names it: NAME when required, [NAME] when not, NAME... when several are taken. */
function argName(command: Command.Cached, arg: Command.Arg.Cached): string {
  const name = `${arg.name.toUpperCase()}${command.strict === false ? '...' : ''}`;
  return arg.required ? name : `[${name}]`;
}

/**
 * The description's paragraphs as markdown: lines indented in the description (lists, as --help prints them) become
 * a text block, the others prose.
 */
function descriptionMarkdown(paragraphs: string[]): string[] {
  const out: string[] = [];
  for (const paragraph of paragraphs) {
    const runs: { indented: boolean; lines: string[] }[] = [];
    for (const line of paragraph.split('\n')) {
      const indented = /^\s/.test(line);
      const last = runs.at(-1);
      if (last?.indented === indented) last.lines.push(line);
      else runs.push({ indented, lines: [line] });
    }
    for (const run of runs)
      out.push(
        run.indented
          ? ['```text', ...run.lines.map((l) => l.replace(/^ {2}/, '')), '```'].join('\n')
          : run.lines.map(prose).join('\n'),
      );
  }
  return out;
}

/** The "Exit codes:" paragraph of a description as a table: one `<code> <meaning>` line each. */
function exitCodes(paragraph: string | undefined, id: string): string[] {
  if (!paragraph) throw new Error(`${id}: its description has no "Exit codes:" paragraph`);
  const rows = paragraph
    .split('\n')
    .slice(1)
    .map((line) => {
      const match = /^\s+(\d+)\s+(\S.*)$/.exec(line);
      if (!match) throw new Error(`${id}: "${line}" is not an exit code line ("  <code>  <meaning>")`);
      return `| ${match[1]} | ${cell(match[2]!)} |`;
    });
  return ['| code | meaning |', '|---|---|', ...rows];
}

function flagTable(flags: Command.Flag.Cached[]): string[] {
  const rows = flags.map((f) => {
    const name = [f.char ? code(`-${f.char}`) : undefined, code(`--${f.name}`)].filter(Boolean).join(', ');
    const value = f.type === 'option' ? (f.options?.length ? f.options.map(code).join(', ') : 'value') : '';
    const fallback = f.type === 'option' && f.default !== undefined ? code(String(f.default)) : '';
    const summary = [f.summary ?? f.description ?? '', f.type === 'option' && f.multiple ? '(repeatable)' : '']
      .filter(Boolean)
      .join(' ');
    return `| ${name} | ${value} | ${fallback} | ${cell(summary)} |`;
  });
  return ['| flag | value | default | meaning |', '|---|---|---|---|', ...rows];
}

/** The generated part of a command's page. */
export function commandReference(command: Command.Cached, bin = binName()): string {
  const paragraphs = (command.description ?? '').split(/\n{2,}/).filter((p) => p.trim());
  const exit = paragraphs.find((p) => p.startsWith('Exit codes:'));
  const flags = Object.values(command.flags).filter((f) => !f.hidden);
  const own = flags.filter((f) => f.helpGroup === undefined);
  const shared = flags.filter((f) => f.helpGroup !== undefined);
  const args = Object.values(command.args);
  const lines = [
    `# ${bin} ${command.id}`,
    '',
    `<!-- generated by \`npm run docs\` from oclif's manifest of src/commands.ts: edit the command's summary, description, examples and flags there -->`,
    '',
    prose(command.summary ?? ''),
    '',
    '```text',
    usage(bin, command),
    '```',
    '',
    '## Description',
    '',
    descriptionMarkdown(paragraphs.filter((p) => p !== exit)).join('\n\n'),
  ];
  if (args.length) {
    lines.push('', '## Arguments', '', '| argument | meaning |', '|---|---|');
    for (const a of args) lines.push(`| ${code(argName(command, a))} | ${cell(a.description ?? '')} |`);
  }
  if (own.length) lines.push('', '## Flags', '', ...flagTable(own));
  if (shared.length)
    lines.push(
      '',
      '## Flags every command takes',
      '',
      'As kubectl reads them: [Connecting to a cluster](../kubeconfig.md).',
      '',
      ...flagTable(shared),
    );
  const examples = command.examples ?? [];
  if (examples.length) {
    lines.push('', '## Examples');
    for (const e of examples) {
      const { description, command: line } = typeof e === 'string' ? { description: '', command: e } : e;
      if (description) lines.push('', `${prose(description)}:`);
      lines.push('', '```bash', line.replace(/<%= config\.bin %>/g, bin), '```');
    }
  }
  lines.push('', '## Exit codes', '', ...exitCodes(exit, command.id));
  return `${lines.join('\n')}\n`;
}

/** A command's whole page: the generated reference, then what `existing` (the page as it is) holds by hand. */
export function commandPage(command: Command.Cached, existing: string | undefined, bin = binName()): string {
  const at = existing?.indexOf(HAND_WRITTEN) ?? -1;
  const byHand = existing !== undefined && at >= 0 ? existing.slice(at + HAND_WRITTEN.length) : '\n';
  return `${commandReference(command, bin)}\n${HAND_WRITTEN}${byHand}`;
}

/** docs/commands/README.md: every public command with its summary, linked to its page. */
export function commandIndex(commands: Command.Cached[], bin = binName()): string {
  return [
    '# Commands',
    '',
    "<!-- generated by `npm run docs` from oclif's manifest of src/commands.ts -->",
    '',
    `Every command of \`${bin}\`, with what \`${bin} <command> --help\` prints: usage, description, arguments, flags,`,
    'examples and exit codes.',
    '',
    '| command | what it does |',
    '|---|---|',
    ...commands.map((c) => `| [${bin} ${c.id}](${c.id}.md) | ${cell(c.summary ?? '')} |`),
    '',
  ].join('\n');
}

/** Every file of docs/commands/ as it should be, by name. */
export function commandDocs(
  manifest: Interfaces.Manifest,
  read: (name: string) => string | undefined,
): Map<string, string> {
  const bin = binName();
  const commands = publicCommands(manifest);
  const files = new Map([['README.md', commandIndex(commands, bin)]]);
  for (const c of commands) files.set(`${c.id}.md`, commandPage(c, read(`${c.id}.md`), bin));
  return files;
}

/** A file of docs/commands/, or undefined. */
export function readCommandDoc(name: string): string | undefined {
  const file = `${COMMANDS_DIR}${name}`;
  return existsSync(file) ? readFileSync(file, 'utf8') : undefined;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  let files: Map<string, string>;
  try {
    files = commandDocs(await commandManifest(), readCommandDoc);
  } catch (error) {
    // a command whose help the pages cannot be made from: say which, in one line
    process.stderr.write(`error: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  }
  mkdirSync(COMMANDS_DIR, { recursive: true });
  // a page of a command that is gone goes too
  for (const name of readdirSync(COMMANDS_DIR))
    if (name.endsWith('.md') && !files.has(name)) rmSync(`${COMMANDS_DIR}${name}`);
  for (const [name, text] of files) writeFileSync(`${COMMANDS_DIR}${name}`, text);
  console.log(`wrote docs/commands/ (${[...files.keys()].join(', ')})`);
}
