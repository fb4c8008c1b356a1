/**
 * Usage accounting that never fails or waits for its caller: a write the store refuses (locked,
 * full) stays in memory and is added to the next write that lands, or to the next `flushAll()`.
 * Nothing spoken goes unbilled, and no answer turns into a 500 after its speech was queued. One
 * write per credential is under way at a time; what arrives meanwhile goes in the next.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Usage, UsageStore } from '../storage/ports.js';

export class UsageRecorder {
  readonly #pending = new Map<string, Partial<Usage>>();
  readonly #inFlight = new Map<string, Promise<void>>();

  constructor(
    private readonly store: UsageStore,
    private readonly log: FastifyBaseLogger,
  ) {}

  record(credentialId: string, delta: Partial<Usage>): void {
    this.#merge(credentialId, delta);
    this.#flush(credentialId);
  }

  flushAll(): void {
    for (const credentialId of [...this.#pending.keys()]) this.#flush(credentialId);
  }

  /** Waits for the writes under way. */
  async drain(): Promise<void> {
    await Promise.all([...this.#inFlight.values()]);
  }

  #merge(credentialId: string, delta: Partial<Usage>): void {
    const pending = this.#pending.get(credentialId) ?? {};
    for (const [k, v] of Object.entries(delta) as Array<[keyof Usage, number]>)
      pending[k] = (pending[k] ?? 0) + v;
    this.#pending.set(credentialId, pending);
  }

  #flush(credentialId: string): void {
    if (this.#inFlight.has(credentialId)) return; // it takes what is pending when it lands
    const delta = this.#pending.get(credentialId);
    if (!delta) return;
    this.#pending.delete(credentialId);
    const write = this.store.add(credentialId, delta).then(
      () => {
        this.#inFlight.delete(credentialId);
        this.#flush(credentialId);
      },
      (err: unknown) => {
        this.#inFlight.delete(credentialId);
        this.#merge(credentialId, delta);
        this.log.error({ err, credentialId }, 'storing usage failed; kept in memory for the next write');
      },
    );
    this.#inFlight.set(credentialId, write);
  }
}
