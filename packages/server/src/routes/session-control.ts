/**
 * init-client, interrupt, keep-alive and end (inside the session scope: routes/session-scope.ts
 * has authorized the request). Their body and its Content-Type are ignored (spec clients send
 * `{}` or nothing), so this plugin accepts any body and discards it.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ErrorResponse,
  InitClientResponse,
  SessionIdParams,
  SuccessResponse,
  EndReason,
} from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { turnForSession } from '../turn/credentials.js';
import { engineCall } from './engine-call.js';
import { sessionCallPath } from './session-paths.js';

const errors = { '4xx': ErrorResponse, '5xx': ErrorResponse };
const IGNORED_BODY_LIMIT = 64 * 1024;

export const sessionControlRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer' }, (_req, _body, done) => done(null, undefined));
  // the route's limit (not the parser's), so a 413 names it
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= IGNORED_BODY_LIMIT;
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const base = { tags: ['session'], security: [{ Bearer: [] }], params: SessionIdParams };

  r.post(
    sessionCallPath('init-client'),
    {
      config: { auth: 'viewer' }, // a view-only page's calls (routes/session-scope.ts)
      schema: {
        ...base,
        summary: 'Streaming configuration for the client',
        response: { 200: InitClientResponse, ...errors },
      },
    },
    async (req) => {
      const s = req.avatarSession;
      const turn = turnForSession(ctx.turn, s.id, s.expiresAt);
      return {
        success: true as const,
        whepUrl: `${ctx.config.publicUrl}/v1/avatar-session/${s.id}/whep?vt=${s.viewerToken}`,
        turn: { url: turn.url, username: turn.username, credential: turn.credential, urls: turn.urls },
        iceServers: turn.iceServers,
        idleTimeoutMs: ctx.config.idleTimeoutMs,
        expiresAt: new Date(s.expiresAt).toISOString(),
        trickleIce: true, // routes/whep.ts takes PATCHed candidates: the SDK offers before gathering ends
      };
    },
  );

  r.post(
    sessionCallPath('interrupt'),
    {
      schema: {
        ...base,
        summary: 'Stop speaking now and clear the queue',
        response: { 200: SuccessResponse, ...errors },
      },
    },
    async (req) => {
      const s = req.avatarSession;
      await engineCall(() => ctx.engine.interrupt(s.id), { ctx, id: s.id });
      return { success: true as const };
    },
  );

  r.post(
    sessionCallPath('keep-alive'),
    {
      config: { auth: 'viewer' }, // a view-only page's calls (routes/session-scope.ts)
      schema: {
        ...base,
        summary: 'Keep the session alive (every 10 s)',
        response: { 200: SuccessResponse, ...errors },
      },
    },
    // the session scope has authorized the call and refreshed the idle clock: nothing else to do
    async () => ({ success: true as const }),
  );

  r.post(
    sessionCallPath('end'),
    { schema: { ...base, summary: 'End the session', response: { 200: SuccessResponse, ...errors } } },
    async (req) => {
      const s = req.avatarSession;
      await ctx.registry.end(s.id, EndReason.ENDED_BY_CLIENT);
      return { success: true as const };
    },
  );
};
