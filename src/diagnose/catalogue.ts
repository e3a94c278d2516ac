import { GATE_FEATURE_HELM_VALUE } from '../haptic/names.ts';
import { DOCTOR_CATALOGUE } from './doctor/catalogue.ts';
import type { CatalogueEntry, Finding, FindingText, Severity, Template } from '../types/finding.ts';

/** Where the checks are documented, one section per id (generated from this file by scripts/catalogue-docs.ts). */
export const DOCS_PAGE = 'docs/checks.md';
/** The project's home (also the krew manifest's homepage); its docs/checks.md is what SARIF's helpUri points at. */
export const PROJECT_HOMEPAGE = 'https://github.com/kubectl-haptic/kubectl-haptic';

const INSTALL_GATE_FEATURE = GATE_FEATURE_HELM_VALUE;

/** A route HAPTIC renders, as a kubectl user creates one: an Ingress of its class, every path to the Service's port. */
const ROUTE_FIX =
  "create a route HAPTIC renders: kubectl -n {namespace} create ingress {service} --class={routeClass} --rule='/*={service}:{port}'";

/** How to fix what HAPTIC's validation says (HS107, HG122), by why. */
const RENDER_FIX = {
  haproxyRefused:
    'fix the template or the Ingress/annotation that produces the refused line; kubectl -n {namespace} describe haproxytemplateconfig {templateConfig}',
  gateUnavailable:
    'kubectl -n {namespace} logs -l app.kubernetes.io/component=controller --tail=100 (why the validation with haproxy -c could not run)',
  configInvalid:
    'fix the edit named in validationErrors, or undo it; until then the edit has no effect: kubectl -n {namespace} get haproxytemplateconfig {templateConfig} -o yaml',
  loadGateFailed:
    'kubectl -n {namespace} logs -l app.kubernetes.io/component=controller --previous --tail=100; roll back the config change that fails the load gate before the leading controller pod is replaced',
};

/** How to fix a render that fails on a port name the Service lacks (HG124, HS115). */
const PORT_NAME_FIX =
  'give service/{service} a port named {port} again (or point {routeResource} at a port it has): kubectl -n {serviceNamespace} edit service {service}';

/**
 * Every finding id, its severity, what it means, and the words of its title and fix. Ids are stable and never
 * reused: HG1xx are enable-gate preflight checks, HS1xx HAPTIC-specific stall causes, HS2xx generic rollout causes,
 * HS9xx progress notes, DRxxx the doctor's drain-safety checks (doctor/catalogue.ts).
 *
 * `endsWait` says which stall causes end `status --wait` with exit 1 before the progress deadline (diagnose/hold.ts):
 * each hold is longer than the same state lasts in a healthy rollout (a Lease changing hands within
 * leaseDurationSeconds, an EndpointSlice or a render catching up, one failed deploy retried), shorter than a CI
 * job wants to wait, and all within a minute of the breaking change. A readiness probe's own allowance is counted
 * on top (Finding.withinMs); a crash loop is sure after restarts, not after seconds.
 */
