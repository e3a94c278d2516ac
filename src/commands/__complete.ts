import { Command } from '@oclif/core';
import type { CommandSpec } from '../services/completion/protocol.ts';
import { completeWords } from '../services/completion/complete.ts';
import { redact } from '../lib/redact.ts';

/** Hidden: answers kubectl's plugin completion (bin/kubectl_complete-haptic). Never fails loudly: a shell is waiting. */
export default class CompleteCommand extends Command {
  static override hidden = true;
  static override strict = false;
  static override summary = 'Shell completion back end for kubectl_complete-haptic.';

  async run(): Promise<void> {
    const specs: CommandSpec[] = this.config.commands.map((c) => ({
      id: c.id,
      summary: c.summary,
      takesWorkloads: Object.keys(c.args).length > 0,
      flags: Object.values(c.flags).map((f) => ({
        name: f.name,
        char: f.char,
        takesValue: f.type === 'option',
        options: f.type === 'option' ? f.options : undefined,
        summary: f.summary,
      })),
    }));
    const result = await completeWords(this.argv.length ? this.argv : [''], specs);
    process.stdout.write(`${[...result.candidates.map(redact), `:${result.directive}`].join('\n')}\n`);
  }
}
