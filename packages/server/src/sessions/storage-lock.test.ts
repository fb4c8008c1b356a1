/**
 * The reproduction, against a real database locked by a second process: while the lock
 * is held the control plane keeps answering, keep-alives keep their sessions, a session that idles
 * out ends in memory (410 with its reason) without taking the process down, creates answer 503 and
 * leave nothing behind, `/readyz` says storage is locked; after the lock the end is stored.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { FakeEngineHost } from '@mouthpiece/engine/testing';
import { createCredential } from '../auth/credential-records.js';
import { startServer } from '../server.js';
import { openSqliteStores } from '../storage/sqlite/index.js';
import { holdSqliteLock } from '../testing/sqlite-lock.js';
import { createTestApp } from '../testing/test-app.js';
import { testConfig } from '../testing/test-config.js';
import { sessionCredentialInput } from '../testing/credential-input.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'mp-lock-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return d;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`timed out waiting for ${what}`);
}

function watchRejections(): unknown[] {
  const seen: unknown[] = [];
  const on = (r: unknown) => seen.push(r);
  process.on('unhandledRejection', on);
  cleanups.push(() => void process.off('unhandledRejection', on));
  return seen;
}

it('a lock held by another process: answers go on, keep-alives keep sessions, idle ends and creates fail cleanly', async () => {
  const file = join(tempDir(), 'mouthpiece.db');
  const rejections = watchRejections();
  const t = await createTestApp({
    config: { idleTimeoutMs: 2000 },
    limits: { maxSessions: 3 },
    stores: openSqliteStores(file, { waitMs: 300 }),
  });
  cleanups.push(() => t.close());
  const idle = await t.createSession();
  const kept = await t.createSession();
  const held = await holdSqliteLock(file);
  cleanups.push(() => held.release());

  // a create waits for the lock on timers: health answers meanwhile, then the create is a 503
  const order: string[] = [];
  const creating = t.app
    .inject({
      method: 'POST',
      url: '/v1/avatar-session',
      headers: { authorization: `KS ${t.secret}` },
      payload: { visualConfig: { avatarId: 'amara' } },
    })
    .then((r) => (order.push('create'), r));
  const health = await t.app
    .inject({ method: 'GET', url: '/healthz' })
    .then((r) => (order.push('health'), r));
  expect(health.statusCode).toBe(200);
  const created = await creating;
  expect(order).toEqual(['health', 'create']);
  expect(created.statusCode).toBe(503);
  expect(created.json()).toMatchObject({ code: 'STORAGE_UNAVAILABLE' });
  expect(created.headers['retry-after']).toBe('2');
  expect(t.engine.sessionIds().sort()).toEqual([idle.sessionId, kept.sessionId].sort()); // none left behind

  t.clock.advance(1000);
  expect((await t.post(`/v1/avatar-session/${kept.sessionId}/keep-alive`, kept.token)).statusCode).toBe(200);
  t.clock.advance(1000); // `idle` idles out; its end cannot be written
  const ended = await t.post(`/v1/avatar-session/${idle.sessionId}/keep-alive`, idle.token);
  expect(ended.statusCode).toBe(410);
  expect(ended.json()).toMatchObject({ reason: 'idle_timeout' });
  expect((await t.post(`/v1/avatar-session/${kept.sessionId}/keep-alive`, kept.token)).statusCode).toBe(200);

  const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
  expect(ready.statusCode).toBe(503);
  expect(ready.json()).toMatchObject({
    code: 'NOT_READY',
    checks: { storage: expect.stringMatching(/^locked/) },
  });

  await held.release();
  t.clock.advance(1000); // the end write's first retry
  await until(
    async () => (await t.stores.sessions.get(idle.sessionId))?.status === 'ended',
    'the stored end',
  );
  expect(await t.stores.sessions.get(idle.sessionId)).toMatchObject({ endReason: 'idle_timeout' });
  expect((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
  // the failed create holds no slot: `kept` and two new ones make the credential's three
  await expect(t.createSession()).resolves.toMatchObject({ sessionId: expect.any(String) });
  await expect(t.createSession()).resolves.toMatchObject({ sessionId: expect.any(String) });
  expect(rejections).toEqual([]);
});

it('the real server, idle timeout 2 s, database locked for 4 s: the process lives and the end is stored after', async () => {
  const dataDir = tempDir();
  const rejections = watchRejections();
  const setup = openSqliteStores(join(dataDir, 'mouthpiece.db'));
  const { secret } = await createCredential(setup, sessionCredentialInput('lock'), Date.now());
  await setup.close();
  const server = await startServer(
    testConfig({ dataDir, port: 0, host: '127.0.0.1', idleTimeoutMs: 2000, logLevel: 'silent' }),
    { engine: new FakeEngineHost() },
  );
  cleanups.push(() => server.close());
  const res = await fetch(`${server.url}/v1/avatar-session`, {
    method: 'POST',
    headers: { authorization: `KS ${secret}`, 'content-type': 'application/json' },
    body: JSON.stringify({ visualConfig: { avatarId: 'amara' } }),
  });
  const { sessionId, token } = (await res.json()) as { sessionId: string; token: string };
  const held = await holdSqliteLock(join(dataDir, 'mouthpiece.db'));
  cleanups.push(() => held.release());
  await sleep(3000); // past the idle timeout, lock still held
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
  const gone = await fetch(`${server.url}/v1/avatar-session/${sessionId}/keep-alive`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
  });
  expect(gone.status).toBe(410);
  expect(await gone.json()).toMatchObject({ reason: 'idle_timeout' });
  await sleep(1000);
  await held.release();
  await until(
    async () => (await server.app.ctx.stores.sessions.get(sessionId))?.endReason === 'idle_timeout',
    'the stored end',
  );
  expect(rejections).toEqual([]);
});
