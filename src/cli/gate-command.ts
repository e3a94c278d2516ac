import { KubeCommand } from './base-command.ts';
import { parseDuration } from './duration.ts';
import { UserError } from '../lib/errors.ts';
import { type KubeFlags, parsePatience } from './flags.ts';
import { printWaitEnd } from './wait-end.ts';
import { gateExitCode, waitExitCode } from './outcomes.ts';
import { applyGate } from '../services/gate.ts';
import type { DryRun, GateAction, GateRecord } from '../model/gate-plan.ts';
import { waitStatus } from '../services/status.ts';
import { targetNames } from '../services/targets.ts';
import { gateOutput, gateText } from '../ui/gate-text.ts';
import { formatStructured } from '../ui/output.ts';
import { waitLines } from '../ui/wait-text.ts';

export type GateFlags = KubeFlags & {
  selector?: string | undefined;
  all: boolean;
  'condition-type': string;
  'dry-run': DryRun;
  output?: 'json' | 'yaml' | undefined;
  wait: boolean;
  timeout: string;
  'fail-fast': boolean;
  patience: string;
};

/** The body shared by enable-gate and disable-gate: parse, apply, print, exit non-zero if any target failed or was refused. */
export abstract class GateCommand extends KubeCommand {
  protected abstract readonly action: GateAction;

  protected async runGate(force: boolean, flags: GateFlags, argv: string[]): Promise<GateRecord[]> {
    const names = targetNames(argv);
    const timeoutMs = parseDuration(flags.timeout, '--timeout');
    const patience = parsePatience(flags.patience);
    if (flags.wait && flags.output) throw new UserError('--wait prints transitions as text; it does not go with -o');
    const client = this.client(flags);
    const records = this.safe(
      await applyGate(client, {
        namespace: client.connection.namespace,
        names,
        selector: flags.selector,
        all: flags.all,
        action: this.action,
        conditionType: flags['condition-type'],
        dryRun: flags['dry-run'],
        force,
      }),
      flags.output,
    );
    process.stdout.write(
      flags.output ? formatStructured(gateOutput(records), flags.output) : gateText(records, this.paint(flags)),
    );
    const code = gateExitCode(records);
    this.finish(code);
    const started = records.filter((r) => r.dryRun === 'none' && (r.result === 'added' || r.result === 'removed'));
    if (flags.wait && started.length) {
      const result = await waitStatus(
        client,
        { namespace: client.connection.namespace, names: started.map((r) => ({ kind: r.workloadKind, name: r.name })) },
        {
          conditionType: flags['condition-type'],
          drained: false,
          timeoutMs,
          failFast: flags['fail-fast'],
          patience,
          onEntry: (entry) => process.stdout.write(`${waitLines(this.safe(entry)).join('\n')}\n`),
        },
      );
      const { outcome } = result;
      printWaitEnd(this.safe(result), { paint: this.paint(flags), timeoutMs });
      this.finish(waitExitCode(outcome));
    }
    return records;
  }
}
