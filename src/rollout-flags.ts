import { Args, Flags } from '@oclif/core';
import { outputFlag } from './base-command.ts';
import type { KubeClient } from './kube/client.ts';
import { GATE_CONDITION } from './haptic/names.ts';
import { deploymentNames, type TargetSelection } from './services/targets.ts';

/** The Deployment a read-only command looks at: NAME, else every one of the namespace (or -l, -A), like kubectl get. */
export const rolloutArgs = { name: Args.string({ description: 'Deployment: NAME or deployment/NAME.', required: false }) };

export const rolloutFlags = {
  selector: Flags.string({ char: 'l', summary: 'Label selector for the Deployments to look at.' }),
  'all-namespaces': Flags.boolean({ char: 'A', summary: 'Deployments of every namespace.' }),
  output: outputFlag,
  'condition-type': Flags.string({ summary: 'Readiness gate condition type.', default: GATE_CONDITION }),
};

export function rolloutSelection(client: KubeClient, name: string | undefined, flags: { selector?: string | undefined; 'all-namespaces': boolean }): TargetSelection {
  const names = name ? deploymentNames([name]) : [];
  return {
    namespace: flags['all-namespaces'] ? undefined : client.connection.namespace,
    names,
    selector: flags.selector,
    all: !names.length && !flags.selector,
  };
}
