/** POST /v1/avatar-session (and /create): a backend with a KS credential creates a session. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { CreateSessionBody, CreateSessionResponse, ErrorResponse } from '@mouthpiece/protocol';
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
      const avatar = catalog.avatars.find((a) => a.id === avatarId);
      if (!avatar) throw new ApiError('UNKNOWN_AVATAR');
      const { background } = req.body.visualConfig;
      if (background && (avatar.render === 'photo' || avatar.render === 'video'))
        throw new ApiError(
          'INVALID_REQUEST',
          `Invalid field "visualConfig.background": not available for ${avatar.render} avatars (no person-segmentation model ships with Mouthpiece); use a vector or sprite avatar, or leave it out`,
        );
      const voiceId = req.body.voiceConfig?.id ?? catalog.defaultVoiceId;
      // with ElevenLabs configured, an unlisted id is tried as an ElevenLabs voice id (docs/voices.md)
      const unlisted = catalog.unlistedVoiceProvider && /^[A-Za-z0-9]{16,40}$/.test(voiceId);
      if (!unlisted && !catalog.voices.some((v) => v.id === voiceId)) throw new ApiError('UNKNOWN_VOICE');
      const record = await ctx.registry.create({
        credential,
        avatarId,
        voiceId,
        voiceSpeed: req.body.voiceConfig?.speed ?? 1,
        background,
      });
      const lifetimeMs = record.expiresAt - record.createdAt + ctx.config.endedRetentionMs;
      const token = await ctx.tokens.issue({ sessionId: record.id, credentialId: credential.id }, lifetimeMs);
      return { success: true as const, sessionId: record.id, token };
    });
  }
};
