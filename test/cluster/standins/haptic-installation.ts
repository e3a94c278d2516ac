// One HAPTIC installation's controller, reduced to the API traffic HAPTIC produces: while it leads (or runs alone
// with leader election off), it renders the HAProxyCfg from Services/EndpointSlices/Pods, "deploys" it to each live
// HAProxy pod after a delay (status deployedToPods), keeps retained checkpoints of configs pods confirmed, and — in
// the gate shape — sets the readiness gate on gated pods once every HAProxy pod runs a config routing to them.
// What it writes follows the released generation the statusShape knob names (docs/haptic-compat.md).
import { createHash } from 'node:crypto';
import { zstdCompressSync, zstdDecompressSync } from 'node:zlib';
import type { Informer } from '../../../src/kube/informer.ts';
import type { Kube } from '../kube.ts';
import { type Condition, findCondition, GATE_CONDITION, jsonEqual, log, type Obj, rfc3339 } from './common.ts';
import { EventRecorder } from './events.ts';
import {
  agentReport,
  deployOutcome,
  type DeployEntry,
  entryChecksum,
  finishReload,
  gateCondition,
  type HAProxyPod,
  needsGateWrite,
  planID,
  podsRoutedEverywhere,
  type Render,
  settled,
} from './haptic-converge.ts';
import { HAPTIC_API_VERSION } from './haptic-crds.ts';
import { Leader } from './haptic-leader.ts';
import {
  DATAPLANE_PORT,
  fullname,
  HAPROXY_CFG_NAME,
  type Installation,
  selectorLabels,
  TEMPLATE_CONFIG_NAME,
} from './haptic-manifests.ts';
import {
  haproxyCfgConditions,
  refusedRender,
  templateConfigErrors,
  templateConfigStatus,
  type Verdict,
} from './haptic-status.ts';
import { type ChecksumStyle, checksumOf, entryChecksumOf, renderConfig, routedAddresses } from './haproxy-render.ts';
import { backendsFor, RenderFailure } from './haptic-routes.ts';
import type { InstallationKnobs, StatusShape } from './knobs.ts';
import type { AgentMode } from './haptic-converge.ts';

export type SharedCaches = {
  pods: Informer<Obj>;
  services: Informer<Obj>;
  slices: Informer<Obj>;
  templateConfigs: Informer<Obj>;
  ingresses: Informer<Obj>;
  gateways: Informer<Obj>;
  httpRoutes: Informer<Obj>;
  grpcRoutes: Informer<Obj>;
  tlsRoutes: Informer<Obj>;
  tcpRoutes: Informer<Obj>;
  referenceGrants: Informer<Obj>;
};

/**
 * In the lab, HAProxy pods run real HAProxy (lab/haproxy-agent.ts): a render HAProxy refuses (`haproxy -c`) is
 * refused with its words, and a deploy is a real reload that counts once the pod's worker runs the config's servers.
 */
export type RealHAProxy = {
  validate(content: string): Promise<string | undefined>;
  /** deploys to the HAProxy pod `namespace/name`; an error message, or undefined once it runs the config */
  apply(pod: string, content: string): Promise<string | undefined>;
  /** whether this HAProxy takes `guid` on server lines */
  guid: boolean;
};

/**
 * The lab's agent reloads HAProxy for every change (it has no runtime API path). `mode` is one of the agent
 * generation's enum (runtime, file_only, reload, scheduled, noop, rejected) and `reasons` free text, most significant
 * first: HAProxyCfg status.deployedToPods[] in HAPTIC's pkg/apis/haproxytemplate/v1alpha1/types_haproxycfg.go and
 * docs/controller/docs/crd-reference.md (the fields as docs/haptic-compat.md records them).
 */
const LAB_RELOAD = { mode: 'reload', reasons: ['the lab agent reloads HAProxy for every change'] };

const RETRY_MS = 2000;
/** How long the agent takes to finish a reload after applying a plan (runningPlanID trails appliedPlanID meanwhile). */
const RELOAD_MS = 300;
const FIGHT_INTERVAL_MS = 3000;
const RBAC_RECHECK_MS = 2000;
const MAX_RENDERS = 50;
const MANAGER = 'haptic-controller';
/** Label of retained checkpoints: the UID of the template config they belong to (configpublisher, retainedLabel). */
export const RETAINED_LABEL = 'haproxy-haptic.org/retained-for';
/** Label HAPTIC puts on every HAProxyCfg it publishes (configpublisher runtime_config builder). */
const TEMPLATE_CONFIG_LABEL = 'haproxy-haptic.org/template-config';

