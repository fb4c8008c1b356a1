/**
 * Authorization of token operations, in DESIGN §3.2's order (first match wins):
 * bad/expired token → 401; no such session → 404; token of another session → 403;
 * session ended → 410. Then the per-session and per-credential rate limits.
 */
import type { FastifyRequest } from 'fastify';
import { DEFAULT_SESSION_RPS } from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { ApiError, BEARER_CHALLENGE } from '../errors.js';
import type { SessionRecord } from '../storage/ports.js';
import { safeEqual } from './credential-secret.js';
import { authorizationValue } from './credentials.js';

const challenge = { 'WWW-Authenticate': BEARER_CHALLENGE };

export async function authorizeSession(
  ctx: AppContext,
  req: FastifyRequest,
  sessionId: string,
  opts: { viewerToken?: string | undefined } = {},
): Promise<SessionRecord> {
  let viaViewerToken = false;
  if (opts.viewerToken !== undefined) {
    const record = ctx.registry.get(sessionId);
    if (record && safeEqual(record.viewerToken, opts.viewerToken)) {
      viaViewerToken = true;
    }
  }
  if (!viaViewerToken) {
    const token = authorizationValue(req, 'Bearer');
    const claims = token ? await ctx.tokens.verify(token) : undefined;
    if (!claims) throw new ApiError('INVALID_TOKEN', undefined, challenge);
    const record = ctx.registry.get(sessionId);
    if (!record) throw new ApiError('SESSION_NOT_FOUND');
    if (claims.sessionId !== sessionId) throw new ApiError('FORBIDDEN');
  }
  const record = ctx.registry.get(sessionId);
  if (!record) throw new ApiError('SESSION_NOT_FOUND');
  if (record.status !== 'active' || !ctx.registry.isActive(sessionId)) throw new ApiError('SESSION_ENDED');
  limitSession(ctx, record);
  return record;
}

function limitSession(ctx: AppContext, record: SessionRecord): void {
  const credentialRps = ctx.registry.limitsOf(record.id)?.requestsPerSecond ?? 0;
  const sessionRps = credentialRps === 0 ? 0 : DEFAULT_SESSION_RPS;
  const waitSession = ctx.limiter.take(`s:${record.id}`, sessionRps);
  if (waitSession > 0) {
    ctx.metrics.rateLimited.inc({ scope: 'session' });
    throw new ApiError('RATE_LIMITED', undefined, { 'Retry-After': String(waitSession) });
  }
  const waitCredential = ctx.limiter.take(`c:${record.credentialId}`, credentialRps);
  if (waitCredential > 0) {
    ctx.metrics.rateLimited.inc({ scope: 'credential' });
    throw new ApiError('RATE_LIMITED', undefined, { 'Retry-After': String(waitCredential) });
  }
}

/** Rate limit of credential-authenticated routes (create, catalog). */
export function limitCredential(ctx: AppContext, credentialId: string, rps: number): void {
  const wait = ctx.limiter.take(`c:${credentialId}`, rps);
  if (wait > 0) {
    ctx.metrics.rateLimited.inc({ scope: 'credential' });
    throw new ApiError('RATE_LIMITED', undefined, { 'Retry-After': String(wait) });
  }
}
