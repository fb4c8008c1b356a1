import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['bench/startup/*.bench-run.ts'],
    pool: 'forks',
    testTimeout: 600_000,
    hookTimeout: 60_000,
  },
});
