/** What a CLI command is given: its arguments and environment, its output, and what tests replace. */
import type { Config } from '../config.js';

/** The CLI's world: arguments, environment and output, injected so tests run it in process. */
export interface CliIo {
  argv: string[];
  env: Record<string, string | undefined>;
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  /** Starts the server (serve); injected so tests don't listen. */
  serve?: (config: Readonly<Config>) => Promise<unknown>;
  /** The clock of credential times (default Date.now). */
  now?: () => number;
}
