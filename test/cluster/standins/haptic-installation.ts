// One HAPTIC installation's controller, reduced to the API traffic HAPTIC produces: while it leads, it renders
// the HAProxyCfg from Services/EndpointSlices/Pods, "deploys" it to each live HAProxy pod after a delay (status
// deployedToPods), and sets the readiness gate on gated pods once every HAProxy pod routes to them.
import type { Informer } from '../../../src/kube/informer.ts';
import type { Kube } from '../kube.ts';
import { type Condition, findCondition, GATE_CONDITION, jsonEqual, type Obj, rfc3339 } from './common.ts';
import { EventRecorder } from './events.ts';
import { deployOutcome, type DeployEntry, gateCondition, type HAProxyPod, needsGateWrite, planID, podsRoutedEverywhere, type Render } from './haptic-converge.ts';
import { HAPTIC_API_VERSION } from './haptic-crds.ts';
import { Leader } from './haptic-leader.ts';
import { fullname, HAPROXY_CFG_NAME, type Installation, selectorLabels, TEMPLATE_CONFIG_NAME } from './haptic-manifests.ts';
import { haproxyCfgConditions, refusedRender, templateConfigStatus } from './haptic-status.ts';
import { backendsFor, checksumOf, renderConfig, routedPods } from './haproxy-render.ts';

export type InstallationKnobs = { leader: boolean; failDeployTo: string; refuseRender: boolean; gateFeature: boolean; deployDelayMs?: number };
export type SharedCaches = { pods: Informer<Obj>; services: Informer<Obj>; slices: Informer<Obj> };

const RETRY_MS = 2000;
const FIGHT_INTERVAL_MS = 3000;
const MAX_RENDERS = 50;
const MANAGER = 'haptic-controller';

const matches = (pod: Obj, labels: Record<string, string>) => Object.entries(labels).every(([k, v]) => pod.metadata.labels?.[k] === v);
const running = (pod: Obj) => pod.status?.phase === 'Running' && !pod.metadata.deletionTimestamp;
const minTime = (...times: (number | undefined)[]) => times.reduce<number | undefined>((a, b) => (b === undefined ? a : a === undefined ? b : Math.min(a, b)), undefined);

export class HapticController {
  readonly inst: Installation;
  readonly leader: Leader;
  knobs: InstallationKnobs;
  private readonly kube: Kube;
  private readonly caches: SharedCaches;
  private readonly recorder: EventRecorder;
  private templateConfig: Obj | undefined;
  private accepted: Render | undefined;
  private readonly renders = new Map<string, Render>();
  private refusal: { checksum: string; error: string } | undefined;
  private announced = false;
  private readonly entries = new Map<string, DeployEntry>();
  private readonly due = new Map<string, number>();
  private readonly foreignSince = new Map<string, number>();
  private cfgStatus: { conditions?: Condition[] } = {};
  private htcStatus: { conditions?: Condition[] } = {};

  constructor(kube: Kube, inst: Installation, caches: SharedCaches, knobs: InstallationKnobs, leaseDurationSeconds: number) {
    this.kube = kube;
    this.inst = inst;
    this.caches = caches;
    this.knobs = knobs;
    this.leader = new Leader(kube, inst, leaseDurationSeconds);
    this.recorder = new EventRecorder(kube, 'haptic-controller', `${fullname(inst)}-controller`);
  }

  /** Picks up what an earlier run left (Lease, rendered config, deploy entries) so a restart converges quietly. */
  async load(templateConfig: Obj): Promise<void> {
    this.templateConfig = templateConfig;
    this.htcStatus = templateConfig.status ?? {};
    await this.leader.load();
    const cfg = await this.kube.tryGet<Obj>(HAPTIC_API_VERSION, 'HAProxyCfg', HAPROXY_CFG_NAME, this.inst.namespace);
    if (cfg?.spec?.checksum) {
      const { checksum, content } = cfg.spec;
      this.accepted = { checksum, content, generation: cfg.metadata.generation ?? 1, planID: planID(cfg.metadata.generation ?? 1, checksum) };
      this.renders.set(checksum, this.accepted);
      for (const entry of cfg.status?.deployedToPods ?? []) this.entries.set(entry.podName, entry);
      this.cfgStatus = { conditions: cfg.status?.conditions };
    }
  }

