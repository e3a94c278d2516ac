// Leader election as HAPTIC's controller does it, reduced to its API traffic: a coordination.k8s.io/v1 Lease
// held by a running controller pod's name, renewed every leaseDuration/5, with HAPTIC's annotations.
import type { Kube } from '../kube.ts';
import { microTime, type Obj } from './common.ts';
import { fullname, type Installation } from './haptic-manifests.ts';

export const EPOCH_ANNOTATION = 'haptic.io/leader-epoch';
export const INTENT_ANNOTATION = 'haproxy-haptic.org/deployment-intent';

export class Leader {
  private readonly kube: Kube;
  private readonly inst: Installation;
  private readonly durationSeconds: number;
  private holder = '';
  private acquireTime = 0;
  private transitions = 0;
  private epoch = 0;
  private renewedAt = 0;
  private intent = '';
  private written = '';
  private leaseExists = false;
  /** True while this process acts as the leader (and renews the Lease). */
  leading = false;

  constructor(kube: Kube, inst: Installation, durationSeconds: number) {
    this.kube = kube;
    this.inst = inst;
    this.durationSeconds = durationSeconds;
  }

  /** Picks up an existing Lease so a restarted stand-in keeps its holder and counters. */
  async load(): Promise<void> {
    const lease = await this.kube.tryGet<Obj>(
      'coordination.k8s.io/v1',
      'Lease',
      fullname(this.inst),
      this.inst.namespace,
    );
    if (!lease) return;
    this.leaseExists = true;
    this.holder = lease.spec?.holderIdentity ?? '';
    this.transitions = lease.spec?.leaseTransitions ?? 0;
    this.epoch = Number(lease.metadata.annotations?.[EPOCH_ANNOTATION] ?? 0);
    this.intent = lease.metadata.annotations?.[INTENT_ANNOTATION] ?? '';
  }

  /**
   * One election step: stop leading when told to or when no controller pod runs; otherwise hold (or take over)
   * the Lease for a running controller pod and renew it when due. Returns when the next renewal is due.
   */
  async step(enabled: boolean, runningControllers: string[], now: number): Promise<number | undefined> {
    if (!enabled || runningControllers.length === 0) {
      this.leading = false;
      return undefined;
    }
    if (!this.leading || !runningControllers.includes(this.holder)) {
      const next = runningControllers.includes(this.holder) ? this.holder : runningControllers[0]!;
      if (next !== this.holder) this.transitions += this.holder ? 1 : 0;
      this.holder = next;
      this.acquireTime = now;
      this.epoch += 1;
      this.leading = true;
    }
    const renewEvery = (this.durationSeconds * 1000) / 5;
    if (now - this.renewedAt >= renewEvery || this.written !== this.signature()) await this.write(now);
    return this.renewedAt + renewEvery;
  }

  /**
   * Leader election off (spec.controller.leaderElection.enabled: false): no elector and no Lease, the one controller
   * acts as soon as it runs (pkg/controller/leader.go publishes BecameLeader "standalone"). A Lease left from an
   * earlier setting is removed, as a fresh install with leader election off has none.
   */
  async standalone(enabled: boolean, runningControllers: string[]): Promise<undefined> {
    this.leading = enabled && runningControllers.length > 0;
    this.holder = this.leading ? runningControllers[0]! : '';
    if (this.leaseExists) {
      await this.kube.delete('coordination.k8s.io/v1', 'Lease', fullname(this.inst), this.inst.namespace);
      this.leaseExists = false;
      this.written = '';
      this.renewedAt = 0;
    }
    return undefined;
  }

  /** Records the plan the leader is rolling out (written with the next renewal). */
  setIntent(planID: string, checksum: string): void {
    this.intent = JSON.stringify({ planID, checksum });
  }

  private signature(): string {
    return [this.holder, this.epoch, this.intent].join('|');
  }

  private async write(now: number): Promise<void> {
    await this.kube.apply(
      [
        {
          apiVersion: 'coordination.k8s.io/v1',
          kind: 'Lease',
          metadata: {
            name: fullname(this.inst),
            namespace: this.inst.namespace,
            annotations: {
              [EPOCH_ANNOTATION]: String(this.epoch),
              ...(this.intent ? { [INTENT_ANNOTATION]: this.intent } : {}),
            },
          },
          spec: {
            holderIdentity: this.holder,
            leaseDurationSeconds: this.durationSeconds,
            acquireTime: microTime(this.acquireTime),
            renewTime: microTime(now),
            leaseTransitions: this.transitions,
          },
        },
      ],
      'haptic-controller',
    );
    this.renewedAt = now;
    this.written = this.signature();
    this.leaseExists = true;
  }
}
