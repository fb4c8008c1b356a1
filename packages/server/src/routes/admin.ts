/**
 * Admin API under /admin/v1: `Bearer $MOUTHPIECE_ADMIN_TOKEN` (disabled when unset) or
 * `KS <credential with admin>`. Credentials, active sessions, usage.
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  DEFAULT_CREDENTIAL_RPS,
  DEFAULT_MAX_SESSIONS_PER_CREDENTIAL,
  DEFAULT_MAX_TEXT_LENGTH,
  EndReason,
} from '@mouthpiece/protocol';
import type { AdminRoutesOptions } from '../app-types.js';
import { safeEqual } from '../auth/credential-secret.js';
import { authorizationValue, checkCredential } from '../auth/credentials.js';
import { createCredential, publicView } from '../auth/credential-records.js';
import { sessionEnded } from '../auth/session-guard.js';
import { ApiError } from '../errors.js';
import { oneAuthorization } from '../single-value.js';
import { adminAvatarRoutes } from './admin-avatars.js';
import { Permission } from '../storage/ports.js';

/** Bounds of plan limits: what a credential may be given (timers cap a session near 24 days). */
export const PLAN_BOUNDS = {
  maxSessions: 100_000,
  maxSessionDurationMs: 24 * 86_400_000,
  maxTextLength: 100_000,
  requestsPerSecond: 100_000,
  expiresInMs: 36_500 * 86_400_000,
} as const;

const CreateCredentialBody = Type.Object({
  // printable names only: no control characters (NUL, newlines) in what lists and logs show
  name: Type.String({ minLength: 1, maxLength: 200, pattern: '^[^\\u0000-\\u001f\\u007f]+$' }),
  permissions: Type.Optional(
    Type.Array(Type.Union([Type.Literal('session:create'), Type.Literal('admin')]), { maxItems: 2 }),
  ),
  maxSessions: Type.Optional(Type.Integer({ minimum: 1, maximum: PLAN_BOUNDS.maxSessions })),
  maxSessionDurationMs: Type.Optional(
    Type.Integer({ minimum: 1000, maximum: PLAN_BOUNDS.maxSessionDurationMs }),
  ),
  maxTextLength: Type.Optional(Type.Integer({ minimum: 1, maximum: PLAN_BOUNDS.maxTextLength })),
  requestsPerSecond: Type.Optional(Type.Number({ minimum: 0, maximum: PLAN_BOUNDS.requestsPerSecond })),
  expiresInMs: Type.Optional(Type.Integer({ minimum: 1000, maximum: PLAN_BOUNDS.expiresInMs })),
});