export const CATALOGUE = {
  HG100: {
    severity: 'ok',
    summary: 'A Service selects the pod template.',
    title: 'Service {services} selects the pod template',
  },
  HG101: {
    severity: 'blocker',
    summary: 'No Service selects the pod template, so HAPTIC would never set the gate.',
    title:
      "No Service in namespace {namespace} selects the pod template; HAPTIC only sets the gate on pods listed in a Service's EndpointSlice, so new pods would never become Ready",
    fix: {
      nearMiss:
        'fix the near-miss selector above, or create a Service whose selector matches the pod template labels, then run enable-gate again',
      none: 'create a Service whose selector matches the pod template labels, then run enable-gate again',
    },
  },
  HG102: {
    severity: 'blocker',
    summary: 'No HAPTIC installation found.',
    title: {
      absent: 'No HAPTIC installation found: nothing would set the gate',
      unreadable: 'No HAPTIC installation could be read: nothing shows that one would set the gate',
    },
    fix: {
      absent: `install HAPTIC with ${INSTALL_GATE_FEATURE}`,
      unreadable:
        "ask for cluster-wide read access to haproxytemplateconfigs and haproxycfgs (haproxy-haptic.org) and to HAPTIC's pods and leases, or pass --force",
    },
  },
  HG103: {
    severity: 'blocker',
    summary: 'HAPTIC has no controller leader.',
    title: 'HAPTIC installation {installation} has no controller leader: new gated pods would stay NotReady',
    fix: {
      scaledToZero: 'kubectl -n {namespace} scale deployment -l app.kubernetes.io/component=controller --replicas=2',
      controllerLogs: 'kubectl -n {namespace} logs -l app.kubernetes.io/component=controller --tail=50',
    },
  },
  HG104: {
    severity: 'blocker',
    summary: "HAPTIC's readiness-gate feature is off (controller may not patch pods/status).",
    title:
      'HAPTIC installation {installation} cannot set the gate: no ClusterRole bound to its controller allows patch on pods/status',
    fix: `helm upgrade with --set ${INSTALL_GATE_FEATURE}`,
  },
  HG105: {
    severity: 'blocker',
    summary:
      "Whether HAPTIC's gate feature is on could not be checked (the controller's RBAC could not be read): blocking, as the check cannot pass.",
    title: 'Could not check whether HAPTIC installation {installation} may set the gate',
    fix: 'ask for read access to clusterroles and clusterrolebindings (rbac.authorization.k8s.io), or pass --force if you know the gate feature is on',
  },
  HG106: {
    severity: 'ok',
    summary: 'HAPTIC installation with a leader and the gate feature on (or allowed by its RBAC).',
    title: 'HAPTIC installation {installation}: {leader}, gate feature {gateFeature}',
  },
  HG107: {
    severity: 'blocker',
    summary:
      'Whether HAPTIC has a controller leader could not be checked (its Lease could not be read): blocking, as the check cannot pass.',
    title: 'Could not check whether HAPTIC installation {installation} has a controller leader',
    fix: 'ask for read access to leases (coordination.k8s.io) in namespace {namespace}, or pass --force if you know the controller runs',
  },
  HG108: {
    severity: 'blocker',
    summary: 'HAPTIC runs without leader election (one controller, no Lease) and that controller is not running.',
    title:
      'HAPTIC installation {installation} runs one controller without leader election, and it is not running: new gated pods would stay NotReady',
    fix: {
      scaledToZero: 'kubectl -n {namespace} scale deployment -l app.kubernetes.io/component=controller --replicas=1',
      notRunning: 'kubectl -n {namespace} describe pod {pod}',
    },
  },
  HG111: {
    severity: 'warning',
    summary: 'The rollout takes the only pod down before its replacement is Ready.',
    title: {
      deployment: 'replicas: 1 with a strategy that takes the only pod down before its replacement is Ready',
      statefulSet: 'replicas: 1 with a strategy that takes the only pod down before its replacement is Ready',
      daemonSet: 'one node runs the pod, and the strategy takes it down before its replacement is Ready',
    },
    fix: {
      deployment: `kubectl -n {namespace} patch deployment {name} -p '{"spec":{"strategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}'`,
      // a StatefulSet never surges: its controller deletes a pod and creates the replacement once it is gone
      statefulSet:
        'run at least 2 replicas (kubectl -n {namespace} scale statefulset {name} --replicas=2), or accept the gap',
      // a DaemonSet surges only when maxSurge is set (kubernetes/pkg/controller/daemon/util, SurgeCount); with it set,
      // maxUnavailable may be 0 (the API server refuses both 0)
      daemonSet: `kubectl -n {namespace} patch daemonset {name} -p '{"spec":{"updateStrategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}'`,
    },
  },
  HG112: {
    severity: 'warning',
    summary: 'Recreate strategy: every old pod stops before new ones start; the gate cannot keep one serving.',
    title: 'Strategy Recreate stops every old pod before new ones start; the gate cannot keep an old pod serving',
    fix: 'use strategy RollingUpdate with maxUnavailable: 0',
  },
  HG113: {
    severity: 'warning',
    summary: 'The Deployment (or Argo Rollout) is paused: the rollout starts when it is resumed.',
    title: {
      deployment: 'The Deployment is paused: the rollout that adds the gate starts only when it is resumed',
      rollout: 'The Rollout is paused (spec.paused): the rollout that adds the gate starts only when it is resumed',
    },
    fix: {
      deployment: 'kubectl -n {namespace} rollout resume deployment/{name}',
      rollout: 'kubectl argo rollouts resume {name} -n {namespace}',
    },
  },
  HG114: {
    severity: 'warning',
    summary: "A gate type in HAPTIC's domain that HAPTIC does not write (likely a typo).",
    title: 'Gate type "{type}" is in HAPTIC\'s domain but is not the condition HAPTIC writes ("{gate}")',
    fix: 'use --condition-type {gate} (the default)',
  },
  HG115: {
    severity: 'warning',
    summary: 'More than one HAPTIC installation: they would fight over the condition.',
    title:
      '{count} HAPTIC installations: if more than one routes this Service they write the same condition and overwrite each other',
    fix: 'route each gated Service through exactly one installation',
  },
  HG116: {
    severity: 'blocker',
    summary:
      "No route that HAPTIC renders reaches a Service that selects the pod template (no Ingress of its class, a route in another namespace without a ReferenceGrant, a default backend the dataplane generation does not read…), and HAPTIC's live config has no server for the workload's pods in the backend of such a Service (an old pod's server in a Service the template leaves proves nothing): HAPTIC would never route the new pods, so they would never become Ready.",
    title:
      'No route that HAPTIC renders reaches {services}: HAPTIC renders backends only for Services its routes name, so it would never route the new pods and they would never become Ready',
    fix: {
      nearMiss: `fix the route above (its class, its namespace or ReferenceGrant, its listener), or ${ROUTE_FIX}; then run enable-gate again`,
      none: `${ROUTE_FIX}; then run enable-gate again`,
    },
  },
  HG117: {
    severity: 'warning',
    summary:
      'Whether a route that HAPTIC renders reaches the Services could not be told (a route kind could not be read, or a template config says nothing of what it watches).',
    title: 'Could not tell whether a route that HAPTIC renders reaches {services}',
    fix: 'ask for cluster-wide read access to ingresses (networking.k8s.io) and to gateways, httproutes, grpcroutes, tlsroutes, tcproutes and referencegrants (gateway.networking.k8s.io), or check the routes by hand',
  },
  HG118: {
    severity: 'ok',
    summary:
      "HAPTIC routes a Service that selects the pod template: its live config has a server for one of the workload's pods in that Service's backend, or a route it renders names the Service.",
    title: 'HAPTIC routes {services}',
  },
  HG119: {
    severity: 'warning',
    summary:
      'A StatefulSet or DaemonSet with updateStrategy OnDelete: its controller replaces a pod only when it is deleted, so the gate reaches no pod until they are deleted by hand.',
    title: {
      statefulSet:
        'statefulset {name} updates on delete (OnDelete): no pod gets the gate until it is deleted by hand, and then each replacement waits for HAProxy',
      daemonSet:
        'daemonset {name} updates on delete (OnDelete): no pod gets the gate until it is deleted by hand, and then each replacement waits for HAProxy',
    },
    fix: {
      statefulSet:
        'delete the pods one at a time from the highest ordinal, each once the one before is Ready (kubectl -n {namespace} delete pod {lastPod}), or roll them by themselves: kubectl -n {namespace} patch statefulset {name} -p \'{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}\'',
      // the DaemonSet controller then replaces maxUnavailable nodes' pods at a time (kubernetes/pkg/controller/daemon/update.go)
      daemonSet:
        'delete the pods one node at a time, each once the one before is Ready, or roll them by themselves: kubectl -n {namespace} patch daemonset {name} -p \'{"spec":{"updateStrategy":{"type":"RollingUpdate"}}}\'',
    },
  },
  HG120: {
    severity: 'warning',
    summary:
      'A StatefulSet with podManagementPolicy Parallel: scaling starts and deletes pods without waiting for one another, so the gate does not pace a scale-down; rolling updates still replace maxUnavailable pods at a time.',
    title:
      'statefulset {name} has podManagementPolicy Parallel: a scale-down removes pods at once, without waiting for HAProxy; rolling updates go {maxUnavailable} pod(s) at a time',
    fix: 'scale it in small steps, or use podManagementPolicy OrderedReady (set only at creation: the StatefulSet must be recreated)',
  },
  HG121: {
    severity: 'warning',
    summary:
      'A StatefulSet whose rolling update has a partition: pods below it keep their template, so they get the gate only when the partition is lowered.',
    title:
      'statefulset {name} has partition {partition}: {held} keep{s} the old template and get the gate only when the partition is lowered',
    fix: `lower it when the pods above it are Ready: kubectl -n {namespace} patch statefulset {name} -p '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}'`,
  },
  HG122: {
    severity: 'warning',
    summary:
      "HAPTIC's validation refuses something now. No new render reaches HAProxy when HAProxy refuses it or it cannot be validated: the rollout that adds the gate waits until that is fixed, while the old pods keep serving. A refused edit of the template config, or new controller pods refusing it at start-up, hold nothing back: the configuration in force keeps rendering. A refusal HAProxy has since outlived (the template config keeps saying it) is not reported.",
    title: {
      haproxyRefused:
        "HAProxy refuses HAPTIC {installation}'s rendered configuration: the new pods will wait for the gate until it is fixed (the old pods keep serving)",
      gateUnavailable:
        'HAPTIC {installation} cannot validate its rendered configuration: the new pods will wait for the gate until it can (the old pods keep serving)',
      configInvalid:
        'HAPTIC {installation} refused the latest edit of its template config: it keeps rendering with the configuration from before that edit, so the new pods are not held back by it, and the edit takes effect only once fixed',
      loadGateFailed:
        "HAPTIC {installation}'s new controller pods refuse the configuration at start-up (load gate) and crash-loop: the controller pod that leads keeps rendering and setting the gate with the configuration it loaded, until it is replaced",
    },
    fix: RENDER_FIX,
  },
  HG123: {
    severity: 'blocker',
    summary:
      "An Argo Rollout's own Service for the new pods (a blue-green's previewService, a canary's canaryService) is reached by no route HAPTIC renders: Argo points it at the new pods before they take traffic, HAPTIC would never route them and never set the gate, and the Rollout would never promote.",
    title: {
      preview:
        'No route that HAPTIC renders reaches the preview Service service/{service}: Argo selects the new pods with it before promotion, so HAPTIC would never set the gate on them and the Rollout would never promote',
      canary:
        'No route that HAPTIC renders reaches the canary Service service/{service}: Argo selects the canary pods with it, so HAPTIC would never set the gate on them and the Rollout would stop at its first step',
    },
    fix: "route the {role} Service too: kubectl -n {namespace} create ingress {service} --class={routeClass} --rule='/*={service}:{port}'; then run enable-gate again",
  },
  HG124: {
    severity: 'blocker',
    severityOf: { unknown: 'warning' },
    summary:
      "A route the agent generation renders names a Service port by name the Service lacks (a port renamed under an Ingress): its ResolveServicePort fails the installation's whole render, for every workload, and HAPTIC writes nothing about it (the template config stays Validated=True, only the controller's log says it): HAPTIC would never route the new pods. Where the Services of such a route's namespace cannot be read, that is said.",
    title: {
      portName:
        'HAPTIC {installation} renders nothing new: {route} names port {port} of service/{service}, which has no port of that name, and that fails its whole render, so it would never route the new pods and they would never become Ready',
      unknown:
        'Could not tell whether HAPTIC {installation} can render at all: {count} Ingress(es) it renders name a Service port by name in namespaces whose Services could not be read (a port name its Service lacks fails the whole render)',
    },
    fix: {
      portName: `${PORT_NAME_FIX}; then run enable-gate again`,
      unknown:
        'ask for read access to services in the namespaces named above, or check by hand that each Service has the port name its Ingress gives',
    },
  },
  HS101: {
    severity: 'error',
    endsWait: { holdSeconds: 15 },
    summary:
      'A gated pod is selected by no Service, so HAPTIC never sets its condition (near-miss selectors and selector-less Services named).',
    title: '{pods}: no Service selects {which}, so HAPTIC never sets {gateType}',
    fix: 'create a Service that selects the pods (or fix the selector above), or remove the gate: kubectl haptic disable-gate {target} -n {namespace}',
  },
  HS102: {
    severity: 'error',
    endsWait: { unlisted: { holdSeconds: 30 }, externalName: { holdSeconds: 10 }, portless: { holdSeconds: 15 } },
    summary:
      'A Service selects the pod but no EndpointSlice lists it with a port HAProxy could route to (e.g. a named targetPort the pod lacks, an ExternalName Service).',
    title: {
      unlisted: 'pod {pod} is selected by {services} but no EndpointSlice lists it',
      externalName: 'pod {pod} is selected by {services} but no EndpointSlice lists it',
      portless:
        'pod {pod} is selected by {services} but no EndpointSlice lists it with a port, so HAProxy has nothing to route to',
    },
    fix: {
      unlisted:
        'kubectl -n {namespace} get endpointslices -l kubernetes.io/service-name={service} -o yaml (the EndpointSlice controller lists every selected pod with an IP: is it running?)',
      externalName:
        'an ExternalName Service never gets endpoints: route the pods through a ClusterIP Service, or remove the gate: kubectl haptic disable-gate {target} -n {namespace}',
      portless:
        'make the Service targetPort name or number match a container port of the pod (a named targetPort the pod lacks leaves it without a port)',
    },
  },
  HS103: {
    severity: 'error',
    endsWait: { holdSeconds: 15 },
    summary:
      'HAPTIC has no controller leader (Lease missing, stale, or held by a pod that is gone or not running; controller scaled to zero): nothing renders, deploys or sets the gate.',
    title: 'HAPTIC {installation} has no controller leader, so nothing renders, deploys or sets the gate',
    fix: {
      scaledToZero: 'kubectl -n {namespace} scale deployment -l app.kubernetes.io/component=controller --replicas=2',
      controllerLogs: 'kubectl -n {namespace} logs -l app.kubernetes.io/component=controller --tail=50',
    },
  },
  HS104: {
    severity: 'error',
    endsWait: { holdSeconds: 15 },
    summary: 'No HAPTIC installation found (CRDs or HAProxyTemplateConfig missing), or none could be read.',
    title: {
      absent: 'no HAPTIC installation found, so nothing sets {gateType} on {pods}',
      unreadable: 'no HAPTIC installation could be read, so nothing explains why {gateType} is not set on {pods}',
    },
    fix: {
      absent: `install HAPTIC with ${INSTALL_GATE_FEATURE}, or remove the gate: kubectl haptic disable-gate {target} -n {namespace}`,
      unreadable:
        "ask for cluster-wide read access to haproxytemplateconfigs and haproxycfgs (haproxy-haptic.org) and to HAPTIC's pods and leases, then run why-stalled again",
    },
  },
  HS105: {
    severity: 'error',
    endsWait: { holdSeconds: 15 },
    summary:
      "HAPTIC's gate feature is off: the controller's RBAC does not allow patch on pods/status (or the release predates the gate).",
    title: {
      rbac: 'HAPTIC {installation} has the readiness-gate feature off: it may not patch pods/status',
      dataplane: 'HAPTIC {installation} is a release without the readiness gate: nothing sets {gateType}',
    },
    fix: {
      rbac: `helm upgrade with --set ${INSTALL_GATE_FEATURE}`,
      dataplane: `upgrade HAPTIC to a release with the readiness gate and set ${INSTALL_GATE_FEATURE}, or remove the gate: kubectl haptic disable-gate {target} -n {namespace}`,
    },
  },
  HS106: {
    severity: 'error',
    endsWait: { holdSeconds: 20 },
    summary:
      'A HAProxy pod did not get the configuration routing to the pod: a failed deploy (its lastError), or no deployedToPods entry at all.',
    title:
      "HAProxy {podNoun} {haproxyPods} did not get HAPTIC {installation}'s configuration, so {pods} cannot get the gate",
    fix: 'kubectl -n {namespace} logs {haproxyPod} -c {container} --tail=50',
  },
  HS107: {
    severity: 'error',
    severityOf: { configInvalid: 'warning', loadGateFailed: 'warning' },
    endsWait: { haproxyRefused: { holdSeconds: 15 }, gateUnavailable: { holdSeconds: 15 } },
    summary:
      "What HAPTIC's validation refuses, by what HAProxy runs. An error when no new render reaches HAProxy (HAProxy refused it, or the validation could not run): HAProxy pods keep the last accepted config. A warning when a template-config edit was refused (the configuration from before it keeps rendering and deploying) or new controller pods refuse the config at start-up (they crash-loop while the leading one keeps rendering): neither holds the pods back, so the causes after it are still looked for. A refusal HAProxy has since outlived is not reported.",
    title: {
      haproxyRefused:
        "HAProxy refused HAPTIC {installation}'s rendered configuration; HAProxy pods keep the last accepted one, which does not route the new pods",
      gateUnavailable:
        'HAPTIC {installation} could not validate its rendered configuration (the render gate is unavailable); nothing new reaches the HAProxy pods',
      configInvalid:
        'HAPTIC {installation} refused the latest edit of its template config; it keeps rendering and deploying with the configuration from before that edit, which is not why the pods wait',
      loadGateFailed:
        "HAPTIC {installation}'s new controller pods refuse the configuration at start-up (load gate) and crash-loop; the leading controller pod keeps rendering with the configuration it loaded",
    },
    fix: RENDER_FIX,
  },
  HS108: {
    severity: 'error',
    endsWait: { holdSeconds: 10 },
    summary: 'The readiness gate names a condition no installed controller writes (typo?).',
    title: 'readiness gate "{type}" is in HAPTIC\'s domain but HAPTIC writes "{gate}"',
    fix: 'kubectl haptic disable-gate {target} -n {namespace} --condition-type {type} && kubectl haptic enable-gate {target} -n {namespace}',
  },
  HS109: {
    severity: 'error',
    endsWait: { holdSeconds: 20 },
    summary: "Two HAPTIC installations route the pod and overwrite each other's condition.",
    title: '{count} HAPTIC installations route {pods}; they write the same condition and overwrite each other',
    fix: "route the Service through one installation only (restrict the other one's watched namespaces or ingress class)",
  },
  HS110: {
    severity: 'warning',
    summary: 'Every HAProxy pod routes to the pod, but HAPTIC has not set the condition.',
    title:
      'every HAProxy pod routes to {pods}, yet HAPTIC {installation} has not set {gateType} (containers ready for {age})',
    fix: 'kubectl -n {namespace} logs -l app.kubernetes.io/component=controller --tail=100 | grep -i readiness',
  },
  HS111: {
    severity: 'error',
    endsWait: { holdSeconds: 20 },
    summary:
      'HAPTIC runs without leader election (one controller, no Lease) and that controller is not running: nothing renders, deploys or sets the gate.',
    title:
      'HAPTIC {installation} runs one controller without leader election, and it is not running, so nothing renders, deploys or sets the gate',
    fix: {
      scaledToZero: 'kubectl -n {namespace} scale deployment -l app.kubernetes.io/component=controller --replicas=1',
      notRunning: 'kubectl -n {namespace} describe pod {pod}',
    },
  },
  HS112: {
    severity: 'warning',
    summary:
      "HAPTIC's controller has not processed the latest edit of its HAProxyTemplateConfig (status.observedGeneration behind metadata.generation).",
    title:
      'HAPTIC {installation} has not processed the latest edit of its template config (generation {generation}, observed {observed})',
    fix: 'kubectl -n {namespace} logs -l app.kubernetes.io/component=controller --tail=50',
  },
  HS113: {
    severity: 'error',
    endsWait: { holdSeconds: 20 },
    summary:
      "The pods are selected by a Service, but no route that HAPTIC renders names it (no Ingress of its class, an Ingress without a class, a route in another namespace without a ReferenceGrant…) and HAPTIC's live config has no server for them or in the backend of a Service that selects them (an old pod's server in a Service the new template leaves proves nothing): HAPTIC never routes them, so it never sets the condition (the near misses named).",
    title:
      '{pods}: no route that HAPTIC renders reaches {services}, so HAPTIC never routes {which} and never sets {gateType}',
    fix: {
      nearMiss: `fix the route above (its class, its namespace or ReferenceGrant, its listener), or ${ROUTE_FIX}`,
      none: ROUTE_FIX,
    },
  },
  HS114: {
    severity: 'error',
    endsWait: { holdSeconds: 20 },
    summary:
      "An Argo Rollout points a Service of its own at the new pods (a blue-green's previewService, a canary's canaryService), and no route HAPTIC renders reaches that Service: HAPTIC never routes the new pods, so it never sets the gate, and Argo, which waits for them to be Ready, never promotes.",
    title: {
      preview:
        'rollout {name}: Argo points the preview Service service/{service} at the new pods, and no route that HAPTIC renders reaches it, so HAPTIC never sets {gateType} on {pods} and the rollout never promotes',
      canary:
        'rollout {name}: Argo points the canary Service service/{service} at the new pods, and no route that HAPTIC renders reaches it, so HAPTIC never sets {gateType} on {pods} and the rollout never goes past its step',
    },
    fix: "route the {role} Service too: kubectl -n {namespace} create ingress {service} --class={routeClass} --rule='/*={service}:{port}' (HAPTIC sets the gate only on pods its configs route)",
  },
  HS115: {
    severity: 'error',
    endsWait: { portName: { holdSeconds: 15 }, unexplained: { holdSeconds: 30 } },
    summary:
      "HAPTIC renders nothing new, and writes nothing about it: a route the agent generation renders names a Service port by name the Service lacks, which fails the installation's whole render, or the live config has stayed as it was since before the waiting pods existed (ready, listed in their Service's EndpointSlice, with no server) while every HAProxy pod runs it. No new pod of any workload it routes gets the gate.",
    title: {
      portName:
        'HAPTIC {installation} fails every render: {route} names port {port} of service/{service}, which has no port of that name; its live config has no server for {pods}, and no new one is rendered',
      unexplained:
        "HAPTIC {installation} has rendered nothing since before {pods} existed: its live config has no server for them, and a render that fails is told only in the controller's log",
    },
    fix: {
      portName: PORT_NAME_FIX,
      unexplained:
        'kubectl -n {namespace} logs -l app.kubernetes.io/component=controller --tail=100 | grep -i -A3 render',
    },
  },
  HS201: {
    severity: 'error',
    endsWait: { holdSeconds: 10 },
    summary:
      "A readiness probe fails (the probe and the Unhealthy event named): the pod's containers never become ready.",
    title: 'pod {pod}: readiness probe fails, so its containers never become ready (the gate is not the blocker)',
    fix: 'check what the probe calls: kubectl -n {namespace} logs {pod} -c {container}; fix the application or the probe',
  },
  HS202: {
    severity: 'error',
    endsWait: { holdSeconds: 5, restarts: 3 },
    summary: 'A container is crash-looping, or restarted by its liveness probe (restarts and the last exit named).',
    title: {
      exits: 'pod {pod}: container {container} is crash-looping',
      liveness: 'pod {pod}: container {container} is crash-looping: its liveness probe kills it',
    },
    fix: {
      exits: 'kubectl -n {namespace} logs {pod} -c {container} --previous',
      liveness:
        'kubectl -n {namespace} describe pod {pod} (the Unhealthy events say what the liveness probe got); fix the application, or give the probe the time it needs (initialDelaySeconds, a startupProbe, failureThreshold)',
    },
  },
  HS203: {
    severity: 'error',
    endsWait: { holdSeconds: 30 },
    summary: 'An image cannot be pulled.',
    title: 'pod {pod}: image {image} cannot be pulled',
    fix: 'fix the image name or tag, or the registry credentials (imagePullSecrets)',
  },
  HS204: {
    severity: 'error',
    endsWait: { holdSeconds: 30 },
    summary: 'A pod cannot be scheduled (the FailedScheduling event named).',
    title: 'pod {pod} cannot be scheduled',
    fix: "make a node fit: fix the pod's nodeSelector/affinity/tolerations or resource requests, or add capacity",
  },
  HS205: {
    severity: 'error',
    endsWait: { holdSeconds: 20 },
    summary: 'The ReplicaSet cannot create pods (a quota, an admission webhook).',
    title: 'replicaset/{replicaSet} cannot create pods',
    fix: {
      quota:
        'raise the ResourceQuota in namespace {namespace} (kubectl -n {namespace} describe resourcequota) or lower the requests of the pods, or maxSurge',
      refused: 'fix what the API server refused (message above)',
    },
  },
  HS206: {
    severity: 'warning',
    summary: 'The Deployment is paused.',
    title: 'deployment {name} is paused: the rollout does not progress until it is resumed',
    fix: 'kubectl -n {namespace} rollout resume deployment/{name}',
  },
  HS207: {
    severity: 'error',
    summary: 'The rollout exceeded its progress deadline (reported after its cause, never instead of it).',
    title: {
      alone: 'deployment {name} exceeded its progress deadline ({seconds}s)',
      withCause: 'deployment {name} exceeded its progress deadline ({seconds}s); the cause is above',
    },
  },
  HS208: {
    severity: 'warning',
    summary:
      "Old pods are stuck terminating over 15 s past their grace period (finalizers named); the seconds a kubelet takes to kill and delete a pod are not a stall. With --sessions, HAProxy's open sessions to it tell a process the node never stopped.",
    title: 'pod {pod} is still terminating {age} past its grace period',
    fix: {
      finalizers: `find the controller that owns the finalizer; as a last resort: kubectl -n {namespace} patch pod {pod} --type=merge -p '{"metadata":{"finalizers":null}}'`,
      none: 'kubectl -n {namespace} delete pod {pod} --grace-period=0 --force',
      serving:
        'its process still serves HAProxy past the grace period: node {node} never stopped it (kubectl get node {node}); kubectl -n {namespace} delete pod {pod} --grace-period=0 --force cuts those {sessions} sessions',
    },
  },
  HS209: {
    severity: 'error',
    endsWait: { holdSeconds: 15 },
    summary: "The pod has HAPTIC's gate but waits for another readiness gate that nothing sets.",
    title:
      'pod {pod}: {gateType} is True, but the pod waits for readiness gate {other}, which is {status} {age} after its containers got ready',
    fix: 'find the controller that should set {other}, or remove it from spec.template.spec.readinessGates of {resource}',
  },
  HS210: {
    severity: 'error',
    endsWait: { holdSeconds: 15 },
    summary: "The pod's containers stay unready longer than their probes allow, with no probe failure reported.",
    title: 'pod {pod}: containers not ready for {age}, longer than the {probe} allows ({budget})',
    fix: 'kubectl -n {namespace} describe pod {pod} (probe settings and events); kubectl -n {namespace} logs {pod} -c {container}',
  },
  HS211: {
    severity: 'error',
    endsWait: { holdSeconds: 10, restarts: 3 },
    summary:
      "A StatefulSet's controller waits on a pod that cannot become Ready (crash loop, image, failing probe, config): with podManagementPolicy OrderedReady it replaces no other pod until that one is Ready, and Kubernetes never rolls back by itself.",
    title: {
      updateRevision:
        'statefulset {name} waits on pod {pod} of the new revision {revision}, which cannot become Ready ({cause}): the rollout stops there, and Kubernetes does not roll it back',
      olderRevision:
        'statefulset {name} waits on pod {pod} of the older revision {revision}, which cannot become Ready ({cause}): the controller never replaces a pod that is not Ready',
    },
    fix: {
      updateRevision:
        'fix the pod template (or go back: kubectl -n {namespace} rollout undo statefulset/{name}), then delete the pod so that it is made again from the fixed revision: kubectl -n {namespace} delete pod {pod}',
      olderRevision:
        'delete the pod so that it is made again from the update revision: kubectl -n {namespace} delete pod {pod}',
    },
  },
  HS212: {
    severity: 'error',
    endsWait: {
      noClass: { holdSeconds: 20 },
      classMissing: { holdSeconds: 20 },
      zone: { holdSeconds: 20 },
      other: { holdSeconds: 60 },
    },
    summary:
      "A StatefulSet's pod waits for its PersistentVolumeClaim: not bound (no StorageClass and no matching volume, a class that does not exist), or bound to a volume no node of the pod can reach (another zone).",
    title: 'pod {pod} waits for its claim {claim}, which is {phase}{because}',
    fix: {
      noClass:
        'no StorageClass provisions it and no PersistentVolume matches: create a PersistentVolume that fits the claim (kubectl -n {namespace} describe pvc {claim}), or give the volumeClaimTemplate a class a provisioner serves (kubectl get storageclass); volumeClaimTemplates cannot be edited: recreate the StatefulSet with kubectl delete statefulset {name} -n {namespace} --cascade=orphan',
      classMissing:
        'create the StorageClass {storageClass}, or recreate the StatefulSet with a class that exists (kubectl get storageclass; kubectl delete statefulset {name} -n {namespace} --cascade=orphan keeps its pods)',
      zone: 'the volume can only be used where no node for the pod is: free a node there, or move the data (kubectl describe pv, its nodeAffinity)',
      other: 'kubectl -n {namespace} describe pvc {claim}',
    },
  },
  HS213: {
    severity: 'warning',
    summary:
      "A StatefulSet's rolling update partition holds pods on an older revision: kubectl rollout status calls the rollout complete, but those pods keep the old template until the partition is lowered.",
    title:
      'statefulset {name} has partition {partition}: {held} keep{s} revision {revision} until the partition is lowered',
    fix: `lower it: kubectl -n {namespace} patch statefulset {name} -p '{"spec":{"updateStrategy":{"rollingUpdate":{"partition":0}}}}'`,
  },
  HS214: {
    severity: 'warning',
    summary:
      'A StatefulSet with updateStrategy OnDelete has pods of an older revision: its controller replaces a pod only when it is deleted.',
    title:
      'statefulset {name} updates on delete (OnDelete): {count} {podNoun} of an older revision stay until deleted by hand',
    fix: 'delete them one at a time from the highest ordinal, each once the one before is Ready: kubectl -n {namespace} delete pod {pod}',
  },
  HS215: {
    severity: 'error',
    endsWait: {
      step: { holdSeconds: 10 },
      blueGreen: { holdSeconds: 10 },
      manual: { holdSeconds: 10 },
      inconclusive: { holdSeconds: 10 },
    },
    summary:
      "An Argo Rollout is paused until a person acts: an indefinite pause step, a blue-green without auto-promotion, an inconclusive analysis, or spec.paused. Argo's controller moves it on only when promoted (or resumed); a timed pause is not a stall.",
    title: {
      step: 'rollout {name} is paused at step {step} ({stepText}) until promoted',
      blueGreen:
        'rollout {name} is paused before promotion (autoPromotionEnabled: false): the preview pods wait to be promoted',
      manual: 'rollout {name} is paused (spec.paused): it does not progress until it is resumed',
      inconclusive: 'rollout {name} is paused: an analysis was inconclusive ({reason}), and Argo waits for a person',
    },
    fix: {
      step: 'kubectl argo rollouts promote {name} -n {namespace} (or abort it: kubectl argo rollouts abort {name} -n {namespace})',
      blueGreen: 'kubectl argo rollouts promote {name} -n {namespace}',
      manual: 'kubectl argo rollouts resume {name} -n {namespace}',
      inconclusive:
        'kubectl argo rollouts promote {name} -n {namespace} to go on, or kubectl argo rollouts abort {name} -n {namespace}',
    },
  },
  HS216: {
    severity: 'error',
    summary:
      "Argo says the Rollout is Degraded: aborted (by a person or a failed analysis), past its progress deadline, or an invalid spec (Argo's message named; reported after the cause when one is found).",
    title: {
      aborted: 'rollout {name} was aborted: {message}',
      analysis: 'rollout {name} was aborted by a failed analysis run {run}: {message}',
      deadline: 'rollout {name} exceeded its progress deadline ({seconds}s): {message}',
      invalidSpec: 'rollout {name} has an invalid spec: {message}',
      degraded: 'rollout {name} is Degraded: {message}',
    },
    fix: {
      aborted:
        'fix what the new revision got wrong and apply it, or retry the same one: kubectl argo rollouts retry rollout {name} -n {namespace}',
      analysis:
        'kubectl -n {namespace} get analysisrun {run} -o yaml (which metric failed); then kubectl argo rollouts retry rollout {name} -n {namespace}',
      deadline: 'the cause is above, when one was found; kubectl argo rollouts get rollout {name} -n {namespace}',
      invalidSpec: 'fix the Rollout spec as the message says: kubectl -n {namespace} edit rollout {name}',
      degraded: 'kubectl argo rollouts get rollout {name} -n {namespace}',
    },
  },
  HS901: {
    severity: 'info',
    summary:
      'Not a stall: what a progressing rollout waits for (e.g. the HAProxy config routing to a pod runs on 1 of 2 HAProxy pods).',
    title: '{workload} is {state}, not stalled',
  },
  HS902: {
    severity: 'ok',
    summary: 'Not a stall: the rollout is complete (and whether old pods still drain).',
    title: {
      drained: '{workload} is rolled out',
      draining: '{workload} is rolled out; {count} old {podNoun} still draining',
    },
  },
  ...DOCTOR_CATALOGUE,
} as const satisfies Record<string, CatalogueEntry>;

