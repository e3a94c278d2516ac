// The demo's apps (npm run demo): web, gated and drain-safe as the product recommends, so its first rollout report and
// `kubectl haptic doctor` on it are clean; api, not gated yet, for enable-gate's preview. test/e2e/demo-app.test.ts
// proves both on the real control plane.
import type { KubeObject } from '../test/cluster/kube.ts';

export const NAMESPACE = 'demo';
export const APP = 'web';
const GATE = 'haproxy-haptic.org/load-balancer-ready';

/**
 * web: 3 replicas behind HAPTIC's gate, one new pod at a time, never below 3 serving, and drain-safe as doctor asks:
 * a readiness probe (the gate waits for ready containers), a preStop sleep that outlasts HAProxy taking the old pod out
 * of its config, an app that exits on SIGTERM well within its 10 s of grace, minReadySeconds and a
 * PodDisruptionBudget.
 */
export function web(image: string, namespace = NAMESPACE): KubeObject[] {
  const labels = { app: APP };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: APP, namespace, labels },
      spec: {
        replicas: 3,
        // a new pod stays Ready 2 s before an old one goes: a gate that flaps does not cost an old pod
        minReadySeconds: 2,
        selector: { matchLabels: labels },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } },
        template: {
          metadata: {
            labels,
            // for the node stand-in (this cluster's kubelet, test/cluster/README.md): the containers start after 1 s
            // instead of 0.3 s, and the app exits 0.3 s after SIGTERM, as a server that finishes its requests does
            annotations: {
              'standin.kubectl-haptic.dev/start-delay-ms': '1000',
              'standin.kubectl-haptic.dev/exit-on-sigterm-ms': '300',
            },
          },
          spec: {
            readinessGates: [{ conditionType: GATE }],
            terminationGracePeriodSeconds: 10,
            containers: [
              {
                name: 'web',
                image,
                ports: [{ name: 'http', containerPort: 8080 }],
                readinessProbe: { httpGet: { path: '/healthz', port: 'http' }, periodSeconds: 1 },
                // the kubelet's own sleep (no shell in the image needed): new requests stop arriving before SIGTERM
                lifecycle: { preStop: { sleep: { seconds: 3 } } },
              },
            ],
          },
        },
      },
    },
    // a node drain evicts one pod at a time
    {
      apiVersion: 'policy/v1',
      kind: 'PodDisruptionBudget',
      metadata: { name: APP, namespace },
      spec: { maxUnavailable: 1, selector: { matchLabels: labels } },
    },
    ...service(APP, namespace),
  ];
}

/** api: an app without the gate yet, for `kubectl haptic enable-gate api -n demo --dry-run=client`. */
export function api(namespace = NAMESPACE): KubeObject[] {
  const labels = { app: 'api' };
  return [
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'api', namespace, labels },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels },
        template: {
          metadata: { labels },
          spec: {
            terminationGracePeriodSeconds: 5,
            containers: [{ name: 'api', image: 'example/api:1.0', ports: [{ name: 'http', containerPort: 8080 }] }],
          },
        },
      },
    },
    ...service('api', namespace),
  ];
}

/** The Service and the Ingress of HAPTIC's class that routes it (HAPTIC renders only Services a route of its class names). */
function service(name: string, namespace: string): KubeObject[] {
  return [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name, namespace },
      spec: { selector: { app: name }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] },
    },
    {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'Ingress',
      metadata: { name, namespace },
      spec: {
        ingressClassName: 'haproxy',
        rules: [
          {
            host: `${name}.example`,
            http: {
              paths: [{ path: '/', pathType: 'Prefix', backend: { service: { name, port: { name: 'http' } } } }],
            },
          },
        ],
      },
    },
  ];
}