export const adminRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (app, opts) => {
  const { stores, registry, config, clock } = opts;
  /** 401 saying which mistake it was; INVALID_CREDENTIAL whatever the scheme. */
  const refuse = (detail: string): never => {
    throw new ApiError('INVALID_CREDENTIAL', `Invalid admin credential: ${detail}`, {
      'WWW-Authenticate': 'Bearer realm="mouthpiece-admin"',
    });
  };
  const useAdmin = 'send "Authorization: Bearer $MOUTHPIECE_ADMIN_TOKEN" or "KS <credential with admin>"';
  const authorize = async (req: FastifyRequest): Promise<void> => {
    const header = oneAuthorization(req);
    if (header === undefined || header.trim() === '')
      return refuse(`missing Authorization header; ${useAdmin}`);
    const scheme = /^\S+/.exec(header.trim())![0].toLowerCase();
    if (scheme === 'bearer') {
      const bearer = authorizationValue(req, 'Bearer');
      if (config.adminToken === undefined)
        return refuse(
          'Bearer admin access is off (MOUTHPIECE_ADMIN_TOKEN is not set); use "KS <credential with admin>"',
        );
      if (bearer !== undefined && safeEqual(bearer, config.adminToken)) return;
      return refuse('the Bearer value is not MOUTHPIECE_ADMIN_TOKEN (a session token is not an admin token)');
    }
    if (scheme !== 'ks') return refuse(`unsupported authorization scheme "${scheme}"; ${useAdmin}`);
    const ks = authorizationValue(req, 'KS');
    if (!ks) return refuse(`malformed Authorization header; ${useAdmin}`);
    const checked = await checkCredential(stores.credentials, ks, clock.now());
    if ('problem' in checked) return refuse(checked.problem);
    if (!checked.record.permissions.includes(Permission.ADMIN))
      throw new ApiError('CREDENTIAL_FORBIDDEN', 'This credential lacks the "admin" permission');
  };
  app.addHook('onRequest', async (req) => {
    await authorize(req);
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['admin'];
  const idParams = Type.Object({ id: Type.String() });

  r.post(
    '/credentials',
    {
      schema: { tags, summary: 'Issue a credential (the secret is shown once)', body: CreateCredentialBody },
    },
    async (req) => {
      const b = req.body;
      const { record, secret } = await createCredential(
        stores,
        {
          name: b.name,
          permissions: b.permissions ?? [Permission.SESSION_CREATE],
          maxSessions: b.maxSessions ?? DEFAULT_MAX_SESSIONS_PER_CREDENTIAL,
          maxSessionDurationMs: b.maxSessionDurationMs ?? config.maxSessionDurationMs,
          maxTextLength: b.maxTextLength ?? DEFAULT_MAX_TEXT_LENGTH,
          requestsPerSecond: b.requestsPerSecond ?? DEFAULT_CREDENTIAL_RPS,
          expiresInMs: b.expiresInMs ?? null,
        },
        clock.now(),
      );
      return { success: true, credential: publicView(record, clock.now()), secret };
    },
  );

  r.get('/credentials', { schema: { tags, summary: 'List credentials' } }, async () => ({
    success: true,
    credentials: (await stores.credentials.list()).map((c) => publicView(c, clock.now())),
  }));

  r.post(
    '/credentials/:id/revoke',
    { schema: { tags, summary: 'Revoke a credential and end its sessions', params: idParams } },
    async (req) => {
      if (!(await stores.credentials.revoke(req.params.id, clock.now())))
        throw new ApiError('NOT_FOUND', 'No such credential');
      const endedSessions = await registry.endAllForCredential(req.params.id, EndReason.CREDENTIAL_REVOKED);
      return {
        success: true,
        credential: publicView((await stores.credentials.get(req.params.id))!, clock.now()),
        endedSessions,
      };
    },
  );

  r.get('/sessions', { schema: { tags, summary: 'Active sessions' } }, () =>
    Promise.resolve({
      success: true,
      sessions: registry.listActive().map((s) => ({
        sessionId: s.id,
        credentialId: s.credentialId,
        avatarId: s.avatarId,
        voiceId: s.voiceId,
        createdAt: new Date(s.createdAt).toISOString(),
        expiresAt: new Date(s.expiresAt).toISOString(),
      })),
    }),
  );

  r.post(
    '/sessions/:id/end',
    {
      schema: { tags, summary: 'Force-end a session', params: idParams },
      // cluster mode: a session another node holds is ended there (the request is forwarded)
      onRequest: async (req, reply) => {
        const { id } = req.params;
        if (opts.cluster && (await opts.cluster.routeSessionCall(req, reply, id, registry.isActive(id))))
          return reply;
      },
    },
    async (req) => {
      if (!registry.isActive(req.params.id)) {
        const record = await registry.get(req.params.id);
        throw record ? sessionEnded(record) : new ApiError('SESSION_NOT_FOUND');
      }
      await registry.end(req.params.id, EndReason.ADMIN);
      return { success: true };
    },
  );

  r.get('/usage', { schema: { tags, summary: 'Usage per credential' } }, async () => ({
    success: true,
    usage: await stores.usage.all(),
  }));

  r.get(
    '/usage/:credentialId',
    {
      schema: {
        tags,
        summary: 'Usage of one credential',
        params: Type.Object({ credentialId: Type.String() }),
      },
    },
    async (req) => {
      if (!(await stores.credentials.get(req.params.credentialId)))
        throw new ApiError('NOT_FOUND', 'No such credential');
      return {
        success: true,
        credentialId: req.params.credentialId,
        ...(await stores.usage.get(req.params.credentialId)),
      };
    },
  );
  await app.register(adminAvatarRoutes, { stores, registry, config, clock });
};
