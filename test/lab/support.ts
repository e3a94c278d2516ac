// Helpers of the lab's tests: the manifests (manifests.ts), ready pods, HAPTIC's HAProxy, the gate.
import type { Obj } from '../cluster/standins/common.ts';
import { adminApi } from '../e2e/support.ts';
import { GATE } from './manifests.ts';

export { GATE, LAB_HTTP_IMAGE, labApp, labServed, labService, type LabAppOptions } from './manifests.ts';

/** The pods of a namespace whose Ready condition is True. */
export async function readyPods(namespace: string): Promise<Obj[]> {
  const pods = await adminApi().list<Obj>('v1', 'Pod', { namespace });
  return pods.filter(
    (p) =>
      !p.metadata.deletionTimestamp &&
      p.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Ready' && c.status === 'True'),
  );
}

/** HAPTIC's HAProxy in the lab: the Service in front of it, and its pods' IPs. */
export async function hapticHAProxy(): Promise<{ url: string; podIPs: string[] }> {
  const api = adminApi();
  const svc = await api.get<Obj>('v1', 'Service', 'haptic-haproxy', 'haptic');
  const pods = await api.list<Obj>('v1', 'Pod', {
    namespace: 'haptic',
    labelSelector: 'app.kubernetes.io/component=loadbalancer,app.kubernetes.io/instance=haptic',
  });
  return {
    url: `http://${svc.spec.clusterIP}/`,
    podIPs: pods.filter((p) => p.status?.podIP && !p.metadata.deletionTimestamp).map((p) => p.status.podIP),
  };
}

export function gateOf(pod: Obj): string | undefined {
  return pod.status?.conditions?.find((c: { type: string }) => c.type === GATE)?.status;
}
