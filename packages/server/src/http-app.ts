/**
 * The HTTP application: Fastify, its hooks, error handling, CORS, OpenAPI and the route plugins,
 * over parts built beforehand by the composition root (app.ts: stores → registry → cluster → app).
 * In cluster mode the HTTP server comes from the cluster's `serverFactory` (cluster/fast-path.ts).
 */
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import cors from '@fastify/cors';
import swagger from '@fastify/swagger';
import { EndReason, ErrorResponse } from '@mouthpiece/protocol';
import type { AppContext, AppDeps } from './app-types.js';
import { TokenService } from './auth/tokens.js';
import type { Cluster } from './cluster/cluster.js';
import { fastPathServerFactory } from './cluster/fast-path.js';
import { finishOpenApi } from './openapi.js';
import {
  ApiError,
  clientErrorHandler,
  frameworkErrors,
  MAX_PARAM_LENGTH,
  refuseConnect,
  registerErrorHandling,
} from './errors.js';
import { registerEngineMetrics, registerVoiceMetrics, type Metrics } from './metrics.js';
import { adminRoutes } from './routes/admin.js';
import { catalogRoutes } from './routes/catalog.js';
import { createSessionRoutes } from './routes/create-session.js';
import { operationsRoutes } from './routes/operations.js';
import { registerAuthFailureLimit } from './auth/failure-limit.js';
import { sessionRoutes } from './routes/session-scope.js';
import { parseSessionCall } from './routes/session-paths.js';
import { staticRoutes } from './routes/static-files.js';
import type { Limiter, RateLimiter } from './sessions/rate-limiter.js';
import type { SessionEvents } from './sessions/session-events.js';
import type { SessionRegistry } from './sessions/session-registry.js';
import { oneHeader } from './single-value.js';

/** Everything the HTTP app is made of, built before it (app.ts). */
export interface HttpAppParts extends Pick<
  AppDeps,
  'config' | 'stores' | 'engine' | 'clock' | 'jwtSecret' | 'turn'
> {
  /** The one logger (the app's, the registry's and the cluster's). */
  log: FastifyBaseLogger;
  metrics: Metrics;
  registry: SessionRegistry;
  events: SessionEvents;
  limiter: RateLimiter;
  /** Credential and session rates: `limiter`, or in cluster mode buckets shared in Redis. */
  quotas: Limiter;
  /** Cluster mode (docs/cluster.md); undefined on a single node. */
  cluster: Cluster | undefined;
}

