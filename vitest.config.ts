import { defineConfig } from 'vitest/config';
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';

const src = (p: string): string => fileURLToPath(new URL(p, import.meta.url));

// Unit and integration tests (node). Browser/e2e tests live in e2e/ and run in the test
// network namespace through scripts/test.sh with their own config (e2e/vitest.config.ts).
export default defineConfig({
  resolve: {
    alias: {
      '@mouthpiece/protocol': src('./packages/protocol/src/index.ts'),
      '@mouthpiece/client': src('./packages/client/src/index.ts'),
      '@mouthpiece/draw/browser': src('./packages/draw/src/browser.ts'),
      '@mouthpiece/draw': src('./packages/draw/src/index.ts'),
      '@mouthpiece/engine/host': src('./packages/engine/src/host/index.ts'),
      '@mouthpiece/engine/jobs': src('./packages/engine/src/jobs.ts'),
      '@mouthpiece/engine/config': src('./packages/engine/src/config.ts'),
      '@mouthpiece/engine/testing': src('./packages/engine/src/testing/index.ts'),
    },
  },
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'packages/*/test/**/*.test.ts',
      'scripts/*.test.ts',
      'bench/*/*.test.ts',
    ],
    pool: 'forks',
    // one worker per core: vitest's default leaves one core to itself (a single worker on two
    // cores), while its main process idles and many test files wait on child processes
    maxWorkers: availableParallelism(),
    testTimeout: 20_000,
    hookTimeout: 30_000,
  },
});