  async reconcile(): Promise<number | undefined> {
    const now = Date.now();
    const pods = this.caches.pods.items().filter((p) => p.metadata.namespace === this.inst.namespace && running(p));
    const controllers = pods.filter((p) => matches(p, selectorLabels(this.inst, 'controller'))).map((p) => p.metadata.name).sort();
    const renewAt = await this.leader.step(this.knobs.leader, controllers, now);
    if (!this.leader.leading) return renewAt;
    const haproxies: HAProxyPod[] = pods
      .filter((p) => matches(p, selectorLabels(this.inst, 'loadbalancer')) && p.status?.podIP)
      .map((p) => ({ name: p.metadata.name, uid: p.metadata.uid!, runtimeID: runtimeID(p) }))
      .sort((a, b) => a.name.localeCompare(b.name));
    await this.render(now);
    const deployAt = this.deploy(haproxies, now);
    await this.writeStatuses(now);
    const gateAt = await this.gate(haproxies.map((h) => h.name), now);
    return minTime(renewAt, deployAt, gateAt);
  }

  private async render(now: number): Promise<void> {
    const gate = this.knobs.gateFeature ? GATE_CONDITION : undefined;
    const backends = backendsFor(this.caches.services.items(), this.caches.slices.items(), (k) => this.caches.pods.get(k), gate);
    const content = renderConfig(`${this.inst.namespace}/${TEMPLATE_CONFIG_NAME}`, backends);
    const checksum = checksumOf(content);
    if (this.knobs.refuseRender) {
      if (this.refusal?.checksum === checksum) return;
      const refused = refusedRender(content);
      await this.kube.apply([this.cfgObject(`${HAPROXY_CFG_NAME}-invalid`, refused.content)], MANAGER);
      this.refusal = { checksum, error: refused.error };
      await this.event('Warning', 'RenderRefusedByHAProxy', `HAProxy refused the rendered configuration: ${refused.error}`);
      return;
    }
    // HAProxy accepting a render is announced when it starts to (first render, or after refusals), not per render.
    const announce = this.refusal !== undefined || !this.announced;
    if (this.refusal) {
      this.refusal = undefined;
      await this.kube.delete(HAPTIC_API_VERSION, 'HAProxyCfg', `${HAPROXY_CFG_NAME}-invalid`, this.inst.namespace);
    }
    if (checksum !== this.accepted?.checksum) {
      const [cfg] = await this.kube.apply<Obj>([this.cfgObject(HAPROXY_CFG_NAME, content)], MANAGER);
      const generation = cfg!.metadata.generation ?? 1;
      this.accepted = { checksum, content, generation, planID: planID(generation, checksum) };
      this.renders.set(checksum, this.accepted);
      for (const old of [...this.renders.keys()].slice(0, Math.max(0, this.renders.size - MAX_RENDERS))) this.renders.delete(old);
      this.leader.setIntent(this.accepted.planID, checksum);
    }
    if (announce) await this.event('Normal', 'RenderAcceptedByHAProxy', `HAProxy accepted the rendered configuration ${checksum}`);
    this.announced = true;
  }

  /** Advances each live HAProxy pod toward the accepted render once its delay has passed; returns the next due time. */
  private deploy(haproxies: HAProxyPod[], now: number): number | undefined {
    const target = this.accepted;
    const live = new Set(haproxies.map((h) => h.name));
    for (const name of [...this.entries.keys(), ...this.due.keys()]) {
      if (live.has(name)) continue;
      this.entries.delete(name);
      this.due.delete(name);
    }
    if (!target) return undefined;
    let wake: number | undefined;
    for (const pod of haproxies) {
      const entry = this.entries.get(pod.name);
      const failing = this.knobs.failDeployTo === pod.name || (this.knobs.failDeployTo === 'first' && pod.name === haproxies[0]!.name);
      if (!failing && entry?.checksum === target.checksum && !entry.lastError) {
        this.due.delete(pod.name);
        continue;
      }
      const dueAt = this.due.get(pod.name) ?? now + (this.knobs.deployDelayMs ?? 500 + Math.random() * 500);
      this.due.set(pod.name, dueAt);
      if (now < dueAt) {
        wake = minTime(wake, dueAt);
        continue;
      }
      this.due.delete(pod.name);
      const error = failing
        ? `failed to sync configuration to pod ${pod.name}: dataplane API: POST /v3/services/haproxy/configuration/raw: 503 Service Unavailable: agent not reachable`
        : undefined;
      this.entries.set(pod.name, deployOutcome(entry, pod, target, this.renders.get(entry?.checksum ?? '')?.content, error));
      if (failing) {
        this.due.set(pod.name, now + RETRY_MS);
        wake = minTime(wake, now + RETRY_MS);
      }
    }
    return wake;
  }

