import { defineConfig } from 'vitest/config';

// Browser end-to-end tests: a real server (engine processes, coturn) and real Chromium, run one
// file at a time inside the test network namespace (scripts/test.sh).
export default defineConfig({
  test: {
    include: ['e2e/**/*.e2e.test.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
