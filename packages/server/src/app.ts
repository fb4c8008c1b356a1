/**
 * The composition root: every dependency comes in through `AppDeps` (stores first: SQLite, Redis
 * or memory), and the parts are built here in order, each handed what it needs: logger and
 * metrics → session registry → its event logs → cluster view (cluster mode) → the HTTP app (http-app.ts). Nothing
 * is reached late through the app. Tests build the same app with memory stores, the fake engine
 * and a manual clock.
 */
import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { pino } from 'pino';
import type { AppDeps } from './app-types.js';
import { createHttpApp } from './http-app.js';
import { createMetrics } from './metrics.js';
import { RateLimiter } from './sessions/rate-limiter.js';
import { SessionEvents } from './sessions/session-events.js';
import { SessionRegistry } from './sessions/session-registry.js';

export type { AppDeps, ClusterPlan } from './app-types.js';

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
  const events = new SessionEvents({
    engine: deps.engine,
    registry,
    clock: deps.clock,
    log,
    streams: deps.eventStreams,
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
      events,
      limiter,
      quotas: deps.cluster?.quotas ?? limiter,
      cluster,
    });
  } catch (err) {
    // nothing built here outlives a failed start: the registry's timers and the forwarder's sockets
    await registry.close();
    events.close();
    await cluster?.close();
    throw err;
  }
}