export type FindingId = keyof typeof CATALOGUE;

const PLACEHOLDER = /\{([A-Za-z][A-Za-z0-9]*)\}/g;

/** The placeholders a template uses, in every variant. */
export function placeholders(template: Template | undefined): string[] {
  if (template === undefined) return [];
  const texts = typeof template === 'string' ? [template] : Object.values(template);
  return [...new Set(texts.flatMap((t) => [...t.matchAll(PLACEHOLDER)].map((m) => m[1] as string)))];
}

/** The severity of a finding of this id and form. */
export function severityOf(entry: CatalogueEntry, variant: string | undefined): Severity {
  return (variant !== undefined ? entry.severityOf?.[variant] : undefined) ?? entry.severity;
}

/** The variants of an entry: the keys of its title and fix records. */
export function variants(entry: CatalogueEntry): string[] {
  return [...new Set([entry.title, entry.fix].flatMap((t) => (t && typeof t !== 'string' ? Object.keys(t) : [])))];
}

/** A word a POSIX shell reads as it is: nothing to expand, split or end a command on. */
const SHELL_SAFE = /^[A-Za-z0-9_./:=@%+,-]+$/;
/** What no quoting keeps on one pasted line: control characters (a newline ends the command) and line separators. */
const UNQUOTABLE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/**
 * A value as a shell must read it where the template puts it: as it is when it is a safe word, else single-quoted
 * (POSIX: nothing inside single quotes is special; a quote is written '\''), or only its quotes escaped inside a
 * span the template already quotes (`--rule='/*={service}:{port}'`). undefined when no quoting keeps it on one line.
 */
