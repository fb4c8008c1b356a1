/**
 * The `mouthpiece` command. A pure function of argv/env with injected output streams, so tests
 * run it in-process. Exit codes: 0 ok, 1 usage, 2 not found.
 */
import { readFileSync } from 'node:fs';
import { loadConfig } from '../config.js';
import type { CliIo } from './io.js';
import { avatarsCommand } from './avatars-command.js';
import { credentialsCommand } from './credentials-command.js';
import { MAIN_USAGE, SERVE_USAGE, UsageError } from './usage.js';

/** The version of the server package (packages/server/package.json, from src/ or dist/ alike). */
export function cliVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

const isHelp = (a: string | undefined) => a === '--help' || a === '-h';

export type { CliIo } from './io.js';

export async function runCli(io: CliIo): Promise<number> {
  const [command, sub, ...rest] = io.argv;
  try {
    switch (command) {
      case undefined:
      case '--help':
      case '-h':
        io.stdout(MAIN_USAGE);
        return 0;
      case 'help':
        if (sub === 'credentials') return await credentialsCommand(rest[0] ?? '--help', ['--help'], io, 0);
        io.stdout(sub === 'serve' ? SERVE_USAGE : MAIN_USAGE);
        return 0;
      case '--version':
      case '-v':
        io.stdout(`mouthpiece ${cliVersion()}\n`);
        return 0;
      case 'serve': {
        if (isHelp(sub)) {
          io.stdout(SERVE_USAGE);
          return 0;
        }
        if (sub !== undefined) throw new UsageError(`serve takes no arguments (got "${sub}")`, SERVE_USAGE);
        const config = loadConfig(io.env);
        if (!io.serve) throw new Error('serve is not available here');
        try {
          await io.serve(config);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EADDRINUSE') throw err;
          io.stderr(
            `mouthpiece: port ${config.port} is in use (is Mouthpiece already running?); ` +
              `stop that, or start on another port: PORT=${config.port < 65535 ? config.port + 1 : 8080} npm start\n`,
          );
          return 1;
        }
        return 0;
      }
      case 'credentials':
        return await credentialsCommand(sub, rest, io, (io.now ?? Date.now)());
      case 'avatars':
        return await avatarsCommand(sub, rest, io);
      default:
        throw new UsageError(`unknown command "${command}"`, MAIN_USAGE);
    }
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`mouthpiece: ${err.message}\n\n${err.usage}`);
      return 1;
    }
    throw err;
  }
}
