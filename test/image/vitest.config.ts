import { join } from 'node:path';
import { defineConfig } from 'vitest/config';

// `npm run test:image`: the container test of the service image, on demand (not in `npm test`,
// which needs no Docker). The stack comes from test/global-setup.ts as for the integration tests.
export default defineConfig({
  root: join(import.meta.dirname, '..', '..'),
  test: {
    include: ['test/image/**/*.test.ts'],
    environment: 'node',
    globalSetup: ['test/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
