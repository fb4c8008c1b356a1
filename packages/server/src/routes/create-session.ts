/**
 * POST /v1/avatar-session (and /create): a backend with a KS credential creates a session. It
 * answers the spec's `sessionId` and `token`, and `viewerToken` for a view-only page.
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { EngineCatalog } from '@mouthpiece/engine/host';
import {
  checkSessionChoices,
  CreateSessionBody,
  CreateSessionResponse,
  ErrorResponse,
  type ChoiceCatalog,
} from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { authenticateCredential } from '../auth/credentials.js';
import { limitCredential } from '../auth/session-guard.js';
import { ApiError } from '../errors.js';
import { Permission, type CredentialRecord } from '../storage/ports.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The authenticated credential of a create request (set before its body is read). */
    credential: CredentialRecord;
  }
}

export const createSessionRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.decorateRequest('credential', null as unknown as CredentialRecord);
  app.removeContentTypeParser('text/plain'); // a text/plain body is a 415 naming JSON, not a string to validate
  // authenticate before the body is read: an unauthenticated request is a 401, whatever it sends
  app.addHook('onRequest', async (req, reply) => {
    req.credential = await authenticateCredential(
      req,
      ctx.stores.credentials,
      ctx.clock.now(),
      Permission.SESSION_CREATE,
    );
    // a create another node placed here was counted there
    if (!ctx.cluster?.forwarder.isForwarded(req))
      await limitCredential(ctx, req, req.credential.id, req.credential.limits.requestsPerSecond);
    // cluster mode: this node when it has room, else the least-loaded node with room (forwarded)
    const target = await ctx.cluster?.place(req);
    if (target) {
      await ctx.cluster!.forward(req, reply, target.url, 'create');
      return reply;
    }
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const schema = {
    tags: ['session'],
    summary: 'Create an avatar session',
    security: [{ KS: [] }],
    consumes: ['application/json'],
    body: CreateSessionBody,
    response: { 200: CreateSessionResponse, '4xx': ErrorResponse, '5xx': ErrorResponse },
  };
  for (const url of ['/v1/avatar-session', '/v1/avatar-session/create']) {
    r.post(url, { schema }, async (req) => {
      const { credential } = req;
      const catalog = ctx.engine.catalog();
      const avatarId = req.body.visualConfig.avatarId ?? req.body.visualConfig.id;
      if (!avatarId)
        throw new ApiError('INVALID_REQUEST', 'Invalid field "visualConfig.avatarId": is required');
      const { background } = req.body.visualConfig;
      const voiceId = req.body.voiceConfig?.id ?? catalog.defaultVoiceId;
      const check = checkSessionChoices({ avatarId, voiceId, background }, catalogChoices(catalog));
      if (!check.ok) throw new ApiError(check.code, check.message);
      const record = await ctx.registry.create({
        credential,
        avatarId,
        voiceId,
        voiceSpeed: req.body.voiceConfig?.speed ?? 1,
        background,
      });
      const lifetimeMs = record.expiresAt - record.createdAt + ctx.config.endedRetentionMs;
      const token = await ctx.tokens.issue({ sessionId: record.id, credentialId: credential.id }, lifetimeMs);
      return { success: true as const, sessionId: record.id, token, viewerToken: record.viewerToken };
    });
  }
};

/** The engine's catalog as the create check reads it (`unlistedVoiceProvider` is ElevenLabs). */
function catalogChoices(catalog: EngineCatalog): ChoiceCatalog {
  return {
    findAvatar: (id) => catalog.avatars.find((a) => a.id === id),
    hasVoice: (id) => catalog.voices.some((v) => v.id === id),
    triesUnlistedVoices: catalog.unlistedVoiceProvider !== undefined,
  };
}
