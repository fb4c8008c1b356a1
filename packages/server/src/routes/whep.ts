/**
 * WHEP (draft-ietf-wish-whep), inside the session scope (routes/session-scope.ts): POST an SDP offer → 201 + Location + answer;
 * PATCH trickle candidates → 204; DELETE the resource → 200; OPTIONS for CORS. The viewer token
 * in the whepUrl query (`vt`) wins over any Authorization header; PATCH and DELETE are authorized
 * by the unguessable viewerId in the resource path. The SDK numbers its offers (`order`): one that
 * arrives after a newer one of the same page is refused (whep-order.ts).
 */
import type { FastifyPluginAsync } from 'fastify';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { ErrorResponse } from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { sessionEnded } from '../auth/session-guard.js';
import { ApiError, unsupportedMediaType } from '../errors.js';
import { newId } from '../sessions/session-registry.js';
import { oneHeader } from '../single-value.js';
import { iceServerLinks, turnForSession } from '../turn/credentials.js';
import { engineCall } from './engine-call.js';
import { sessionCallPath } from './session-paths.js';
import { OfferOrder } from './whep-order.js';

const SDP_LIMIT = 64 * 1024;
const errors = { '4xx': ErrorResponse, '5xx': ErrorResponse };

export const whepRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    ['application/sdp', 'application/trickle-ice-sdpfrag'],
    { parseAs: 'string' },
    (_req, body, done) => done(null, body),
  );
  // the route's limit (not the parser's), so a 413 names it
  app.addHook('onRoute', (route) => {
    route.bodyLimit ??= SDP_LIMIT;
  });
  const order = new OfferOrder();
  const stopForgetting = ctx.registry.onEnded((id) => order.forget(id));
  app.addHook('onClose', async () => {
    stopForgetting();
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  const params = Type.Object({ sessionId: Type.String() });
  const resourceParams = Type.Object({ sessionId: Type.String(), viewerId: Type.String() });

  r.post(
    sessionCallPath('whep'),
    {
      config: { auth: 'viewer-url' },
      schema: {
        tags: ['whep'],
        summary: 'WHEP: send an SDP offer, receive the answer',
        params,
        querystring: Type.Object({
          vt: Type.Optional(Type.String()),
          order: Type.Optional(
            Type.String({
              description: "the SDK's offer number, `<page>.<n>`: an older one of the page is refused",
            }),
          ),
        }),
        consumes: ['application/sdp'],
        response: { 201: Type.String({ description: 'SDP answer' }), ...errors },
      },
    },
    async (req, reply) => {
      if (!isType(oneHeader(req, 'content-type'), 'application/sdp')) {
        throw unsupportedMediaType(req);
      }
      const s = req.avatarSession;
      const offerSdp = typeof req.body === 'string' ? req.body : '';
      if (!offerSdp.trim().startsWith('v=0'))
        throw new ApiError('INVALID_REQUEST', 'Body is not an SDP offer');
      if (!order.take(s.id, req.query.order))
        throw new ApiError('INVALID_REQUEST', 'A newer offer of this page was answered: this one is stale');
      const viewerId = newId();
      const { answerSdp } = await engineCall(
        () => ctx.engine.connectViewer(s.id, { viewerId, offerSdp, iceServers: [] }),
        { ctx, id: s.id },
      );
      const turn = turnForSession(ctx.turn, s.id, s.expiresAt);
      const links = iceServerLinks(turn);
      if (links.length) void reply.header('Link', links);
      return reply
        .status(201)
        .header('Content-Type', 'application/sdp')
        .header('Location', `/v1/avatar-session/${s.id}/whep/${viewerId}`)
        .header('ETag', `"${viewerId}"`)
        .header('Accept-Patch', 'application/trickle-ice-sdpfrag')
        .send(answerSdp);
    },
  );

  /** A WHEP resource's session must be live; the engine knows its viewers (unknown → 404). */
  const resource = async (sessionId: string): Promise<void> => {
    const record = await ctx.registry.get(sessionId);
    if (!record) throw new ApiError('SESSION_NOT_FOUND');
    if (record.status !== 'active') throw sessionEnded(record);
  };

  r.patch(
    sessionCallPath('whep', '/:viewerId'),
    {
      config: { auth: 'none' },
      schema: {
        tags: ['whep'],
        summary: 'WHEP: trickle ICE candidates',
        params: resourceParams,
        consumes: ['application/trickle-ice-sdpfrag'],
      },
    },
    async (req, reply) => {
      if (!isType(oneHeader(req, 'content-type'), 'application/trickle-ice-sdpfrag')) {
        throw unsupportedMediaType(req);
      }
      await resource(req.params.sessionId);
      const frag = typeof req.body === 'string' ? req.body : '';
      await engineCall(() => ctx.engine.addIceCandidates(req.params.sessionId, req.params.viewerId, frag), {
        ctx,
        id: req.params.sessionId,
      });
      return reply.status(204).send();
    },
  );

  r.delete(
    sessionCallPath('whep', '/:viewerId'),
    {
      config: { auth: 'none' },
      schema: { tags: ['whep'], summary: 'WHEP: end this viewer', params: resourceParams },
    },
    async (req, reply) => {
      await resource(req.params.sessionId);
      await engineCall(() => ctx.engine.disconnectViewer(req.params.sessionId, req.params.viewerId), {
        ctx,
        id: req.params.sessionId,
      });
      return reply.status(200).send({ success: true });
    },
  );
};

function isType(header: string | undefined, type: string): boolean {
  return (header ?? '').split(';')[0]!.trim().toLowerCase() === type;
}
