import type { RolloutTarget, Service } from '../../types/kube.ts';
import type { DrillTarget } from './probe-log.ts';
import { mapSelects } from '../selectors.ts';
import { kindOf, podLabelsOf } from '../rollout/kinds/index.ts';

// What `kubectl haptic drill` creates and needs, decided before anything is sent: the probe pod, the restart patch
// and the permissions to check. Pure.

/**
 * The default probe image: curl and a shell on Alpine, about 10 MB, pulled from Docker Hub by millions a week. curl
 * is what the probe needs: its exit code tells a refused connection (7) from a reset (52, 56) and a timeout (28),
 * which busybox's wget reports all alike (exit 1).
 */
export const DEFAULT_PROBE_IMAGE = 'curlimages/curl:8.11.1';
export const PROBE_CONTAINER = 'probe';
export const DRILL_LABEL = 'kubectl-haptic.dev/drill';
/** one run's probe pod, so that it can be found when the answer to its creation was lost */
export const DRILL_RUN_LABEL = 'kubectl-haptic.dev/drill-run';
/** `kubectl rollout restart` sets this annotation on the pod template. */
export const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';

/**
 * The probe: a request, then a pause, until stopped; one line per request: `<n> <curl exit code> <HTTP status>
 * <seconds>` (curl ≥ 7.75 for %{exitcode}). Every request opens a new connection. SIGTERM ends it at once.
 */
export const PROBE_SCRIPT = [
  "trap 'exit 0' TERM INT",
  'i=0',
  'while :; do',
  '  i=$((i+1))',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a shell parameter expansion, not a template
  '  r=$(curl -sS -o /dev/null --max-time "$DRILL_TIMEOUT" ${DRILL_HOST:+-H "Host: $DRILL_HOST"} -w \'%{exitcode} %{http_code} %{time_total}\' "$DRILL_URL" 2>/dev/null)',
  '  echo "$i $r"',
  '  sleep "$DRILL_INTERVAL"',
  'done',
].join('\n');

export interface ProbeSettings {
  image: string;
  intervalMs: number;
  timeoutMs: number;
  /** the drill's own time limit: the pod stops itself a while after it (activeDeadlineSeconds), should the plugin die */
  deadlineMs: number;
}

const seconds = (ms: number) => String(Number((ms / 1000).toFixed(3)));

/**
 * The probe pod: never restarted, stopped within a second, no service-account token, and within the restricted Pod
 * Security Standard (non-root user 100, curlimages' curl_user; no privilege escalation; no capabilities; the runtime's
 * seccomp profile), so a namespace that enforces it admits it.
 */
export interface ProbePodManifest {
  apiVersion: 'v1';
  kind: 'Pod';
  metadata: { generateName: string; namespace: string; labels: Record<string, string> };
  spec: Record<string, unknown>;
}

export function probePod(deployment: RolloutTarget, target: DrillTarget, probe: ProbeSettings): ProbePodManifest {
  const name = deployment.metadata.name;
  const env = [
    { name: 'DRILL_URL', value: target.url },
    ...(target.host ? [{ name: 'DRILL_HOST', value: target.host }] : []),
    { name: 'DRILL_INTERVAL', value: seconds(probe.intervalMs) },
    { name: 'DRILL_TIMEOUT', value: seconds(probe.timeoutMs) },
  ];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `haptic-drill-${name.slice(0, 40)}-`,
      namespace: deployment.metadata.namespace ?? '',
      labels: {
        'app.kubernetes.io/name': 'kubectl-haptic-drill',
        'app.kubernetes.io/managed-by': 'kubectl-haptic',
        [DRILL_LABEL]: name.slice(0, 63),
      },
    },
    spec: {
      restartPolicy: 'Never',
      terminationGracePeriodSeconds: 1,
      activeDeadlineSeconds: Math.ceil(probe.deadlineMs / 1000) + 300,
      automountServiceAccountToken: false,
      securityContext: {
        runAsNonRoot: true,
        runAsUser: 100,
        runAsGroup: 101,
        seccompProfile: { type: 'RuntimeDefault' },
      },
      containers: [
        {
          name: PROBE_CONTAINER,
          image: probe.image,
          command: ['sh', '-c', PROBE_SCRIPT],
          env,
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '64Mi' } },
          securityContext: {
            allowPrivilegeEscalation: false,
            readOnlyRootFilesystem: true,
            capabilities: { drop: ['ALL'] },
          },
        },
      ],
    },
  };
}

