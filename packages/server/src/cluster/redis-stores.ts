/**
 * The Redis adapter of the storage ports (cluster mode, docs/cluster.md). Every node reads and
 * writes the same records, so a credential made on one node works on all, a revoke is seen by all
 * (the version key the registry polls), usage adds up across nodes, and a session record names the
 * node that holds it. Multi-key changes are Lua scripts, atomic in Redis: ending a session, and
 * inserting one under the credential's concurrent-session limit counted over the whole cluster.
 */
import type { Redis } from 'ioredis';
import { pino } from 'pino';
import { EndReason, type SessionStatus } from '@mouthpiece/protocol';
import type { Clock } from '../clock.js';
import { asStorageError } from '../storage/errors.js';
import type {
  CredentialInsertResult,
  CredentialRecord,
  CredentialStore,
  SessionInsertResult,
  SessionRecord,
  SessionStore,
  Stores,
  Usage,
  UsageStore,
} from '../storage/ports.js';
import { connectRedis, keyParts, keys } from './redis.js';

const ZERO: Usage = { sessionSeconds: 0, charactersSpoken: 0, audioSeconds: 0, sessionsCreated: 0 };

/**
 * A credential is a hash: `r` (the record's JSON) and `revokedAt` ('' or epoch ms), so scripts
 * change one field and never re-encode JSON. A session likewise: `r`, `node`, `status`,
 * `credentialId`, `endReason`, `endedAt`.
 */

/** KEYS: credential, credential ids, version. ARGV: id, json, revokedAt. 0 when it exists. */
const INSERT_CREDENTIAL = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'revokedAt', ARGV[3])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('INCR', KEYS[3])
return 1`;

/** KEYS: credential, version. ARGV: at. -1 no such credential; 1 revoked (now or before). */
const REVOKE_CREDENTIAL = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HGET', KEYS[1], 'revokedAt') == '' then
  redis.call('HSET', KEYS[1], 'revokedAt', ARGV[1])
  redis.call('INCR', KEYS[2])
end
return 1`;

/**
 * KEYS: session, credential sessions, node sessions, credential. ARGV: id, json, node, credentialId.
 * -1 when the credential already holds its maxSessions across the cluster.
 */
const INSERT_SESSION = `
local raw = redis.call('HGET', KEYS[4], 'r')
if raw then
  local max = cjson.decode(raw).limits.maxSessions
  if redis.call('SCARD', KEYS[2]) >= max then return -1 end
end
redis.call('HSET', KEYS[1], 'r', ARGV[2], 'node', ARGV[3], 'status', 'active', 'credentialId', ARGV[4])
redis.call('SADD', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[1])
return 1`;

/**
 * KEYS: session, ended zset. ARGV: id, reason, at, then the prefix and suffix of a credential's and
 * of a node's session set (redis.ts keyParts: the script reads which credential and node). 0 if
 * not active.
 */
const END_SESSION = `
local h = redis.call('HMGET', KEYS[1], 'node', 'status', 'credentialId')
if h[2] ~= 'active' then return 0 end
redis.call('HSET', KEYS[1], 'status', 'ended', 'endReason', ARGV[2], 'endedAt', ARGV[3])
redis.call('SREM', ARGV[4] .. h[3] .. ARGV[5], ARGV[1])
redis.call('SREM', ARGV[6] .. h[1] .. ARGV[7], ARGV[1])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 1`;

const SESSION_FIELDS = ['r', 'status', 'endReason', 'endedAt'] as const;

function parseSession(h: Array<string | null>): SessionRecord | undefined {
  const [raw, status, endReason, endedAt] = h;
  if (!raw) return undefined;
  const r = JSON.parse(raw) as SessionRecord;
  if (status === 'ended') {
    r.status = 'ended';
    r.endReason = (endReason ?? null) as EndReason | null;
    r.endedAt = endedAt ? Number(endedAt) : null;
  }
  return r;
}

function parseCredential(raw: string | null, revokedAt: string | null): CredentialRecord | undefined {
  if (!raw) return undefined;
  const c = JSON.parse(raw) as CredentialRecord;
  c.revokedAt = revokedAt ? Number(revokedAt) : null;
  return c;
}

