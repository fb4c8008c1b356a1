/**
 * A node's view of the cluster (docs/cluster.md): who owns a session, where a create goes, and the
 * forwarding of calls to the owner. Built by the composition root (app.ts) when
 * MOUTHPIECE_REDIS_URL is set, after the session registry; the routes ask it before serving a
 * session call or a create. It reads who holds a session through the session store's `ownerOf`
 * (redis-stores.ts) and knows nothing of the framework: a call is an `InboundCall` and its answer
 * a `CallAnswer` (forwarder.ts), which Fastify's request and reply are.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger } from 'fastify';
import type { Redis } from 'ioredis';
import type { Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import { ApiError } from '../errors.js';
import { StorageError } from '../storage/errors.js';
import { registerClusterMetrics, type ClusterMetrics } from './cluster-metrics.js';
import { Forwarder, NODE_HEADER, type CallAnswer, type InboundCall } from './forwarder.js';
import { NodeDirectory, type NodeInfo } from './node-directory.js';
import type { SessionOwner } from './redis-stores.js';

/** Who holds a session: the port of the session store the cluster reads (RedisSessionStore). */
export interface SessionOwnership {
  /** Rejects with a StorageError when the store cannot be reached. */
  ownerOf(sessionId: string): Promise<SessionOwner | undefined>;
}

export interface ClusterDeps {
  /** Where the node directory writes heartbeats. */
  redis: Redis;
  sessions: SessionOwnership;
  clock: Clock;
  self: { id: string; url: string; publicUrl: string; max: number };
  /** Sessions holding a slot on this node now. */
  load: () => number;
  /** Marks a dead node's sessions ended (`node_failed`); resolves to how many. */
  onNodeDead: (nodeId: string) => Promise<number>;
  /** The cluster key (clusterKey() of the shared JWT secret). */
  key: string;
  log: FastifyBaseLogger;
  heartbeatMs?: number;
  ttlMs?: number;
}

const OWNER_CACHE_SIZE = 10_000;

const storeDown = (): ApiError =>
  new ApiError('SERVER_BUSY', 'The cluster store (Redis) is unreachable from this node; retry shortly', {
    'Retry-After': '2',
  });

export class Cluster {
  readonly nodeId: string;
  readonly directory: NodeDirectory;
  readonly forwarder: Forwarder;
  readonly #self: ClusterDeps['self'];
  readonly #load: () => number;
  readonly #sessions: SessionOwnership;
  #beatQueued = false;
  /** Session id → its holder's URL, oldest first (a session never moves to another node). */
  readonly #owners = new Map<string, string>();
  #metrics: ClusterMetrics | undefined;

  constructor(deps: ClusterDeps) {
    this.nodeId = deps.self.id;
    this.#self = deps.self;
    this.#load = deps.load;
    this.#sessions = deps.sessions;
    this.directory = new NodeDirectory({
      redis: deps.redis,
      clock: deps.clock,
      self: deps.self,
      load: deps.load,
      onNodeDead: async (nodeId) => {
        const n = await deps.onNodeDead(nodeId);
        this.#metrics?.nodesReaped.inc();
        return n;
      },
      log: deps.log,
      ...(deps.heartbeatMs !== undefined ? { heartbeatMs: deps.heartbeatMs } : {}),
      ...(deps.ttlMs !== undefined ? { ttlMs: deps.ttlMs } : {}),
    });
    this.forwarder = new Forwarder(deps.key, deps.self.id);
  }

  /** Adds the cluster's metrics to the app's registry. */
  registerMetrics(registry: Registry): void {
    this.#metrics = registerClusterMetrics(registry, this.directory);
  }

  /** The holder's URL of a session of another node, when this node has seen it already. */
  cachedOwner(sessionId: string): string | undefined {
    return this.#owners.get(sessionId);
  }

  /** The fast path's forward (fast-path.ts): counted, and the cache entry dropped on failure. */
  async forwardRaw(
    req: IncomingMessage,
    res: ServerResponse,
    sessionId: string,
    url: string,
    log: FastifyBaseLogger,
  ): Promise<void> {
    this.#metrics?.forwarded.inc({ kind: 'session' });
    try {
      await this.forwarder.forwardRaw(req, res, url, log);
    } catch {
      this.#owners.delete(sessionId); // answered 503; the next call asks Redis again
      this.#metrics?.forwardFailures.inc();
    }
  }

