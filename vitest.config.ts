import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files that bind fixed ports (LocalNet's 2975, 3975, 2000, 4000, ...: the `localnet` profile
 * as published). Two of them at once would collide, so they form a project of their own that runs
 * its files one at a time; every other file asks for free ports and runs in parallel as before.
 */
const FIXED_PORT_FILES = 'test/**/*.fixed-ports.test.ts';

export default defineConfig({
  test: {
    // Integration and e2e tests start real servers (HTTP, redis-server) on free ports.
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      {
        extends: true,
        test: { name: 'default', include: ['test/**/*.test.ts'], exclude: [...configDefaults.exclude, FIXED_PORT_FILES] },
      },
      {
        extends: true,
        test: { name: 'fixed-ports', include: [FIXED_PORT_FILES], fileParallelism: false, maxWorkers: 1 },
      },
    ],
  },
});
