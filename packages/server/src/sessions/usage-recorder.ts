/**
 * Usage accounting that never fails its caller: a write the store refuses (locked, full) stays in
 * memory and is added to the next write that lands, or to the next `flushAll()`. Nothing spoken
 * goes unbilled, and no answer turns into a 500 after its speech was queued.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Usage, UsageStore } from '../storage/ports.js';

export class UsageRecorder {
  readonly #pending = new Map<string, Partial<Usage>>();

  constructor(
    private readonly store: UsageStore,
    private readonly log: FastifyBaseLogger,
  ) {}

  record(credentialId: string, delta: Partial<Usage>): void {
    const pending = this.#pending.get(credentialId) ?? {};
    for (const [k, v] of Object.entries(delta) as Array<[keyof Usage, number]>)
      pending[k] = (pending[k] ?? 0) + v;
    this.#pending.set(credentialId, pending);
    this.#flush(credentialId);
  }

  flushAll(): void {
    for (const credentialId of [...this.#pending.keys()]) this.#flush(credentialId);
  }

  #flush(credentialId: string): void {
    const pending = this.#pending.get(credentialId);
    if (!pending) return;
    try {
      this.store.add(credentialId, pending);
      this.#pending.delete(credentialId);
    } catch (err) {
      this.log.error({ err, credentialId }, 'storing usage failed; kept in memory for the next write');
    }
  }
}
