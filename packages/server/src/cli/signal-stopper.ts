/**
 * What `mouthpiece serve` does on SIGINT/SIGTERM: close the server, then print one stop line and
 * exit (0, or 1 if closing failed). The same Ctrl-C can arrive twice (from the terminal and again
 * forwarded by `npm start`), so a repeat within a second is that one; a later one is a second
 * Ctrl-C and stops at once.
 */
export interface StopperDeps {
  close(): Promise<void>;
  stdout(s: string): void;
  stderr(s: string): void;
  exit(code: number): void;
  /** Milliseconds on a monotonic clock. */
  now(): number;
}

export const REPEAT_WINDOW_MS = 1000;

export function signalStopper(d: StopperDeps): () => void {
  let since: number | undefined;
  return () => {
    if (since !== undefined) {
      if (d.now() - since < REPEAT_WINDOW_MS) return;
      d.stdout('Mouthpiece stopped (forced).\n'); // process 'exit' handlers still kill coturn
      d.exit(130);
      return;
    }
    since = d.now();
    let status = 0;
    d.close()
      .catch((err: unknown) => {
        status = 1;
        d.stderr(`mouthpiece: stopping failed: ${err instanceof Error ? err.message : String(err)}\n`);
      })
      .finally(() => {
        d.stdout('Mouthpiece stopped.\n');
        d.exit(status);
      });
  };
}
