import { Args, Flags } from '@oclif/core';
import { KubeCommand, outputFlag } from './base-command.ts';
import { ExitCode, UserError } from './kube/errors.ts';
import { GATE_CONDITION } from './haptic/names.ts';
import type { GateAction } from './model/gate-plan.ts';
import { applyGate, gateExitCode, type DryRun, type GateRecord } from './services/gate.ts';
import { deploymentNames, resolveDeployments } from './services/targets.ts';
import { waitForRollouts } from './services/wait.ts';
import { parseDuration } from './kube/duration.ts';
import { gateText } from './ui/gate-text.ts';
import { formatStructured } from './ui/output.ts';
import { colorEnabled, painter } from './ui/style.ts';

export const gateArgs = { targets: Args.string({ description: 'Deployments: NAME or deployment/NAME (several allowed).', required: false }) };

export const gateFlags = {
  selector: Flags.string({ char: 'l', summary: 'Label selector for the Deployments to act on (e.g. app=web,tier!=db).' }),
  all: Flags.boolean({ summary: 'Act on every Deployment in the namespace.' }),
  'condition-type': Flags.string({ summary: 'Readiness gate condition type.', default: GATE_CONDITION }),
  'dry-run': Flags.string({
    summary: 'client: print the patch and the pod template before/after; server: let the API server validate the patch. Neither writes.',
    options: ['none', 'client', 'server'],
    default: 'none',
  }),
  output: outputFlag,
  wait: Flags.boolean({ summary: 'After the write, follow the rollout it started until it completes (as status --wait).' }),
  timeout: Flags.string({ summary: 'With --wait: give up after this long (e.g. 5m; 0 = no limit).', default: '0' }),
};

/** The body shared by enable-gate and disable-gate: parse, apply, print, exit non-zero if any target failed or was refused. */
export abstract class GateCommand extends KubeCommand {
  protected abstract readonly action: GateAction;

  protected async runGate(force: boolean, flags: Parameters<KubeCommand['client']>[0] & { selector?: string | undefined; all: boolean; 'condition-type': string; 'dry-run': string; output?: string | undefined; wait: boolean; timeout: string }, argv: string[]): Promise<GateRecord[]> {
    const names = deploymentNames(argv);
    const timeoutMs = parseDuration(flags.timeout, '--timeout');
    if (flags.wait && flags.output) throw new UserError('--wait prints transitions as text; it does not go with -o');
    const client = this.client(flags);
    const records = await applyGate(client, {
      namespace: client.connection.namespace,
      names,
      selector: flags.selector,
      all: flags.all,
      action: this.action,
      conditionType: flags['condition-type'],
      dryRun: flags['dry-run'] as DryRun,
      force,
    });
    const output = flags.output as 'json' | 'yaml' | undefined;
    if (output) {
      const items = records.map(({ templateBefore: _b, templateAfter: _a, errorExitCode: _c, ...rest }) => rest);
      process.stdout.write(formatStructured({ apiVersion: 'kubectl-haptic/v1', kind: 'GateResultList', items }, output));
    } else {
      process.stdout.write(gateText(records, painter(colorEnabled(flags['no-color']))));
    }
    const code = gateExitCode(records);
    if (code !== ExitCode.ok) this.exit(code);
    const started = records.filter((r) => r.dryRun === 'none' && (r.result === 'added' || r.result === 'removed'));
    if (flags.wait && started.length) {
      const deployments = await resolveDeployments(client, { namespace: client.connection.namespace, names: started.map((r) => r.name) });
      const waited = await waitForRollouts(client, deployments, { conditionType: flags['condition-type'], drained: false, timeoutMs, log: (line) => process.stdout.write(`${line}\n`) });
      if (waited !== ExitCode.ok) this.exit(waited);
    }
    return records;
  }
}
