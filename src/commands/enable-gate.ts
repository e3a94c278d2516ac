import { Flags } from '@oclif/core';
import { GATE_EXIT_CODES_HELP, gateArgs, gateFlags } from '../cli/flags.ts';
import { GateCommand } from '../cli/gate-command.ts';

export default class EnableGate extends GateCommand {
  static override summary =
    "Add HAPTIC's readiness gate to Deployments, StatefulSets, DaemonSets and Argo Rollouts, after checking their pods could become Ready.";
  static override description = `\
Adds {conditionType: haproxy-haptic.org/load-balancer-ready} to spec.template.spec.readinessGates, keeping every \
other gate and field, of Deployments, StatefulSets, DaemonSets and Argo Rollouts alike (a Rollout whose spec.workloadRef \
names a Deployment: in that Deployment, where its template is). One that already has the gate is left alone (no write).

Before writing, preflight checks must pass (--force overrides the blocking ones): a Service selects the pod \
template (HAPTIC only gates pods listed in an EndpointSlice), a HAPTIC installation exists with a controller \
leader, and its gate feature is on (the controller may patch pods/status); for an Argo Rollout, a route HAPTIC \
renders reaches the Service Argo points at the new pods (a blue-green's previewService, a canary's canaryService).

Warnings (single replica taken down first, Recreate strategy, paused Deployment, a gate type that looks like a \
typo; a StatefulSet with updateStrategy OnDelete, podManagementPolicy Parallel or a partition that holds pods \
back) do not block.

The patch is a JSON patch guarded by test operations: if the workload changes between read and write, it is \
re-read and retried once, never overwritten. Adding the gate changes the pod template, so it starts a rollout.

${GATE_EXIT_CODES_HELP}`;
  static override examples = [
    {
      description: 'Preview the change without writing',
      command: 'kubectl haptic enable-gate web -n shop --dry-run=client',
    },
    { description: 'Add the gate to one Deployment', command: 'kubectl haptic enable-gate deployment/web -n shop' },
    { description: 'Add the gate to a StatefulSet', command: 'kubectl haptic enable-gate statefulset/db -n shop' },
    { description: 'Add the gate to an Argo Rollout', command: 'kubectl haptic enable-gate rollout/web -n shop' },
    {
      description: 'Every Deployment, StatefulSet and DaemonSet labelled tier=frontend, as JSON',
      command: 'kubectl haptic enable-gate -l tier=frontend -o json',
    },
    {
      description: 'Add it although no Service selects the pods yet',
      command: 'kubectl haptic enable-gate web --force',
    },
    {
      description: 'Add it and follow the rollout it starts (CI)',
      command: 'kubectl haptic enable-gate web --wait --timeout 5m',
    },
  ];
  static override args = gateArgs;
  // several workloads: NAME NAME deployment/NAME statefulset/NAME …
  static override strict = false;
  static override flags = {
    ...gateFlags,
    force: Flags.boolean({ summary: 'Write even when a blocking preflight check fails.' }),
  };
  protected readonly action = 'enable' as const;

  async run(): Promise<void> {
    const { flags, argv } = await this.parse(EnableGate);
    await this.runGate(flags.force, flags, argv as string[]);
  }
}