export async function createHttpApp(deps: HttpAppParts): Promise<FastifyInstance> {
  const { registry, metrics, cluster } = deps;
  const app = Fastify({
    loggerInstance: deps.log,
    // one proxy in front (deploy/): its X-Forwarded-For entry, the last, is the client's address;
    // the ones before it are the client's own words (trusting them all would let it pick any)
    trustProxy: deps.config.trustProxy ? (_address: string, hop: number) => hop < 1 : false,
    bodyLimit: 1024 * 1024,
    logController: new LogController({ disableRequestLogging: true }),
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    // `POST …/keep-alive/` is `POST …/keep-alive`; the WHEP resource keeps its own segment
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH, ignoreTrailingSlash: true },
    // every answer ≥ 400 is our error body: routing errors, Node's parser errors, a missing Host
    // and the 503 while draining go through our handlers instead of Fastify's or Node's own
    frameworkErrors,
    clientErrorHandler,
    return503OnClosing: false,
    http: { requireHostHeader: false },
    // MOUTHPIECE_TLS_CERT/_KEY: HTTPS here (HTTP/1.1; a proxy in front adds HTTP/2, deploy/)
    ...(deps.config.tls
      ? { https: { cert: deps.config.tls.cert, key: deps.config.tls.key, requireHostHeader: false } }
      : {}),
    // cluster mode: calls for sessions of other nodes whose holder is known skip Fastify
    ...(cluster
      ? { serverFactory: fastPathServerFactory(cluster, (id) => registry.isActive(id), deps.log) }
      : {}),
  });
  app.server.on('connect', refuseConnect);
  registerEngineMetrics(metrics, () => deps.engine.stats());
  const offVoiceMetrics = registerVoiceMetrics(metrics, deps.engine);
  app.addHook('onClose', (_app, done) => {
    offVoiceMetrics();
    done();
  });
  const ctx: AppContext = {
    config: deps.config,
    stores: deps.stores,
    engine: deps.engine,
    clock: deps.clock,
    registry,
    events: deps.events,
    tokens: new TokenService(deps.jwtSecret, deps.clock),
    limiter: deps.limiter,
    quotas: deps.quotas,
    metrics,
    turn: deps.turn,
    cluster,
  };
  app.decorate('ctx', ctx);
  if (cluster) {
    // placement reads each node's load from its heartbeat: publish a change at once
    registry.onTransition(() => cluster.loadChanged());
    cluster.registerMetrics(metrics.registry);
    app.addHook('onRequest', async (_req, reply) => cluster.stamp(reply));
  }
  // the HTTP server waits for open requests before it closes: event streams end as it starts to
  // (with sessionEnded server_restart: the registry is about to end every session so), and so do
  // streams forwarded from other nodes (their readers reconnect to another node)
  app.addHook('preClose', (done) => {
    deps.events.close(EndReason.SERVER_RESTART);
    cluster?.forwarder.endStreams();
    done();
  });
  // the app owns the registry it was given: closing the app ends the sessions (server_restart)
  app.addHook('onClose', async () => {
    await registry.close(); // every session ends: its streams get sessionEnded and close
    deps.events.close();
  });

  registerErrorHandling(app);
  // one Host (RFC 9112 §3.2) and one Content-Type (the body parser is chosen by it), else a 400
  app.addHook('onRequest', async (req) => {
    oneHeader(req, 'host');
    oneHeader(req, 'content-type');
  });
  registerAuthFailureLimit(app, ctx);
  app.addSchema(ErrorResponse);
  // a WebSocket upgrade that is answered instead of upgraded (401 on the audio WebSocket, 404, 405
  // on any other path) closes its connection: @fastify/websocket took the socket from the HTTP
  // server to route it (routes/audio-stream.ts), so the server's timeouts no longer end it
  app.addHook('onSend', async (req, reply) => {
    if (req.headers.upgrade !== undefined) void reply.header('connection', 'close');
  });
  app.addHook('onResponse', async (req) => {
    if (req.headers.upgrade !== undefined) req.raw.socket.end();
  });
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    metrics.requestDuration.observe(
      { route, method: req.method, status: String(reply.statusCode) },
      reply.elapsedTime / 1000,
    );
    done();
  });

  const anyOrigin = deps.config.corsOrigins === '*';
  await app.register(cors, {
    delegator: (req, cb) => {
      let origin: string | undefined;
      let requestMethod: string | undefined;
      try {
        origin = oneHeader(req, 'origin');
        requestMethod = oneHeader(req, 'access-control-request-method');
      } catch (err) {
        return cb(err as ApiError, {});
      }
      if (req.method === 'OPTIONS' && (!origin || !requestMethod))
        return cb(
          new ApiError(
            'INVALID_REQUEST',
            'Invalid CORS preflight: an OPTIONS request needs Origin and Access-Control-Request-Method headers (browsers send them)',
          ),
          {},
        );
      const url = req.url ?? '';
      // no page of another origin reads /metrics (engine pids, session counts)
      if (url === '/metrics' || url.startsWith('/metrics?')) return cb(null, { origin: false });
      const open = anyOrigin || parseSessionCall(url) !== undefined;
      cb(null, {
        origin: open ? true : deps.config.corsOrigins,
        methods: ['GET', 'POST', 'PATCH', 'DELETE', 'OPTIONS'],
        allowedHeaders: ['Authorization', 'Content-Type', 'If-Match', 'If-None-Match', 'Last-Event-ID'],
        exposedHeaders: ['Location', 'Link', 'ETag', 'Accept-Patch', 'Retry-After'],
        maxAge: 600,
      });
    },
  });

  await app.register(swagger, {
    transformObject: (doc) => finishOpenApi('openapiObject' in doc ? doc.openapiObject : doc.swaggerObject),
    openapi: {
      openapi: '3.0.3',
      info: {
        title: 'Mouthpiece avatar-session API',
        version: '1.0.0',
        description: 'Self-hosted real-time talking avatars. Error bodies: {success:false, error, code}.',
      },
      components: {
        securitySchemes: {
          KS: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'KS <session credential>' },
          Bearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' },
        },
      },
    },
  });

  await app.register(createSessionRoutes, { ctx });
  await app.register(sessionRoutes, { ctx });
  await app.register(catalogRoutes, { ctx });
  await app.register(operationsRoutes, { ctx });
  await app.register(adminRoutes, {
    prefix: '/admin/v1',
    stores: deps.stores,
    registry,
    config: deps.config,
    clock: deps.clock,
    ...(cluster ? { cluster } : {}),
  });
  await app.register(staticRoutes);
  app.get('/v1/openapi.json', { schema: { hide: true } }, () => Promise.resolve(app.swagger()));
  await app.ready();
  return app;
}
