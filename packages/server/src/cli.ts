#!/usr/bin/env node
// The `mouthpiece` bin: serve, and credential management for operators.
import { runCli } from './cli/run.js';
import { startServer } from './server.js';

const code = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  serve: async (config) => {
    const server = await startServer(config);
    const stop = (): void => {
      server
        .close()
        .catch((err: unknown) => console.error(err))
        .finally(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    return new Promise<never>(() => undefined);
  },
}).catch((err: unknown) => {
  console.error(`mouthpiece: ${err instanceof Error ? err.message : String(err)}`);
  return 1;
});
if (code !== 0) process.exit(code);
