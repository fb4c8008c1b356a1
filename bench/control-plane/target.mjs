// The servers under test, in their own process: our app (SQLite stores in a temp dir, the fake
// engine, a credential with no rate limit) and a bare Fastify route, on loopback ports.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { buildApp } from '../../packages/server/dist/app.js';
import { createCredential } from '../../packages/server/dist/auth/credential-records.js';
import { systemClock } from '../../packages/server/dist/clock.js';
import { loadConfig } from '../../packages/server/dist/config.js';
import { openSqliteStores } from '../../packages/server/dist/storage/sqlite/index.js';
import { FakeEngineHost } from '../../packages/engine/dist/testing/index.js';

const dataDir = mkdtempSync(join(tmpdir(), 'mp-bench-'));
const config = loadConfig({
  MOUTHPIECE_TURN: 'off',
  MOUTHPIECE_LOG_LEVEL: 'warn',
  MOUTHPIECE_MAX_SESSIONS: '1000000',
  MOUTHPIECE_DATA_DIR: dataDir,
});
const stores = openSqliteStores(join(dataDir, 'mouthpiece.db'));
const { secret } = await createCredential(
  stores,
  {
    name: 'bench',
    permissions: ['session:create'],
    maxSessions: 1_000_000,
    maxSessionDurationMs: 3_600_000,
    maxTextLength: 5000,
    requestsPerSecond: 0,
    expiresInMs: null,
  },
  Date.now(),
);
const app = await buildApp({
  config,
  stores,
  engine: new FakeEngineHost(),
  clock: systemClock,
  jwtSecret: 'b'.repeat(40),
  turn: { mode: 'off', host: 'localhost', ports: [], secret: '' },
});
await app.listen({ port: 0, host: '127.0.0.1' });
const bare = Fastify({ logger: false });
bare.post('/keep-alive', async () => ({ success: true }));
await bare.listen({ port: 0, host: '127.0.0.1' });
const created = await app.inject({
  method: 'POST',
  url: '/v1/avatar-session',
  headers: { authorization: `KS ${secret}` },
  payload: { visualConfig: { avatarId: 'amara' } },
});
const { sessionId, token } = created.json();
process.stdout.write(
  JSON.stringify({
    ours: app.server.address().port,
    bare: bare.server.address().port,
    sessionId,
    token,
    secret,
  }) + '\n',
);
process.on('disconnect', () => process.exit(0));
process.on('SIGTERM', () => process.exit(0));
