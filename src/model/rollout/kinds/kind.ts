import type { Condition, Pod, ReplicaSet, RolloutTarget } from '../../../types/kube.ts';
import type { RolloutSnapshot } from '../../../types/snapshot.ts';
import type { StatefulSetView, Phase } from '../statefulset.ts';
import type { ResolvedStrategy } from '../strategy.ts';

// What a kind of workload means to a rollout, in one place per kind: which pods are new and which old, its phase in
// the words of its own tooling (`kubectl rollout status`), how it rolls, what it holds beside its pods. The model,
// rules and views ask a kind's module (kindOf, in index.ts), never compare kind names.

/** The pods of a rollout, split as the kind's controller tells new from old, and the objects in between. */
export interface RolloutPods {
  newPods: Pod[];
  oldPods: Pod[];
  /** a Deployment's ReplicaSet of the current template, and the others it owns */
  newReplicaSet?: ReplicaSet | undefined;
  oldReplicaSets: ReplicaSet[];
}

/** The counts of the model: pods wanted, running, of the current template, Ready, available, terminating. */
export interface RolloutCounts {
  desired: number;
  current: number;
  updated: number;
  ready: number;
  available: number;
  terminating: number;
}

/** What the model says of a DaemonSet beside its pods. */
export interface DaemonSetView {
  /** the template generation its new pods carry (label pod-template-generation) */
  templateGeneration?: string | undefined;
  /** the generations its old pods carry */
  oldGenerations: string[];
  /** nodes that run its pod but should not (a node selector, taint or affinity it no longer meets) */
  misscheduled: number;
}

/** What the model says of an Argo Rollout beside its pods. */
export interface ArgoView {
  strategy: 'canary' | 'blueGreen';
  /** Argo's phase: Healthy, Progressing, Paused, Degraded */
  phase: string;
  /** Argo's message for it (empty when Healthy) */
  message: string;
  /** the pod-template hash of the current template, and of the ReplicaSet promoted last */
  currentPodHash?: string | undefined;
  stableHash?: string | undefined;
  /** a canary's steps: where it is (index counts from 0; count when every step is done), and that step's words */
  step?: { index: number; count: number; text?: string | undefined } | undefined;
  /** the controller's pause: a step's, a blue-green's before promotion, or spec.paused (manual) */
  pause?:
    | {
        reason: string;
        since?: string | undefined;
        /** a timed pause ends by itself then; undefined: it waits for `kubectl argo rollouts promote` */
        endsAt?: string | undefined;
        manual: boolean;
      }
    | undefined;
  aborted: boolean;
  /** the Services Argo points at the new and the stable pods */
  services: {
    canary?: string | undefined;
    stable?: string | undefined;
    active?: string | undefined;
    preview?: string | undefined;
  };
  /** traffic routing through a mesh or ingress plugin: Argo then moves weights, not only replica counts */
  trafficRouting: boolean;
  /** the analysis run of the current step, when Argo reports one */
  analysisRun?: { name?: string | undefined; status?: string | undefined; message?: string | undefined } | undefined;
}

export interface KindModule<W extends RolloutTarget = RolloutTarget> {
  kind: W['kind'];
  /** the kind in kubectl's words: the argument's prefix (`statefulset/db`) and the finding's words (`statefulset db`) */
  word: string;
  /** as kubectl's output names an object of the kind: `deployment.apps/web` */
  noun: string;
  /** a bare NAME means this kind in a command's argument (a Deployment's, as before other kinds were followed) */
  bareName: boolean;
  /**
   * a custom resource (an Argo Rollout): a cluster may not serve it (a list answers 404) and a user may not be let
   * read it. Neither is worth a note when the kind was not named: its workloads are then none
   */
  optional?: boolean;
  /** the controller's new and old pods (those the workload owns, of its selector) */
  pods(w: W, snap: Pick<RolloutSnapshot, 'pods' | 'replicaSets'>): RolloutPods;
  /** `kubectl rollout status`'s verdict and words (given the pods as pods() split them) */
  phase(w: W, pods?: RolloutPods): { phase: Phase; message: string };
  strategy(w: W): ResolvedStrategy;
  /** a Deployment's revision number; a StatefulSet's update revision (a ControllerRevision's name); a DaemonSet's template generation */
  revision(w: W): string | undefined;
  /** a ReplicaSet's revision, in the annotation its controller writes (a Deployment's when absent) */
  replicaSetRevision?(rs: ReplicaSet): string | undefined;
  /** status.observedGeneration as a number (an Argo Rollout's is a string); status.observedGeneration when absent */
  observedGeneration?(w: W): number;
  /** the labels its new pods carry beyond the template's, which Services may select (an Argo Rollout's hash) */
  podLabels?(w: W): Record<string, string> | undefined;
  /** the workload's status counts, in the model's terms (a DaemonSet counts nodes, the others replicas) */
  counts(w: W): Omit<RolloutCounts, 'terminating'>;
  /** the progress deadline a controller reports against (0: the kind has none) */
  progressDeadlineSeconds(w: W): number;
  /** paused by its spec (kubectl rollout pause) */
  paused(w: W): boolean;
  /** the workload's own status conditions the model reads (Progressing, Available, ReplicaFailure) */
  conditions(w: W): Condition[] | undefined;
  /** the order its pods are shown in: a StatefulSet's by ordinal, others by name */
  order(w: W): (a: { name: string }, b: { name: string }) => number;
  /** a StatefulSet's revisions, partition and claims */
  statefulSet?(w: W, oldPods: string[], snap: Pick<RolloutSnapshot, 'claims' | 'events'>): StatefulSetView;
  /** a DaemonSet's template generations and the nodes it runs on but should not */
  daemonSet?(w: W, oldPods: Pod[]): DaemonSetView;
  /**
   * the Services the kind's controller points at its new pods alone (a blue-green's preview Service, a canary's
   * canary Service) and at its stable pods alone (active, stable): each selects the pod-template hash it chose
   */
  ownServices?(w: W): { newPods: { role: 'preview' | 'canary'; service: string }[]; stable: string[] };
  /** an Argo Rollout's phase, step, pause and Services */
  argo?(w: W, now: number): ArgoView;
  /**
   * the Deployment that holds the workload's pod template (an Argo Rollout's spec.workloadRef): the targets put its
   * template in the workload's place, and enable-gate patches it there
   */
  templateRef?(w: W): { kind: 'Deployment'; name: string } | undefined;
  /** why the plugin cannot follow this workload (an Argo Rollout whose template another object holds) */
  unfollowable?(w: W): string | undefined;
  /** the patch its own tooling's restart sends (`kubectl rollout restart`'s when absent) */
  restart?(now: number): { body: unknown; contentType: string; patchType: string; as: string };
  /**
   * Whether a pod of an older revision that is not Ready holds the rollout: a StatefulSet's controller waits on any
   * pod that is not Ready before it goes on (an older revision's too, after a rollback); a Deployment's new pods only.
   */
  oldPodsHold: boolean;
  /** the API resources drill follows the rollout through, beside pods, Services and EndpointSlices */
  followed: { group: string; resource: string }[];
}

export type { Phase };
