import { describe, expect, it } from 'vitest';
import { KubeClient } from '../../src/kube/client.ts';
import { connect } from '../../src/kube/config.ts';
import { Informer } from '../../src/kube/informer.ts';
import type { ResourceType } from '../../src/kube/resources.ts';
import { restartApiServer } from '../cluster/cluster.ts';
import { adminApi, cluster, newNamespace, waitFor } from './support.ts';

const configMaps: ResourceType = {
  group: '',
  version: 'v1',
  plural: 'configmaps',
  kind: 'ConfigMap',
  namespaced: true,
  display: 'configmaps',
};
const configMap = (name: string, namespace: string) => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace },
  data: { a: '1' },
});

describe('Informer on the real API server', () => {
  it('lists, follows changes, and survives an API server restart without losing a change', async () => {
    const ns = await newNamespace('informer');
    await adminApi().create(configMap('first', ns));
    const client = new KubeClient(connect({ kubeconfig: cluster().adminKubeconfig }));
    const informer = new Informer(client, { resource: configMaps, namespace: ns }, {}, { backoffMs: () => 200 });
    const names = () =>
      informer
        .items()
        .map((i) => i.metadata.name)
        .sort()
        .join(',');
    informer.start();
    try {
      await waitFor(names, { what: 'the first list', until: (v) => v === 'first' });
      await adminApi().create(configMap('second', ns));
      await waitFor(names, { what: 'the watch to deliver the second ConfigMap', until: (v) => v === 'first,second' });
      expect(informer.lists).toBe(1);

      await restartApiServer(cluster());
      await adminApi().delete('v1', 'ConfigMap', 'first', ns);
      await adminApi().create(configMap('third', ns));
      await waitFor(names, {
        what: 'the changes made right after the restart',
        timeoutMs: 30_000,
        until: (v) => v === 'second,third',
      });
      await waitFor(() => informer.error, { what: 'the informer to recover', until: (e) => e === undefined });
      // either it resumed the watch from its last resourceVersion or relisted: both lose nothing
      await adminApi().create(configMap('fourth', ns));
      await waitFor(names, { what: 'the watch to follow changes again', until: (v) => v === 'fourth,second,third' });
    } finally {
      informer.stop();
    }
  });
});