/** The strategic merge patch `kubectl rollout restart` sends. */
export function restartPatch(now: number): {
  spec: { template: { metadata: { annotations: Record<string, string> } } };
} {
  return { spec: { template: { metadata: { annotations: { [RESTARTED_AT]: new Date(now).toISOString() } } } } };
}

/** The restart a workload's own tooling sends: `kubectl argo rollouts restart`'s for a Rollout, else kubectl's. */
export function restartOf(
  kind: RolloutTarget['kind'],
  now: number,
): { body: unknown; contentType: string; patchType: string; as: string } {
  return (
    kindOf(kind).restart?.(now) ?? {
      body: restartPatch(now),
      contentType: 'application/strategic-merge-patch+json',
      patchType: 'strategic merge',
      as: 'kubectl rollout restart',
    }
  );
}

export interface Permission {
  verb: string;
  group: string;
  resource: string;
  subresource?: string | undefined;
  /** why drill needs it */
  for: string;
}

/**
 * What drill does with the API in the namespace: create, read and delete its pod, restart, and follow the rollout
 * (a Deployment with its ReplicaSets; a StatefulSet, whose pods carry their revision).
 */
export function drillPermissions(restart: boolean, kind: RolloutTarget['kind'] = 'Deployment'): Permission[] {
  const [workload, ...between] = kindOf(kind).followed;
  const follow = (resource: string, group = ''): Permission[] =>
    ['list', 'watch'].map((verb) => ({ verb, group, resource, for: 'following the rollout' }));
  return [
    { verb: 'create', group: '', resource: 'pods', for: 'creating the probe pod' },
    { verb: 'get', group: '', resource: 'pods', subresource: 'log', for: "reading the probe's results" },
    { verb: 'delete', group: '', resource: 'pods', for: 'deleting the probe pod' },
    ...(restart ? [{ verb: 'patch', ...workload!, for: 'restarting the rollout' }] : []),
    ...[workload!, ...between].flatMap((f) => follow(f.resource, f.group)),
    ...follow('pods'),
    ...follow('services'),
    ...follow('endpointslices', 'discovery.k8s.io'),
  ];
}

/** `create pods`, `get pods/log`, `patch deployments.apps`: as kubectl auth can-i says them. */
export function permissionText(p: Permission): string {
  return `${p.verb} ${p.resource}${p.subresource ? `/${p.subresource}` : ''}${p.group ? `.${p.group}` : ''}`;
}

/** The Services that send traffic to the workload's pods (their selector matches its pod template). */
export function servicesOf(deployment: RolloutTarget, services: Service[]): Service[] {
  const labels = podLabelsOf(deployment) ?? {};
  return services.filter((s) => Object.keys(s.spec?.selector ?? {}).length > 0 && mapSelects(s.spec?.selector, labels));
}

/** The port to use: --port, else the only one, else the one named http; undefined when that cannot be told. */
export function servicePort(
  service: Service,
  asked: number | undefined,
  skip: (name: string | undefined) => boolean = () => false,
): number | undefined {
  const ports = (service.spec?.ports ?? []).filter((p) => (p.protocol ?? 'TCP') === 'TCP' && !skip(p.name));
  if (asked !== undefined) return ports.some((p) => p.port === asked) ? asked : undefined;
  if (ports.length === 1) return ports[0]!.port;
  return ports.find((p) => p.name === 'http')?.port;
}
