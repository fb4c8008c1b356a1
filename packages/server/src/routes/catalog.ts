/**
 * GET /v1/avatars and /v1/voices (KS auth): the ids a backend may pass to create; and each
 * avatar's thumbnail (no auth).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AvatarsResponse, ErrorResponse, VoicesResponse } from '@mouthpiece/protocol';
import { Type } from '@sinclair/typebox';
import type { AppContext } from '../app-types.js';
import { ApiError } from '../errors.js';
import { avatarPreviews, previewUrl } from './avatar-previews.js';
import { authenticateCredential } from '../auth/credentials.js';
import { limitCredential } from '../auth/session-guard.js';
import { Permission } from '../storage/ports.js';
import { languageFilter } from './voice-language.js';

export const catalogRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const auth = async (req: Parameters<typeof authenticateCredential>[0]): Promise<void> => {
    const c = await authenticateCredential(
      req,
      ctx.stores.credentials,
      ctx.clock.now(),
      Permission.SESSION_CREATE,
    );
    await limitCredential(ctx, req, c.id, c.limits.requestsPerSecond);
  };
  const errors = { '4xx': ErrorResponse, '5xx': ErrorResponse };
  const previews = avatarPreviews(ctx);
  r.get(
    '/v1/avatars',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Avatars',
        security: [{ KS: [] }],
        response: { 200: AvatarsResponse, ...errors },
      },
    },
    async (req) => {
      await auth(req);
      return {
        success: true as const,
        avatars: ctx.engine.catalog().avatars.map((a) => ({ ...a, previewUrl: previewUrl(a.id) })),
      };
    },
  );
  r.get(
    '/v1/avatars/:avatarId/preview.png',
    {
      schema: {
        tags: ['catalog'],
        summary: "An avatar's thumbnail (PNG, 256×256; no credential needed, so pages can show it)",
        params: Type.Object({ avatarId: Type.String() }),
      },
    },
    async (req, reply) => {
      const png = await previews.get(req.params.avatarId);
      if (!png) throw new ApiError('NOT_FOUND', `No avatar "${req.params.avatarId}" (see GET /v1/avatars)`);
      return reply.type('image/png').header('cache-control', 'public, max-age=300').send(png);
    },
  );
  r.get(
    '/v1/voices',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Voices',
        description:
          'Every voice this server can use; `language` (a BCP 47 tag: fi, fi-FI, pt-BR) keeps those whose tag agrees with it on every subtag both have.',
        security: [{ KS: [] }],
        querystring: Type.Object({ language: Type.Optional(Type.Unknown()) }),
        response: { 200: VoicesResponse, ...errors },
      },
    },
    async (req) => {
      await auth(req);
      const speaks = languageFilter(req.query);
      const voices = ctx.engine.catalog().voices;
      return { success: true as const, voices: speaks ? voices.filter((v) => speaks(v.language)) : voices };
    },
  );
};
