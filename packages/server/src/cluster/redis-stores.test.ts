import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import type { CredentialRecord, SessionRecord } from '../storage/ports.js';
import { startRedis, type TestRedis } from '../testing/redis-server.js';
import { connectRedis } from './redis.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { redisStores, type RedisStores } from './redis-stores.js';

const log = pino({ level: 'silent' });
const credential = (id: string, maxSessions: number): CredentialRecord => ({
  id,
  name: id,
  secretHash: 'cd'.repeat(32),
  permissions: ['session:create'],
  createdAt: 1000,
  expiresAt: null,
  revokedAt: null,
  limits: { maxSessions, maxSessionDurationMs: 3_600_000, maxTextLength: 5000, requestsPerSecond: 5 },
});
const session = (id: string, credentialId: string): SessionRecord => ({
  id,
  credentialId,
  avatarId: 'amara',
  voiceId: 'en-us-female',
  voiceSpeed: 1,
  viewerToken: `vt-${id}`,
  status: 'active',
  createdAt: 2000,
  expiresAt: 9000,
  endedAt: null,
  endReason: null,
});

describe('redis stores across nodes (real redis-server)', () => {
  let redis: TestRedis;
  let a: RedisStores;
  let b: RedisStores;
  let clients: Redis[];
  beforeAll(async () => {
    redis = await startRedis();
    clients = [
      await connectRedis({ url: redis.url, log, name: 'a' }),
      await connectRedis({ url: redis.url, log, name: 'b' }),
    ];
    a = redisStores(clients[0]!, 'node-a');
    b = redisStores(clients[1]!, 'node-b');
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
    await redis?.close();
  });

  it("a credential's session limit counts the sessions of every node, atomically", async () => {
    await a.credentials.insert(credential('lim', 3));
    await a.sessions.insert(session('l1', 'lim'));
    await b.sessions.insert(session('l2', 'lim'));
    // two nodes race for the last slot: exactly one wins
    const race = await Promise.all([
      a.sessions.insert(session('l3', 'lim')),
      b.sessions.insert(session('l4', 'lim')),
    ]);
    expect(race.filter((r) => r.ok)).toHaveLength(1);
    expect(race.find((r) => !r.ok)).toEqual({ ok: false, reason: 'limit' });
    expect(await b.sessions.markEnded('l1', 'ended_by_client', 3000)).toBe(true); // any node may end it
    expect(await b.sessions.insert(session('l5', 'lim'))).toEqual({ ok: true }); // the slot is free again
  });

  it("a node's restart ends only its own sessions; a dead node's end node_failed", async () => {
    await a.credentials.insert(credential('own', 10));
    await a.sessions.insert(session('a1', 'own'));
    await b.sessions.insert(session('b1', 'own'));
    await b.sessions.insert(session('b2', 'own'));
    expect(await a.sessions.ownerOf('b1')).toEqual({ nodeId: 'node-b', status: 'active' });
    expect(await a.sessions.ownerOf('nope')).toBeUndefined();
    expect((await a.sessions.listActive()).map((s) => s.id)).toContain('a1');
    expect((await a.sessions.listActive()).map((s) => s.id)).not.toContain('b1');
    expect(await a.sessions.endAllActive('server_restart', 4000)).toBeGreaterThan(0);
    expect((await a.sessions.get('a1'))?.endReason).toBe('server_restart');
    expect((await b.sessions.get('b1'))?.status).toBe('active');
    const activeOnB = (await b.sessions.listActive()).length; // l2, l5, b1, b2 (+ l4 if b won the race)
    expect(activeOnB).toBeGreaterThanOrEqual(4);
    expect(await a.sessions.endAllOfNode('node-b', 'node_failed', 5000)).toBe(activeOnB);
    expect(await a.sessions.get('b2')).toMatchObject({
      status: 'ended',
      endReason: 'node_failed',
      endedAt: 5000,
    });
    expect(await b.sessions.listActive()).toEqual([]);
  });

  it('credentials, revocations, usage and session records survive a Redis restart (AOF)', async () => {
    await a.credentials.insert(credential('keep', 2));
    await a.credentials.revoke('keep', 6000);
    await a.usage.add('keep', { charactersSpoken: 42 });
    await redis.restart();
    // the clients reconnect on their own
    for (let i = 0; i < 100 && (await b.credentials.get('keep').catch(() => 'down')) === 'down'; i++)
      await new Promise((r) => setTimeout(r, 100));
    expect((await b.credentials.get('keep'))?.revokedAt).toBe(6000);
    expect((await b.usage.get('keep')).charactersSpoken).toBe(42);
    expect((await b.sessions.get('b2'))?.endReason).toBe('node_failed');
  });

  it('rate limits count the requests of every node against one bucket', async () => {
    const la = new RedisRateLimiter(clients[0]!, systemClock);
    const lb = new RedisRateLimiter(clients[1]!, systemClock);
    // 5/s with bursts of 10: ten requests spread over two nodes pass, the eleventh waits
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) waits.push(await (i % 2 ? la : lb).take('c:shared', 5));
    expect(waits.every((w) => w === 0)).toBe(true);
    expect(await la.take('c:shared', 5)).toBeGreaterThanOrEqual(1);
    expect(await lb.take('c:other', 5)).toBe(0);
  });
});
