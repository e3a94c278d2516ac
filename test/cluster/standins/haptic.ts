// The HAPTIC stand-in: installs HAPTIC's objects (CRDs, namespace, RBAC, Deployments, Service, the
// HAProxyTemplateConfig), runs one controller per installation over shared pod/Service/EndpointSlice caches,
// and applies the failure knobs of the ConfigMap haptic/haptic-standin-knobs (knobs.ts).
import type { Kube } from '../kube.ts';
import { errorText, informerLog, log, type Obj, sleep } from './common.ts';
import { gatewayApiCrds } from './gateway-api-crds.ts';
import { hapticCrds } from './haptic-crds.ts';
import { HapticController, type RealHAProxy, type SharedCaches } from './haptic-installation.ts';
import {
  type ChartSettings,
  clusterRole,
  controllerDeployment,
  DEFAULT_CHART,
  fullname,
  type Installation,
  installationObjects,
  routeClasses,
  templateConfig,
} from './haptic-manifests.ts';
import {
  APPLIED_ANNOTATION,
  type InstallationKnobs,
  KNOBS_CONFIGMAP,
  KNOBS_NAMESPACE,
  knobsDigest,
  parseKnobs,
  type ParsedKnobs,
  type StatusShape,
} from './knobs.ts';
import { Reconciler } from './reconciler.ts';

export const PRIMARY: Installation = { release: 'haptic', namespace: 'haptic' };
export const SECOND: Installation = { release: 'haptic-2', namespace: 'haptic-2' };
const MANAGER = 'haptic-standin';
const KNOBS = 'knobs';

async function retry<T>(what: string, timeoutMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (Date.now() > deadline) throw new Error(`${what}: ${errorText(error)}`, { cause: error });
      await sleep(250);
    }
  }
}

/**
 * The CRDs of a generation (haptic-crds.ts). They are cluster-scoped, so every installation of the cluster shares
 * one generation's schemas, as in a real cluster.
 */
async function installCrds(kube: Kube, shape: StatusShape): Promise<void> {
  await establish(kube, hapticCrds(shape));
}

