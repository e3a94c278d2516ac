import { Command } from '@oclif/core';
import { KubeClient } from '../kube/client.ts';
import { connect } from '../kube/config.ts';
import { R, resourcePath } from '../kube/resources.ts';
import { complete, typedFlag, type CommandSpec } from '../completion/complete.ts';

interface NamedList {
  items: { metadata: { name: string } }[];
}

/** Hidden: answers kubectl's plugin completion (bin/kubectl_complete-haptic). Never fails loudly: a shell is waiting. */
export default class CompleteCommand extends Command {
  static override hidden = true;
  static override strict = false;
  static override summary = 'Shell completion back end for kubectl_complete-haptic.';

  async run(): Promise<void> {
    const words = this.argv.length ? this.argv : [''];
    const specs: CommandSpec[] = this.config.commands.map((c) => ({
      id: c.id,
      summary: c.summary,
      takesDeployments: Object.keys(c.args).length > 0,
      flags: Object.values(c.flags).map((f) => ({
        name: f.name,
        char: f.char,
        takesValue: f.type === 'option',
        options: f.type === 'option' ? f.options : undefined,
        summary: f.summary,
      })),
    }));
    const spec = specs.find((s) => s.id === words[0]);
    const client = (): KubeClient =>
      new KubeClient(connect({ kubeconfig: typedFlag(words, spec, 'kubeconfig'), context: typedFlag(words, spec, 'context'), requestTimeoutMs: 5000 }));
    const names = async (path: string): Promise<string[]> => {
      try {
        const list = await client().request<NamedList>('GET', path, { verb: 'list', resource: path });
        return list.items.map((i) => i.metadata.name).sort();
      } catch {
        return [];
      }
    };
    const result = await complete(words, specs, {
      namespaces: () => names(resourcePath(R.namespaces)),
      deployments: (namespace) => names(resourcePath(R.deployments, { namespace: namespace ?? safeNamespace(client) })),
      contexts: () => {
        try {
          return client().connection.kubeConfig.getContexts().map((c) => c.name);
        } catch {
          return [];
        }
      },
    });
    process.stdout.write([...result.candidates, `:${result.directive}`].join('\n') + '\n');
  }
}

function safeNamespace(client: () => KubeClient): string {
  try {
    return client().connection.namespace;
  } catch {
    return 'default';
  }
}