  private async writeStatuses(now: number): Promise<void> {
    const time = rfc3339(now);
    const htc = templateConfigStatus(this.refusal?.error, this.htcStatus.conditions, time);
    if (!jsonEqual(htc, this.htcStatus)) {
      await this.kube.patch(HAPTIC_API_VERSION, 'HAProxyTemplateConfig', TEMPLATE_CONFIG_NAME, this.inst.namespace, { status: htc }, { subresource: 'status' });
      this.htcStatus = htc;
    }
    if (!this.accepted) return;
    const deployedToPods = [...this.entries.values()].sort((a, b) => a.podName.localeCompare(b.podName));
    const cfg = { deployedToPods, conditions: haproxyCfgConditions(this.refusal?.error, this.accepted.checksum, this.cfgStatus.conditions, time) };
    if (!jsonEqual(cfg, this.cfgStatus)) {
      await this.kube.patch(HAPTIC_API_VERSION, 'HAProxyCfg', HAPROXY_CFG_NAME, this.inst.namespace, { status: cfg }, { subresource: 'status' });
      this.cfgStatus = cfg;
    }
  }

  /** Sets the gate on gated pods that every live HAProxy pod routes to; returns when a fight re-check is due. */
  private async gate(haproxies: string[], now: number): Promise<number | undefined> {
    if (!this.knobs.gateFeature || !this.accepted) return undefined;
    const gated = [...routedPods(this.accepted.content)].filter((key) => {
      const pod = this.caches.pods.get(key);
      return pod && !pod.metadata.deletionTimestamp && (pod.spec.readinessGates ?? []).some((g: { conditionType: string }) => g.conditionType === GATE_CONDITION);
    });
    let wake: number | undefined;
    const source = `${this.inst.namespace}/${TEMPLATE_CONFIG_NAME}`;
    for (const key of podsRoutedEverywhere(gated, haproxies, this.entries, this.renders)) {
      const pod = this.caches.pods.get(key)!;
      const existing = findCondition(pod.status?.conditions, GATE_CONDITION);
      const ours = gateCondition(source, existing, rfc3339(now));
      const uid = pod.metadata.uid!;
      const foreign = existing?.status === 'True' && existing.message !== ours.message;
      const since = foreign ? (this.foreignSince.get(uid) ?? now) : now;
      if (foreign) this.foreignSince.set(uid, since);
      else this.foreignSince.delete(uid);
      if (!needsGateWrite(existing, ours, now - since, FIGHT_INTERVAL_MS)) {
        if (foreign) wake = minTime(wake, since + FIGHT_INTERVAL_MS);
        continue;
      }
      const patch = { metadata: { uid }, status: { conditions: [ours] } };
      await this.kube.patch('v1', 'Pod', pod.metadata.name, pod.metadata.namespace, patch, { type: 'strategic', subresource: 'status' });
      this.foreignSince.delete(uid);
    }
    return wake;
  }

  private cfgObject(name: string, content: string): Obj {
    const owner = this.templateConfig!.metadata;
    return {
      apiVersion: HAPTIC_API_VERSION, kind: 'HAProxyCfg',
      metadata: {
        name, namespace: this.inst.namespace,
        ownerReferences: [{ apiVersion: HAPTIC_API_VERSION, kind: 'HAProxyTemplateConfig', name: owner.name, uid: owner.uid, controller: true }],
      },
      spec: { content, checksum: checksumOf(content), compressed: false },
    };
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const { name, namespace, uid } = this.templateConfig!.metadata;
    return this.recorder.record({ apiVersion: HAPTIC_API_VERSION, kind: 'HAProxyTemplateConfig', name, namespace: namespace!, uid: uid! }, { type, reason, message });
  }
}

function runtimeID(pod: Obj): string {
  const haproxy = pod.status?.containerStatuses?.find((c: { name: string }) => c.name === 'haproxy');
  return haproxy?.containerID?.replace(/^\w+:\/\//, '') ?? pod.metadata.uid ?? '';
}
