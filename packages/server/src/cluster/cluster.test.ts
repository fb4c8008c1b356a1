import { pino } from 'pino';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { systemClock } from '../clock.js';
import { startRedis, type TestRedis } from '../testing/redis-server.js';
import { Cluster } from './cluster.js';
import { clusterKey } from './forwarder.js';
import { connectRedis } from './redis.js';
import { redisStores } from './redis-stores.js';

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
});
