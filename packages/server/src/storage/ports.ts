/**
 * Storage ports of the control plane. Adapters: `memory.ts` (tests) and `sqlite/` (embedded
 * default). All times are epoch milliseconds. Calls are synchronous: the embedded adapter is
 * SQLite in-process; a networked adapter (Redis) would sit behind an in-memory cache.
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

export interface CredentialStore {
  insert(record: CredentialRecord): void;
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

export interface SessionStore {
  insert(record: SessionRecord): void;
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

export interface UsageStore {
  add(credentialId: string, delta: Partial<Usage>): void;
  get(credentialId: string): Usage;
  all(): Array<{ credentialId: string } & Usage>;
}

export interface Stores {
  credentials: CredentialStore;
  sessions: SessionStore;
  usage: UsageStore;
  close(): void;
}
