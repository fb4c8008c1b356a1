/** Console logging with a level; tokens and credentials are never passed to it. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
const ORDER: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

export interface Logger {
  debug(msg: string, data?: unknown): void;
  info(msg: string, data?: unknown): void;
  warn(msg: string, data?: unknown): void;
  error(msg: string, data?: unknown): void;
}

export function createLogger(level: LogLevel = 'info'): Logger {
  const at = (l: LogLevel) => (msg: string, data?: unknown) => {
    if (ORDER[l] < ORDER[level]) return;
    const line = `[mouthpiece] ${msg}`;
    if (data === undefined) console[l](line);
    else console[l](line, data);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
