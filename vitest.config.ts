import { defineConfig } from 'vitest/config';

// Two projects: fast fixture tests of the pure layers, and end-to-end scenarios on the real local control plane
// (one cluster per run, started by the e2e global setup; files run one at a time because the HAPTIC stand-in's
// failure knobs are cluster-wide).
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
    ],
  },
});
