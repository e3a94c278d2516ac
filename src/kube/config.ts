import { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import { KubeConfigError } from './errors.ts';

export interface ConnectionOptions {
  kubeconfig?: string | undefined;
  context?: string | undefined;
  namespace?: string | undefined;
  requestTimeoutMs?: number | undefined;
}

export interface Connection {
  kubeConfig: KubeConfig;
  contextName: string;
  server: string;
  /** --namespace, else the context's namespace, else "default" */
  namespace: string;
  requestTimeoutMs: number;
}

/**
 * Turns kubectl-style flags into a KubeConfig the way kubectl does: --kubeconfig wins, else KUBECONFIG (several
 * files separated by ':' are merged, first file wins), else ~/.kube/config; --context overrides the current context.
 */
export function connect(options: ConnectionOptions): Connection {
  const kubeConfig = new KubeConfig();
  try {
    if (options.kubeconfig) {
      if (!existsSync(options.kubeconfig)) throw new KubeConfigError(`kubeconfig file "${options.kubeconfig}" does not exist (--kubeconfig)`);
      kubeConfig.loadFromFile(options.kubeconfig);
    } else {
      loadMerged(kubeConfig, kubeconfigPaths());
    }
  } catch (err) {
    if (err instanceof KubeConfigError) throw err;
    throw new KubeConfigError(`cannot load kubeconfig: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
  }
  if (options.context) {
    if (!kubeConfig.getContextObject(options.context)) {
      throw new KubeConfigError(`context "${options.context}" does not exist in the kubeconfig (--context); see kubectl config get-contexts`);
    }
    kubeConfig.setCurrentContext(options.context);
  }
  const contextName = kubeConfig.getCurrentContext();
  const cluster = kubeConfig.getCurrentCluster();
  if (!contextName || !cluster) {
    throw new KubeConfigError('no current context in the kubeconfig: set one with kubectl config use-context, or pass --context/--kubeconfig');
  }
  const contextNamespace = kubeConfig.getContextObject(contextName)?.namespace;
  return {
    kubeConfig,
    contextName,
    server: cluster.server,
    namespace: options.namespace || contextNamespace || 'default',
    requestTimeoutMs: options.requestTimeoutMs ?? 0,
  };
}

function kubeconfigPaths(): string[] {
  const fromEnv = (process.env.KUBECONFIG ?? '').split(delimiter).filter(Boolean);
  return fromEnv.length ? fromEnv : [join(homedir(), '.kube', 'config')];
}

/**
 * kubectl's merge: files in order, the first definition of a cluster, user or context name wins (later duplicates
 * are ignored, not an error), and the first file that sets current-context decides it. Missing files are skipped.
 */
function loadMerged(into: KubeConfig, paths: string[]): void {
  const existing = paths.filter((p) => existsSync(p));
  if (existing.length === 0) {
    into.loadFromDefault();
    return;
  }
  let current = '';
  for (const path of existing) {
    const file = new KubeConfig();
    file.loadFromFile(path);
    for (const cluster of file.getClusters()) if (!into.getCluster(cluster.name)) into.addCluster(cluster);
    for (const user of file.getUsers()) if (!into.getUser(user.name)) into.addUser(user);
    for (const context of file.getContexts()) if (!into.getContextObject(context.name)) into.addContext(context);
    current ||= file.getCurrentContext() ?? '';
  }
  if (current) into.setCurrentContext(current);
}
