import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import { startRedis, type TestRedis } from '../testing/redis-server.js';
import { Cluster } from './cluster.js';
import { clusterKey } from './forwarder.js';
import { connectRedis } from './redis.js';
import { redisStores, type SessionOwner } from './redis-stores.js';
import { StorageUnavailable } from '../storage/errors.js';

const log = pino({ level: 'silent' });
const KEY = clusterKey('placement-test-secret-of-32-characters!!');
/** A request as Node gives it: `headers`, and the lines as sent in `rawHeaders`. */
const req = (forwarded = false) =>
  ({
    headers: forwarded ? { 'x-mouthpiece-forwarded': KEY } : {},
    rawHeaders: forwarded ? ['x-mouthpiece-forwarded', KEY] : [],
  }) as never;

describe('placement (real redis-server)', () => {
  let redis: TestRedis;
  const clients: Redis[] = [];
  const nodes: Cluster[] = [];
  const loads: Record<string, number> = {};

  beforeAll(async () => {
    redis = await startRedis();
    for (const [id, max] of [
      ['p-a', 4],
      ['p-b', 10],
      ['p-c', 4],
    ] as const) {
      const client = await connectRedis({ url: redis.url, log, name: id });
      clients.push(client);
      loads[id] = 0;
      const node = new Cluster({
        redis: client,
        sessions: redisStores(client, id).sessions,
        clock: systemClock,
        self: { id, url: `http://${id}.internal`, publicUrl: `https://${id}.example.com`, max },
        load: () => loads[id]!,
        onNodeDead: () => Promise.resolve(0),
        key: KEY,
        log,
      });
      await node.start();
      nodes.push(node);
    }
  });
  afterAll(async () => {
    for (const n of nodes) await n.close();
    for (const c of clients) c.disconnect();
    await redis?.close();
  });

  const publish = async (a: number, b: number, c: number): Promise<void> => {
    Object.assign(loads, { 'p-a': a, 'p-b': b, 'p-c': c });
    for (const n of nodes) await n.directory.beat();
  };

  it('keeps a create on the receiving node while it has room', async () => {
    await publish(3, 0, 0);
    expect(await nodes[0]!.place(req())).toBeUndefined();
  });

  it('sends it to the least-loaded node with room (by share of its capacity) when full', async () => {
    await publish(4, 5, 1); // b: 50 %, c: 25 %
    expect((await nodes[0]!.place(req()))?.id).toBe('p-c');
    await publish(4, 2, 3); // b: 20 %, c: 75 %
    expect((await nodes[0]!.place(req()))?.url).toBe('http://p-b.internal');
  });

  it('answers 503 SERVER_BUSY with Retry-After when every node is full', async () => {
    await publish(4, 10, 4);
    await expect(nodes[0]!.place(req())).rejects.toMatchObject({
      code: 'SERVER_BUSY',
      status: 503,
      headers: { 'Retry-After': '5' },
    });
  });

  it('never places a create another node already placed here (it answers for itself)', async () => {
    await publish(4, 0, 0);
    expect(await nodes[0]!.place(req(true))).toBeUndefined();
  });

  describe('session routing reads the store port (ownerOf)', () => {
    /** A node p-a whose session store answers `owner` (or fails) for every session. */
    const routed = (owner: () => Promise<SessionOwner | undefined>) =>
      new Cluster({
        redis: clients[0]!,
        sessions: { ownerOf: owner },
        clock: systemClock,
        self: { id: 'p-a', url: 'http://p-a.internal', publicUrl: 'https://p-a.example.com', max: 4 },
        load: () => 0,
        onNodeDead: () => Promise.resolve(0),
        key: KEY,
        log,
      });
    const call = () => ({ raw: req(), ip: '127.0.0.1', log }) as never;
    const answer = { raw: {}, hijack: () => undefined, header: () => undefined } as never;

    it('serves here a session this node holds, one that ended, and one the store does not know', async () => {
      for (const owner of [
        { nodeId: 'p-a', status: 'active' },
        { nodeId: 'p-b', status: 'ended' },
        undefined,
      ] as const) {
        const node = routed(() => Promise.resolve(owner));
        expect(await node.routeSessionCall(call(), answer, 'S'.repeat(22), false)).toBe(false);
        expect(node.cachedOwner('S'.repeat(22))).toBeUndefined();
      }
    });

    it('answers 503 SERVER_BUSY when the store is unreachable (its StorageUnavailable)', async () => {
      const node = routed(() => Promise.reject(new StorageUnavailable('redis: connection is closed')));
      await expect(node.routeSessionCall(call(), answer, 'S'.repeat(22), false)).rejects.toMatchObject({
        code: 'SERVER_BUSY',
        status: 503,
        headers: { 'Retry-After': '2' },
      });
    });

    it('answers 503 ENGINE_UNAVAILABLE for an active session of a node whose heartbeat lapsed', async () => {
      const node = routed(() => Promise.resolve({ nodeId: 'p-gone', status: 'active' }));
      await expect(node.routeSessionCall(call(), answer, 'S'.repeat(22), false)).rejects.toMatchObject({
        code: 'ENGINE_UNAVAILABLE',
      });
    });
  });
});
