import { defineConfig } from 'vitest/config';
import { labNetnsName } from './test/cluster/lab/netns.ts';
import { netnsPool } from './test/lab/pool.ts';

// Fast fixture tests of the pure layers; the built plugin against hostile servers; end-to-end scenarios on the real
// local control plane (one cluster per run, started by the e2e global setup; files run one at a time because the
// HAPTIC stand-in's failure knobs are cluster-wide); and the lab: real HAProxy, real processes and real connections
// inside a network namespace (test/cluster/lab/; needs root), its workers forked into that namespace.
export default defineConfig({
  test: {
    reporters: ['default', './test/summary-reporter.ts'],
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.{ts,tsx}'],
        },
      },
      {
        // hostile inputs: the built bundle as a process against local servers the tests control (no cluster)
        test: {
          name: 'hostile',
          include: ['test/hostile/**/*.test.ts'],
          testTimeout: 60_000,
        },
      },
      {
        test: {
          name: 'e2e',
          include: ['test/e2e/**/*.test.ts'],
          globalSetup: ['test/e2e/global-setup.ts'],
          setupFiles: ['test/e2e/setup-each.ts'],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 180_000,
        },
      },
      {
        test: {
          name: 'lab',
          include: ['test/lab/**/*.test.ts'],
          // in a group of its own, never beside the e2e project (which vitest, as it runs one file at a time, puts
          // in a last group of its own): two busy clusters at once on a 2-core machine slow the timed end-to-end
          // scenarios. Both clusters start before the first test, as every global setup does.
          sequence: { groupOrder: 1 },
          globalSetup: ['test/lab/global-setup.ts'],
          setupFiles: ['test/lab/setup-netns.ts', 'test/e2e/setup-each.ts'],
          // the namespace's name is the vitest process's, as the global setup computes it
          pool: netnsPool(labNetnsName(`lab-${process.pid}`)),
          fileParallelism: false,
          testTimeout: 300_000,
          hookTimeout: 300_000,
        },
      },
    ],
  },
});
