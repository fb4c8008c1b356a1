/**
 * One contract, three adapters: the memory stores (tests), SQLite (the embedded default) and Redis
 * (cluster mode, a real redis-server).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { openRedisStores } from '../cluster/redis-stores.js';
import { startRedis, type TestRedis } from '../testing/redis-server.js';
import { StorageError, StorageUnavailable } from './errors.js';
import { createMemoryStores } from './memory.js';
import type { CredentialRecord, SessionRecord, Stores } from './ports.js';
import { openSqliteStores } from './sqlite/index.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempFile(): string {
  const d = mkdtempSync(join(tmpdir(), 'mp-store-'));
  dirs.push(d);
  return join(d, 'db.sqlite');
}

const credential = (id: string, over: Partial<CredentialRecord> = {}): CredentialRecord => ({
  id,
  name: `name-${id}`,
  secretHash: 'ab'.repeat(32),
  permissions: ['session:create'],
  createdAt: 1000,
  expiresAt: null,
  revokedAt: null,
  limits: { maxSessions: 10, maxSessionDurationMs: 3_600_000, maxTextLength: 5000, requestsPerSecond: 20 },
  ...over,
});
const session = (id: string, over: Partial<SessionRecord> = {}): SessionRecord => ({
  id,
  credentialId: 'c1',
  avatarId: 'amara',
  voiceId: 'en-us-female',
  voiceSpeed: 1.25,
  viewerToken: `vt-${id}`,
  status: 'active',
  createdAt: 2000,
  expiresAt: 9000,
  endedAt: null,
  endReason: null,
  ...over,
});

let redis: TestRedis | undefined;
beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  await redis?.close();
});
/** Each test gets an empty Redis. */
async function emptyRedisStores(): Promise<Stores> {
  const stores = await openRedisStores(redis!.url);
  const { Redis } = await import('ioredis');
  const admin = new Redis(redis!.url);
  await admin.flushall();
  admin.disconnect();
  return stores;
}

const adapters: Array<[string, () => Stores | Promise<Stores>]> = [
  ['memory', () => createMemoryStores()],
  ['sqlite', () => openSqliteStores(tempFile())],
  ['redis', emptyRedisStores],
];

