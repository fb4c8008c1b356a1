/**
 * What `startServer` does differently in cluster mode (docs/cluster.md): the Redis connection and
 * stores, the JWT secret shared by every node (made once, kept in Redis), the plan of this node's
 * cluster view (built by the composition root, app.ts, once the registry exists), and the catch-up
 * after an outage: sessions that another node marked ended while this one was cut off
 * (`node_failed`) end here too.
 */
import { randomBytes } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { ClusterPlan } from '../app.js';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { SessionRegistry } from '../sessions/session-registry.js';
import { Cluster } from './cluster.js';
import { clusterKey } from './forwarder.js';
import { connectRedis, keys } from './redis.js';
import { RedisRateLimiter } from './redis-rate-limiter.js';
import { reapNode, redisStores, type RedisStores } from './redis-stores.js';

export interface ClusterNodeStart {
  redis: Redis;
  stores: RedisStores;
  /** The session-token secret every node signs with (MOUTHPIECE_JWT_SECRET wins). */
  jwtSecret(configured: string | undefined): Promise<string>;
  /** What the composition root builds in cluster mode: the cluster view and the shared rate buckets. */
  plan(jwtSecret: string): ClusterPlan;
}

export async function openClusterNode(
  settings: NonNullable<Config['cluster']>,
  config: Readonly<Config>,
  log: FastifyBaseLogger,
  clock: Clock,
): Promise<ClusterNodeStart> {
  const redis = await connectRedis({ url: settings.redisUrl, log, name: `mouthpiece:${settings.nodeId}` });
  const stores = redisStores(redis, settings.nodeId);
  return {
    redis,
    stores,
    async jwtSecret(configured) {
      if (configured) return configured;
      await redis.set(keys.jwtSecret, randomBytes(32).toString('base64url'), 'NX');
      const secret = await redis.get(keys.jwtSecret);
      if (!secret) throw new Error('Redis lost the shared JWT secret while starting');
      return secret;
    },
    plan: (jwtSecret) => ({
      quotas: new RedisRateLimiter(redis, clock),
      cluster: (registry) => clusterView(registry, jwtSecret),
    }),
  };

  function clusterView(registry: SessionRegistry, jwtSecret: string): Cluster {
    const cluster = new Cluster({
      redis,
      sessions: stores.sessions,
      clock,
      self: {
        id: settings.nodeId,
        url: settings.nodeUrl,
        publicUrl: config.publicUrl,
        max: config.maxSessions,
      },
      load: () => registry.listActive().length,
      onNodeDead: (nodeId) => reapNode(stores, nodeId, clock),
      key: clusterKey(jwtSecret),
      log: log.child({ component: 'cluster' }),
    });
    let first = true;
    redis.on('ready', () => {
      if (first) return void (first = false);
      void catchUp(registry, stores, log);
    });
    return cluster;
  }
}

/** Ends here the live sessions the store says ended (another node reaped them during an outage). */
async function catchUp(
  registry: SessionRegistry,
  stores: RedisStores,
  log: FastifyBaseLogger,
): Promise<void> {
  for (const live of registry.listActive()) {
    const stored = await stores.sessions.get(live.id).catch(() => undefined);
    if (stored?.status === 'ended' && stored.endReason) {
      log.warn(
        { sessionId: live.id, reason: stored.endReason },
        'session ended by the cluster while cut off',
      );
      await registry.end(live.id, stored.endReason);
    }
  }
}