async function establish(kube: Kube, crds: Obj[]): Promise<void> {
  await kube.apply(crds, MANAGER);
  await retry('waiting for the HAPTIC CRDs to be established', 30_000, async () => {
    for (const crd of crds) {
      const stored = await kube.get<Obj>('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd.metadata.name);
      const established = stored.status?.conditions?.some(
        (c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True',
      );
      if (!established) throw new Error(`${crd.metadata.name} not established yet`);
    }
  });
}

/** Deletes an installation's namespace and cluster-scoped RBAC, and waits until the namespace is gone. */
async function removeInstallation(kube: Kube, inst: Installation): Promise<void> {
  const rbac = 'rbac.authorization.k8s.io/v1';
  await kube.delete(rbac, 'ClusterRoleBinding', fullname(inst));
  await kube.delete(rbac, 'ClusterRole', fullname(inst));
  await kube.delete('v1', 'Namespace', inst.namespace);
  await retry(`waiting for namespace ${inst.namespace} to be deleted`, 120_000, async () => {
    if (await kube.tryGet('v1', 'Namespace', inst.namespace)) throw new Error('still there');
  });
}

const chartOf = (k: InstallationKnobs): ChartSettings => ({
  gateFeature: k.gateFeature,
  statusShape: k.statusShape,
  leaderElection: k.leaderElection,
  compressed: k.compressed,
});

/** `real`: the lab's HAProxy pods run real HAProxy, which checks renders and takes deploys (haptic-installation.ts). */
export async function runHapticStandIn(
  kube: Kube,
  signal: AbortSignal,
  leaseDurationSeconds: number,
  real?: RealHAProxy,
): Promise<void> {
  await installCrds(kube, DEFAULT_CHART.statusShape);
  await establish(kube, gatewayApiCrds());
  await retry('creating the route classes', 30_000, () => kube.apply(routeClasses(PRIMARY), MANAGER));
  const controllers = new Map<string, HapticController>();
  let applied: ParsedKnobs | undefined;

  const install = async (inst: Installation, knobs: ParsedKnobs): Promise<HapticController> => {
    const objects = await retry(`installing ${inst.release}`, 30_000, async () => {
      return kube.apply<Obj>(installationObjects(inst, chartOf(knobs)), MANAGER);
    });
    const controller = new HapticController(kube, inst, caches, knobs, leaseDurationSeconds, real);
    await controller.load(objects.find((o) => o.kind === 'HAProxyTemplateConfig')!);
    controllers.set(inst.release, controller);
    return controller;
  };

  const applyKnobs = async (): Promise<undefined> => {
    const cm = knobsInformer.get(`${KNOBS_NAMESPACE}/${KNOBS_CONFIGMAP}`);
    const knobs = parseKnobs(cm?.data);
    const primary = controllers.get(PRIMARY.release);
    if (!primary) return undefined; // applied once the primary installation exists
    const before = chartOf(primary.knobs);
    const after = chartOf(knobs);
    if (after.statusShape !== before.statusShape) await installCrds(kube, after.statusShape);
    if (after.gateFeature !== before.gateFeature || after.statusShape !== before.statusShape)
      await kube.apply([clusterRole(PRIMARY, after)], MANAGER);
    if (after.leaderElection !== before.leaderElection || after.compressed !== before.compressed) {
      await kube.apply([templateConfig(PRIMARY, after), controllerDeployment(PRIMARY, after)], MANAGER);
    }
    primary.knobs = knobs;
    await reconciler.settle(PRIMARY.release);
    const second = controllers.get(SECOND.release);
    if (second && second.knobs.statusShape !== knobs.statusShape) {
      // the CRDs are shared: the second installation runs the same generation
      second.knobs = { ...second.knobs, statusShape: knobs.statusShape };
      await kube.apply([clusterRole(SECOND, chartOf(second.knobs))], MANAGER);
    }
    if (knobs.secondInstallation && !second) {
      await install(SECOND, { ...parseKnobs({ statusShape: knobs.statusShape }), secondInstallation: true });
      await reconciler.settle(SECOND.release);
    } else if (!knobs.secondInstallation && (second || !applied)) {
      controllers.delete(SECOND.release);
      await removeInstallation(kube, SECOND);
    }
    applied = knobs;
    const digest = knobsDigest(cm?.data);
    if (cm && cm.metadata.annotations?.[APPLIED_ANNOTATION] !== digest) {
      await kube.patch('v1', 'ConfigMap', KNOBS_CONFIGMAP, KNOBS_NAMESPACE, {
        metadata: { annotations: { [APPLIED_ANNOTATION]: digest } },
      });
      log('haptic', `knobs applied: ${JSON.stringify(cm.data ?? {})}`);
    }
    return undefined;
  };

  const reconciler = new Reconciler('haptic', (key) =>
    key === KNOBS ? applyKnobs() : (controllers.get(key)?.reconcile() ?? Promise.resolve(undefined)),
  );
  signal.addEventListener('abort', () => reconciler.stop(), { once: true });
  const triggerAll = () => {
    for (const release of controllers.keys()) reconciler.enqueue(release);
  };
  const inform = (apiVersion: string, kind: string, name: string) =>
    kube.informer<Obj>(apiVersion, kind, {}, { onObject: triggerAll, onError: informerLog(name) }, signal);
  const caches: SharedCaches = {
    pods: await inform('v1', 'Pod', 'haptic: pods'),
    services: await inform('v1', 'Service', 'haptic: services'),
    slices: await inform('discovery.k8s.io/v1', 'EndpointSlice', 'haptic: endpointslices'),
    templateConfigs: await inform('haproxy-haptic.org/v1alpha1', 'HAProxyTemplateConfig', 'haptic: template configs'),
    ingresses: await inform('networking.k8s.io/v1', 'Ingress', 'haptic: ingresses'),
    gateways: await inform('gateway.networking.k8s.io/v1', 'Gateway', 'haptic: gateways'),
    httpRoutes: await inform('gateway.networking.k8s.io/v1', 'HTTPRoute', 'haptic: httproutes'),
    grpcRoutes: await inform('gateway.networking.k8s.io/v1', 'GRPCRoute', 'haptic: grpcroutes'),
    // at the versions the cluster serves (gateway-api-crds.ts) and the template config names (haptic-manifests.ts)
    tlsRoutes: await inform('gateway.networking.k8s.io/v1', 'TLSRoute', 'haptic: tlsroutes'),
    tcpRoutes: await inform('gateway.networking.k8s.io/v1', 'TCPRoute', 'haptic: tcproutes'),
    referenceGrants: await inform('gateway.networking.k8s.io/v1', 'ReferenceGrant', 'haptic: referencegrants'),
  };
  const knobsInformer = await kube.informer<Obj>(
    'v1',
    'ConfigMap',
    { namespace: KNOBS_NAMESPACE, fieldSelector: `metadata.name=${KNOBS_CONFIGMAP}` },
    { onObject: () => reconciler.enqueue(KNOBS), onError: informerLog('haptic: knobs') },
    signal,
  );
  await Promise.all([...Object.values(caches).map((c) => c.whenSynced), knobsInformer.whenSynced]);

  const primary = await install(PRIMARY, parseKnobs({}));
  await reconciler.settle(KNOBS);
  await retry('waiting for the HAPTIC leader to hold its Lease', 60_000, async () => {
    await reconciler.settle(PRIMARY.release);
    if (!primary.leader.leading && primary.knobs.leader) throw new Error('no running controller pod yet');
  });
  log('haptic', `installation ${PRIMARY.namespace}/${fullname(PRIMARY)} ready`);
}
