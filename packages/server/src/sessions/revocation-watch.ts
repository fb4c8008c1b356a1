/**
 * Watches for credentials revoked (or expired) by another writer, such as the CLI or another node:
 * every `REVOCATION_POLL_MS` it compares the credential store's change version and, when it moved,
 * re-reads the credentials of the live sessions and ends the sessions of those no longer valid
 * (`credential_revoked`). Used by the session registry (session-registry.ts).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Clock } from '../clock.js';
import type { CredentialStore } from '../storage/ports.js';

export const REVOCATION_POLL_MS = 1000;

export interface RevocationWatchDeps {
  credentials: CredentialStore;
  clock: Clock;
  log: FastifyBaseLogger;
  /** The credentials that hold live sessions now. */
  liveCredentials(): Iterable<string>;
  /** Ends every live session of a credential; resolves to how many ended. */
  endAllFor(credentialId: string): Promise<number>;
}

export class RevocationWatch {
  readonly #d: RevocationWatchDeps;
  #seen: Promise<number | undefined>;
  #timer: unknown;
  #closed = false;

  constructor(deps: RevocationWatchDeps) {
    this.#d = deps;
    this.#seen = deps.credentials.changeVersion().catch(() => undefined);
    this.#schedule();
  }

  /** One check now: ends the sessions of credentials revoked since the last one; returns how many. */
  async check(): Promise<number> {
    const { credentials, clock } = this.#d;
    const version = await credentials.changeVersion();
    const seen = await this.#seen;
    if (version === seen) return 0;
    this.#seen = Promise.resolve(version);
    const now = clock.now();
    const revoked = new Set<string>();
    for (const credentialId of new Set(this.#d.liveCredentials())) {
      const c = await credentials.get(credentialId);
      if (!c || c.revokedAt !== null || (c.expiresAt !== null && c.expiresAt <= now))
        revoked.add(credentialId);
    }
    const n = await Promise.all([...revoked].map((id) => this.#d.endAllFor(id)));
    return n.reduce((a, b) => a + b, 0);
  }

  /** Stops polling; idempotent. */
  close(): void {
    this.#closed = true;
    this.#d.clock.clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = this.#d.clock.setTimeout(() => {
      this.check()
        .catch((err: unknown) => this.#d.log.warn({ err }, 'revocation check failed'))
        .finally(() => this.#schedule());
    }, REVOCATION_POLL_MS);
  }
}
