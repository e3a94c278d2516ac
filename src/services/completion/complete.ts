import { complete, typedFlag, type CommandSpec, type Completion } from './protocol.ts';
import { KubeClient } from '../../kube/client.ts';
import { connect } from '../../kube/config.ts';
import { listPaged } from '../../kube/pager.ts';
import { R, resourcePath, WORKLOAD_KINDS, workloadResource } from '../../kube/resources.ts';

/**
 * Answers a completion request, looking names up in the cluster of the kubeconfig and context typed so far.
 * Never fails: a shell is waiting, so a look-up that fails completes nothing.
 */
export async function completeWords(words: string[], specs: CommandSpec[]): Promise<Completion> {
  const spec = specs.find((s) => s.id === words[0]);
  const client = (): KubeClient =>
    new KubeClient(
      connect({
        kubeconfig: typedFlag(words, spec, 'kubeconfig'),
        context: typedFlag(words, spec, 'context'),
        requestTimeoutMs: 5000,
      }),
    );
  const names = async (path: string): Promise<string[]> => {
    try {
      const list = await listPaged(client(), path, { verb: 'list', resource: path }, {});
      return list.items.map((i) => i.metadata.name).sort();
    } catch {
      return [];
    }
  };
  const currentNamespace = (): string => {
    try {
      return client().connection.namespace;
    } catch {
      return 'default';
    }
  };
  return complete(words, specs, {
    namespaces: () => names(resourcePath(R.namespaces)),
    workloads: async (namespace) => {
      const at = { namespace: namespace ?? currentNamespace() };
      const lists = await Promise.all(WORKLOAD_KINDS.map((k) => names(resourcePath(workloadResource(k), at))));
      return Object.fromEntries(WORKLOAD_KINDS.map((k, i) => [k, lists[i]!]));
    },
    contexts: () => {
      try {
        return client().connection.contexts;
      } catch {
        return [];
      }
    },
  });
}
