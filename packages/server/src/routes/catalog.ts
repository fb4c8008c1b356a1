/** GET /v1/avatars and /v1/voices (KS auth): the ids a backend may pass to create. */
import type { FastifyPluginAsync } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AvatarsResponse, ErrorResponse, VoicesResponse } from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { authenticateCredential } from '../auth/credentials.js';
import { limitCredential } from '../auth/session-guard.js';
import { Permission } from '../storage/ports.js';

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
      return { success: true as const, avatars: ctx.engine.catalog().avatars };
    },
  );
  r.get(
    '/v1/voices',
    {
      schema: {
        tags: ['catalog'],
        summary: 'Voices',
        security: [{ KS: [] }],
        response: { 200: VoicesResponse, ...errors },
      },
    },
    async (req) => {
      await auth(req);
      return { success: true as const, voices: ctx.engine.catalog().voices };
    },
  );
};
