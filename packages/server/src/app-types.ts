/** What every route plugin receives: the app's dependencies, built once by `buildApp`. */
import type { FastifyServerOptions } from 'fastify';
import type { EngineHost } from '@mouthpiece/engine/host';
import type { Clock } from './clock.js';
import type { Cluster } from './cluster/cluster.js';
import type { Config } from './config.js';
import type { Metrics } from './metrics.js';
import type { Limiter, RateLimiter } from './sessions/rate-limiter.js';
import type { EventStreamOptions, SessionEvents } from './sessions/session-events.js';
import type { SessionRegistry } from './sessions/session-registry.js';
import type { TokenService } from './auth/tokens.js';
import type { Stores } from './storage/ports.js';
import type { TurnSettings } from './turn/credentials.js';

export interface AppContext {
  config: Readonly<Config>;
  stores: Stores;
  engine: EngineHost;
  clock: Clock;
  registry: SessionRegistry;
  /** Every live session's event log and streams (`GET …/events`). */
  events: SessionEvents;
  tokens: TokenService;
  /** This process's buckets (per-address limits, such as failed authentications). */
  limiter: RateLimiter;
  /** Credential and session rates: `limiter` itself, or in cluster mode buckets shared in Redis. */
  quotas: Limiter;
  metrics: Metrics;
  turn: TurnSettings;
  /** Cluster mode (MOUTHPIECE_REDIS_URL): other nodes, placement, forwarding; else undefined. */
  cluster: Cluster | undefined;
}

export type AdminRoutesOptions = Pick<AppContext, 'stores' | 'registry' | 'config' | 'clock'> &
  Partial<Pick<AppContext, 'cluster'>>;

declare module 'fastify' {
  interface FastifyInstance {
    /** The app's dependencies (decorated by buildApp). */
    ctx: AppContext;
  }
}

/** Cluster mode (docs/cluster.md): what the root builds once the registry exists (cluster/node-start.ts). */
export interface ClusterPlan {
  /** This node's cluster view over the registry (its load, its sessions). */
  cluster(registry: SessionRegistry): Cluster;
  /** Rate-limit buckets shared by every node, so a credential's rate holds across nodes. */
  quotas: Limiter;
}

export interface AppDeps {
  config: Readonly<Config>;
  stores: Stores;
  engine: EngineHost;
  clock: Clock;
  jwtSecret: string;
  turn: TurnSettings;
  /** Fastify logger option (pino options, or false). */
  logger?: FastifyServerOptions['logger'];
  /** A ready pino logger (wins over `logger`). */
  loggerInstance?: FastifyServerOptions['loggerInstance'];
  metrics?: Metrics;
  /** Cluster mode (docs/cluster.md); undefined on a single node. */
  cluster?: ClusterPlan;
  /** The event streams' heartbeat and buffer bound (tests shorten them; not configurable by env). */
  eventStreams?: Partial<EventStreamOptions>;
}
