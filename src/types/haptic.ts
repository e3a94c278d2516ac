import type { Condition, KubeObject, LabelSelector } from './kube.ts';

export interface HAProxyTemplateConfig extends KubeObject {
  spec?: {
    podSelector?: LabelSelector;
    controller?: { leaderElection?: { leaseName?: string } };
  };
  status?: {
    conditions?: Condition[];
    validationStatus?: string;
    validationMessage?: string;
    validationErrors?: string[];
  };
}

export interface DeployedToPod {
  podName: string;
  podUID?: string;
  podRuntimeID?: string;
  checksum?: string;
  appliedPlanID?: string;
  runningPlanID?: string;
  mode?: string;
  reasons?: string[];
  lastError?: string;
  consecutiveErrors?: number;
  observedGeneration?: number;
  lastUpdate?: string;
}

export interface HAProxyCfg extends KubeObject {
  spec?: { content?: string; checksum?: string; compressed?: boolean };
  status?: { deployedToPods?: DeployedToPod[]; conditions?: Condition[] };
}
