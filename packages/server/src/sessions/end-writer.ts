/**
 * Writes session ends to the store. A write the store refuses (locked, full) is logged and
 * retried with back-off (1, 2, 4 … 60 s) until it lands; `stored` is called when a retry
 * succeeds. The session is already ended in memory: the write never undoes or delays that.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { EndReason } from '@mouthpiece/protocol';
import type { Clock } from '../clock.js';
import type { SessionStore } from '../storage/ports.js';

const RETRY_MS = [1000, 2000, 4000, 8000, 15_000, 30_000, 60_000];

export class EndWriter {
  #closed = false;

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly log: FastifyBaseLogger,
    private readonly stored: (sessionId: string) => void,
  ) {}

  /** True when the end is stored now; false when it will be retried. */
  write(sessionId: string, reason: EndReason, at: number, attempt = 0): boolean {
    try {
      this.store.markEnded(sessionId, reason, at);
    } catch (err) {
      const retryInMs = RETRY_MS[Math.min(attempt, RETRY_MS.length - 1)]!;
      this.log.error({ err, sessionId, attempt: attempt + 1, retryInMs }, 'storing a session end failed');
      if (!this.#closed)
        this.clock.setTimeout(() => {
          if (this.write(sessionId, reason, at, attempt + 1)) this.stored(sessionId);
        }, retryInMs);
      return false;
    }
    if (attempt > 0) this.log.info({ sessionId, attempts: attempt + 1 }, 'session end stored after retrying');
    return true;
  }

  /** Stops retrying (shutdown). */
  close(): void {
    this.#closed = true;
  }
}
