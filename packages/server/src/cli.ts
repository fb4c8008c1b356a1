#!/usr/bin/env node
// The `mouthpiece` bin: serve, and credential management for operators.
import { resolve } from 'node:path';
import { startBanner } from './cli/banner.js';
import { cliVersion, runCli } from './cli/run.js';
import { signalStopper } from './cli/signal-stopper.js';
import { startServer } from './server.js';

const code = await runCli({
  argv: process.argv.slice(2),
  env: process.env,
  stdout: (s) => process.stdout.write(s),
  stderr: (s) => process.stderr.write(s),
  serve: async (config) => {
    const server = await startServer(config, {
      onListening: ({ turnPorts, ...info }) =>
        process.stdout.write(
          startBanner({
            ...info,
            defaultDataDir: resolve('data'),
            version: cliVersion(),
            exposed: {
              host: config.host,
              port: config.port,
              metrics:
                config.metricsToken !== undefined
                  ? 'MOUTHPIECE_METRICS_TOKEN'
                  : config.adminToken !== undefined
                    ? 'MOUTHPIECE_ADMIN_TOKEN'
                    : 'off',
              adminToken: config.adminToken !== undefined,
              turnHost: config.turn.host,
              turnPorts,
              ...(info.turn === 'managed'
                ? { relayPorts: { min: config.turn.minPort, max: config.turn.maxPort } }
                : {}),
            },
          }),
        ),
    });
    const stop = signalStopper({
      close: () => server.close(),
      stdout: (s) => process.stdout.write(s),
      stderr: (s) => process.stderr.write(s),
      exit: (status) => process.exit(status),
      now: () => performance.now(),
    });
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    return new Promise<never>(() => undefined);
  },
}).catch((err: unknown) => {
  console.error(`mouthpiece: ${err instanceof Error ? err.message : String(err)}`);
  return 1;
});
if (code !== 0) process.exit(code);
