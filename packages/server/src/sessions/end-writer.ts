/**
 * Writes session ends to the store. A write the store refuses (locked, full) is logged and
 * retried with back-off (0.5, 1, 2, then every 5 s) until it lands; `stored` is called when a retry
 * succeeds. The session is already ended in memory: the write never undoes or delays that.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EndReason } from '@mouthpiece/protocol';
import type { Clock } from '../clock.js';
import type { SessionStore } from '../storage/ports.js';

// short: an attempt costs one refused write (a lock is waited for on timers, never on the thread)
const RETRY_MS = [500, 1000, 2000, 5000];

export class EndWriter {
  #closed = false;
  readonly #inFlight = new Set<Promise<boolean>>();

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly stored: (sessionId: string) => void,
  ) {}

  /** Resolves true when the end is stored, false when it will be retried. Never rejects. */
  write(sessionId: string, reason: EndReason, at: number, attempt = 0): Promise<boolean> {
    const p = this.#attempt(sessionId, reason, at, attempt);
    this.#inFlight.add(p);
    void p.finally(() => this.#inFlight.delete(p));
    return p;
  }

  async #attempt(sessionId: string, reason: EndReason, at: number, attempt: number): Promise<boolean> {
    try {
      await this.store.markEnded(sessionId, reason, at);
    } catch (err) {
      const retryInMs = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
      // every attempt at first, then one line a minute while the store stays down
      if (attempt < 4 || attempt % 12 === 0)
        this.log.error({ err, sessionId, attempt: attempt + 1, retryInMs }, 'storing a session end failed');
      if (!this.#closed)
        this.clock.setTimeout(() => {
          void this.write(sessionId, reason, at, attempt + 1).then((ok) => ok && this.stored(sessionId));
        }, retryInMs);
      return false;
    }
    if (attempt > 0) this.log.info({ sessionId, attempts: attempt + 1 }, 'session end stored after retrying');
    return true;
  }

  /** Waits for the writes under way (not the retries scheduled later). */
  async drain(): Promise<void> {
    await Promise.all([...this.#inFlight]);
  }

  /** Stops retrying (shutdown). */
  close(): void {
    this.#closed = true;
  }
}