/** Who holds a session (cluster.ts routes a call to that node while the session is active). */
export interface SessionOwner {
  nodeId: string;
  status: SessionStatus;
}

class RedisCredentialStore implements CredentialStore {
  constructor(private readonly redis: Redis) {}

  async insert(record: CredentialRecord): Promise<CredentialInsertResult> {
    const ok = await this.redis.eval(
      INSERT_CREDENTIAL,
      3,
      keys.credential(record.id),
      keys.credentialIds,
      keys.credentialsVersion,
      record.id,
      JSON.stringify(record),
      record.revokedAt === null ? '' : String(record.revokedAt),
    );
    return ok === 1 ? { ok: true } : { ok: false, reason: 'exists' };
  }

  async get(id: string): Promise<CredentialRecord | undefined> {
    const [raw, revokedAt] = await this.redis.hmget(keys.credential(id), 'r', 'revokedAt');
    return parseCredential(raw ?? null, revokedAt ?? null);
  }

  async list(): Promise<CredentialRecord[]> {
    const ids = (await this.redis.smembers(keys.credentialIds)).sort();
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hmget(keys.credential(id), 'r', 'revokedAt');
    const rows = (await pipe.exec()) ?? [];
    return rows
      .map(([, h]) => parseCredential(...(h as Array<string | null> as [string | null, string | null])))
      .filter((c): c is CredentialRecord => c !== undefined)
      .sort((a, b) => a.createdAt - b.createdAt);
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const n = await this.redis.eval(REVOKE_CREDENTIAL, 2, keys.credential(id), keys.credentialsVersion, at);
    return n === 1;
  }

  async changeVersion(): Promise<number> {
    return Number((await this.redis.get(keys.credentialsVersion)) ?? 0);
  }
}

export class RedisSessionStore implements SessionStore {
  constructor(
    private readonly redis: Redis,
    private readonly nodeId: string,
  ) {}

  /** Stores a session this node holds; refused when its credential holds all its sessions cluster-wide. */
  async insert(record: SessionRecord): Promise<SessionInsertResult> {
    const n = await this.redis.eval(
      INSERT_SESSION,
      4,
      keys.session(record.id),
      keys.credentialSessions(record.credentialId),
      keys.nodeSessions(this.nodeId),
      keys.credential(record.credentialId),
      record.id,
      JSON.stringify(record),
      this.nodeId,
      record.credentialId,
    );
    return n === -1 ? { ok: false, reason: 'limit' } : { ok: true };
  }

  async get(id: string): Promise<SessionRecord | undefined> {
    return parseSession(await this.redis.hmget(keys.session(id), ...SESSION_FIELDS));
  }

  /** The node holding a session and the session's status, or undefined when there is no record. */
  async ownerOf(id: string): Promise<SessionOwner | undefined> {
    const [nodeId, status] = await this.redis.hmget(keys.session(id), 'node', 'status');
    if (!nodeId || (status !== 'active' && status !== 'ended')) return undefined;
    return { nodeId, status };
  }

  async markEnded(id: string, reason: EndReason, at: number): Promise<boolean> {
    const { credentialSessions: c, nodeSessions: n } = keyParts;
    const ended = await this.redis.eval(
      END_SESSION,
      2,
      keys.session(id),
      keys.endedSessions,
      id,
      reason,
      at,
      c.prefix,
      c.suffix,
      n.prefix,
      n.suffix,
    );
    return ended === 1;
  }

  /** The active sessions this node holds. */
  async listActive(): Promise<SessionRecord[]> {
    return this.#activeOf(this.nodeId);
  }

