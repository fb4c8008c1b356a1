/**
 * Limits what an unauthenticated client can make the server do: each answer 401 costs the
 * client's address a token (`MOUTHPIECE_AUTH_FAILURES_PER_SECOND`, bursts of twice that); an
 * address with none left gets 429 for every request, before any authentication, body parsing or
 * validation runs, until its bucket refills. Callers with valid credentials never spend tokens.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../app-types.js';
import { ApiError } from '../errors.js';

export function registerAuthFailureLimit(app: FastifyInstance, ctx: AppContext): void {
  const rate = ctx.config.authFailuresPerSecond;
  if (rate <= 0) return;
  const keyOf = (ip: string) => `a:${ip}`;
  app.addHook('onRequest', (req, _reply, done) => {
    const key = keyOf(req.ip);
    const wait = ctx.limiter.waitFor(key, rate);
    if (wait === 0) return done();
    ctx.metrics.rateLimited.inc({ scope: 'auth_failures' });
    const rejected = ctx.limiter.rejected(key);
    if (rejected > 0)
      req.log.warn({ ip: req.ip, rate, rejected }, 'rate limited after failed authentications');
    done(
      new ApiError(
        'RATE_LIMITED',
        `Too many requests: too many failed authentications from this address; retry in ${wait} s with valid credentials`,
        { 'Retry-After': String(wait) },
      ),
    );
  });
  app.addHook('onResponse', (req, reply, done) => {
    if (reply.statusCode === 401) ctx.limiter.take(keyOf(req.ip), rate);
    done();
  });
}
