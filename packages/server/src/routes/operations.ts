/** Liveness, readiness and Prometheus metrics. */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../app-types.js';

export const operationsRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.get('/healthz', { schema: { hide: true } }, () => Promise.resolve({ success: true, status: 'ok' }));
  app.get('/readyz', { schema: { hide: true } }, async (_req, reply) => {
    const checks: Record<string, string> = {};
    try {
      ctx.stores.credentials.changeVersion();
      checks['storage'] = 'ok';
    } catch {
      checks['storage'] = 'failing';
    }
    const stats = ctx.engine.stats();
    checks['engine'] = stats.kind === 'fake' || stats.processes > 0 ? 'ok' : 'no engine process';
    const ready = Object.values(checks).every((v) => v === 'ok');
    return reply
      .status(ready ? 200 : 503)
      .send({ success: ready, checks, sessions: ctx.registry.listActive().length });
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    const text = await ctx.metrics.registry.metrics();
    return reply.header('Content-Type', ctx.metrics.registry.contentType).send(text);
  });
};
