/**
 * The token routes of a session (init-client, say-text, say-audio, the audio WebSocket, interrupt,
 * keep-alive, end, WHEP, the avatar pack) in one encapsulated scope. Its `onRequest` hook authorizes each request
 * before its body is read — 401 → 404 → 403 → 410, then the rate limits (auth/session-guard.ts) —
 * puts the session on `req.avatarSession`, and refreshes the idle clock when the request starts
 * and again when it ends (a long upload is activity). Routes choose their authorization in
 * `config.auth`: `token` (default: the session token only; the viewer token gets a 403 naming the
 * call), `viewer` (init-client, keep-alive: the viewer token as `Authorization: Bearer` also
 * admits — a view-only page), `viewer-url` (WHEP offers and the avatar pack: as `viewer`, and the
 * whepUrl's `vt` query too, for players that send no header) or `none` (WHEP resources: the viewerId in the
 * path is an unguessable capability). A Bearer call (token or viewer token) keeps the session
 * alive; a call admitted only by the `vt` query does not. In cluster mode a first hook
 * forwards a call for a session another node holds to that node, before anything else runs
 * (cluster/cluster.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { AppContext } from '../app-types.js';
import { authorizeSession } from '../auth/session-guard.js';
import { SESSION_ID_RE } from '../sessions/session-registry.js';
import { ApiError } from '../errors.js';
import { oneQueryValue } from '../single-value.js';
import type { SessionRecord } from '../storage/ports.js';
import { sessionControlRoutes } from './session-control.js';
import { sayAudioRoutes, sayTextRoutes } from './speech.js';
import { whepRoutes } from './whep.js';
import { avatarPackRoutes } from './avatar-pack.js';
import { sessionEventRoutes } from './session-events.js';
import { audioStreamRoutes } from './audio-stream.js';

export type SessionAuth = 'token' | 'viewer' | 'viewer-url' | 'none';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authorized session of a token route (set by the session scope). */
    avatarSession: SessionRecord;
  }
  interface FastifyContextConfig {
    auth?: SessionAuth;
  }
}

export const sessionRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.decorateRequest('avatarSession', null as unknown as SessionRecord);
  /** Requests whose caller keeps the session alive (a Bearer token or viewer token, not `vt`). */
  const keepsAlive = new WeakSet<object>();
  // cluster mode: a call for a session another node holds is forwarded there, body unread
  app.addHook('onRequest', async (req, reply) => {
    const sessionId = (req.params as { sessionId?: string }).sessionId;
    if (!ctx.cluster || sessionId === undefined || !SESSION_ID_RE.test(sessionId)) return;
    if (req.headers.upgrade !== undefined) {
      // a WebSocket upgrade is not forwarded (the forwarder proxies HTTP calls): say where to go
      if (await ctx.cluster.heldElsewhere(sessionId, ctx.registry.isActive(sessionId)))
        throw new ApiError(
          'ENGINE_UNAVAILABLE',
          'Another node holds this session: open the audio WebSocket on the node that created it',
        );
      return;
    }
    if (await ctx.cluster.routeSessionCall(req, reply, sessionId, ctx.registry.isActive(sessionId)))
      return reply;
  });
  app.addHook('onRequest', async (req) => {
    const auth = req.routeOptions.config.auth ?? 'token';
    const sessionId = (req.params as { sessionId?: string }).sessionId;
    if (auth === 'none' || sessionId === undefined) return;
    const viewerAllowed = auth === 'viewer' || auth === 'viewer-url';
    const viewerToken = auth === 'viewer-url' ? oneQueryValue(req.query, 'vt') : undefined;
    const call = /:sessionId\/([^/]+)/.exec(req.routeOptions.url ?? '')?.[1];
    const { record, caller } = await authorizeSession(ctx, req, sessionId, {
      viewerToken,
      viewerAllowed,
      call,
    });
    req.avatarSession = record;
    if (caller !== 'vt') {
      keepsAlive.add(req);
      ctx.registry.touch(record.id);
    }
  });
  app.addHook('onResponse', async (req) => {
    if (keepsAlive.has(req)) ctx.registry.touch(req.avatarSession.id);
  });
  await app.register(sessionControlRoutes, { ctx });
  await app.register(sayTextRoutes, { ctx });
  await app.register(sayAudioRoutes, { ctx });
  await app.register(whepRoutes, { ctx });
  await app.register(avatarPackRoutes, { ctx });
  await app.register(sessionEventRoutes, { ctx });
  await app.register(audioStreamRoutes, { ctx });
};
