/** Liveness, readiness and Prometheus metrics. */
import type { FastifyPluginAsync } from 'fastify';
import { ERROR_STATUS, errorBody } from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { safeEqual } from '../auth/credential-secret.js';
import { authorizationValue } from '../auth/credentials.js';
import { ApiError } from '../errors.js';

export const operationsRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/healthz', { schema: { hide: true } }, () => Promise.resolve({ success: true, status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {};
    // a write the store could take now (a lock held by another process, a read-only or failing
    // disk all show here), answered within a quarter second
    checks['storage'] = await ctx.stores.check().catch((err: unknown) => `failing: ${String(err)}`);
    const stats = ctx.engine.stats();
    checks['engine'] = stats.kind === 'fake' || stats.processes > 0 ? 'ok' : 'no engine process';
    const sessions = ctx.registry.listActive().length;
    const failing = Object.entries(checks).filter(([, v]) => v !== 'ok');
    if (failing.length === 0) return reply.send({ success: true, checks, sessions });
    // an error body like every other 503, with the checks beside it
    const why = failing.map(([k, v]) => `${k}: ${v}`).join(', ');
    return reply
      .status(ERROR_STATUS.NOT_READY)
      .send({ ...errorBody('NOT_READY', `Not ready (${why})`), checks, sessions });
  });
  // /metrics is off unless a token guards it: MOUTHPIECE_METRICS_TOKEN, else the admin token
  const token = ctx.config.metricsToken ?? ctx.config.adminToken;
  const tokenName =
    ctx.config.metricsToken !== undefined ? 'MOUTHPIECE_METRICS_TOKEN' : 'MOUTHPIECE_ADMIN_TOKEN';
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    if (token === undefined)
      throw new ApiError(
        'NOT_FOUND',
        'Metrics are off: set MOUTHPIECE_METRICS_TOKEN (or MOUTHPIECE_ADMIN_TOKEN) and send it as "Authorization: Bearer <token>"',
      );
    const given = authorizationValue(req, 'Bearer');
    if (given === undefined || !safeEqual(given, token))
      throw new ApiError(
        'INVALID_CREDENTIAL',
        given === undefined
          ? `Metrics need "Authorization: Bearer <${tokenName}>"`
          : `The Bearer value is not ${tokenName}`,
        { 'WWW-Authenticate': 'Bearer realm="metrics"' },
      );
    const text = await ctx.metrics.registry.metrics();
    return reply.header('Content-Type', ctx.metrics.registry.contentType).send(text);
  });
};
