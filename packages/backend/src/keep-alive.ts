/**
 * The keep-alive loop: one call every `intervalMs`, the next timed from the end of the last (so
 * calls never pile up behind a slow server). Failures go to `onError`, never into the void; one
 * that will fail the same way again (401, 403, 404, 410) stops the loop.
 */
import { MouthpieceError } from './errors.js';

export interface KeepAliveOptions {
  /**
   * Default 10 000 (the contract's interval; the server's idle timeout is 30 s by default), or a
   * third of the idle timeout init-client answered when that is shorter.
   */
  intervalMs?: number;
  onError?: (err: unknown) => void;
}

export class KeepAlive {
  readonly #send: (signal: AbortSignal) => Promise<void>;
  readonly intervalMs: number;
  readonly #onError: (err: unknown) => void;
  readonly #stop = new AbortController();
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Keep-alives the server accepted. */
  sent = 0;

  constructor(send: (signal: AbortSignal) => Promise<void>, opts: KeepAliveOptions) {
    this.#send = send;
    this.intervalMs = opts.intervalMs ?? 10_000;
    this.#onError = opts.onError ?? ((): void => undefined);
    this.#schedule();
  }

  get running(): boolean {
    return !this.#stop.signal.aborted;
  }

  stop(): void {
    this.#stop.abort();
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (!this.running) return;
    this.#timer = setTimeout(() => void this.#tick(), this.intervalMs);
    this.#timer.unref?.();
  }

  async #tick(): Promise<void> {
    try {
      await this.#send(this.#stop.signal);
      this.sent++;
    } catch (err) {
      if (!this.running) return;
      if (err instanceof MouthpieceError && [401, 403, 404, 410].includes(err.status)) this.stop();
      try {
        this.#onError(err);
      } catch {
        // the reporter failed; the loop goes on
      }
    }
    this.#schedule();
  }
}
