/**
 * The embedded storage adapter: SQLite (better-sqlite3) in WAL mode, migrated at open. A restart
 * keeps credentials, usage and ended-session records. `changeVersion()` changes when another
 * process (the CLI) writes, via `PRAGMA data_version`, so a running server sees revocations.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import type { EndReason } from '@mouthpiece/protocol';
import type {
  CredentialInsertResult,
  CredentialRecord,
  CredentialStoreSync,
  Permission,
  SessionInsertResult,
  SessionRecord,
  SessionStoreSync,
  Stores,
  Usage,
  UsageStoreSync,
} from '../ports.js';
import { retryingStores } from '../retrying.js';
import { MIGRATIONS } from './migrations.js';

type Db = Database.Database;

export interface SqliteOptions {
  /**
   * How long one call keeps retrying while another connection holds the lock (default 2 s). The
   * retries run on timers: SQLite's own busy wait, which blocks the thread, stays off.
   */
  waitMs?: number;
}

/**
 * `SQLITE_BUSY*` and `SQLITE_LOCKED*`: another connection holds the lock, try again later. The
 * driver's codes are read here, in the adapter, and nowhere else: retrying.ts turns a lock that
 * outlasts its wait into `StorageBusy` and every other failure into `StorageUnavailable`.
 */
export function isSqliteBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

export function openSqliteStores(file: string, o: SqliteOptions = {}): Stores {
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true });
  const db = new Database(file, { timeout: 0 });
  try {
    // the one-time set-up may wait for a lock: nothing else runs yet
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    migrate(db);
    db.pragma('busy_timeout = 0');
  } catch (err) {
    db.close();
    throw err;
  }
  const begin = db.prepare('BEGIN IMMEDIATE');
  const rollback = db.prepare('ROLLBACK');
  return retryingStores(
    {
      credentials: new SqliteCredentialStore(db),
      sessions: new SqliteSessionStore(db),
      usage: new SqliteUsageStore(db),
      probeWrite: () => {
        begin.run();
        rollback.run();
      },
      close: () => {
        if (db.open) db.close();
      },
    },
    { isBusy: isSqliteBusy, ...(o.waitMs !== undefined && { waitMs: o.waitMs }) },
  );
}

export function migrate(db: Db): number {
  db.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)',
  );
  const done = new Set(db.prepare('SELECT version FROM schema_migrations').pluck().all() as number[]);
  let applied = 0;
  for (const m of MIGRATIONS) {
    if (done.has(m.version)) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(
        m.version,
        m.name,
        Date.now(),
      );
    }).immediate();
    applied++;
  }
  return applied;
}

interface CredentialRow {
  id: string;
  name: string;
  secret_hash: string;
  permissions: string;
  created_at: number;
  expires_at: number | null;
  revoked_at: number | null;
  max_sessions: number;
  max_session_duration_ms: number;
  max_text_length: number;
  requests_per_second: number;
}

const toCredential = (r: CredentialRow): CredentialRecord => ({
  id: r.id,
  name: r.name,
  secretHash: r.secret_hash,
  permissions: JSON.parse(r.permissions) as Permission[],
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  revokedAt: r.revoked_at,
  limits: {
    maxSessions: r.max_sessions,
    maxSessionDurationMs: r.max_session_duration_ms,
    maxTextLength: r.max_text_length,
    requestsPerSecond: r.requests_per_second,
  },
});

class SqliteCredentialStore implements CredentialStoreSync {
  readonly #db: Db;
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement;
  readonly #list: Database.Statement;
  readonly #revoke: Database.Statement;
  #localWrites = 0;

  constructor(db: Db) {
    this.#db = db;
    this.#insert =
      db.prepare(`INSERT INTO credentials VALUES (@id, @name, @secret_hash, @permissions, @created_at,
      @expires_at, @revoked_at, @max_sessions, @max_session_duration_ms, @max_text_length, @requests_per_second)
      ON CONFLICT(id) DO NOTHING`);
    this.#get = db.prepare('SELECT * FROM credentials WHERE id = ?');
    this.#list = db.prepare('SELECT * FROM credentials ORDER BY created_at, id');
    this.#revoke = db.prepare('UPDATE credentials SET revoked_at = COALESCE(revoked_at, ?) WHERE id = ?');
  }

  insert(c: CredentialRecord): CredentialInsertResult {
    const { changes } = this.#insert.run({
      id: c.id,
      name: c.name,
      secret_hash: c.secretHash,
      permissions: JSON.stringify(c.permissions),
      created_at: c.createdAt,
      expires_at: c.expiresAt,
      revoked_at: c.revokedAt,
      max_sessions: c.limits.maxSessions,
      max_session_duration_ms: c.limits.maxSessionDurationMs,
      max_text_length: c.limits.maxTextLength,
      requests_per_second: c.limits.requestsPerSecond,
    });
    if (changes === 0) return { ok: false, reason: 'exists' };
    this.#localWrites++;
    return { ok: true };
  }
  get(id: string): CredentialRecord | undefined {
    const r = this.#get.get(id) as CredentialRow | undefined;
    return r && toCredential(r);
  }
  list(): CredentialRecord[] {
    return (this.#list.all() as CredentialRow[]).map(toCredential);
  }
  revoke(id: string, at: number): boolean {
    const changed = this.#revoke.run(at, id).changes > 0;
    if (changed) this.#localWrites++;
    return changed;
  }
  changeVersion(): number {
    // data_version changes when another connection commits; local writes are counted here.
    const external = this.#db.pragma('data_version', { simple: true }) as number;
    return external * 1_000_000 + this.#localWrites;
  }
}

