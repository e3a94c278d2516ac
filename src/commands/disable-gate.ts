import { GATE_EXIT_CODES_HELP, gateArgs, gateFlags } from '../cli/flags.ts';
import { GateCommand } from '../cli/gate-command.ts';

export default class DisableGate extends GateCommand {
  static override summary =
    "Remove HAPTIC's readiness gate from Deployments, StatefulSets, DaemonSets and Argo Rollouts.";
  static override description = `\
Removes only the readinessGates entry of the HAPTIC condition type (other gates stay), and the readinessGates \
field when it becomes empty. A workload without the gate is left alone (no write).

Removing the gate changes the pod template, so it starts a rollout.

${GATE_EXIT_CODES_HELP}`;
  static override examples = [
    { description: 'Preview the change', command: 'kubectl haptic disable-gate web -n shop --dry-run=client' },
    {
      description: 'Remove the gate from every Deployment, StatefulSet and DaemonSet in the namespace',
      command: 'kubectl haptic disable-gate --all -n shop',
    },
  ];
  static override args = gateArgs;
  // several workloads: NAME NAME deployment/NAME statefulset/NAME …
  static override strict = false;
  static override flags = gateFlags;
  protected readonly action = 'disable' as const;

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(DisableGate);
    await this.runGate(false, flags, argv as string[]);
  }
}