for (const [name, open] of adapters) {
  describe(`${name} stores`, () => {
    it('credentials: insert, get, list, revoke once', async () => {
      const s = await open();
      await s.credentials.insert(
        credential('c1', { permissions: ['session:create', 'admin'], expiresAt: 5000 }),
      );
      await s.credentials.insert(credential('c2', { createdAt: 1001 }));
      expect(await s.credentials.get('c1')).toEqual(
        credential('c1', { permissions: ['session:create', 'admin'], expiresAt: 5000 }),
      );
      expect(await s.credentials.get('nope')).toBeUndefined();
      expect((await s.credentials.list()).map((c) => c.id)).toEqual(['c1', 'c2']);
      const v0 = await s.credentials.changeVersion();
      expect(await s.credentials.revoke('c1', 7000)).toBe(true);
      expect(await s.credentials.changeVersion()).not.toBe(v0);
      expect(await s.credentials.revoke('c1', 8000)).toBe(true);
      expect((await s.credentials.get('c1'))?.revokedAt).toBe(7000);
      expect(await s.credentials.revoke('nope', 1)).toBe(false);
      await s.close();
    });

    it('credentials: a second insert of an id answers exists and changes nothing', async () => {
      const s = await open();
      expect(await s.credentials.insert(credential('c1'))).toEqual({ ok: true });
      const v = await s.credentials.changeVersion();
      expect(await s.credentials.insert(credential('c1', { name: 'other' }))).toEqual({
        ok: false,
        reason: 'exists',
      });
      expect((await s.credentials.get('c1'))?.name).toBe('name-c1');
      expect(await s.credentials.changeVersion()).toBe(v);
      await s.close();
    });

    it("sessions: an insert over the credential's maxSessions answers limit; an end frees a slot", async () => {
      const s = await open();
      await s.credentials.insert(
        credential('c1', { limits: { ...credential('c1').limits, maxSessions: 2 } }),
      );
      expect(await s.sessions.insert(session('s1'))).toEqual({ ok: true });
      expect(await s.sessions.insert(session('s2'))).toEqual({ ok: true });
      expect(await s.sessions.insert(session('s3'))).toEqual({ ok: false, reason: 'limit' });
      expect(await s.sessions.get('s3')).toBeUndefined(); // refused: nothing stored
      expect(await s.sessions.markEnded('s1', 'ended_by_client', 3000)).toBe(true);
      expect(await s.sessions.insert(session('s3'))).toEqual({ ok: true });
      // another credential's sessions do not count; one the store does not know has no limit
      expect(await s.sessions.insert(session('x1', { credentialId: 'unknown' }))).toEqual({ ok: true });
      await s.close();
    });

    it('a store that fails rejects with StorageUnavailable (a StorageError), whatever the driver threw', async () => {
      const s = await open();
      await s.close();
      const failed: unknown = await s.sessions.get('s1').then(
        () => 'resolved',
        (err: unknown) => err,
      );
      expect(failed).toBeInstanceOf(StorageUnavailable);
      expect(failed).toBeInstanceOf(StorageError);
      expect(failed).toMatchObject({ code: StorageUnavailable.code, name: 'StorageUnavailable' });
      await expect(s.credentials.insert(credential('c9'))).rejects.toBeInstanceOf(StorageUnavailable);
    });

    it('sessions: insert, markEnded once, listActive, endAllActive, purge', async () => {
      const s = await open();
      await s.sessions.insert(session('s1'));
      await s.sessions.insert(session('s2'));
      await s.sessions.insert(session('s3'));
      expect(await s.sessions.get('s1')).toEqual(session('s1'));
      expect(await s.sessions.markEnded('s1', 'ended_by_client', 3000)).toBe(true);
      expect(await s.sessions.markEnded('s1', 'idle_timeout', 4000)).toBe(false);
      expect(await s.sessions.get('s1')).toMatchObject({
        status: 'ended',
        endReason: 'ended_by_client',
        endedAt: 3000,
      });
      expect((await s.sessions.listActive()).map((r) => r.id)).toEqual(['s2', 's3']);
      expect(await s.sessions.endAllActive('server_restart', 5000)).toBe(2);
      expect(await s.sessions.listActive()).toEqual([]);
      expect(await s.sessions.purgeEndedBefore(4000)).toBe(1);
      expect(await s.sessions.get('s1')).toBeUndefined();
      expect((await s.sessions.get('s2'))?.endReason).toBe('server_restart');
      await s.close();
    });

    it('usage adds up per credential', async () => {
      const s = await open();
      await s.usage.add('c1', { sessionsCreated: 1, charactersSpoken: 10 });
      await s.usage.add('c1', { sessionSeconds: 2.5, audioSeconds: 1.5, charactersSpoken: 5 });
      await s.usage.add('c2', { sessionsCreated: 2 });
      expect(await s.usage.get('c1')).toEqual({
        sessionsCreated: 1,
        charactersSpoken: 15,
        sessionSeconds: 2.5,
        audioSeconds: 1.5,
      });
      expect(await s.usage.get('none')).toEqual({
        sessionsCreated: 0,
        charactersSpoken: 0,
        sessionSeconds: 0,
        audioSeconds: 0,
      });
      expect((await s.usage.all()).map((u) => u.credentialId)).toEqual(['c1', 'c2']);
      await s.close();
    });
  });
}

describe('sqlite persistence', async () => {
  it('keeps credentials, usage and ended sessions across reopen', async () => {
    const file = tempFile();
    const a = openSqliteStores(file);
    await a.credentials.insert(credential('c1'));
    await a.usage.add('c1', { charactersSpoken: 42 });
    await a.sessions.insert(session('s1'));
    await a.sessions.markEnded('s1', 'idle_timeout', 3000);
    await a.close();
    const b = openSqliteStores(file);
    expect((await b.credentials.get('c1'))?.name).toBe('name-c1');
    expect((await b.usage.get('c1')).charactersSpoken).toBe(42);
    expect((await b.sessions.get('s1'))?.endReason).toBe('idle_timeout');
    await b.close();
  });

  it('changeVersion moves when another connection revokes (the CLI case)', async () => {
    const file = tempFile();
    const server = openSqliteStores(file);
    await server.credentials.insert(credential('c1'));
    const v = await server.credentials.changeVersion();
    const cli = openSqliteStores(file);
    await cli.credentials.revoke('c1', 5000);
    await cli.close();
    expect(await server.credentials.changeVersion()).not.toBe(v);
    expect((await server.credentials.get('c1'))?.revokedAt).toBe(5000);
    await server.close();
  });
});
