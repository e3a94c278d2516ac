// The one place that knows HAPTIC's names, labels and API group (see the HAPTIC chart and controller).

/** The pod condition HAPTIC writes once every HAProxy pod runs a configuration routing to the pod. */
export const GATE_CONDITION = 'haproxy-haptic.org/load-balancer-ready';
/** Condition types in this domain are HAPTIC's; one that is not GATE_CONDITION is most likely a typo. */
export const HAPTIC_DOMAIN = 'haproxy-haptic.org/';

export const HAPTIC_GROUP = 'haproxy-haptic.org';

export const LABEL_NAME = 'app.kubernetes.io/name';
export const LABEL_INSTANCE = 'app.kubernetes.io/instance';
export const LABEL_COMPONENT = 'app.kubernetes.io/component';
export const NAME_VALUE = 'haptic';
export const COMPONENT_CONTROLLER = 'controller';
export const COMPONENT_LOADBALANCER = 'loadbalancer';

/** Every pod of every HAPTIC installation carries this label (controller and HAProxy alike). */
export const HAPTIC_PODS_SELECTOR = `${LABEL_NAME}=${NAME_VALUE}`;

/** Lease names to try when the template config does not name one: Helm's fullname, then the controller default. */
export function leaseNameCandidates(
  templateConfig: { spec?: { controller?: { leaderElection?: { leaseName?: string } } } },
  release: string | undefined,
): string[] {
  const configured = templateConfig.spec?.controller?.leaderElection?.leaseName;
  if (configured) return [configured];
  const fullname = release ? (release.includes('haptic') ? release : `${release}-haptic`) : undefined;
  return [...new Set([fullname, 'haptic', 'haptic-leader'].filter((n): n is string => !!n))];
}

/** The live rendered config is named after its template config; others (…-invalid, checkpoints) exist too. */
export function liveHAProxyCfgName(templateConfigName: string): string {
  return `${templateConfigName}-haproxycfg`;
}

/** HAPTIC's default template config name (the chart's controller.crdName), and the env var that names it. */
export const DEFAULT_TEMPLATE_CONFIG = 'haptic-config';
export const CRD_NAME_ENV = 'CRD_NAME';

/** Where HAPTIC keeps a render HAProxy refused: `<htc>-haproxycfg-invalid`, with status.validationError. */
export function invalidHAProxyCfgName(templateConfigName: string): string {
  return `${liveHAProxyCfgName(templateConfigName)}-invalid`;
}

/** The Lease annotation with the plan the leader is rolling out: JSON {planID, checksum}. */
export const DEPLOYMENT_INTENT_ANNOTATION = 'haproxy-haptic.org/deployment-intent';

/** deployedToPods modes that confirm a deploy (HAPTIC's confirmsOutput); `scheduled` and `rejected` do not. */
export const CONFIRMING_MODES = ['reload', 'runtime', 'file_only', 'noop'];

/** The Helm value that turns HAPTIC's readiness-gate feature on. */
export const GATE_FEATURE_HELM_VALUE = 'controller.templateLibraries.kubernetesBackends.podReadinessGate.enabled=true';
