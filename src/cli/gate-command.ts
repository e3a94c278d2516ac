import { KubeCommand } from './base-command.ts';
import { parseDuration } from './duration.ts';
import { ExitCode, UserError } from './errors.ts';
import type { KubeFlags } from './flags.ts';
import { gateExitCode, waitExitCode } from './outcomes.ts';
import type { GateAction } from '../model/gate-plan.ts';
import { applyGate, type DryRun, type GateRecord } from '../services/gate.ts';
import { deploymentNames, resolveDeployments } from '../services/targets.ts';
import { waitForRollouts } from '../services/wait.ts';
import { gateOutput, gateText } from '../ui/gate-text.ts';
import { formatStructured } from '../ui/output.ts';
import { colorEnabled, painter } from '../ui/style.ts';
import { reportText } from '../ui/report-text.ts';
import { waitLines } from '../ui/wait-text.ts';

export type GateFlags = KubeFlags & {
  selector?: string | undefined;
  all: boolean;
  'condition-type': string;
  'dry-run': string;
  output?: string | undefined;
  wait: boolean;
  timeout: string;
};

/** The body shared by enable-gate and disable-gate: parse, apply, print, exit non-zero if any target failed or was refused. */
export abstract class GateCommand extends KubeCommand {
  protected abstract readonly action: GateAction;

  protected async runGate(force: boolean, flags: GateFlags, argv: string[]): Promise<GateRecord[]> {
    const names = deploymentNames(argv);
    const timeoutMs = parseDuration(flags.timeout, '--timeout');
    if (flags.wait && flags.output) throw new UserError('--wait prints transitions as text; it does not go with -o');
    const client = this.client(flags);
    const records = this.safe(await applyGate(client, {
      namespace: client.connection.namespace,
      names,
      selector: flags.selector,
      all: flags.all,
      action: this.action,
      conditionType: flags['condition-type'],
      dryRun: flags['dry-run'] as DryRun,
      force,
    }));
    const output = flags.output as 'json' | 'yaml' | undefined;
    process.stdout.write(output ? formatStructured(gateOutput(records), output) : gateText(records, painter(colorEnabled(flags['no-color']))));
    const code = gateExitCode(records);
    this.finish(code);
    const started = records.filter((r) => r.dryRun === 'none' && (r.result === 'added' || r.result === 'removed'));
    if (flags.wait && started.length) {
      const deployments = await resolveDeployments(client, { namespace: client.connection.namespace, names: started.map((r) => r.name) });
      const { outcome, reports } = await waitForRollouts(client, deployments, {
        conditionType: flags['condition-type'],
        drained: false,
        timeoutMs,
        onEntry: (entry) => process.stdout.write(`${waitLines(this.safe(entry)).join('\n')}\n`),
      });
      const paint = painter(colorEnabled(flags['no-color']));
      for (const report of this.safe(reports)) process.stdout.write(`\n${reportText(report, paint)}`);
      this.finish(waitExitCode(outcome));
    }
    return records;
  }
}
