// The HAPTIC stand-in: installs HAPTIC's objects (CRDs, namespace, RBAC, Deployments, Service, the
// HAProxyTemplateConfig), runs one controller per installation over shared pod/Service/EndpointSlice caches,
// and applies the failure knobs of the ConfigMap haptic/haptic-standin-knobs (knobs.ts).
import type { Api } from './client.ts';
import { pathOf } from './client.ts';
import { errorText, log, type Obj, sleep } from './common.ts';
import { HAPTIC_CRDS } from './haptic-crds.ts';
import { HapticController, type SharedCaches } from './haptic-installation.ts';
import { clusterRole, fullname, type Installation, installationObjects } from './haptic-manifests.ts';
import { startInformer } from './informer.ts';
import { APPLIED_ANNOTATION, KNOBS_CONFIGMAP, KNOBS_NAMESPACE, knobsDigest, parseKnobs, type ParsedKnobs } from './knobs.ts';
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

async function installCrds(api: Api): Promise<void> {
  for (const crd of HAPTIC_CRDS) await api.apply(crd, MANAGER);
  await retry('waiting for the HAPTIC CRDs to be established', 30_000, async () => {
    for (const crd of HAPTIC_CRDS) {
      const stored = await api.get(pathOf('apiextensions.k8s.io/v1', 'CustomResourceDefinition', undefined, crd.metadata.name));
      const established = stored.status?.conditions?.some((c: { type: string; status: string }) => c.type === 'Established' && c.status === 'True');
      if (!established) throw new Error(`${crd.metadata.name} not established yet`);
    }
  });
}

/** Deletes an installation's namespace and cluster-scoped RBAC, and waits until the namespace is gone. */
async function removeInstallation(api: Api, inst: Installation): Promise<void> {
  const rbac = 'rbac.authorization.k8s.io/v1';
  await api.delete(pathOf(rbac, 'ClusterRoleBinding', undefined, fullname(inst)));
  await api.delete(pathOf(rbac, 'ClusterRole', undefined, fullname(inst)));
  const nsPath = pathOf('v1', 'Namespace', undefined, inst.namespace);
  await api.delete(nsPath);
  await retry(`waiting for namespace ${inst.namespace} to be deleted`, 120_000, async () => {
    if (await api.tryGet(nsPath)) throw new Error('still there');
  });
}

export async function runHapticStandIn(api: Api, signal: AbortSignal, leaseDurationSeconds: number): Promise<void> {
  await installCrds(api);
  const controllers = new Map<string, HapticController>();
  let applied: ParsedKnobs | undefined;

  const install = async (inst: Installation, knobs: ParsedKnobs): Promise<HapticController> => {
    const objects = await retry(`installing ${inst.release}`, 30_000, async () => {
      const stored: Obj[] = [];
      for (const obj of installationObjects(inst, knobs.gateFeature)) stored.push(await api.apply(obj, MANAGER));
      return stored;
    });
    const controller = new HapticController(api, inst, caches, knobs, leaseDurationSeconds);
    await controller.load(objects.find((o) => o.kind === 'HAProxyTemplateConfig')!);
    controllers.set(inst.release, controller);
    return controller;
  };

  const applyKnobs = async (): Promise<undefined> => {
    const cm = knobsInformer.get(`${KNOBS_NAMESPACE}/${KNOBS_CONFIGMAP}`);
    const knobs = parseKnobs(cm?.data);
    const primary = controllers.get(PRIMARY.release);
    if (!primary) return undefined; // applied once the primary installation exists
    if (knobs.gateFeature !== primary.knobs.gateFeature) await api.apply(clusterRole(PRIMARY, knobs.gateFeature), MANAGER);
    primary.knobs = knobs;
    await reconciler.settle(PRIMARY.release);
    const second = controllers.get(SECOND.release);
    if (knobs.secondInstallation && !second) {
      await install(SECOND, { ...parseKnobs({}), secondInstallation: true });
      await reconciler.settle(SECOND.release);
    } else if (!knobs.secondInstallation && (second || !applied)) {
      controllers.delete(SECOND.release);
      await removeInstallation(api, SECOND);
    }
    applied = knobs;
    const digest = knobsDigest(cm?.data);
    if (cm && cm.metadata.annotations?.[APPLIED_ANNOTATION] !== digest) {
      await api.patch(pathOf('v1', 'ConfigMap', KNOBS_NAMESPACE, KNOBS_CONFIGMAP), { metadata: { annotations: { [APPLIED_ANNOTATION]: digest } } });
      log('haptic', `knobs applied: ${JSON.stringify(cm.data ?? {})}`);
    }
    return undefined;
  };

  const reconciler = new Reconciler('haptic', (key) => (key === KNOBS ? applyKnobs() : controllers.get(key)?.reconcile() ?? Promise.resolve(undefined)));
  signal.addEventListener('abort', () => reconciler.stop(), { once: true });
  const triggerAll = () => controllers.forEach((_, release) => reconciler.enqueue(release));
  const inform = (path: string, name: string) => startInformer(api, path, { name }, triggerAll, signal);
  const caches: SharedCaches = {
    pods: inform('/api/v1/pods', 'haptic: pods'),
    services: inform('/api/v1/services', 'haptic: services'),
    slices: inform('/apis/discovery.k8s.io/v1/endpointslices', 'haptic: endpointslices'),
  };
  const knobsInformer = startInformer(api, pathOf('v1', 'ConfigMap', KNOBS_NAMESPACE),
    { name: 'haptic: knobs', fieldSelector: `metadata.name=${KNOBS_CONFIGMAP}` }, () => reconciler.enqueue(KNOBS), signal);
  await Promise.all([caches.pods.synced, caches.services.synced, caches.slices.synced, knobsInformer.synced]);

  const primary = await install(PRIMARY, parseKnobs({}));
  await reconciler.settle(KNOBS);
  await retry('waiting for the HAPTIC leader to hold its Lease', 60_000, async () => {
    await reconciler.settle(PRIMARY.release);
    if (!primary.leader.leading && primary.knobs.leader) throw new Error('no running controller pod yet');
  });
  log('haptic', `installation ${PRIMARY.namespace}/${fullname(PRIMARY)} ready`);
}
