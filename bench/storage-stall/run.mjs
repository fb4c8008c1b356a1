// Storage stall: another process holds the SQLite write lock (BEGIN EXCLUSIVE) for N seconds while
// clients keep sessions alive, let others idle out and keep creating. Prints /healthz latency with
// and without the lock (ratio), keep-alives answered, creates answered 503 STORAGE_UNAVAILABLE,
// what /readyz said, and whether the idled-out sessions' ends were stored after the lock.
//   npm run bench:storage-stall [-- --seconds 10] [--smoke]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { FakeEngineHost } from '../../packages/engine/dist/testing/index.js';
import { createCredential } from '../../packages/server/dist/auth/credential-records.js';
import { loadConfig } from '../../packages/server/dist/config.js';
import { startServer } from '../../packages/server/dist/server.js';
import { openSqliteStores } from '../../packages/server/dist/storage/sqlite/index.js';
import { holdSqliteLock } from '../../packages/server/dist/testing/sqlite-lock.js';

const { values } = parseArgs({
  options: { seconds: { type: 'string', default: '10' }, smoke: { type: 'boolean', default: false } },
});
const seconds = values.smoke ? 2.5 : Number(values.seconds);
const dataDir = mkdtempSync(join(tmpdir(), 'mp-stall-'));
const file = join(dataDir, 'mouthpiece.db');
const setup = openSqliteStores(file);
const limits = {
  maxSessions: 1000,
  maxSessionDurationMs: 600_000,
  maxTextLength: 1000,
  requestsPerSecond: 0,
};
const { secret } = await createCredential(
  setup,
  { name: 'bench', permissions: ['session:create'], ...limits, expiresInMs: null },
  Date.now(),
);
await setup.close();
const config = loadConfig({
  MOUTHPIECE_TURN: 'off',
  MOUTHPIECE_LOG_LEVEL: 'silent',
  MOUTHPIECE_DATA_DIR: dataDir,
  PORT: '0',
  HOST: '127.0.0.1',
  MOUTHPIECE_SESSION_IDLE_TIMEOUT_MS: '2000',
  MOUTHPIECE_MAX_SESSIONS: '1000',
});
const server = await startServer(config, { engine: new FakeEngineHost() });
const api = (path, init = {}) => fetch(server.url + path, init);
const create = () =>
  api('/v1/avatar-session', {
    method: 'POST',
    headers: { authorization: `KS ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ visualConfig: { avatarId: 'amara' } }),
  }).then((r) => r.json());
const keepAlive = (s) =>
  api(`/v1/avatar-session/${s.sessionId}/keep-alive`, {
    method: 'POST',
    headers: { authorization: `Bearer ${s.token}` },
  }).then((r) => r.status);
const healthz = async () => {
  const start = performance.now();
  await (await api('/healthz')).text();
  return performance.now() - start;
};
const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(p * xs.length))];

// the same loop with and without the lock: keep 5 sessions alive, let 5 idle out, keep creating
async function phase(ms, kept) {
  const latencies = [];
  const statuses = [];
  const creates = [];
  const end = Date.now() + ms;
  while (Date.now() < end) {
    creates.push(create().catch(() => ({})));
    for (const s of kept) statuses.push(await keepAlive(s));
    latencies.push(await healthz());
    await new Promise((r) => setTimeout(r, 200));
  }
  return { latencies, statuses, creates };
}

const sessions = [];
for (let i = 0; i < 10; i++) sessions.push(await create());
const kept = sessions.slice(0, 5);
const idle = sessions.slice(5);
const before = await phase(1500, kept);
const lock = await holdSqliteLock(file);
const during = await phase(seconds * 1000, kept);
const ready = await (await api('/readyz')).json();
await lock.release();
const answered = await Promise.all(during.creates);
await new Promise((r) => setTimeout(r, 2500)); // the end writer's retry after the lock
const stored = await Promise.all(idle.map((s) => server.app.ctx.stores.sessions.get(s.sessionId)));
await server.close();
rmSync(dataDir, { recursive: true, force: true });

const result = {
  bench: 'storage-stall',
  lockHeldS: seconds,
  healthzMs: {
    unlocked: { p50: +pct(before.latencies, 0.5).toFixed(2), max: +Math.max(...before.latencies).toFixed(2) },
    locked: { p50: +pct(during.latencies, 0.5).toFixed(2), max: +Math.max(...during.latencies).toFixed(2) },
  },
  healthzP50Ratio: +(pct(during.latencies, 0.5) / pct(before.latencies, 0.5)).toFixed(2),
  keepAlivesOk: `${during.statuses.filter((s) => s === 200).length}/${during.statuses.length}`,
  createsDuringLock: answered.length,
  createsAnswered503: answered.filter((a) => a.code === 'STORAGE_UNAVAILABLE').length,
  createsCreated: answered.filter((a) => a.sessionId).length,
  readyzDuringLock: ready.checks?.storage,
  idledOutStoredAfter: `${stored.filter((r) => r?.endReason === 'idle_timeout').length}/${idle.length}`,
};
console.error(
  `lock held ${seconds} s: /healthz p50 ${result.healthzMs.locked.p50} ms (unlocked ${result.healthzMs.unlocked.p50} ms, ratio ${result.healthzP50Ratio}), ` +
    `keep-alives ${result.keepAlivesOk}, creates ${result.createsAnswered503} × 503 / ${result.createsCreated} created after the lock, ` +
    `idle ends stored ${result.idledOutStoredAfter}`,
);
console.log(JSON.stringify(result));
