/** Numbered schema migrations; each runs once, in order, inside a transaction. */
export const MIGRATIONS: ReadonlyArray<{ version: number; name: string; sql: string }> = [
  {
    version: 1,
    name: 'initial',
    sql: `
      CREATE TABLE credentials (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        secret_hash TEXT NOT NULL,
        permissions TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        expires_at INTEGER,
        revoked_at INTEGER,
        max_sessions INTEGER NOT NULL,
        max_session_duration_ms INTEGER NOT NULL,
        max_text_length INTEGER NOT NULL,
        requests_per_second REAL NOT NULL
      );
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        credential_id TEXT NOT NULL,
        avatar_id TEXT NOT NULL,
        voice_id TEXT NOT NULL,
        voice_speed REAL NOT NULL,
        viewer_token TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('active', 'ended')),
        created_at INTEGER NOT NULL,
        expires_at INTEGER NOT NULL,
        ended_at INTEGER,
        end_reason TEXT
      );
      CREATE INDEX sessions_status ON sessions (status);
      CREATE INDEX sessions_ended_at ON sessions (ended_at) WHERE status = 'ended';
      CREATE TABLE usage (
        credential_id TEXT PRIMARY KEY,
        session_seconds REAL NOT NULL DEFAULT 0,
        characters_spoken INTEGER NOT NULL DEFAULT 0,
        audio_seconds REAL NOT NULL DEFAULT 0,
        sessions_created INTEGER NOT NULL DEFAULT 0
      );
    `,
  },
];
