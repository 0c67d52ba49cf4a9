import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Integration and e2e tests start real servers (HTTP, redis-server) on free ports.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
  },
});
