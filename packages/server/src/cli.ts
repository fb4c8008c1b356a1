#!/usr/bin/env node
// The `mouthpiece` bin: serve, and credential management for operators.
import { startBanner } from './cli/banner.js';
import { cliVersion, runCli } from './cli/run.js';
import { startServer } from './server.js';

const code = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  serve: async (config) => {
    const server = await startServer(config, {
      onListening: (info) => process.stdout.write(startBanner({ ...info, version: cliVersion() })),
    });
    let stopping = false;
    const stop = (): void => {
      if (stopping) return;
      stopping = true;
      server
        .close()
        .catch((err: unknown) => console.error(err))
        .finally(() => {
          process.stdout.write('Mouthpiece stopped.\n');
          process.exit(0);
        });
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
