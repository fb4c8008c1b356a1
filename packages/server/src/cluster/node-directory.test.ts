import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import { ManualClock } from '@mouthpiece/engine/testing';
import { startRedis, type TestRedis } from '../testing/redis-server.js';
import { NodeDirectory } from './node-directory.js';
import { connectRedis } from './redis.js';

const log = pino({ level: 'silent' });
const fast = { heartbeatMs: 100, ttlMs: 400, confirmMs: 100 };

async function until<T>(fn: () => Promise<T | undefined>, what: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`gave up waiting: ${what}`);
}

describe('node directory (real redis-server)', () => {
  let redis: TestRedis;
  beforeAll(async () => {
    redis = await startRedis();
  });
  afterAll(async () => {
    await redis?.close();
  });

  const node = async (id: string, load: () => number, dead: string[]): Promise<[NodeDirectory, Redis]> => {
    const client = await connectRedis({ url: redis.url, log, name: id });
    const dir = new NodeDirectory({
      redis: client,
      clock: systemClock,
      self: { id, url: `http://${id}.internal:8080`, publicUrl: `https://${id}.example.com`, max: 4 },
      load,
      onNodeDead: (nodeId) => {
        dead.push(nodeId);
        return Promise.resolve(0);
      },
      log,
      ...fast,
    });
    await dir.start();
    return [dir, client];
  };

  it('each node sees the others with their load; a node whose heartbeat lapses is reaped once', async () => {
    const deadSeenByB: string[] = [];
    const deadSeenByC: string[] = [];
    let loadA = 1;
    const [a, clientA] = await node('a', () => loadA, []);
    const [b, clientB] = await node('b', () => 0, deadSeenByB);
    const [c, clientC] = await node('c', () => 2, deadSeenByC);
    const ids = (await b.nodes()).map((n) => `${n.id}:${n.active}/${n.max}`).sort();
    expect(ids).toEqual(['a:1/4', 'b:0/4', 'c:2/4']);
    loadA = 3;
    await a.beat();
    expect((await c.node('a'))?.active).toBe(3);
    expect((await c.node('a'))?.publicUrl).toBe('https://a.example.com');

    clientA.disconnect(); // node a is cut off: its heartbeats stop landing
    await until(async () => (deadSeenByB.length + deadSeenByC.length > 0 ? true : undefined), 'a reaped');
    await new Promise((r) => setTimeout(r, 500));
    expect([...deadSeenByB, ...deadSeenByC]).toEqual(['a']); // exactly one reaper
    expect((await b.nodes()).map((n) => n.id).sort()).toEqual(['b', 'c']);
    expect(b.healthy).toBe(true);
    await b.close();
    await c.close();
    clientB.disconnect();
    clientC.disconnect();
  });

  it('a Redis restart reaps nobody: heartbeats resume before the watchers act', async () => {
    const dead: string[] = [];
    const [a, clientA] = await node('ra', () => 0, dead);
    const [b, clientB] = await node('rb', () => 0, dead);
    await redis.stop();
    await new Promise((r) => setTimeout(r, 800)); // longer than the TTL: every heartbeat lapses
    await redis.start();
    // both reconnect and beat again; the watchers had to be steady for a whole TTL first
    await until(async () => ((await b.nodes().catch(() => [])).length === 2 ? true : undefined), 'rejoin');
    await new Promise((r) => setTimeout(r, 1000));
    expect(dead).toEqual([]);
    expect(a.healthy && b.healthy).toBe(true);
    await a.close();
    await b.close();
    clientA.disconnect();
    clientB.disconnect();
  });

  it('runs on the injected clock: heartbeat times, health and the beat timer are its own', async () => {
    const clock = new ManualClock(5_000_000);
    const client = await connectRedis({ url: redis.url, log, name: 'mc' });
    const dir = new NodeDirectory({
      redis: client,
      clock,
      self: { id: 'mc', url: 'http://mc.internal', publicUrl: 'https://mc.example.com', max: 2 },
      load: () => 0,
      onNodeDead: () => Promise.resolve(0),
      log,
      ...fast,
    });
    await dir.start();
    expect((await dir.node('mc'))?.at).toBe(5_000_000);
    expect(dir.healthy).toBe(true);
    clock.advance(fast.ttlMs - 1); // the next beat is due after heartbeatMs of this clock: it ran
    await until(async () => ((await dir.node('mc'))?.at === 5_000_100 ? true : undefined), 'beat');
    clock.advance(1000); // past a TTL on the injected clock (the beat this starts has not landed yet)
    expect(dir.healthy).toBe(false); // its last landed beat is a whole TTL old on that clock
    await dir.close();
    client.disconnect();
  });
});