  async #activeOf(nodeId: string): Promise<SessionRecord[]> {
    const ids = await this.redis.smembers(keys.nodeSessions(nodeId));
    if (ids.length === 0) return [];
    const pipe = this.redis.pipeline();
    for (const id of ids) pipe.hmget(keys.session(id), ...SESSION_FIELDS);
    const rows = (await pipe.exec()) ?? [];
    return rows
      .map(([, h]) => parseSession(h as Array<string | null>))
      .filter((r): r is SessionRecord => r?.status === 'active')
      .sort((a, b) => a.createdAt - b.createdAt || (a.id < b.id ? -1 : 1));
  }

  /** At start-up: this node's sessions left active by its previous run (other nodes' stay). */
  async endAllActive(reason: EndReason, at: number): Promise<number> {
    return this.endAllOfNode(this.nodeId, reason, at);
  }

  /** Ends every active session a node holds (`node_failed` when its heartbeat lapsed). */
  async endAllOfNode(nodeId: string, reason: EndReason, at: number): Promise<number> {
    const ids = await this.redis.smembers(keys.nodeSessions(nodeId));
    let n = 0;
    for (const id of ids) if (await this.markEnded(id, reason, at)) n++;
    // ids whose record is gone (purged) leave the set too
    if (ids.length) await this.redis.srem(keys.nodeSessions(nodeId), ...ids);
    return n;
  }

  async purgeEndedBefore(before: number): Promise<number> {
    const ids = await this.redis.zrangebyscore(keys.endedSessions, '-inf', `(${before}`);
    if (ids.length === 0) return 0;
    await this.redis
      .multi()
      .del(...ids.map((id) => keys.session(id)))
      .zrem(keys.endedSessions, ...ids)
      .exec();
    return ids.length;
  }
}

class RedisUsageStore implements UsageStore {
  constructor(private readonly redis: Redis) {}

  async add(credentialId: string, delta: Partial<Usage>): Promise<void> {
    const m = this.redis.multi().sadd(keys.usageIds, credentialId);
    for (const [k, v] of Object.entries(delta) as Array<[keyof Usage, number]>)
      if (v) m.hincrbyfloat(keys.usage(credentialId), k, v);
    await m.exec();
  }

  async get(credentialId: string): Promise<Usage> {
    const h = await this.redis.hgetall(keys.usage(credentialId));
    const u = { ...ZERO };
    for (const k of Object.keys(ZERO) as Array<keyof Usage>) u[k] = Number(h[k] ?? 0);
    return u;
  }

  async all(): Promise<Array<{ credentialId: string } & Usage>> {
    const ids = (await this.redis.smembers(keys.usageIds)).sort();
    return Promise.all(
      ids.map(async (credentialId) => ({ credentialId, ...(await this.get(credentialId)) })),
    );
  }
}

export interface RedisStores extends Stores {
  sessions: RedisSessionStore;
}

/**
 * Every failing call of a store rejects with `StorageUnavailable` (storage/errors.ts; a retryable
 * 503 STORAGE_UNAVAILABLE for an HTTP caller), the Redis client's error as its cause.
 */
function guarded<T extends object>(store: T): T {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const v = Reflect.get(target, prop, receiver) as unknown;
      if (typeof v !== 'function') return v;
      return (...args: unknown[]) =>
        (v as (...a: unknown[]) => Promise<unknown>).apply(target, args).catch((err: unknown) => {
          throw asStorageError(err, 'redis');
        });
    },
  });
}

/** The stores of one node over a connected client; close() quits the client. */
export function redisStores(redis: Redis, nodeId: string): RedisStores {
  return {
    credentials: guarded(new RedisCredentialStore(redis)),
    sessions: guarded(new RedisSessionStore(redis, nodeId)),
    usage: guarded(new RedisUsageStore(redis)),
    async check() {
      try {
        // a write, as /readyz asks of every store: a read-only replica or a full disk says so
        await redis.set(keys.probe, String(Date.now()), 'PX', 10_000);
        return 'ok';
      } catch (err) {
        return `redis failing: ${(err as Error).message}`;
      }
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** Ends a dead node's sessions as `node_failed` (the directory's onNodeDead). */
export function reapNode(stores: RedisStores, nodeId: string, clock: Clock): Promise<number> {
  return stores.sessions.endAllOfNode(nodeId, EndReason.NODE_FAILED, clock.now());
}

/** Stores for a command-line tool (`mouthpiece credentials` in cluster mode). */
export async function openRedisStores(url: string): Promise<Stores> {
  const redis = await connectRedis({ url, log: pino({ level: 'silent' }), name: 'mouthpiece:cli' });
  return redisStores(redis, 'cli');
}

/** A Redis URL as messages name it (no password). */
export function redisPlace(url: string): string {
  const u = new URL(url);
  u.password = '';
  u.username = '';
  return `Redis at ${u.toString().replace(/\/$/, '')}`;
}
