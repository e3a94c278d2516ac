// Failure knobs of the HAPTIC stand-in: keys of the ConfigMap haptic/haptic-standin-knobs, which the stand-in
// watches (no ConfigMap or no keys = all healthy). setKnobs/resetKnobs are what e2e tests call; both resolve once
// the stand-in has applied the change (it stamps the ConfigMap with a digest of the data it applied).
import { Api, ApiError } from './client.ts';
import { sha256Hex, sleep, STANDIN_ANNOTATION } from './common.ts';
import type { InstallationKnobs } from './haptic-installation.ts';

export type Knobs = {
  /** "false": the leader stops renewing its Lease (it goes stale); nothing is rendered, deployed or gated. */
  leader: 'true' | 'false';
  /** A HAProxy pod name, or "first" (first by name): deploys to it fail (lastError, checksum stuck). */
  failDeployTo: string;
  /** "true": HAProxy refuses every render (ConfigValidated=False, ConfigPinned=True, Validated=False). */
  refuseRender: 'true' | 'false';
  /** "off": ClusterRole without pods / pods/status, the condition is never written, gated pods are not routed. */
  gateFeature: 'on' | 'off';
  /** "true": a second installation haptic-2 (namespace haptic-2) routes the same Services and writes the gate too. */
  secondInstallation: 'true' | 'false';
  /** Delay before each HAProxy pod catches up with a new config (default 500–1000 ms). */
  deployDelayMs: `${number}`;
};

export type ParsedKnobs = InstallationKnobs & { secondInstallation: boolean };

export const KNOBS_NAMESPACE = 'haptic';
export const KNOBS_CONFIGMAP = 'haptic-standin-knobs';
export const APPLIED_ANNOTATION = `${STANDIN_ANNOTATION}/applied`;

export function parseKnobs(data: Record<string, string> | undefined): ParsedKnobs {
  const delay = Number(data?.deployDelayMs ?? NaN);
  return {
    leader: data?.leader !== 'false',
    failDeployTo: data?.failDeployTo ?? '',
    refuseRender: data?.refuseRender === 'true',
    gateFeature: data?.gateFeature !== 'off',
    secondInstallation: data?.secondInstallation === 'true',
    ...(Number.isFinite(delay) && delay >= 0 ? { deployDelayMs: delay } : {}),
  };
}

/** What the stand-in stamps on the ConfigMap once it has applied `data`. */
export function knobsDigest(data: Record<string, string> | undefined): string {
  const entries = Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return sha256Hex(JSON.stringify(entries)).slice(0, 16);
}

const path = `/api/v1/namespaces/${KNOBS_NAMESPACE}/configmaps`;

/** Sets the given knobs (others keep their value) and waits until the stand-in has applied them. */
export async function setKnobs(kubeconfigPath: string, knobs: Partial<Knobs>, timeoutMs = 90_000): Promise<void> {
  const api = await Api.connect(kubeconfigPath);
  let cm;
  try {
    cm = await api.patch(`${path}/${KNOBS_CONFIGMAP}`, { data: knobs });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    cm = await api.request('POST', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: KNOBS_CONFIGMAP }, data: knobs });
  }
  await waitApplied(api, knobsDigest(cm.data), timeoutMs);
}

/** Back to all healthy (Lease renewed, ClusterRole restored, second installation gone); waits until applied. */
export async function resetKnobs(kubeconfigPath: string, timeoutMs = 90_000): Promise<void> {
  const api = await Api.connect(kubeconfigPath);
  try {
    await api.patch(`${path}/${KNOBS_CONFIGMAP}`, { data: null });
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 404)) throw error;
    await api.request('POST', path, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: KNOBS_CONFIGMAP } });
  }
  await waitApplied(api, knobsDigest({}), timeoutMs);
}

async function waitApplied(api: Api, digest: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const cm = await api.tryGet(`${path}/${KNOBS_CONFIGMAP}`);
    if (cm?.metadata.annotations?.[APPLIED_ANNOTATION] === digest && knobsDigest(cm.data) === digest) return;
    if (Date.now() > deadline) throw new Error(`the HAPTIC stand-in did not apply knobs ${JSON.stringify(cm?.data ?? {})} within ${timeoutMs} ms`);
    await sleep(100);
  }
}