export function shellWord(value: string, insideQuotes: boolean): string | undefined {
  if (UNQUOTABLE.test(value)) return undefined;
  if (SHELL_SAFE.test(value)) return value;
  const escaped = value.replaceAll("'", "'\\''");
  return insideQuotes ? escaped : `'${escaped}'`;
}

/**
 * The shell quotes in a fix text: every `'` but an apostrophe inside a word (HAPTIC's). Inside a quoted span when an
 * odd number comes before; a unit test keeps every fix text's quotes in pairs.
 */
export const shellQuotes = (text: string): number => text.match(/(?<![A-Za-z])'|'(?![a-z])/g)?.length ?? 0;

/**
 * Fills a template; a missing argument or variant is a bug in the rule, not a finding to print half-filled. A fix
 * (`shell`) is a command a user pastes: every value goes in shell-quoted, and a fix with a value no quoting keeps on
 * one line (a field selector holding a newline) is not printed, said instead (a pasted newline runs what follows it).
 */
export function fill(
  template: Template,
  variant: string | undefined,
  args: Record<string, string | number>,
  where: string,
  shell = false,
): string {
  const text = typeof template === 'string' ? template : variant !== undefined ? template[variant] : undefined;
  if (text === undefined) throw new Error(`${where}: no text for variant ${JSON.stringify(variant)}`);
  let unquotable: string | undefined;
  const filled = text.replace(PLACEHOLDER, (_, name: string, offset: number) => {
    const value = args[name];
    if (value === undefined) throw new Error(`${where}: no value for {${name}}`);
    if (!shell) return String(value);
    const word = shellWord(String(value), shellQuotes(text.slice(0, offset)) % 2 === 1);
    if (word === undefined) unquotable ??= name;
    return word ?? '';
  });
  return unquotable === undefined
    ? filled
    : `(no command printed: the ${unquotable} it needs holds a control character, which a pasted command would run as a new line)`;
}

/** The anchor of an id in docs/checks.md. */
export function docsAnchor(id: string): string {
  return `${DOCS_PAGE}#${id.toLowerCase()}`;
}

/** The same section as an absolute URL (SARIF's helpUri must be one). */
export function docsUrl(id: string): string {
  return `${PROJECT_HOMEPAGE}/blob/main/${docsAnchor(id)}`;
}

/** A finding in words: its catalogue entry's title and fix, filled with the finding's arguments. */
export function describeFinding(f: Finding): FindingText {
  const entry = (CATALOGUE as Record<string, CatalogueEntry>)[f.id];
  if (!entry) throw new Error(`finding ${f.id} is not in the catalogue`);
  return {
    id: f.id,
    severity: f.severity,
    title: fill(entry.title, f.variant, f.args, `${f.id} title`),
    evidence: f.evidence,
    fix: entry.fix === undefined ? undefined : fill(entry.fix, f.variant, f.args, `${f.id} fix`, true),
    ...(f.pod === undefined ? {} : { pod: f.pod }),
    docs: docsAnchor(f.id),
  };
}
