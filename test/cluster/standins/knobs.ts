// Failure knobs of the HAPTIC stand-in: keys of the ConfigMap haptic/haptic-standin-knobs, which the stand-in
// watches (no ConfigMap or no keys = all healthy). setKnobs/resetKnobs are what e2e tests call; both resolve once
// the stand-in has applied the change (it stamps the ConfigMap with a digest of the data it applied).
import { isApiError } from '../../../src/kube/errors.ts';
import { Kube } from '../kube.ts';
import { type Obj, sha256Hex, sleep, STANDIN_ANNOTATION } from './common.ts';

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
  /**
   * Which released HAPTIC to imitate (docs/haptic-compat.md): "gate" (default) the seed's release with the readiness
   * gate, on the agent generation's shapes; "agent" the released agent generation (no gate); "dataplane" the
   * dataplane-API generation (its deploy statuses and CRD schema, no conditions, no events, no gate).
   */
  statusShape: StatusShape;
  /** "off": spec.controller.leaderElection.enabled false: one controller replica, no Lease, it still renders and gates. */
  leaderElection: 'on' | 'off';
  /** "true": spec.content stored zstd + base64 with compressed: true (a compressionThreshold below the config's size). */
  compressed: 'true' | 'false';
  /**
   * Retained checkpoints of confirmed configs (agent and gate shapes): keep this many, newest first, plus any a pod
   * still runs. Unset: HAPTIC's own rule, the newest and one earlier (configpublisher retainedReferences); "0": none,
   * as the agent releases before retained checkpoints.
   */
  retainConfigs: `${number}`;
  /** Where the `# Pod: <pod>` comment goes: "end" of the server line (HAPTIC's library) or the line "before". */
  podComment: 'end' | 'before';
  /**
   * With statusShape "dataplane": "release" (default) as its released tags write (64-hex checksums in spec and
   * entries, the -invalid HAProxyCfg deleted once a render is accepted again), "head" as its HEAD does (a 16-hex
   * spec.checksum beside 64-hex entries, the -invalid HAProxyCfg kept).
   */
  dataplaneRevision: 'release' | 'head';
  /**
   * How the agent reports deploys that succeed (agent and gate shapes): "scheduled" (a reload queued),
   * "rejected", "noop" or "file_only" as deployedToPods[].mode, with workerOpsPlanID; unset: runtime or reload as the
   * change needs.
   */
  agentMode: 'scheduled' | 'rejected' | 'noop' | 'file_only';
};

export type StatusShape = 'gate' | 'agent' | 'dataplane';

const AGENT_MODES: Knobs['agentMode'][] = ['scheduled', 'rejected', 'noop', 'file_only'];

/** What one HAPTIC installation of the stand-in is told to do. */
export type InstallationKnobs = {
  leader: boolean;
  failDeployTo: string;
  refuseRender: boolean;
  gateFeature: boolean;
  deployDelayMs?: number;
  statusShape: StatusShape;
  leaderElection: boolean;
  compressed: boolean;
  retainConfigs: number;
  podComment: 'end' | 'before';
  dataplaneRevision: 'release' | 'head';
  agentMode?: Knobs['agentMode'] | undefined;
};

export type ParsedKnobs = InstallationKnobs & { secondInstallation: boolean };

export const KNOBS_NAMESPACE = 'haptic';
export const KNOBS_CONFIGMAP = 'haptic-standin-knobs';
export const APPLIED_ANNOTATION = `${STANDIN_ANNOTATION}/applied`;

export function parseKnobs(data: Record<string, string> | undefined): ParsedKnobs {
  const delay = Number(data?.deployDelayMs ?? NaN);
  const retain = data?.retainConfigs === undefined ? 2 : Number(data.retainConfigs);
  const shape = data?.statusShape;
  return {
    leader: data?.leader !== 'false',
    failDeployTo: data?.failDeployTo ?? '',
    refuseRender: data?.refuseRender === 'true',
    gateFeature: data?.gateFeature !== 'off',
    secondInstallation: data?.secondInstallation === 'true',
    statusShape: shape === 'agent' || shape === 'dataplane' ? shape : 'gate',
    leaderElection: data?.leaderElection !== 'off',
    compressed: data?.compressed === 'true',
    retainConfigs: Number.isInteger(retain) && retain >= 0 ? retain : 2,
    podComment: data?.podComment === 'before' ? 'before' : 'end',
    dataplaneRevision: data?.dataplaneRevision === 'head' ? 'head' : 'release',
    ...(AGENT_MODES.includes(data?.agentMode as Knobs['agentMode'])
      ? { agentMode: data!.agentMode as Knobs['agentMode'] }
      : {}),
    ...(Number.isFinite(delay) && delay >= 0 ? { deployDelayMs: delay } : {}),
  };
}

/** What the stand-in stamps on the ConfigMap once it has applied `data`. */
export function knobsDigest(data: Record<string, string> | undefined): string {
  const entries = Object.entries(data ?? {}).sort(([a], [b]) => a.localeCompare(b));
  return sha256Hex(JSON.stringify(entries)).slice(0, 16);
}

/** Sets the given knobs (others keep their value) and waits until the stand-in has applied them. */
export async function setKnobs(kubeconfigPath: string, knobs: Partial<Knobs>, timeoutMs = 90_000): Promise<void> {
  const kube = new Kube(kubeconfigPath);
  const cm = await writeKnobs(kube, knobs);
  await waitApplied(kube, knobsDigest(cm.data), timeoutMs);
}

/** Back to all healthy (Lease renewed, ClusterRole restored, second installation gone); waits until applied. */
export async function resetKnobs(kubeconfigPath: string, timeoutMs = 90_000): Promise<void> {
  const kube = new Kube(kubeconfigPath);
  await writeKnobs(kube, null);
  await waitApplied(kube, knobsDigest({}), timeoutMs);
}

/** Merges `data` into the ConfigMap (null clears it), creating it when missing. */
async function writeKnobs(kube: Kube, data: Partial<Knobs> | null): Promise<Obj> {
  try {
    return await kube.patch<Obj>('v1', 'ConfigMap', KNOBS_CONFIGMAP, KNOBS_NAMESPACE, { data });
  } catch (error) {
    if (!isApiError(error, 'NotFound')) throw error;
    const metadata = { name: KNOBS_CONFIGMAP, namespace: KNOBS_NAMESPACE };
    return kube.create<Obj>({ apiVersion: 'v1', kind: 'ConfigMap', metadata, ...(data ? { data } : {}) });
  }
}

async function waitApplied(kube: Kube, digest: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const cm = await kube.tryGet<Obj>('v1', 'ConfigMap', KNOBS_CONFIGMAP, KNOBS_NAMESPACE);
    if (cm?.metadata.annotations?.[APPLIED_ANNOTATION] === digest && knobsDigest(cm.data) === digest) return;
    if (Date.now() > deadline)
      throw new Error(
        `the HAPTIC stand-in did not apply knobs ${JSON.stringify(cm?.data ?? {})} within ${timeoutMs} ms`,
      );
    await sleep(100);
  }
}
