// Runs in every e2e test file: prints the cluster's log tails when a test fails, and deletes the file's
// namespaces when the file is done.
import { afterAll, afterEach } from 'vitest';
import { tailLogs } from '../cluster/cluster.ts';
import { cluster, deleteTestNamespaces } from './support.ts';

afterEach((context) => {
  if (context.task.result?.state !== 'fail') return;
  process.stderr.write(`\n[cluster] logs after the failure of "${context.task.name}":\n${tailLogs(cluster())}\n`);
});

afterAll(deleteTestNamespaces);
