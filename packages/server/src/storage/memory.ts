/** In-memory adapters of the storage ports (tests, and a server run with no data dir). */
import type {
  CredentialInsertResult,
  CredentialRecord,
  CredentialStoreSync,
  SessionInsertResult,
  SessionRecord,
  SessionStoreSync,
  Stores,
  Usage,
  UsageStoreSync,
} from './ports.js';
import { retryingStores } from './retrying.js';

const clone = <T>(v: T): T => structuredClone(v);

class MemoryCredentialStore implements CredentialStoreSync {
  readonly #rows = new Map<string, CredentialRecord>();
  #version = 0;
  insert(record: CredentialRecord): CredentialInsertResult {
    if (this.#rows.has(record.id)) return { ok: false, reason: 'exists' };
    this.#rows.set(record.id, clone(record));
    this.#version++;
    return { ok: true };
  }
  get(id: string): CredentialRecord | undefined {
    const r = this.#rows.get(id);
    return r && clone(r);
  }
  list(): CredentialRecord[] {
    return [...this.#rows.values()].map(clone);
  }
  revoke(id: string, at: number): boolean {
    const r = this.#rows.get(id);
    if (!r) return false;
    if (r.revokedAt === null) {
      r.revokedAt = at;
      this.#version++;
    }
    return true;
  }
  changeVersion(): number {
    return this.#version;
  }
}

class MemorySessionStore implements SessionStoreSync {
  readonly #rows = new Map<string, SessionRecord>();
  /** The credentials' limits (the session limit is checked where the sessions are). */
  readonly #credentials: MemoryCredentialStore;
  constructor(credentials: MemoryCredentialStore) {
    this.#credentials = credentials;
  }
  insert(record: SessionRecord): SessionInsertResult {
    const max = this.#credentials.get(record.credentialId)?.limits.maxSessions;
    if (max !== undefined && this.#activeOf(record.credentialId) >= max)
      return { ok: false, reason: 'limit' };
    this.#rows.set(record.id, clone(record));
    return { ok: true };
  }
  #activeOf(credentialId: string): number {
    let n = 0;
    for (const r of this.#rows.values()) if (r.credentialId === credentialId && r.status === 'active') n++;
    return n;
  }
  get(id: string): SessionRecord | undefined {
    const r = this.#rows.get(id);
    return r && clone(r);
  }
  markEnded(id: string, reason: SessionRecord['endReason'] & string, at: number): boolean {
    const r = this.#rows.get(id);
    if (!r || r.status !== 'active') return false;
    r.status = 'ended';
    r.endReason = reason;
    r.endedAt = at;
    return true;
  }
  listActive(): SessionRecord[] {
    return [...this.#rows.values()].filter((r) => r.status === 'active').map(clone);
  }
  endAllActive(reason: SessionRecord['endReason'] & string, at: number): number {
    let n = 0;
    for (const r of this.#rows.values()) if (this.markEnded(r.id, reason, at)) n++;
    return n;
  }
  purgeEndedBefore(before: number): number {
    let n = 0;
    for (const [id, r] of this.#rows) {
      if (r.status === 'ended' && r.endedAt !== null && r.endedAt < before) {
        this.#rows.delete(id);
        n++;
      }
    }
    return n;
  }
}

export const ZERO_USAGE: Readonly<Usage> = Object.freeze({
  sessionSeconds: 0,
  charactersSpoken: 0,
  audioSeconds: 0,
  sessionsCreated: 0,
});

class MemoryUsageStore implements UsageStoreSync {
  readonly #rows = new Map<string, Usage>();
  add(credentialId: string, delta: Partial<Usage>): void {
    const u = this.#rows.get(credentialId) ?? { ...ZERO_USAGE };
    for (const k of Object.keys(ZERO_USAGE) as Array<keyof Usage>) u[k] += delta[k] ?? 0;
    this.#rows.set(credentialId, u);
  }
  get(credentialId: string): Usage {
    return { ...(this.#rows.get(credentialId) ?? ZERO_USAGE) };
  }
  all(): Array<{ credentialId: string } & Usage> {
    return [...this.#rows].map(([credentialId, u]) => ({ credentialId, ...u }));
  }
}

export function createMemoryStores(): Stores {
  return retryingStores(createMemorySyncStores(), { isBusy: () => false });
}

export function createMemorySyncStores() {
  const credentials = new MemoryCredentialStore();
  return {
    credentials,
    sessions: new MemorySessionStore(credentials),
    usage: new MemoryUsageStore(),
    probeWrite: () => undefined,
    close: () => undefined,
  };
}
