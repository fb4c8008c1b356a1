/**
 * Nodes of the cluster: each node writes its heartbeat (URL, public URL, load and capacity) into a
 * Redis hash with a TTL every `heartbeatMs`, and watches the others. A node whose heartbeat has
 * lapsed, seen missing for `confirmMs` by a watcher that has itself been connected for a whole TTL
 * (so a Redis restart reaps nobody), is dead: one watcher claims it and `onNodeDead` marks its
 * sessions ended (`node_failed`). Worst case from the last heartbeat to the sessions ending:
 * ttlMs + confirmMs + checkMs (5 s with the defaults; docs/cluster.md).
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import { keys } from './redis.js';

export interface NodeInfo {
  id: string;
  /** Where other nodes reach it (MOUTHPIECE_NODE_URL). */
  url: string;
  /** Where browsers reach it (MOUTHPIECE_PUBLIC_URL). */
  publicUrl: string;
  /** Sessions holding a slot on it. */
  active: number;
  /** Its MOUTHPIECE_MAX_SESSIONS. */
  max: number;
  /** When it last wrote its heartbeat (its clock). */
  at: number;
}

export interface NodeDirectoryDeps {
  redis: Redis;
  /** Heartbeat times and the beat timer (systemClock in a server; its timers do not hold the process). */
  clock: Clock;
  self: { id: string; url: string; publicUrl: string; max: number };
  /** Sessions holding a slot on this node now. */
  load: () => number;
  /** Marks a dead node's sessions ended; resolves to how many. */
  onNodeDead: (nodeId: string) => Promise<number>;
  log: FastifyBaseLogger;
  heartbeatMs?: number;
  ttlMs?: number;
  confirmMs?: number;
}

export const HEARTBEAT_MS = 1000;
export const HEARTBEAT_TTL_MS = 3000;
export const DEAD_CONFIRM_MS = 1000;

export class NodeDirectory {
  readonly #d: NodeDirectoryDeps;
  readonly #heartbeatMs: number;
  readonly #ttlMs: number;
  readonly #confirmMs: number;
  /** When this node's last heartbeat landed (0: never, or lost since). */
  #lastBeatAt = 0;
  /** Since when this node has heartbeaten without a gap (0: not now). */
  #connectedSince = 0;
  readonly #missingSince = new Map<string, number>();
  #timer: unknown;
  #closed = false;

  constructor(deps: NodeDirectoryDeps) {
    this.#d = deps;
    this.#heartbeatMs = deps.heartbeatMs ?? HEARTBEAT_MS;
    this.#ttlMs = deps.ttlMs ?? HEARTBEAT_TTL_MS;
    this.#confirmMs = deps.confirmMs ?? DEAD_CONFIRM_MS;
  }

  get id(): string {
    return this.#d.self.id;
  }

  /** Writes the first heartbeat (rejects when Redis is unreachable), then beats and watches. */
  async start(): Promise<void> {
    await this.#beat();
    this.#schedule();
  }

  /** True while this node's heartbeats land: it may take creates. */
  get healthy(): boolean {
    return this.#lastBeatAt !== 0 && this.#d.clock.now() - this.#lastBeatAt < this.#ttlMs;
  }

  /** Writes the heartbeat now (after a change of load, so placement sees it at once). */
  async beat(): Promise<void> {
    await this.#beat();
  }

  async #beat(): Promise<void> {
    const { redis, self, clock } = this.#d;
    const now = clock.now();
    await redis
      .multi()
      .hset(keys.node(self.id), {
        url: self.url,
        publicUrl: self.publicUrl,
        active: String(this.#d.load()),
        max: String(self.max),
        at: String(now),
      })
      .pexpire(keys.node(self.id), this.#ttlMs)
      .sadd(keys.nodes, self.id)
      .exec();
    if (this.#lastBeatAt === 0 || now - this.#lastBeatAt >= this.#ttlMs) this.#connectedSince = now;
    this.#lastBeatAt = now;
  }

  /** Every node with a live heartbeat, this one included. */
  async nodes(): Promise<NodeInfo[]> {
    const ids = await this.#d.redis.smembers(keys.nodes);
    const pipe = this.#d.redis.pipeline();
    for (const id of ids) pipe.hgetall(keys.node(id));
    const rows = (await pipe.exec()) ?? [];
    const out: NodeInfo[] = [];
    rows.forEach(([err, h], i) => {
      const info = err ? undefined : parseNode(ids[i]!, h as Record<string, string>);
      if (info) out.push(info);
    });
    return out;
  }

  /** One node's heartbeat, or undefined when it has lapsed. */
  async node(id: string): Promise<NodeInfo | undefined> {
    return parseNode(id, await this.#d.redis.hgetall(keys.node(id)));
  }

  /** One round of watching: reaps nodes whose heartbeat stayed missing. Returns the reaped ids. */
  async watch(): Promise<string[]> {
    const now = this.#d.clock.now();
    // a watcher that was itself cut off cannot tell a dead node from an outage: wait a whole TTL
    const steady = this.#connectedSince !== 0 && now - this.#connectedSince >= this.#ttlMs;
    const ids = (await this.#d.redis.smembers(keys.nodes)).filter((id) => id !== this.id);
    const pipe = this.#d.redis.pipeline();
    for (const id of ids) pipe.exists(keys.node(id));
    const alive = ((await pipe.exec()) ?? []).map(([, n]) => n === 1);
    const reaped: string[] = [];
    for (const [i, id] of ids.entries()) {
      if (alive[i]) {
        this.#missingSince.delete(id);
        continue;
      }
      const since = this.#missingSince.get(id) ?? now;
      this.#missingSince.set(id, since);
      if (!steady || now - since < this.#confirmMs) continue;
      const claimed = await this.#d.redis.set(keys.reap(id), this.id, 'PX', 10_000, 'NX');
      if (claimed !== 'OK') continue; // another node is reaping it
      const ended = await this.#d.onNodeDead(id);
      // the node may have rejoined meanwhile: leave it listed if its heartbeat is back
      if (!(await this.#d.redis.exists(keys.node(id)))) await this.#d.redis.srem(keys.nodes, id);
      this.#missingSince.delete(id);
      this.#d.log.error(
        { nodeId: id, sessions: ended },
        'node heartbeat lapsed: its sessions ended (node_failed)',
      );
      reaped.push(id);
    }
    return reaped;
  }

  #schedule(): void {
    if (this.#closed) return;
    this.#timer = this.#d.clock.setTimeout(() => {
      const wasHealthy = this.healthy;
      this.#beat()
        .then(() => this.watch())
        .catch((err: unknown) => {
          if (wasHealthy)
            this.#d.log.warn({ err: (err as Error).message }, 'heartbeat failed (redis unreachable?)');
        })
        .finally(() => this.#schedule());
    }, this.#heartbeatMs);
  }

  /** Stops beating and removes this node's heartbeat (a clean leave is not a death). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#d.clock.clearTimeout(this.#timer);
    await this.#d.redis
      .multi()
      .del(keys.node(this.id))
      .srem(keys.nodes, this.id)
      .exec()
      .catch(() => undefined);
  }
}

function parseNode(id: string, h: Record<string, string>): NodeInfo | undefined {
  if (!h['url'] || !h['publicUrl']) return undefined;
  return {
    id,
    url: h['url'],
    publicUrl: h['publicUrl'],
    active: Number(h['active'] ?? 0),
    max: Number(h['max'] ?? 0),
    at: Number(h['at'] ?? 0),
  };
}
