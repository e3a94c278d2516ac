// Pod readiness exactly as the kubelet computes it (pkg/kubelet/status/generate.go): ContainersReady from the
// container statuses, then Ready = ContainersReady AND every readiness gate condition "True".
import { type Condition, findCondition } from './common.ts';

export type ConditionValue = { status: 'True' | 'False'; reason?: string; message?: string };

type ContainerStatus = { name: string; ready: boolean };

/** Go's %s formatting of a []string: `[a b]`. */
const goList = (names: string[]) => `[${names.join(' ')}]`;

export function containersReadyCondition(
  containerNames: string[],
  statuses: ContainerStatus[] | undefined,
  phase: string,
): ConditionValue {
  if (statuses === undefined) return { status: 'False', reason: 'UnknownContainerStatuses' };
  const unknown: string[] = [];
  const unready: string[] = [];
  for (const name of containerNames) {
    const status = statuses.find((s) => s.name === name);
    if (!status) unknown.push(name);
    else if (!status.ready) unready.push(name);
  }
  if (phase === 'Succeeded' && unknown.length === 0) return { status: 'False', reason: 'PodCompleted' };
  if (phase === 'Failed') return { status: 'False', reason: 'PodFailed' };
  const messages: string[] = [];
  if (unknown.length > 0) messages.push(`containers with unknown status: ${goList(unknown)}`);
  if (unready.length > 0) messages.push(`containers with unready status: ${goList(unready)}`);
  if (messages.length > 0) return { status: 'False', reason: 'ContainersNotReady', message: messages.join(', ') };
  return { status: 'True' };
}

/** Ready from ContainersReady and the readiness gates, with the kubelet's reason and messages. */
export function readyCondition(
  containersReady: ConditionValue,
  readinessGates: { conditionType: string }[] | undefined,
  conditions: Condition[] | undefined,
): ConditionValue {
  if (containersReady.status !== 'True') return { ...containersReady };
  const messages: string[] = [];
  for (const gate of readinessGates ?? []) {
    const condition = findCondition(conditions, gate.conditionType);
    if (!condition) {
      messages.push(`corresponding condition of pod readiness gate "${gate.conditionType}" does not exist.`);
    } else if (condition.status !== 'True') {
      messages.push(`the status of pod readiness gate "${gate.conditionType}" is not "True", but ${condition.status}`);
    }
  }
  if (messages.length > 0) return { status: 'False', reason: 'ReadinessGatesNotReady', message: messages.join(', ') };
  return { status: 'True' };
}
