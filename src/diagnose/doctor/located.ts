// A doctor finding is about one object (a Deployment, the PodDisruptionBudget around it, the ConfigMap holding
// haproxy.cfg): `object` names it, so reports can point at it and -o sarif can name its file and line.
import type { KubeObject } from '../../types/kube.ts';
import type { Finding } from '../../types/finding.ts';

export interface ObjectRef {
  /** the Kubernetes kind, e.g. Deployment */
  kind: string;
  namespace: string;
  name: string;
}

export interface Located extends Finding {
  object: ObjectRef;
  /** where in the object's data the finding is: a line of a ConfigMap key's text (e.g. a haproxy.cfg server line) */
  at?: { key: string; line: number } | undefined;
}

/** How kubectl names a kind in `kind/name` (resource plural's singular, with its API group). */
const KIND_NAMES: Record<string, string> = {
  Deployment: 'deployment.apps',
  StatefulSet: 'statefulset.apps',
  DaemonSet: 'daemonset.apps',
  Rollout: 'rollout.argoproj.io',
  Service: 'service',
  ConfigMap: 'configmap',
  Pod: 'pod',
  EndpointSlice: 'endpointslice.discovery.k8s.io',
  PodDisruptionBudget: 'poddisruptionbudget.policy',
  HorizontalPodAutoscaler: 'horizontalpodautoscaler.autoscaling',
  HAProxyTemplateConfig: 'haproxytemplateconfig.haproxy-haptic.org',
  HAProxyCfg: 'haproxycfg.haproxy-haptic.org',
};

export function refOf(kind: string, o: KubeObject, namespace?: string): ObjectRef {
  return { kind, namespace: o.metadata.namespace ?? namespace ?? '', name: o.metadata.name };
}

/** `deployment.apps/web` */
export function refName(ref: ObjectRef): string {
  return `${KIND_NAMES[ref.kind] ?? ref.kind.toLowerCase()}/${ref.name}`;
}

/** The key of an object in DoctorInputs.sources. */
export function refKey(ref: ObjectRef): string {
  return `${ref.kind}/${ref.namespace}/${ref.name}`;
}

export function locate(object: ObjectRef, findings: Finding[]): Located[] {
  return findings.map((f) => ({ ...f, object }));
}
