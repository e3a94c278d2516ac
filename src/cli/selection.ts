import type { KubeClient } from '../kube/client.ts';
import { targetNames, type TargetSelection } from '../services/targets.ts';

/**
 * What a read-only command looks at: the named workload, else -l, else every one (of the namespace, or -A). `onNote`
 * hears what it had to leave out (StatefulSets it may not read).
 */
export function rolloutSelection(
  client: KubeClient,
  name: string | undefined,
  flags: { selector?: string | undefined; 'all-namespaces': boolean },
  onNote?: (note: string) => void,
): TargetSelection {
  const names = name ? targetNames([name]) : [];
  return {
    namespace: flags['all-namespaces'] ? undefined : client.connection.namespace,
    names,
    selector: flags.selector,
    all: !names.length && !flags.selector,
    onNote,
  };
}
