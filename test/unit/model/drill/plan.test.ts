import { describe, expect, it } from 'vitest';
import {
  DEFAULT_PROBE_IMAGE,
  drillPermissions,
  permissionText,
  PROBE_SCRIPT,
  probePod,
  restartPatch,
  servicePort,
  servicesOf,
} from '../../../../src/model/drill/plan.ts';
import type { RolloutTarget, Service } from '../../../../src/types/kube.ts';

const deployment = {
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'shop' },
  spec: {
    selector: { matchLabels: { app: 'web' } },
    template: { metadata: { labels: { app: 'web', tier: 'front' } }, spec: { containers: [] } },
  },
} as unknown as RolloutTarget;
const svc = (
  name: string,
  selector: Record<string, string> | undefined,
  ports: { name?: string; port: number; protocol?: string }[] = [{ name: 'http', port: 80 }],
) =>
  ({ metadata: { name, namespace: 'shop' }, spec: { selector, ports, clusterIP: '10.96.0.12' } }) as unknown as Service;

describe('the probe pod', () => {
  const pod = probePod(
    deployment,
    { via: 'haproxy', service: 'haptic/haptic-haproxy', url: 'http://10.96.0.20:80/', host: 'shop.example.com' },
    { image: DEFAULT_PROBE_IMAGE, intervalMs: 100, timeoutMs: 2000, deadlineMs: 600_000 },
  );

  it('runs the probe script with its target in env, never restarts, stops within a second, carries no token', () => {
    expect(pod.metadata).toEqual({
      generateName: 'haptic-drill-web-',
      namespace: 'shop',
      labels: {
        'app.kubernetes.io/name': 'kubectl-haptic-drill',
        'app.kubernetes.io/managed-by': 'kubectl-haptic',
        'kubectl-haptic.dev/drill': 'web',
      },
    });
    expect(pod.spec).toMatchObject({
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      activeDeadlineSeconds: 900,
      automountServiceAccountToken: false,
    });
    const [container] = pod.spec.containers as {
      command: string[];
      env: { name: string; value: string }[];
      image: string;
    }[];
    expect(container!.image).toBe('curlimages/curl:8.11.1');
    expect(container!.command).toEqual(['sh', '-c', PROBE_SCRIPT]);
    expect(container!.env).toEqual([
      { name: 'DRILL_URL', value: 'http://10.96.0.20:80/' },
      { name: 'DRILL_HOST', value: 'shop.example.com' },
      { name: 'DRILL_INTERVAL', value: '0.1' },
      { name: 'DRILL_TIMEOUT', value: '2' },
    ]);
  });

  it('meets the restricted Pod Security Standard', () => {
    expect(pod.spec.securityContext).toEqual({
      runAsNonRoot: true,
      runAsUser: 100,
      runAsGroup: 101,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    expect((pod.spec.containers as { securityContext: object }[])[0]!.securityContext).toEqual({
      allowPrivilegeEscalation: false,
      readOnlyRootFilesystem: true,
      capabilities: { drop: ['ALL'] },
    });
  });

  it('prints one line per request: number, curl exit code, status, seconds; a new connection each', () => {
    expect(PROBE_SCRIPT).toContain(`-w '%{exitcode} %{http_code} %{time_total}'`);
    expect(PROBE_SCRIPT).toContain('echo "$i $r"');
    expect(PROBE_SCRIPT).toContain("trap 'exit 0' TERM INT");
  });
});

describe('the restart and the permissions', () => {
  it('patches the template annotation kubectl rollout restart sets', () => {
    expect(restartPatch(Date.parse('2026-03-01T10:00:00Z'))).toEqual({
      spec: {
        template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-03-01T10:00:00.000Z' } } },
      },
    });
  });

  it('asks for the pod, its log, the restart and the follow; no patch with --no-restart', () => {
    expect(drillPermissions(true).map(permissionText)).toEqual([
      'create pods',
      'get pods/log',
      'delete pods',
      'patch deployments.apps',
      'list deployments.apps',
      'watch deployments.apps',
      'list replicasets.apps',
      'watch replicasets.apps',
      'list pods',
      'watch pods',
      'list services',
      'watch services',
      'list endpointslices.discovery.k8s.io',
      'watch endpointslices.discovery.k8s.io',
    ]);
    expect(drillPermissions(false).map(permissionText)).not.toContain('patch deployments.apps');
  });
});

describe('choosing the Service and its port', () => {
  it('finds the Services that select the pod template', () => {
    const services = [
      svc('web', { app: 'web' }),
      svc('front', { tier: 'front' }),
      svc('other', { app: 'api' }),
      svc('external', undefined),
    ];
    expect(servicesOf(deployment, services).map((s) => s.metadata.name)).toEqual(['web', 'front']);
  });

  it('takes --port, else the only TCP port, else the one named http', () => {
    expect(servicePort(svc('a', {}, [{ port: 8080 }]), undefined)).toBe(8080);
    expect(
      servicePort(
        svc('a', {}, [
          { name: 'metrics', port: 9090 },
          { name: 'http', port: 80 },
        ]),
        undefined,
      ),
    ).toBe(80);
    expect(
      servicePort(
        svc('a', {}, [
          { name: 'metrics', port: 9090 },
          { name: 'grpc', port: 81 },
        ]),
        undefined,
      ),
    ).toBeUndefined();
    expect(
      servicePort(
        svc('a', {}, [
          { name: 'metrics', port: 9090 },
          { name: 'grpc', port: 81 },
        ]),
        81,
      ),
    ).toBe(81);
    expect(servicePort(svc('a', {}, [{ name: 'dns', port: 53, protocol: 'UDP' }]), 53)).toBeUndefined();
    expect(
      servicePort(
        svc('a', {}, [
          { name: 'dataplane', port: 5555 },
          { name: 'http', port: 80 },
        ]),
        undefined,
        (n) => n === 'dataplane',
      ),
    ).toBe(80);
  });
});
