/**
 * Authorization of token operations, in the order of docs/design.md §4.2 (first match wins):
 * bad/expired token → 401; no such session → 404; token of another session, or this session's
 * viewer token on a call it may not make → 403; session ended → 410. Then the per-session and
 * per-credential rate limits, for viewer calls as for token calls.
 */
import type { FastifyRequest } from 'fastify';
import { DEFAULT_SESSION_RPS } from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { ApiError, BEARER_CHALLENGE } from '../errors.js';
import { oneAuthorization } from '../single-value.js';
import type { SessionRecord } from '../storage/ports.js';
import { safeEqual } from './credential-secret.js';
import { authorizationValue } from './credentials.js';
import type { SessionClaims } from './tokens.js';

const challenge = { 'WWW-Authenticate': BEARER_CHALLENGE };

/**
 * Who was admitted: the session token (`token`), the viewer token as `Authorization: Bearer`
 * (`viewer`: a view-only page) or in the whepUrl's query (`vt`: a WHEP player or pack fetch).
 */
export type SessionCaller = 'token' | 'viewer' | 'vt';

export interface SessionAuthOptions {
  /** The `vt` query value of a route that takes it (WHEP offers, the avatar pack). */
  viewerToken?: string | undefined;
  /** Whether the viewer token admits this call (init-client, keep-alive, WHEP, the pack). */
  viewerAllowed?: boolean;
  /** The call's name for a refusal's message (`say-text`). */
  call?: string;
}

export async function authorizeSession(
  ctx: AppContext,
  req: FastifyRequest,
  sessionId: string,
  opts: SessionAuthOptions = {},
): Promise<{ record: SessionRecord; caller: SessionCaller }> {
  const caller = await admit(ctx, req, sessionId, opts);
  const record = await ctx.registry.get(sessionId);
  if (!record) throw new ApiError('SESSION_NOT_FOUND');
  if (record.status !== 'active' || !ctx.registry.isActive(sessionId)) throw sessionEnded(record);
  await limitSession(ctx, req, record);
  return { record, caller };
}

/** 401 → 404 → 403 for one request: who it comes from, or why it is refused. */
async function admit(
  ctx: AppContext,
  req: FastifyRequest,
  sessionId: string,
  opts: SessionAuthOptions,
): Promise<SessionCaller> {
  if (opts.viewerToken !== undefined) {
    const record = await ctx.registry.get(sessionId);
    if (record && safeEqual(record.viewerToken, opts.viewerToken)) return 'vt';
  }
  // a viewer token is opaque (no dots); a session token is a JWT (always dotted)
  const bearer = authorizationValue(req, 'Bearer');
  if (bearer !== undefined && !bearer.includes('.')) {
    const record = await ctx.registry.get(sessionId);
    if (record && safeEqual(record.viewerToken, bearer)) {
      if (opts.viewerAllowed) return 'viewer';
      throw new ApiError(
        'FORBIDDEN',
        `Insufficient permissions: this is a viewer token: it can watch the avatar and keep the session alive; ${
          opts.call ?? 'this call'
        } needs the session token, which stays on your backend`,
      );
    }
  }
  const claims = await bearerClaims(ctx, req, opts.viewerToken !== undefined);
  const record = await ctx.registry.get(sessionId);
  if (!record) throw new ApiError('SESSION_NOT_FOUND');
  if (claims.sessionId !== sessionId) throw new ApiError('FORBIDDEN');
  return 'token';
}

/** 410 with why the session ended: `{..., code: "SESSION_ENDED", reason}`. */
export function sessionEnded(record: SessionRecord): ApiError {
  const reason = record.endReason;
  return reason
    ? new ApiError('SESSION_ENDED', `Session ended (${reason})`, {}, { reason })
    : new ApiError('SESSION_ENDED');
}

const USE_BEARER = 'send "Authorization: Bearer <token>" with the token from the create response';

/**
 * The claims of the request's session token, or a 401 that says what to change. `viewerTokenSent`:
 * the request carried a `vt` that admitted nothing (a WHEP offer), so a missing header is not the
 * whole story.
 */
async function bearerClaims(
  ctx: AppContext,
  req: FastifyRequest,
  viewerTokenSent = false,
): Promise<SessionClaims> {
  const header = oneAuthorization(req);
  const fail = (detail: string): never => {
    // the spec's message first (clients may match on it), then what to change
    throw new ApiError('INVALID_TOKEN', `Invalid or expired token: ${detail}`, challenge);
  };
  if (header === undefined || header.trim() === '')
    return fail(
      viewerTokenSent
        ? "the viewer token (vt) in the URL is not this session's; use the whepUrl from init-client unchanged, or " +
            USE_BEARER
        : `missing Authorization header; ${USE_BEARER}`,
    );
  const scheme = /^\S+/.exec(header.trim())![0];
  if (scheme.toLowerCase() === 'ks')
    return fail('this route takes the session token, not the credential: use Bearer <token> from create');
  if (scheme.toLowerCase() !== 'bearer')
    return fail(`unsupported authorization scheme "${scheme}"; ${USE_BEARER}`);
  const token = authorizationValue(req, 'Bearer');
  if (!token) return fail(`malformed Authorization header; ${USE_BEARER}`);
  const check = await ctx.tokens.check(token);
  if (check.ok) return check.claims;
  switch (check.problem) {
    case 'expired':
      return fail(
        `${
          check.expiredAt === undefined
            ? 'the session token has expired'
            : `the session token expired at ${new Date(check.expiredAt).toISOString()}`
        }; create a new session`,
      );
    case 'bad_signature':
      return fail('the token signature does not match (issued by another server, or altered)');
    case 'wrong_issuer':
      return fail('not a session token of this server');
    case 'malformed':
      return fail(
        token.includes('.')
          ? `malformed token; ${USE_BEARER}, unchanged`
          : "malformed token: neither a session token nor this session's viewer token (a viewer token admits only its own session); " +
              `${USE_BEARER}, or the viewerToken of this session`,
      );
  }
}

async function limitSession(ctx: AppContext, req: FastifyRequest, record: SessionRecord): Promise<void> {
  const credentialRps = ctx.registry.limitsOf(record.id)?.requestsPerSecond ?? 0;
  const sessionRps = credentialRps === 0 ? 0 : DEFAULT_SESSION_RPS;
  await take(ctx, req, 'session', record.id, sessionRps);
  await take(ctx, req, 'credential', record.credentialId, credentialRps);
}

/** Rate limit of credential-authenticated routes (create, catalog). */
export function limitCredential(
  ctx: AppContext,
  req: FastifyRequest,
  credentialId: string,
  rps: number,
): Promise<void> {
  return take(ctx, req, 'credential', credentialId, rps);
}

/** One token of a bucket, or a 429 (counted in metrics, logged at warn at most every 10 s a key). */
async function take(
  ctx: AppContext,
  req: FastifyRequest,
  scope: 'session' | 'credential',
  id: string,
  rps: number,
): Promise<void> {
  const key = `${scope[0]}:${id}`;
  const wait = await ctx.quotas.take(key, rps);
  if (wait === 0) return;
  ctx.metrics.rateLimited.inc({ scope });
  const rejected = ctx.quotas.rejected(key);
  if (rejected > 0)
    req.log.warn(
      { scope, [scope === 'session' ? 'sessionId' : 'credentialId']: id, rps, rejected },
      'rate limited',
    );
  throw new ApiError('RATE_LIMITED', undefined, { 'Retry-After': String(wait) });
}
