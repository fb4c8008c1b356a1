/**
 * The composition root: every dependency comes in through `AppDeps` (stores first: SQLite, Redis
 * or memory), and the parts are built here in order, each handed what it needs: logger and
 * metrics → session registry → cluster view (cluster mode) → the HTTP app (http-app.ts). Nothing
 * is reached late through the app. Tests build the same app with memory stores, the fake engine
 * and a manual clock.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { pino } from 'pino';
import type { EngineHost } from '@mouthpiece/engine/host';
import type { Clock } from './clock.js';
import type { Cluster } from './cluster/cluster.js';
import type { Config } from './config.js';
import { createHttpApp } from './http-app.js';
import { createMetrics, type Metrics } from './metrics.js';
import { RateLimiter, type Limiter } from './sessions/rate-limiter.js';
import { SessionRegistry } from './sessions/session-registry.js';
import type { Stores } from './storage/ports.js';
import type { TurnSettings } from './turn/credentials.js';

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
}

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  '*.token',
  '*.credential',
  '*.secret',
  'token',
  'credential',
  'secret',
];

export function loggerOptions(level: string): FastifyServerOptions['logger'] {
  return {
    level,
    // no pid/hostname of our own: lines about engine and coturn processes carry their `pid`
    base: undefined,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    serializers: {
      // URLs without query strings: the WHEP viewer token travels in the query.
      req: (req: { method: string; url: string; ip?: string }) => ({
        method: req.method,
        url: req.url.split('?')[0],
        remoteAddress: req.ip,
      }),
    },
  };
}

/** The one logger: a given instance, else one made from the `logger` option (false: silent). */
function rootLogger(deps: AppDeps): FastifyBaseLogger {
  if (deps.loggerInstance) return deps.loggerInstance;
  const option = deps.logger ?? loggerOptions(deps.config.logLevel);
  if (option === false) return pino({ level: 'silent' });
  const options = option === true ? loggerOptions(deps.config.logLevel) : option;
  return pino(options as pino.LoggerOptions);
}

export async function buildApp(deps: AppDeps): Promise<FastifyInstance> {
  const log = rootLogger(deps);
  const metrics = deps.metrics ?? createMetrics({ defaultMetrics: true });
  const registry = new SessionRegistry({
    stores: deps.stores,
    engine: deps.engine,
    clock: deps.clock,
    config: deps.config,
    log,
    metrics,
  });
  const cluster = deps.cluster?.cluster(registry);
  const limiter = new RateLimiter(deps.clock);
  try {
    return await createHttpApp({
      config: deps.config,
      stores: deps.stores,
      engine: deps.engine,
      clock: deps.clock,
      jwtSecret: deps.jwtSecret,
      turn: deps.turn,
      log,
      metrics,
      registry,
      limiter,
      quotas: deps.cluster?.quotas ?? limiter,
      cluster,
    });
  } catch (err) {
    // nothing built here outlives a failed start: the registry's timers and the forwarder's sockets
    await registry.close();
    await cluster?.close();
    throw err;
  }
}
