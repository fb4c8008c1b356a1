import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/stream/*.bench-run.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