interface SessionRow {
  id: string;
  credential_id: string;
  avatar_id: string;
  voice_id: string;
  voice_speed: number;
  viewer_token: string;
  status: 'active' | 'ended';
  created_at: number;
  expires_at: number;
  ended_at: number | null;
  end_reason: string | null;
}

const toSession = (r: SessionRow): SessionRecord => ({
  id: r.id,
  credentialId: r.credential_id,
  avatarId: r.avatar_id,
  voiceId: r.voice_id,
  voiceSpeed: r.voice_speed,
  viewerToken: r.viewer_token,
  status: r.status,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  endedAt: r.ended_at,
  endReason: r.end_reason as EndReason | null,
});

class SqliteSessionStore implements SessionStoreSync {
  readonly #insert: Database.Statement;
  readonly #get: Database.Statement;
  readonly #end: Database.Statement;
  readonly #active: Database.Statement;
  readonly #endAll: Database.Statement;
  readonly #purge: Database.Statement;

  constructor(db: Db) {
    // one statement, so the count and the insert are atomic across connections
    this.#insert =
      db.prepare(`INSERT INTO sessions SELECT @id, @credential_id, @avatar_id, @voice_id, @voice_speed,
      @viewer_token, @status, @created_at, @expires_at, @ended_at, @end_reason
      WHERE (SELECT count(*) FROM sessions WHERE credential_id = @credential_id AND status = 'active') <
        COALESCE((SELECT max_sessions FROM credentials WHERE id = @credential_id), 9223372036854775807)`);
    this.#get = db.prepare('SELECT * FROM sessions WHERE id = ?');
    this.#end = db.prepare(
      "UPDATE sessions SET status = 'ended', end_reason = ?, ended_at = ? WHERE id = ? AND status = 'active'",
    );
    this.#active = db.prepare("SELECT * FROM sessions WHERE status = 'active' ORDER BY created_at");
    this.#endAll = db.prepare(
      "UPDATE sessions SET status = 'ended', end_reason = ?, ended_at = ? WHERE status = 'active'",
    );
    this.#purge = db.prepare("DELETE FROM sessions WHERE status = 'ended' AND ended_at < ?");
  }

  insert(s: SessionRecord): SessionInsertResult {
    const { changes } = this.#insert.run({
      id: s.id,
      credential_id: s.credentialId,
      avatar_id: s.avatarId,
      voice_id: s.voiceId,
      voice_speed: s.voiceSpeed,
      viewer_token: s.viewerToken,
      status: s.status,
      created_at: s.createdAt,
      expires_at: s.expiresAt,
      ended_at: s.endedAt,
      end_reason: s.endReason,
    });
    return changes === 0 ? { ok: false, reason: 'limit' } : { ok: true };
  }
  get(id: string): SessionRecord | undefined {
    const r = this.#get.get(id) as SessionRow | undefined;
    return r && toSession(r);
  }
  markEnded(id: string, reason: EndReason, at: number): boolean {
    return this.#end.run(reason, at, id).changes > 0;
  }
  listActive(): SessionRecord[] {
    return (this.#active.all() as SessionRow[]).map(toSession);
  }
  endAllActive(reason: EndReason, at: number): number {
    return this.#endAll.run(reason, at).changes;
  }
  purgeEndedBefore(before: number): number {
    return this.#purge.run(before).changes;
  }
}

class SqliteUsageStore implements UsageStoreSync {
  readonly #add: Database.Statement;
  readonly #get: Database.Statement;
  readonly #all: Database.Statement;

  constructor(db: Db) {
    this.#add =
      db.prepare(`INSERT INTO usage (credential_id, session_seconds, characters_spoken, audio_seconds, sessions_created)
      VALUES (@id, @ss, @cs, @as, @sc)
      ON CONFLICT(credential_id) DO UPDATE SET
        session_seconds = session_seconds + excluded.session_seconds,
        characters_spoken = characters_spoken + excluded.characters_spoken,
        audio_seconds = audio_seconds + excluded.audio_seconds,
        sessions_created = sessions_created + excluded.sessions_created`);
    this.#get = db.prepare('SELECT * FROM usage WHERE credential_id = ?');
    this.#all = db.prepare('SELECT * FROM usage ORDER BY credential_id');
  }

  add(credentialId: string, d: Partial<Usage>): void {
    this.#add.run({
      id: credentialId,
      ss: d.sessionSeconds ?? 0,
      cs: d.charactersSpoken ?? 0,
      as: d.audioSeconds ?? 0,
      sc: d.sessionsCreated ?? 0,
    });
  }
  get(credentialId: string): Usage {
    const r = this.#get.get(credentialId) as UsageRow | undefined;
    return r ? toUsage(r) : { sessionSeconds: 0, charactersSpoken: 0, audioSeconds: 0, sessionsCreated: 0 };
  }
  all(): Array<{ credentialId: string } & Usage> {
    return (this.#all.all() as UsageRow[]).map((r) => ({ credentialId: r.credential_id, ...toUsage(r) }));
  }
}

interface UsageRow {
  credential_id: string;
  session_seconds: number;
  characters_spoken: number;
  audio_seconds: number;
  sessions_created: number;
}

const toUsage = (r: UsageRow): Usage => ({
  sessionSeconds: r.session_seconds,
  charactersSpoken: r.characters_spoken,
  audioSeconds: r.audio_seconds,
  sessionsCreated: r.sessions_created,
});
