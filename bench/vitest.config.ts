import { defineConfig } from 'vitest/config';

// Benchmarks that need a real server and browser or libwebrtc peers run under vitest (TypeScript,
// the e2e harness), one file at a time; `bench/lib/run-vitest-bench.mjs` picks the folder.
export default defineConfig({
  test: {
    include: ['bench/**/*.bench-run.ts'],
    pool: 'forks',
    fileParallelism: false,
    testTimeout: 900_000,
    hookTimeout: 60_000,
  },
});
