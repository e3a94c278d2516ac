// Manifests of the lab's tests and scenarios (no test-runner imports: npm run lab uses them too): the lab's HTTP
// server as a Deployment or a StatefulSet, its Service.
import type { KubeObject } from '../cluster/kube.ts';

export const LAB_HTTP_IMAGE = 'lab.kubectl-haptic.dev/http-server:1';
export const GATE = 'haproxy-haptic.org/load-balancer-ready';

export type LabAppOptions = {
  /** Deployment (default), or a StatefulSet (OrderedReady, RollingUpdate; maxSurge and maxUnavailable unused) */
  kind?: 'Deployment' | 'StatefulSet';
  name: string;
  namespace: string;
  replicas?: number;
  gated?: boolean;
  env?: Record<string, string>;
  preStop?: object;
  terminationGracePeriodSeconds?: number;
  maxSurge?: number | string;
  maxUnavailable?: number | string;
  /** a Deployment's: how long a new pod must be Ready before it counts, and an old one is deleted */
  minReadySeconds?: number;
};

/** The lab's HTTP server, probed on /healthz every second. */
export function labApp(o: LabAppOptions): KubeObject {
  const labels = { app: o.name };
  const rolling =
    o.kind === 'StatefulSet'
      ? {
          serviceName: o.name,
          podManagementPolicy: 'OrderedReady',
          updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 0 } },
        }
      : {
          strategy: {
            type: 'RollingUpdate',
            rollingUpdate: { maxSurge: o.maxSurge ?? '25%', maxUnavailable: o.maxUnavailable ?? '25%' },
          },
        };
  return {
    apiVersion: 'apps/v1',
    kind: o.kind ?? 'Deployment',
    metadata: { name: o.name, namespace: o.namespace, labels },
    spec: {
      replicas: o.replicas ?? 1,
      ...(o.minReadySeconds ? { minReadySeconds: o.minReadySeconds } : {}),
      selector: { matchLabels: labels },
      ...rolling,
      template: {
        metadata: { labels },
        spec: {
          ...(o.gated ? { readinessGates: [{ conditionType: GATE }] } : {}),
          terminationGracePeriodSeconds: o.terminationGracePeriodSeconds ?? 10,
          containers: [
            {
              name: 'app',
              image: LAB_HTTP_IMAGE,
              ports: [{ name: 'http', containerPort: 8080 }],
              env: Object.entries(o.env ?? {}).map(([name, value]) => ({ name, value })),
              readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1, failureThreshold: 1 },
              ...(o.preStop ? { lifecycle: { preStop: o.preStop } } : {}),
            },
          ],
        },
      },
    },
  };
}

export function labService(o: {
  name: string;
  namespace: string;
  selector?: Record<string, string>;
  port?: number;
  targetPort?: string | number;
}): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: o.name, namespace: o.namespace },
    spec: {
      selector: o.selector ?? { app: o.name },
      ports: [{ name: 'http', port: o.port ?? 80, targetPort: o.targetPort ?? 'http' }],
    },
  };
}

/**
 * The Service and an Ingress of HAPTIC's class for it, with the host the lab's load sends (`<service>.<namespace>.svc`):
 * HAPTIC renders only Services a route of its class references.
 */
export function labServed(o: { name: string; namespace: string }): KubeObject[] {
  const ingress: KubeObject = {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: { name: o.name, namespace: o.namespace },
    spec: {
      ingressClassName: 'haproxy',
      rules: [
        {
          host: `${o.name}.${o.namespace}.svc`,
          http: {
            paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name: o.name, port: { name: 'http' } } } }],
          },
        },
      ],
    },
  };
  return [labService(o), ingress];
}
