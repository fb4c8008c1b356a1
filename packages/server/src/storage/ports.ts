/**
 * Storage ports of the control plane. Adapters: `memory.ts` (tests) and `sqlite/` (embedded
 * default), both synchronous inside and served through `retrying.ts`, which makes every call a
 * promise and retries a locked store off the event loop, so a lock held by another process never
 * blocks a request, a keep-alive or a timer. All times are epoch milliseconds.
 *
 * Ports speak results, not HTTP: an expected outcome is a result union (`{ ok: false, reason }`),
 * and a failure of the store itself is one typed error family, `StorageError` (errors.ts), which
 * every adapter throws; the routes and the error handler map both to statuses.
 */
import type { EndReason, SessionStatus } from '@mouthpiece/protocol';

export const Permission = { SESSION_CREATE: 'session:create', ADMIN: 'admin' } as const;
export type Permission = (typeof Permission)[keyof typeof Permission];

export interface PlanLimits {
  maxSessions: number;
  maxSessionDurationMs: number;
  maxTextLength: number;
  /** Requests per second for this credential (0 = unlimited). */
  requestsPerSecond: number;
}

export interface CredentialRecord {
  id: string;
  name: string;
  /** Hex SHA-256 of the whole secret (the value after `KS `). */
  secretHash: string;
  permissions: Permission[];
  createdAt: number;
  expiresAt: number | null;
  revokedAt: number | null;
  limits: PlanLimits;
}

/** A credential insert: refused, changing nothing, when a credential with that id exists. */
export type CredentialInsertResult = { ok: true } | { ok: false; reason: 'exists' };

export interface CredentialStoreSync {
  insert(record: CredentialRecord): CredentialInsertResult;
  get(id: string): CredentialRecord | undefined;
  list(): CredentialRecord[];
  /** Returns false when there is no such credential. Revoking twice keeps the first time. */
  revoke(id: string, at: number): boolean;
  /** A number that changes whenever any writer (this process or another) changed the store. */
  changeVersion(): number;
}

export interface SessionRecord {
  id: string;
  credentialId: string;
  avatarId: string;
  voiceId: string;
  voiceSpeed: number;
  /** Unguessable token carried in the whepUrl query (`vt`). */
  viewerToken: string;
  status: SessionStatus;
  createdAt: number;
  /** When max duration ends the session. */
  expiresAt: number;
  endedAt: number | null;
  endReason: EndReason | null;
}

/**
 * A session insert: refused, changing nothing, when the session's credential already holds its
 * `limits.maxSessions` active sessions in this store (with Redis: counted over every node).
 */
export type SessionInsertResult = { ok: true } | { ok: false; reason: 'limit' };

export interface SessionStoreSync {
  insert(record: SessionRecord): SessionInsertResult;
  get(id: string): SessionRecord | undefined;
  /** Marks an active session ended; false when it was not active. */
  markEnded(id: string, reason: EndReason, at: number): boolean;
  listActive(): SessionRecord[];
  /** At start-up: every session still active is ended with this reason. Returns how many. */
  endAllActive(reason: EndReason, at: number): number;
  /** Deletes ended sessions that ended before `before`. Returns how many. */
  purgeEndedBefore(before: number): number;
}

export interface Usage {
  sessionSeconds: number;
  charactersSpoken: number;
  audioSeconds: number;
  sessionsCreated: number;
}

export interface UsageStoreSync {
  add(credentialId: string, delta: Partial<Usage>): void;
  get(credentialId: string): Usage;
  all(): Array<{ credentialId: string } & Usage>;
}

/** The same methods, each answering a promise (what the control plane calls). */
export type Async<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: A) => Promise<R> : T[K];
};

export type CredentialStore = Async<CredentialStoreSync>;
export type SessionStore = Async<SessionStoreSync>;
export type UsageStore = Async<UsageStoreSync>;

export interface SyncStores {
  credentials: CredentialStoreSync;
  sessions: SessionStoreSync;
  usage: UsageStoreSync;
  /** A write the store could take now, without waiting: throws when it could not (locked, read-only). */
  probeWrite(): void;
  close(): void;
}

export interface Stores {
  credentials: CredentialStore;
  sessions: SessionStore;
  usage: UsageStore;
  /** 'ok', or what is wrong with the store now (for `/readyz`). Never waits long. */
  check(): Promise<string>;
  close(): Promise<void>;
}
