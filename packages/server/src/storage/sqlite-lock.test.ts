/**
 * SQLite locked by another process (a real second process holding `BEGIN EXCLUSIVE`): calls wait
 * on timers, never on the thread, so the event loop keeps running; reads go on (WAL); a write
 * lands once the lock goes, or fails with StorageBusy after its wait and changes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { holdSqliteLock, type HeldLock } from '../testing/sqlite-lock.js';
import type { SessionRecord } from './ports.js';
import { StorageBusy } from './errors.js';
import { openSqliteStores } from './sqlite/index.js';

const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDb(): string {
  const d = mkdtempSync(join(tmpdir(), 'mp-lock-'));
  cleanups.push(() => rmSync(d, { recursive: true, force: true }));
  return join(d, 'mouthpiece.db');
}

async function lock(file: string): Promise<HeldLock> {
  const held = await holdSqliteLock(file);
  cleanups.push(() => held.release());
  return held;
}

const session = (id: string): SessionRecord => ({
  id,
  credentialId: 'c1',
  avatarId: 'amara',
  voiceId: 'en-us-female',
  voiceSpeed: 1,
  viewerToken: `vt-${id}`,
  status: 'active',
  createdAt: 1,
  expiresAt: 2,
  endedAt: null,
  endReason: null,
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

it('a write under another process lock waits without blocking the thread and lands after release', async () => {
  const file = tempDb();
  const stores = openSqliteStores(file, { waitMs: 20_000 });
  cleanups.push(() => stores.close());
  await stores.sessions.insert(session('before'));
  const held = await lock(file);

  let settled = false;
  const write = stores.sessions.insert(session('during')).finally(() => (settled = true));
  let ticks = 0;
  const timer = setInterval(() => ticks++, 5);
  await sleep(150);
  clearInterval(timer);
  expect(settled).toBe(false); // still waiting for the lock…
  expect(ticks).toBeGreaterThan(0); // …while timers run: the thread is not held
  expect(await stores.sessions.get('before')).toMatchObject({ id: 'before' }); // reads go on (WAL)
  expect(await stores.check()).toMatch(/^locked by another connection/);

  await held.release();
  await write;
  expect(await stores.sessions.get('during')).toMatchObject({ id: 'during', status: 'active' });
  expect(await stores.check()).toBe('ok');
});

it('a write that outwaits its limit fails with StorageBusy and changes nothing', async () => {
  const file = tempDb();
  const stores = openSqliteStores(file, { waitMs: 100 });
  cleanups.push(() => stores.close());
  const held = await lock(file);
  await expect(stores.sessions.insert(session('s1'))).rejects.toBeInstanceOf(StorageBusy);
  await held.release();
  expect(await stores.sessions.get('s1')).toBeUndefined();
});
