/**
 * The cluster's Redis connection and key names. Commands fail at once while Redis is unreachable
 * (no offline queue): a node cut off from Redis answers creates 503 and keeps its live sessions'
 * media going from memory, and ioredis reconnects in the background (docs/cluster.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

/**
 * The keys a Lua script builds from an id it reads inside Redis (a session's credential and node):
 * prefix and suffix, passed to the script as ARGV, so `keys` below stays the one place names live.
 */
export const keyParts = {
  credentialSessions: { prefix: 'mp:cred:', suffix: ':sessions' },
  nodeSessions: { prefix: 'mp:node:', suffix: ':sessions' },
} as const;

const named = (part: { prefix: string; suffix: string }, id: string): string =>
  part.prefix + id + part.suffix;

/** Every key the cluster writes, in one place (docs/cluster.md lists them). */
export const keys = {
  credential: (id: string) => `mp:cred:${id}`,
  credentialIds: 'mp:creds',
  /** Bumped on every credential write: the registry's revocation poll compares it. */
  credentialsVersion: 'mp:creds:version',
  /** Set of session ids of a credential that hold a slot (cluster-wide concurrent limit). */
  credentialSessions: (id: string) => named(keyParts.credentialSessions, id),
  session: (id: string) => `mp:session:${id}`,
  /** Sorted set: ended session ids scored by end time (retention purge). */
  endedSessions: 'mp:sessions:ended',
  /** Set of the active session ids a node owns. */
  nodeSessions: (nodeId: string) => named(keyParts.nodeSessions, nodeId),
  usage: (credentialId: string) => `mp:usage:${credentialId}`,
  usageIds: 'mp:usage',
  /** A node's heartbeat: a hash with a TTL. */
  node: (nodeId: string) => `mp:node:${nodeId}`,
  /** Every node that joined and was not reaped. */
  nodes: 'mp:nodes',
  /** Claimed by the node that marks a dead node's sessions ended (one reaper per death). */
  reap: (nodeId: string) => `mp:reap:${nodeId}`,
  rate: (key: string) => `mp:rate:${key}`,
  jwtSecret: 'mp:jwt-secret',
  /** Written by the readiness check (a write, as /readyz asks of every store). */
  probe: 'mp:probe',
} as const;

export interface RedisOptions {
  url: string;
  log: FastifyBaseLogger;
  /** A name shown by CLIENT LIST. */
  name: string;
}

/** Connects (resolves when ready, rejects when the first connection fails). */
export async function connectRedis(opts: RedisOptions): Promise<Redis> {
  const redis = new Redis(opts.url, {
    connectionName: opts.name,
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 1,
    connectTimeout: 2000,
    commandTimeout: 2000,
    // reconnect forever, at most every 500 ms: a node rejoins soon after Redis is back
    retryStrategy: (times) => Math.min(100 * times, 500),
  });
  let wasReady = false;
  let lostAt = 0;
  redis.on('error', (err: Error) => {
    if (!wasReady) return;
    if (lostAt === 0) {
      lostAt = Date.now();
      opts.log.error({ err: err.message }, 'redis unreachable: creates answer 503, live sessions go on');
    }
  });
  redis.on('ready', () => {
    if (wasReady && lostAt !== 0)
      opts.log.warn({ downMs: Date.now() - lostAt }, 'redis reachable again: node rejoined');
    wasReady = true;
    lostAt = 0;
  });
  try {
    await redis.connect();
  } catch (err) {
    redis.disconnect();
    throw new Error(`cannot reach Redis at ${opts.url}: ${(err as Error).message}`, { cause: err });
  }
  return redis;
}
