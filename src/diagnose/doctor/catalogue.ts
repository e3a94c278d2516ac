import { GATE_FEATURE_HELM_VALUE } from '../../haptic/names.ts';
import type { CatalogueEntry } from '../../types/finding.ts';

const PRESTOP_EXAMPLE = 'sh -c "sleep 10; kill -USR1 1; sleep 20"';

/**
 * The doctor's checks (`kubectl haptic doctor`): the drain-safety traps of the seeds, by family. DR1xx probes,
 * DR2xx shutdown (preStop, signals, grace period, HAProxy's drain), DR3xx HAProxy's DNS at start-up and run time,
 * DR4xx PodDisruptionBudgets, DR5xx what endpoints say, DR6xx the gate and the rollout strategy.
 */
export const DOCTOR_CATALOGUE = {
  DR101: {
    severity: 'warning',
    severityOf: { restartsFirst: 'error' },
    summary:
      'Liveness and readiness probe the same HTTP endpoint or run the same command (handler, path, port, scheme, host and headers compared, named ports resolved; not tcpSocket or gRPC, which see only the process, nor an HAProxy monitor-uri with no monitor fail); an error when the endpoint is seen to fail on something the replicas share (an HAProxy monitor fail condition) and liveness restarts the container no later than readiness takes it out of its Services.',
    title: {
      restartsFirst:
        'container {container}: liveness and readiness probe the same endpoint ({endpoint}), and liveness restarts it after {liveness}s, no later than readiness removes it ({readiness}s): a dependency blip restarts every replica at once',
      sharedFirst:
        'container {container}: liveness and readiness probe the same endpoint ({endpoint}), and liveness restarts it after {liveness}s, no later than readiness removes it ({readiness}s): if the endpoint checks anything the replicas share, a blip of it restarts every replica at once',
      later:
        'container {container}: liveness and readiness probe the same endpoint ({endpoint}); liveness restarts it after {liveness}s, later than readiness removes it ({readiness}s), but an outage longer than that still restarts every replica',
      exec: 'container {container}: liveness and readiness run the same command ({endpoint}): if it checks anything the replicas share, a blip of it restarts every replica',
    },
    fix: 'give liveness an endpoint that only says the process is alive (no dependency checks: its own path or port), and keep the dependency checks in readiness',
  },
  DR102: {
    severity: 'error',
    needs: 'cluster',
    summary:
      "Liveness restarts of two or more replicas within one liveness probe window (restart counts and the kubelet's Unhealthy and Killing events named): the probe checks something the replicas share.",
    title:
      '{count} pods of {workload} were restarted by their liveness probe within {window}s of each other: the probe fails on something they share, and each failure restarts the fleet',
    fix: 'make the liveness probe check only the process (see DR101), keep shared dependencies in readiness; kubectl -n {namespace} get events --field-selector reason=Killing',
  },
  DR103: {
    severity: 'warning',
    severityOf: { gated: 'error' },
    summary:
      "A container that serves a Service's target port has no readinessProbe (an error when the pods are gated: HAPTIC routes a gated pod as soon as its containers are ready, which without a probe is when they start).",
    title: {
      ungated:
        'container {container} serves service {service} (port {port}) but has no readinessProbe: it gets traffic as soon as it starts, before it listens',
      gated:
        'container {container} serves service {service} (port {port}) but has no readinessProbe: the gate waits for ready containers, so HAProxy routes the pod as soon as the container starts, before it listens',
    },
    fix: 'add a readinessProbe on container port {containerPort} that succeeds once the application can serve',
  },
  DR104: {
    severity: 'error',
    summary:
      'A probe names a port the container does not declare: the kubelet cannot resolve the name and the probe always fails.',
    title:
      'container {container}: {probe} names port "{port}", which the container does not declare, so the probe always fails',
    fix: 'declare the port in the container (ports: - name: {port}, containerPort: …) or give the probe the port number',
  },
  DR201: {
    severity: 'warning',
    severityOf: { haproxy: 'error' },
    summary:
      'A container that serves a Service port has no preStop hook (an error on HAProxy containers): it is stopped while endpoints and load balancers still send it new requests.',
    title: {
      app: 'container {container} serves service {service} but has no preStop: it gets {signal} at once, while load balancers still send it new requests',
      haproxy:
        'HAProxy container {container} has no preStop: it gets {signal} at once and {effect}, while endpoints still route new connections to it',
    },
    fix: {
      app: 'add a preStop that waits for the endpoint removal to spread before the stop signal: lifecycle.preStop.sleep.seconds: 10 (or exec sh -c "sleep 10")',
      haproxy: `add lifecycle.preStop exec ${PRESTOP_EXAMPLE}, with hard-stop-after shorter than the 20s after the signal`,
    },
  },
  DR202: {
    severity: 'error',
    summary:
      "The shutdown does not fit the grace period: the preStop's wait plus HAProxy's drain (up to hard-stop-after) must end before terminationGracePeriodSeconds, or SIGKILL cuts it (the timeline shown).",
    title: {
      preStop:
        'container {container}: the preStop waits {preStop}s, not less than terminationGracePeriodSeconds ({grace}s): the kubelet kills the container before it is told to stop',
      drain:
        'HAProxy container {container}: the drain may run until {end}s (soft stop at {signalAt}s + hard-stop-after {hardStop}s), not before terminationGracePeriodSeconds ({grace}s): SIGKILL cuts it',
    },
    fix: 'raise terminationGracePeriodSeconds above {needed}s, or shorten the preStop wait or hard-stop-after',
  },
  DR203: {
    severity: 'error',
    summary:
      'HAProxy stops on SIGTERM (a hard stop: established connections are reset) and nothing sends SIGUSR1 first: no preStop kill -USR1, no STOPSIGNAL SIGUSR1 in a known image, no lifecycle.stopSignal; master-worker mode forwards SIGTERM to its workers all the same. A HAProxy container with no preStop at all is DR201 only (its fix sends SIGUSR1).',
    title: {
      sigterm:
        'HAProxy container {container} gets SIGTERM and nothing sends SIGUSR1 first: HAProxy hard-stops and resets every established connection',
      noWait:
        'HAProxy container {container}: the preStop sends SIGUSR1 and returns at once, so SIGTERM follows and hard-stops HAProxy in the middle of its drain',
    },
    fix: {
      sigterm: `send SIGUSR1 from a preStop after a first wait: exec ${PRESTOP_EXAMPLE}`,
      noWait: `keep the preStop waiting after the signal while HAProxy drains: exec ${PRESTOP_EXAMPLE}`,
    },
  },
  DR204: {
    severity: 'error',
    summary:
      'The preStop signals before it sleeps (kill -USR1 1; sleep N): the process stops accepting at once while endpoints still list the pod, so new connections are refused.',
    title:
      'container {container}: the preStop sends {signal} before it waits ({command}): {effect} while endpoints still route new connections to the pod',
    fix: {
      app: 'wait first and let the kubelet send the stop signal when the hook returns: lifecycle.preStop.sleep.seconds: 10 (or exec sh -c "sleep 10")',
      haproxy: `wait first, then signal, then wait for the drain: exec ${PRESTOP_EXAMPLE}`,
    },
  },
  DR205: {
    severity: 'warning',
    summary:
      "No hard-stop-after in HAProxy's global section: a soft stop drains for as long as connections stay open, so the grace period's SIGKILL ends it instead.",
    title:
      'HAProxy {config} has no hard-stop-after in global: its soft stop has no bound and ends with SIGKILL at terminationGracePeriodSeconds ({grace}s)',
    fix: 'add "hard-stop-after" to the global section, shorter than {budget}s (what is left of terminationGracePeriodSeconds after HAProxy gets SIGUSR1)',
  },
  DR206: {
    severity: 'warning',
    summary:
      "HAProxy's health check takes longer to mark a stopped server down (inter × fall, or inter + (fall − 1) × fastinter) than the application's preStop keeps it serving: requests go to a dead server in between.",
    title:
      'HAProxy {config} marks server {server} down only {detect}s after it stops answering, but {workload} stops serving {delay}s after it is told to stop (its preStop wait)',
    fix: 'check faster (lower inter or fall on the server or its default-server) or make the preStop of {workload} wait longer than {detect}s',
  },
  DR207: {
    severity: 'warning',
    summary:
      "With --sessions: HAProxy's hard-stop-after is shorter than the sessions it carries take (show stat's ttime, the average of the last 1024, read from each HAProxy pod): every reload ends its leaving worker, and every soft stop, with sessions still running.",
    title:
      'HAProxy {config}: hard-stop-after {hardStop}s is shorter than its sessions take: {ttime}s on average on server {server} ({pod})',
    fix: 'raise hard-stop-after in the global section above the longest sessions (more than {ttime}s), or keep those sessions shorter',
  },
  DR301: {
    severity: 'error',
    summary:
      'A server by a DNS name that resolves to pod addresses (a headless Service, a pod record, a name outside the input) with neither an init-addr that tolerates NXDOMAIN (none, or an IP) nor resolvers: HAProxy refuses to start when the name does not resolve (a peer being rescheduled is enough). The name of a ClusterIP Service in the input always resolves and is not reported.',
    title:
      'HAProxy {config}: {servers} in {section} {verb} by DNS name with the default init-addr (last,libc) and no resolvers: HAProxy aborts start-up when a name does not resolve',
    fix: {
      qualified:
        'add "init-addr last,libc,none resolvers {resolvers}" to the servers (or to a default-server line), and a "resolvers {resolvers}" section with parse-resolv-conf',
      shortName:
        'name the servers by their fully qualified name (e.g. {example}: HAProxy\'s resolvers do not use search domains), add "init-addr last,libc,none resolvers {resolvers}" to them (or to a default-server line), and a "resolvers {resolvers}" section with parse-resolv-conf',
    },
  },
  DR302: {
    severity: 'error',
    summary:
      'Only one half of the DNS pair on a server by name: init-addr none without resolvers (its address never updates), resolvers without an init-addr that tolerates NXDOMAIN (start-up still aborts), or resolvers naming a section that does not exist.',
    title: {
      initAddrOnly:
        'HAProxy {config}: {servers} in {section} start without an address (init-addr {initAddr}) but have no resolvers: the address is never looked up again',
      resolversOnly:
        'HAProxy {config}: {servers} in {section} use resolvers {resolvers} but init-addr {initAddr} does not tolerate NXDOMAIN: start-up still aborts when a name does not resolve',
      undefinedResolvers:
        'HAProxy {config}: {servers} in {section} use resolvers {resolvers}, but the configuration has no "resolvers {resolvers}" section: HAProxy refuses it',
    },
    fix: {
      initAddrOnly: 'add "resolvers <name>" to the servers and a resolvers section with parse-resolv-conf',
      resolversOnly: 'add "init-addr last,libc,none" to the servers (or to a default-server line)',
      undefinedResolvers: 'add a "resolvers {resolvers}" section with parse-resolv-conf, or name an existing one',
    },
  },
  DR303: {
    severity: 'error',
    summary:
      "A server by a short name (no cluster domain) with resolvers: HAProxy's resolvers do not apply resolv.conf's search domains, so the name resolves at start-up (through libc) but not at run time.",
    title:
      "HAProxy {config}: {servers} in {section} use resolvers {resolvers} with a short name ({host}): HAProxy's resolver does not use search domains, so the run-time lookups fail",
    fix: 'use the fully qualified name, e.g. {example} (cluster.local is the default cluster domain)',
  },
  DR401: {
    severity: 'warning',
    summary:
      'No PodDisruptionBudget selects the pods of a Deployment, StatefulSet or Rollout with more than one replica: a node drain or the cluster autoscaler may evict them all at once.',
    title:
      'no PodDisruptionBudget selects the pods of {workload} ({replicas} replicas): a drain may evict them all at once',
    fix: 'kubectl -n {namespace} create poddisruptionbudget {name} --selector={selector} --max-unavailable=1',
  },
  DR402: {
    severity: 'error',
    summary:
      'More than one PodDisruptionBudget selects the pods: the eviction API refuses to evict a pod with several, so node drains stall.',
    title:
      '{count} PodDisruptionBudgets select the pods of {workload} ({pdbs}): the eviction API refuses pods with more than one, so drains stall',
    fix: 'keep one PodDisruptionBudget for these pods: delete the others or narrow their selectors',
  },
  DR403: {
    severity: 'warning',
    summary:
      'A PodDisruptionBudget that allows no eviction at all (maxUnavailable: 0, or minAvailable at least the replicas): node drains wait for ever.',
    title: "poddisruptionbudget {pdb} never allows an eviction of {workload}'s pods ({why}): node drains wait for ever",
    fix: 'allow one eviction: maxUnavailable: 1 (with at least 2 replicas), or minAvailable below the replicas',
  },
  DR404: {
    severity: 'warning',
    needs: 'helm-history',
    summary:
      "A PodDisruptionBudget that an earlier revision of the same Helm release had is gone (only with --helm-history, which reads the release's Secrets and prints nothing of them beyond kinds, names and revisions).",
    title:
      'Helm release {release}: revision {had} had poddisruptionbudget {pdb} for the pods of {workload}; revision {latest} has none',
    fix: 'put the PodDisruptionBudget back into the chart: a values file that replaces a list (extraObjects) drops what the base file had',
  },
  DR501: {
    severity: 'error',
    summary:
      'A Service with publishNotReadyAddresses: true selects gated pods: it lists them ready before the gate (and while they terminate), so its clients send them traffic before HAProxy routes them.',
    title:
      'service {service} has publishNotReadyAddresses: true and selects the gated pods of {workload}: its clients get the pods before the gate, and while they terminate',
    fix: 'route clients through a Service without publishNotReadyAddresses; keep the flag only on a headless Service used for peer discovery',
  },
  DR502: {
    severity: 'info',
    needs: 'cluster',
    severityOf: { allTerminating: 'warning' },
    summary:
      'Endpoints terminating but still serving: ready=false stops new ordinary traffic, not the requests already accepted; and when every endpoint of a Service is terminating, kube-proxy sends new connections to the serving ones.',
    title: {
      someTerminating:
        'endpoints of service {service} terminating but still serving: {count} ({pods}); ready=false only stops new ordinary traffic, and each must finish what it accepted',
      allTerminating:
        'every endpoint of service {service} is terminating, still serving: {count} ({pods}); kube-proxy falls back to them, so they get new connections while they shut down',
    },
    fix: {
      someTerminating: 'let the application finish accepted requests after the stop signal before it exits',
      allTerminating:
        'keep accepting until the process exits (a preStop wait before the stop signal), and do not stop every pod at once (RollingUpdate with maxUnavailable below the replicas)',
    },
  },
  DR601: {
    severity: 'error',
    summary:
      'The pods carry the gate but no Service selects them: HAPTIC only sets the gate on pods listed in an EndpointSlice, so they never become Ready.',
    title:
      '{workload} lists readiness gate {gate}, but no Service in namespace {namespace} selects its pods: they would never become Ready',
    fix: {
      nearMiss: 'fix the near-miss selector above, or create a Service whose selector matches the pod template labels',
      none: 'create a Service whose selector matches the pod template labels, or remove the gate: kubectl haptic disable-gate {name} -n {namespace}',
    },
  },
  DR602: {
    severity: 'error',
    needs: 'cluster',
    summary:
      "The pods carry the gate while no HAPTIC installation exists or HAPTIC's gate feature is off: nothing sets the condition, so new pods never become Ready.",
    title: {
      absent:
        '{workload} lists readiness gate {gate}, but no HAPTIC installation exists: nothing sets it, so new pods never become Ready',
      off: '{workload} lists readiness gate {gate}, but HAPTIC {installation} has its gate feature off: nothing sets it, so new pods never become Ready',
    },
    fix: {
      absent: `install HAPTIC with ${GATE_FEATURE_HELM_VALUE}, or remove the gate: kubectl haptic disable-gate {name} -n {namespace}`,
      off: `helm upgrade HAPTIC with --set ${GATE_FEATURE_HELM_VALUE}`,
    },
  },
  DR603: {
    severity: 'error',
    summary:
      "One replica that serves a Service (a metrics port alone does not count) with a strategy that takes it down first (a Deployment's RollingUpdate with maxUnavailable of at least 1, or Recreate; a StatefulSet's rolling update always): every rollout has a moment with no pod serving.",
    title: {
      rolling:
        '{workload} runs {replicas} with maxUnavailable {maxUnavailable}: each rollout stops the only pod before its replacement is Ready',
      recreate:
        '{workload} runs {replicas} with strategy Recreate: each rollout stops the only pod before its replacement starts',
      statefulSet:
        '{workload} runs {replicas}: its rolling update deletes the pod before it creates the replacement, so each rollout has no pod serving',
    },
    fix: {
      rolling: `kubectl -n {namespace} patch deployment {name} -p '{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}'`,
      recreate: `kubectl -n {namespace} patch deployment {name} -p '{"spec":{"strategy":{"type":"RollingUpdate","rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}'`,
      statefulSet:
        'run at least 2 replicas (kubectl -n {namespace} scale statefulset {name} --replicas=2), or accept the gap',
    },
  },
  DR604: {
    severity: 'info',
    summary:
      'A gated Deployment with minReadySeconds: 0: an old pod is removed as soon as a new one is Ready, with no time to see the new one serve.',
    title: '{workload} is gated and has minReadySeconds 0: an old pod goes as soon as a new one is Ready',
    fix: 'set spec.minReadySeconds (e.g. 10) so that a new pod must stay Ready a while before an old one is removed',
  },
  DR605: {
    severity: 'info',
    summary:
      'A HorizontalPodAutoscaler scales the Deployment and the manifest also sets spec.replicas: every apply resets the replica count the HPA chose.',
    title:
      'horizontalpodautoscaler {hpa} scales {workload}, and {setter} sets spec.replicas ({replicas}): each apply resets the scale the HPA chose',
    fix: 'remove spec.replicas from the manifest: the HorizontalPodAutoscaler owns it',
  },
  DR606: {
    severity: 'warning',
    summary:
      "A DaemonSet that serves a Service (or runs HAProxy) rolls with maxSurge 0, the default: each node's pod is deleted before its replacement starts, so that node serves nothing in between (not reported with hostPort or hostNetwork, where a second pod cannot run on the node).",
    title:
      "{workload} rolls with maxSurge 0 (maxUnavailable {maxUnavailable}): each node's pod stops before its replacement is Ready, and the node serves nothing in between",
    fix: `kubectl -n {namespace} patch daemonset {name} -p '{"spec":{"updateStrategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}'`,
  },
  DR607: {
    severity: 'error',
    summary:
      "A gated Argo Rollout whose own Service for the new pods (a blue-green's previewService, a canary's canaryService) no Ingress or HTTPRoute names, while its active or stable Service is routed: Argo points that Service at the new pods alone, HAPTIC routes only Services its routes name, so the new pods never get the gate and the Rollout never promotes (enable-gate's HG123 and why-stalled's HS114 judge the routes as HAPTIC renders them).",
    title:
      '{workload}: no Ingress or HTTPRoute names its {role} Service {service}, which Argo points at the new pods, while {stable} is routed: HAPTIC would never set the gate on them and the Rollout would never promote',
    fix: "route the {role} Service too (an Ingress of HAPTIC's class to service {service}), or remove the gate: kubectl haptic disable-gate rollout/{name} -n {namespace}",
  },
} as const satisfies Record<string, CatalogueEntry>;
