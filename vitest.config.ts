import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // In CI a JSON report as well, from which .ci/run prints a plain 'N passed, N failed' line.
    ...(process.env.CI === 'true'
      ? { reporters: ['default', 'json'], outputFile: { json: '.vitest-report.json' } }
      : {}),
    projects: [
      {
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          environment: 'node',
          // A ceiling for a hung test, not a speed bound: the property tests (fast-check) take
          // 1-2 s alone and 6-15 s with both cores busy, past vitest's default 5 s.
          testTimeout: 60_000,
          // Projects with different worker settings need distinct group orders; unit runs first.
          sequence: { groupOrder: 0 },
        },
      },
      {
        test: {
          name: 'integration',
          // test/issues/: regression tests, each named after the bug it pins; they may use the stack.
          include: ['test/integration/**/*.test.ts', 'test/issues/**/*.test.ts'],
          environment: 'node',
          globalSetup: ['test/global-setup.ts'],
          // Ceilings for a hung test, not speed bounds: a test chains waits of up to HUNG_MS
          // (test/helpers/wait.ts), and with both cores busy one test may take minutes.
          testTimeout: 300_000,
          hookTimeout: 300_000,
          // The real stack is shared: a few files at a time keep a 2-core machine responsive.
          maxWorkers: 2,
          fileParallelism: true,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