const matches = (pod: Obj, labels: Record<string, string>) =>
  Object.entries(labels).every(([k, v]) => pod.metadata.labels?.[k] === v);
const running = (pod: Obj) => pod.status?.phase === 'Running' && !pod.metadata.deletionTimestamp;

/**
 * The HAProxy pods HAPTIC deploys to (pkg/controller/discovery/discovery.go): not terminating, with a pod IP, Running,
 * and the container exposing the Dataplane API port ready; a pod with no such container is skipped. A HAProxy pod
 * still starting is not deployed to, so it does not hold the gate back.
 */
function discovered(pod: Obj): boolean {
  if (!running(pod) || !pod.status?.podIP) return false;
  const container = (pod.spec.containers ?? []).find((c: { ports?: { containerPort: number }[] }) =>
    (c.ports ?? []).some((p) => p.containerPort === DATAPLANE_PORT),
  );
  if (!container) return false;
  return (pod.status.containerStatuses ?? []).some(
    (c: { name: string; ready?: boolean }) => c.name === container.name && c.ready === true,
  );
}
const minTime = (...times: (number | undefined)[]) =>
  times.reduce<number | undefined>((a, b) => (b === undefined ? a : a === undefined ? b : Math.min(a, b)), undefined);

/** HAPTIC's compression (pkg/compression): zstd, standard base64. */
const compress = (text: string) => zstdCompressSync(Buffer.from(text)).toString('base64');

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
  /** the render HAProxy refused (`haproxy -c`), while it is the newest */
  private refusal: { checksum: string; error: string; knob: boolean } | undefined;
  /**
   * What the template config's status says, and since when: what HAPTIC's status updater last heard
   * (haptic-status.ts, Verdict). HAProxy's refusal stays after a later render is accepted, until the template config
   * is edited: the status updater writes Invalid on a refused render (ValidationFailedEvent) and Valid only when an
   * edit is validated (ConfigValidatedEvent, configchange/handler.go); it does not subscribe to the completed
   * validation of a render, nor to a render that fails in the template (pkg/controller/configchange/status_updater.go).
   */
  private verdict: { status: Verdict; at: string } = { status: { kind: 'valid' }, at: '' };
  /**
   * The template config HAPTIC renders with: the last edit its validators accepted. A refused edit leaves the one
   * before in force, rendering and deploying (handler.go publishes ConfigInvalidEvent and does not reinitialize).
   */
  private inForce: Obj | undefined;
  /** the generation of the template config last validated */
  private checkedGeneration: number | undefined;
  /** the agent generation's render that fails in the template (ResolveServicePort), while it does: logged once */
  private renderFailure: string | undefined;
  /** the last answer to "may the controller patch pods/status" (mayPatchPodStatus) */
  private rbac: { at: number; allowed: boolean } | undefined;
  /** when the accepted render was rendered (the dataplane generation's status.metadata.renderedAt) */
  private renderedAt = '';
  private readonly entries = new Map<string, DeployEntry>();
  /**
   * The deploy in flight to each HAProxy pod: when it lands and the render it started with. HAPTIC's deployer
   * deploys the config it was scheduled with; a newer render waits for the next deploy, latest wins
   * (pkg/controller/deployer/scheduler_logic.go, scheduleOrQueue).
   */
  private readonly due = new Map<string, { at: number; render: Render }>();
  private readonly reloads = new Map<string, number>();
  private readonly foreignSince = new Map<string, number>();
  /** retained checkpoints, newest first: what status.retainedConfigs lists */
  private retained: { name: string; uid: string; checksum: string }[] = [];
  private cfgStatus: object = {};
  private htcStatus: { conditions?: Condition[]; [field: string]: unknown } = {};
  private shape: StatusShape;
  private readonly real: RealHAProxy | undefined;
  /** the last render real HAProxy accepted (haproxy -c runs once per new render) */
  private checked = '';

  constructor(
    kube: Kube,
    inst: Installation,
    caches: SharedCaches,
    knobs: InstallationKnobs,
    leaseDurationSeconds: number,
    real?: RealHAProxy,
  ) {
    this.kube = kube;
    this.real = real;
    this.inst = inst;
    this.caches = caches;
    this.knobs = knobs;
    this.shape = knobs.statusShape;
    this.leader = new Leader(kube, inst, leaseDurationSeconds);
    this.recorder = new EventRecorder(kube, 'haptic-controller', `${fullname(inst)}-controller`);
  }

  /** Picks up what an earlier run left (Lease, rendered config, deploy entries) so a restart converges quietly. */
  async load(templateConfig: Obj): Promise<void> {
    this.templateConfig = templateConfig;
    this.inForce = templateConfig;
    this.htcStatus = templateConfig.status ?? {};
    await this.leader.load();
    const cfg = await this.kube.tryGet<Obj>(HAPTIC_API_VERSION, 'HAProxyCfg', HAPROXY_CFG_NAME, this.inst.namespace);
    if (cfg?.spec?.checksum) {
      const { checksum } = cfg.spec;
      const content = cfg.spec.compressed
        ? zstdDecompressSync(Buffer.from(cfg.spec.content, 'base64')).toString()
        : cfg.spec.content;
      this.accepted = {
        checksum,
        entryChecksum: entryChecksumOf(content, this.checksumStyle),
        content,
        generation: cfg.metadata.generation ?? 1,
        planID: planID(cfg.metadata.generation ?? 1, checksum),
      };
      this.remember(this.accepted);
      this.renderedAt = cfg.status?.metadata?.renderedAt ?? '';
      for (const entry of cfg.status?.deployedToPods ?? []) this.entries.set(entry.podName, entry);
      this.retained = cfg.status?.retainedConfigs ?? [];
      this.cfgStatus = cfg.status ?? {};
    }
  }

  async reconcile(): Promise<number | undefined> {
    const now = Date.now();
    const pods = this.caches.pods.items().filter((p) => p.metadata.namespace === this.inst.namespace && running(p));
    const controllers = pods
      .filter((p) => matches(p, selectorLabels(this.inst, 'controller')))
      .map((p) => p.metadata.name)
      .sort();
    const renewAt = this.knobs.leaderElection
      ? await this.leader.step(this.knobs.leader, controllers, now)
      : await this.leader.standalone(this.knobs.leader, controllers);
    if (!this.leader.leading) return renewAt;
    const haproxies: HAProxyPod[] = pods
      .filter((p) => matches(p, selectorLabels(this.inst, 'loadbalancer')) && discovered(p))
      .map((p) => ({ name: p.metadata.name, uid: p.metadata.uid!, runtimeID: runtimeID(p) }))
      .sort((a, b) => a.name.localeCompare(b.name));
    if (this.shape !== this.knobs.statusShape) this.switchShape(haproxies, now);
    await this.validateEdit(now);
    await this.render(now);
    const deployAt = await this.deploy(haproxies, now);
    await this.retain(haproxies);
    await this.writeStatuses();
    const gateAt = await this.gate(
      haproxies.map((h) => h.name),
      now,
    );
    return minTime(renewAt, deployAt, gateAt);
  }

  /** The template config as the cluster has it now (tests and knobs edit it; its generation moves). */
  private currentTemplateConfig(): Obj {
    return this.caches.templateConfigs.get(`${this.inst.namespace}/${TEMPLATE_CONFIG_NAME}`) ?? this.templateConfig!;
  }

  /**
   * A new generation of the template config is validated as HAPTIC's validators do (haptic-status.ts,
   * templateConfigErrors): accepted, it is the one in force (Valid, and the Normal Validated event when it was
   * Invalid); refused, the one before stays in force and the status says ConfigInvalid with the errors (Warning
   * ValidationFailed), configchange/handler.go and status_updater.go.
   */
  private async validateEdit(now: number): Promise<void> {
    const current = this.currentTemplateConfig();
    const generation = current.metadata.generation ?? 1;
    if (generation === this.checkedGeneration) return;
    const first = this.checkedGeneration === undefined;
    this.checkedGeneration = generation;
    const errors = templateConfigErrors(current.spec);
    if (errors.length) {
      this.verdict = { status: { kind: 'configInvalid', errors }, at: rfc3339(now) };
      if (this.shape !== 'dataplane')
        await this.event('Warning', 'ValidationFailed', `${errors.length} validation error(s): ${errors.join('; ')}`);
      return;
    }
    const wasInvalid = !first && this.verdict.status.kind !== 'valid';
    this.inForce = current;
    this.verdict = { status: { kind: 'valid' }, at: rfc3339(now) };
    // the agent's Validated event marks a recovery from Invalid (docs/haptic-compat.md, "Events")
    if (wasInvalid && this.shape !== 'dataplane')
      await this.event('Normal', 'Validated', 'HAProxyTemplateConfig is valid again');
  }

  private async render(now: number): Promise<void> {
    const gate = this.knobs.gateFeature && this.shape === 'gate' ? GATE_CONDITION : undefined;
    const { ingresses, gateways, httpRoutes, grpcRoutes, tlsRoutes, tcpRoutes, referenceGrants } = this.caches;
    const routes = {
      ingresses: ingresses.items(),
      gateways: gateways.items(),
      httpRoutes: httpRoutes.items(),
      grpcRoutes: grpcRoutes.items(),
      tlsRoutes: tlsRoutes.items(),
      tcpRoutes: tcpRoutes.items(),
      referenceGrants: referenceGrants.items(),
    };
    let content: string;
    try {
      const backends = backendsFor(
        this.inForce ?? this.currentTemplateConfig(),
        routes,
        this.caches.services.items(),
        this.caches.slices.items(),
        (k) => this.caches.pods.get(k),
        gate,
        this.shape,
      );
      const style = { shape: this.shape, podComment: this.knobs.podComment, guid: this.real?.guid ?? true };
      content = renderConfig(`${this.inst.namespace}/${TEMPLATE_CONFIG_NAME}`, backends, style, this.accepted?.content);
    } catch (err) {
      if (!(err instanceof RenderFailure)) throw err;
      // the agent's template failed as a whole: a TemplateRenderFailedEvent (pkg/controller/renderer/component.go,
      // reconciler/coordinator.go), which the status updater does not subscribe to (configchange/status_updater.go):
      // nothing is published, validated or recorded (no status, no -invalid, no Event), the live config stays, and
      // only the controller's log says it
      if (this.renderFailure !== err.message)
        log('haptic', `${this.inst.namespace}/${TEMPLATE_CONFIG_NAME}: Template rendering failed: ${err.message}`);
      this.renderFailure = err.message;
      return;
    }
    this.renderFailure = undefined;
    const checksum = checksumOf(content, this.checksumStyle);
    const knob = this.knobs.refuseRender;
    // a render refused before stays refused (the same text, the same verdict) until it or the knob changes
    if (this.refusal?.checksum === checksum && this.refusal.knob === knob) return;
    const refused = await this.refusedBy(content, checksum, knob);
    if (refused) {
      // HAPTIC keeps the refused render as <htc>-haproxycfg-invalid with the first error (configpublisher workers.go)
      const [invalid] = await this.kube.apply<Obj>(
        [this.cfgObject(`${HAPROXY_CFG_NAME}-invalid`, refused.content)],
        MANAGER,
      );
      const invalidStatus = {
        validationError: refused.error.split(' [ALERT]')[0],
        ...this.renderMetadata(refused.content, rfc3339(now)),
      };
      await this.kube.patch(
        HAPTIC_API_VERSION,
        'HAProxyCfg',
        invalid!.metadata.name,
        this.inst.namespace,
        { status: invalidStatus },
        { subresource: 'status' },
      );
      this.refusal = { checksum, error: refused.error, knob };
      this.verdict = { status: { kind: 'haproxyFailed', error: refused.error }, at: rfc3339(now) };
      // the agent generation's events (configchange status_updater.go); the dataplane generation records none
      if (this.shape !== 'dataplane') await this.event('Warning', 'ValidationFailed', refused.error);
      return;
    }
    if (this.refusal) {
      // accepted after a refusal: the template config keeps saying HAProxyValidationFailed (the verdict stays); the
      // released tags delete the refused render once one is accepted again; HEAD keeps it (configpublisher
      // workers.go: the -invalid cleanup is gone), so its renderedAt tells that it is older than the live config
      this.refusal = undefined;
      if (this.checksumStyle !== 'head')
        await this.kube.delete(HAPTIC_API_VERSION, 'HAProxyCfg', `${HAPROXY_CFG_NAME}-invalid`, this.inst.namespace);
    }
    const stored = this.storedSpec(content);
    const cfg = await this.kube.tryGet<Obj>(HAPTIC_API_VERSION, 'HAProxyCfg', HAPROXY_CFG_NAME, this.inst.namespace);
    if (checksum !== this.accepted?.checksum || !cfg || cfg.spec?.compressed !== stored.compressed) {
      const [applied] = await this.kube.apply<Obj>([this.cfgObject(HAPROXY_CFG_NAME, content)], MANAGER);
      const generation = applied!.metadata.generation ?? 1;
      if (checksum !== this.accepted?.checksum) {
        this.accepted = {
          checksum,
          entryChecksum: entryChecksumOf(content, this.checksumStyle),
          content,
          generation,
          planID: planID(generation, checksum),
        };
        this.remember(this.accepted);
        this.renderedAt = rfc3339(now);
        this.leader.setIntent(this.accepted.planID, checksum);
      }
    }
  }

  /**
   * What HAProxy is given and its refusal, if it refuses: the refuseRender knob's misspelt render; with real HAProxy,
   * `haproxy -c`'s verdict on it (or on the render itself), in HAProxy's words.
   */
  private async refusedBy(
    content: string,
    checksum: string,
    knob: boolean,
  ): Promise<{ content: string; error: string } | undefined> {
    const broken = knob ? refusedRender(content) : undefined;
    if (!this.real) return broken;
    if (!broken && checksum === this.checked) return undefined;
    const error = await this.real.validate(broken?.content ?? content);
    if (error === undefined) {
      if (!broken) this.checked = checksum;
      return undefined;
    }
    return { content: broken?.content ?? content, error };
  }

  /** Advances each live HAProxy pod toward the accepted render once its delay has passed; returns the next due time. */
  private async deploy(haproxies: HAProxyPod[], now: number): Promise<number | undefined> {
    const target = this.accepted;
    const live = new Set(haproxies.map((h) => h.name));
    for (const name of [...this.entries.keys(), ...this.due.keys(), ...this.reloads.keys()]) {
      if (live.has(name)) continue;
      this.entries.delete(name);
      this.due.delete(name);
      this.reloads.delete(name);
    }
    if (!target) return undefined;
    let wake: number | undefined;
    for (const pod of haproxies) {
      const entry = this.entries.get(pod.name);
      const reloadAt = this.reloads.get(pod.name);
      if (reloadAt !== undefined) {
        if (now < reloadAt) {
          wake = minTime(wake, reloadAt);
          continue;
        }
        this.reloads.delete(pod.name);
        if (entry) this.entries.set(pod.name, finishReload(entry));
        continue;
      }
      const failing =
        this.knobs.failDeployTo === pod.name ||
        (this.knobs.failDeployTo === 'first' && pod.name === haproxies[0]!.name);
      // up to date: the target deployed and settled (or reported in the mode the agentMode knob asks for)
      const current =
        entry?.checksum === entryChecksum(target) &&
        !entry.lastError &&
        (settled(entry) || entry.mode === this.agentMode);
      if (!failing && current) {
        this.due.delete(pod.name);
        continue;
      }
      const due: { at: number; render: Render } = this.due.get(pod.name) ?? {
        at: now + (this.knobs.deployDelayMs ?? 500 + Math.random() * 500),
        render: target,
      };
      this.due.set(pod.name, due);
      if (now < due.at) {
        wake = minTime(wake, due.at);
        continue;
      }
      this.due.delete(pod.name);
      // the deploy lands what it started with, even if a newer render came meanwhile; the pod catches up with that
      // one in a deploy of its own
      const landed: Render = due.render;
      if (landed !== target) wake = minTime(wake, now);
      const error = failing
        ? `failed to sync configuration to pod ${pod.name}: dataplane API: POST /v3/services/haproxy/configuration/raw: 503 Service Unavailable: agent not reachable`
        : await this.real
            ?.apply(`${this.inst.namespace}/${pod.name}`, landed.content)
            .then((e) => e && `failed to apply configuration to pod ${pod.name}: ${e}`);
      let next = deployOutcome(
        entry,
        pod,
        landed,
        this.renders.get(entry?.checksum ?? '')?.content,
        error,
        this.shape,
        rfc3339(now),
        this.real && !error ? LAB_RELOAD : undefined,
      );
      // a real reload is done when apply returns: the worker runs the plan
      if (this.real && !error && this.shape !== 'dataplane') next = finishReload(next);
      if (this.agentMode && !error) next = agentReport(next, entry, this.agentMode);
      this.entries.set(pod.name, next);
      if (error !== undefined) {
        this.due.set(pod.name, { at: now + RETRY_MS, render: target });
        wake = minTime(wake, now + RETRY_MS);
      } else if (!this.agentMode && next.appliedPlanID !== undefined && next.runningPlanID !== next.appliedPlanID) {
        this.reloads.set(pod.name, now + RELOAD_MS);
        wake = minTime(wake, now + RELOAD_MS);
      }
    }
    return wake;
  }

  /**
   * Retained checkpoints as the agent generation publishes them (configpublisher PublishRetained): a config a pod
   * confirmed becomes `<htc>-haproxycfg-retained-<sha256(checksum NUL retainedPlan)>`, labelled with the template
   * config's UID, holding the content, a compressed plan and the confirming pod's entry; the live config lists them
   * newest first, keeping the newest `retainConfigs` and any a pod still runs; the others are deleted.
   */
  private async retain(haproxies: HAProxyPod[]): Promise<void> {
    if (this.shape === 'dataplane' || this.knobs.retainConfigs === 0) {
      if (this.retained.length) await this.pruneRetained([]);
      return;
    }
    const confirmed = haproxies
      .map((h) => this.entries.get(h.name))
      .filter((e): e is DeployEntry => settled(e) && !e!.lastError);
    for (const entry of confirmed) {
      if (this.retained.some((r) => r.checksum === entry.checksum)) continue;
      const render = this.renders.get(entry.checksum!);
      if (!render) continue;
      const retainedPlan = compress(JSON.stringify({ plan: render.planID, artifacts: [] }));
      const name = `${HAPROXY_CFG_NAME}-retained-${createHash('sha256').update(`${render.checksum}\u0000${retainedPlan}`).digest('hex')}`;
      const object = this.cfgObject(name, render.content, {
        retainedPlan,
        labels: { [RETAINED_LABEL]: this.templateConfig!.metadata.uid! },
      });
      const [stored] = await this.kube.apply<Obj>([object], MANAGER);
      await this.kube.patch(
        HAPTIC_API_VERSION,
        'HAProxyCfg',
        name,
        this.inst.namespace,
        { status: { deployedToPods: [entry] } },
        { subresource: 'status' },
      );
      this.retained = [{ name, uid: stored!.metadata.uid!, checksum: render.checksum }, ...this.retained];
    }
    const inUse = new Set([...this.entries.values()].map((e) => e.checksum));
    await this.pruneRetained(this.retained.filter((r, i) => i < this.knobs.retainConfigs || inUse.has(r.checksum)));
  }

  private async pruneRetained(keep: { name: string; uid: string; checksum: string }[]): Promise<void> {
    for (const gone of this.retained.filter((r) => !keep.includes(r))) {
      await this.kube.delete(HAPTIC_API_VERSION, 'HAProxyCfg', gone.name, this.inst.namespace, { uid: gone.uid });
    }
    this.retained = keep;
  }

  private async writeStatuses(): Promise<void> {
    const now = rfc3339(Date.now());
    const generation = this.currentTemplateConfig().metadata.generation ?? 1;
    const htc = templateConfigStatus(
      this.shape,
      this.verdict.status,
      this.htcStatus.conditions,
      this.verdict.at || now,
      generation,
    );
    if (!jsonEqual(htc, this.htcStatus)) {
      // a full status update, as HAPTIC's status updater does: fields of another shape do not linger
      await this.kube.patch(
        HAPTIC_API_VERSION,
        'HAProxyTemplateConfig',
        TEMPLATE_CONFIG_NAME,
        this.inst.namespace,
        [{ op: 'add', path: '/status', value: htc }],
        { type: 'json', subresource: 'status' },
      );
      this.htcStatus = htc;
    }
    if (!this.accepted) return;
    const deployedToPods = [...this.entries.values()].sort((a, b) => a.podName.localeCompare(b.podName));
    const metadata =
      this.shape === 'dataplane' && this.renderedAt ? this.renderMetadata(this.accepted.content, this.renderedAt) : {};
    // the gate release's render gate holds on what HAProxy refuses, and opens again on the next accepted render
    const conditions = haproxyCfgConditions(
      this.shape,
      this.refusal?.error,
      this.accepted.checksum,
      (this.cfgStatus as { conditions?: Condition[] }).conditions,
      now,
    );
    const cfg = {
      deployedToPods,
      ...(conditions ? { conditions } : {}),
      ...(this.shape !== 'dataplane' && this.retained.length ? { retainedConfigs: this.retained } : {}),
      ...metadata,
    };
    if (!jsonEqual(cfg, this.cfgStatus)) {
      await this.kube.patch(
        HAPTIC_API_VERSION,
        'HAProxyCfg',
        HAPROXY_CFG_NAME,
        this.inst.namespace,
        [{ op: 'add', path: '/status', value: cfg }],
        { type: 'json', subresource: 'status' },
      );
      this.cfgStatus = cfg;
    }
  }

  /** Sets the gate on gated pods that every live HAProxy pod routes to; returns when a fight re-check is due. */
  private async gate(haproxies: string[], now: number): Promise<number | undefined> {
    if (!this.knobs.gateFeature || this.shape !== 'gate' || !this.accepted) return undefined;
    const routed = routedAddresses(this.accepted.content);
    const gated = this.caches.pods.items().flatMap((pod) => {
      const at = `${pod.metadata.name}@${pod.status?.podIP}`;
      const wanted =
        pod.status?.podIP &&
        routed.has(at) &&
        !pod.metadata.deletionTimestamp &&
        (pod.spec.readinessGates ?? []).some((g: { conditionType: string }) => g.conditionType === GATE_CONDITION);
      return wanted ? [`${pod.metadata.namespace}/${at}`] : [];
    });
    let wake: number | undefined;
    const source = `${this.inst.namespace}/${TEMPLATE_CONFIG_NAME}`;
    for (const routed of podsRoutedEverywhere(gated, haproxies, this.entries, this.renders)) {
      const pod = this.caches.pods.get(routed.slice(0, routed.lastIndexOf('@')))!;
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
      if (!(await this.mayPatchPodStatus(now))) return minTime(wake, now + RBAC_RECHECK_MS);
      const patch = { metadata: { uid }, status: { conditions: [ours] } };
      await this.kube.patch('v1', 'Pod', pod.metadata.name, pod.metadata.namespace, patch, {
        type: 'strategic',
        subresource: 'status',
      });
      this.foreignSince.delete(uid);
    }
    return wake;
  }

  /**
   * Whether the controller's service account may patch pods/status, as the API server's authorizer decides it (a
   * SubjectAccessReview for the service account and its groups): the stand-in writes with admin credentials, so it
   * asks what HAPTIC's own write would be answered. Checked again after RBAC_RECHECK_MS.
   */
  private async mayPatchPodStatus(now: number): Promise<boolean> {
    if (this.rbac && now - this.rbac.at < RBAC_RECHECK_MS) return this.rbac.allowed;
    const { namespace } = this.inst;
    const review = await this.kube.create<Obj>({
      apiVersion: 'authorization.k8s.io/v1',
      kind: 'SubjectAccessReview',
      metadata: { name: '' },
      spec: {
        user: `system:serviceaccount:${namespace}:${fullname(this.inst)}`,
        groups: ['system:serviceaccounts', `system:serviceaccounts:${namespace}`, 'system:authenticated'],
        resourceAttributes: { group: '', resource: 'pods', subresource: 'status', verb: 'patch' },
      },
    });
    this.rbac = { at: now, allowed: review.status?.allowed === true };
    return this.rbac.allowed;
  }

  /**
   * The statusShape knob changed: the next render is in the new generation's format. Each pod's entry is rewritten
   * at once as that generation writes it for the config the pod runs (as an upgraded controller re-reads the fleet),
   * so no pod is shown without a deploy status meanwhile.
   */
  private switchShape(haproxies: HAProxyPod[], now: number): void {
    this.shape = this.knobs.statusShape;
    for (const pod of haproxies) {
      const entry = this.entries.get(pod.name);
      const ran = entry?.checksum ? this.renders.get(entry.checksum) : undefined;
      this.entries.delete(pod.name);
      if (ran)
        this.entries.set(
          pod.name,
          deployOutcome(undefined, pod, ran, ran.content, undefined, this.shape, rfc3339(now)),
        );
    }
    this.reloads.clear();
    this.accepted = undefined;
    this.htcStatus = {};
    this.cfgStatus = {};
  }

  /** Which checksums this generation writes (haproxy-render.ts): the dataplane generation's, as released or at HEAD. */
  private get checksumStyle(): ChecksumStyle {
    return this.shape === 'dataplane' ? this.knobs.dataplaneRevision : 'short';
  }

  /** The agentMode knob, for the generations with an agent. */
  private get agentMode(): AgentMode | undefined {
    return this.shape === 'dataplane' || this.real ? undefined : this.knobs.agentMode;
  }

  /** Keeps a render findable by both its checksums, and only the newest MAX_RENDERS renders. */
  private remember(render: Render): void {
    this.renders.set(render.checksum, render);
    this.renders.set(entryChecksum(render), render);
    const keys = [...this.renders.keys()];
    for (const old of keys.slice(0, Math.max(0, keys.length - 2 * MAX_RENDERS))) this.renders.delete(old);
  }

  /**
   * status.metadata of the dataplane generation's HAProxyCfgs (its CRD schema; pkg/k8s/configpublisher/runtime_config.go
   * sets renderedAt on every publish): when the content was rendered, and its size.
   */
  private renderMetadata(
    content: string,
    renderedAt: string,
  ): { metadata?: { renderedAt: string; contentSize: number } } {
    return this.shape === 'dataplane' ? { metadata: { renderedAt, contentSize: Buffer.byteLength(content) } } : {};
  }

  /** How the config is stored: zstd + base64 above the compression threshold (configpublisher compressIfNeeded). */
  private storedSpec(content: string): { content: string; compressed: boolean } {
    if (!this.knobs.compressed) return { content, compressed: false };
    const packed = compress(content);
    return packed.length < content.length ? { content: packed, compressed: true } : { content, compressed: false };
  }

  private cfgObject(
    name: string,
    content: string,
    extra: { retainedPlan?: string; labels?: Record<string, string> } = {},
  ): Obj {
    const owner = this.templateConfig!.metadata;
    const stored = this.storedSpec(content);
    return {
      apiVersion: HAPTIC_API_VERSION,
      kind: 'HAProxyCfg',
      metadata: {
        name,
        namespace: this.inst.namespace,
        labels: { [TEMPLATE_CONFIG_LABEL]: owner.name, ...extra.labels },
        ownerReferences: [
          {
            apiVersion: HAPTIC_API_VERSION,
            kind: 'HAProxyTemplateConfig',
            name: owner.name,
            uid: owner.uid,
            controller: true,
            blockOwnerDeletion: true,
          },
        ],
      },
      spec: {
        path: '/etc/haproxy/haproxy.cfg',
        ...stored,
        checksum: checksumOf(content, this.checksumStyle),
        ...(extra.retainedPlan ? { retainedPlan: extra.retainedPlan } : {}),
      },
    };
  }

  private event(type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const { name, namespace, uid } = this.templateConfig!.metadata;
    return this.recorder.record(
      { apiVersion: HAPTIC_API_VERSION, kind: 'HAProxyTemplateConfig', name, namespace: namespace!, uid: uid! },
      { type, reason, message },
    );
  }
}

function runtimeID(pod: Obj): string {
  const haproxy = pod.status?.containerStatuses?.find((c: { name: string }) => c.name === 'haproxy');
  return haproxy?.containerID?.replace(/^\w+:\/\//, '') ?? pod.metadata.uid ?? '';
}