  /** Sends a call on to another node (counted); see Forwarder.forward. */
  async forward(req: InboundCall, reply: CallAnswer, url: string, kind: 'session' | 'create'): Promise<void> {
    this.#metrics?.forwarded.inc({ kind });
    try {
      await this.forwarder.forward(req, reply, url);
    } catch (err) {
      this.#metrics?.forwardFailures.inc();
      throw err;
    }
  }

  start(): Promise<void> {
    return this.directory.start();
  }

  /** The load changed: publish it soon (one heartbeat for a burst of changes). */
  loadChanged(): void {
    if (this.#beatQueued) return;
    this.#beatQueued = true;
    setImmediate(() => {
      this.#beatQueued = false;
      this.directory.beat().catch(() => undefined); // the periodic beat retries
    });
  }

  /** Marks every answer with the node that served it. */
  stamp(reply: Pick<CallAnswer, 'header'>): void {
    void reply.header(NODE_HEADER, this.nodeId);
  }

  /**
   * Serves a session call here or forwards it to the node that owns the session. Returns true
   * when it forwarded (the answer is sent). Calls from other nodes, sessions this node holds, and
   * sessions that ended or never existed are served here (the store answers 410/404).
   */
  async routeSessionCall(
    req: InboundCall,
    reply: CallAnswer,
    sessionId: string,
    heldHere: boolean,
  ): Promise<boolean> {
    if (heldHere || this.forwarder.isForwarded(req)) return false;
    const url = this.#owners.get(sessionId) ?? (await this.#ownerUrl(sessionId));
    if (url === undefined) return false;
    try {
      await this.forward(req, reply, url, 'session');
    } catch (err) {
      // the owner stopped answering: ask Redis again next time (it may be reaped by then: 410)
      this.#owners.delete(sessionId);
      throw err;
    }
    return true;
  }

  /**
   * Whether another node holds this active session (a call that cannot be forwarded, such as a
   * WebSocket upgrade, is then refused with a 503 saying so: routes/session-scope.ts).
   */
  async heldElsewhere(sessionId: string, heldHere: boolean): Promise<boolean> {
    if (heldHere) return false;
    return (this.#owners.get(sessionId) ?? (await this.#ownerUrl(sessionId))) !== undefined;
  }

  /**
   * The URL of the node holding an active session of another node (cached: a session never moves),
   * or undefined when this node should answer (ended, unknown, or its own).
   */
  async #ownerUrl(sessionId: string): Promise<string | undefined> {
    const owner = await this.#sessions.ownerOf(sessionId).catch((err: unknown) => {
      if (err instanceof StorageError) throw storeDown();
      throw err;
    });
    if (owner?.status !== 'active' || owner.nodeId === this.nodeId) return undefined;
    const { nodeId } = owner;
    const node = await this.directory.node(nodeId).catch(() => {
      throw storeDown();
    });
    if (!node)
      throw new ApiError(
        'ENGINE_UNAVAILABLE',
        'The node holding this session stopped answering; it ends in a few seconds (node_failed)',
        { 'Retry-After': '2' },
      );
    if (this.#owners.size >= OWNER_CACHE_SIZE) this.#owners.delete(this.#owners.keys().next().value!);
    this.#owners.set(sessionId, node.url);
    return node.url;
  }

  /**
   * Where a create goes: undefined for this node (it has room), else the least-loaded live node
   * with room. 503 SERVER_BUSY when no node has room, or when this node cannot reach Redis.
   */
  async place(req: InboundCall): Promise<NodeInfo | undefined> {
    if (!this.directory.healthy) throw storeDown();
    if (this.#load() < this.#self.max || this.forwarder.isForwarded(req)) return undefined;
    const nodes = await this.directory.nodes().catch(() => {
      throw storeDown();
    });
    const candidates = nodes
      .filter((n) => n.id !== this.nodeId && n.active < n.max)
      .sort((a, b) => a.active / a.max - b.active / b.max || a.active - b.active);
    const best = candidates[0];
    if (!best)
      throw new ApiError('SERVER_BUSY', 'Every node of the cluster is at capacity', { 'Retry-After': '5' });
    return best;
  }

  /** Stops heartbeating and leaves the node list: no more creates are placed here. Idempotent. */
  leave(): Promise<void> {
    return this.directory.close();
  }

  async close(): Promise<void> {
    await this.leave();
    this.forwarder.close();
  }
}
