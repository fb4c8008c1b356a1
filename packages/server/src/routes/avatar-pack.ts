/**
 * The session's avatar pack, for renderers in the browser (docs/design.md §13, docs/api.md
 * "the session's avatar pack"), inside the session scope (session-scope.ts: the session token, or the viewer
 * token `vt` of the whepUrl; forwarded to the holder in cluster mode):
 *   GET /v1/avatar-session/{id}/avatar         the manifest and the list of the renderer's files
 *   GET /v1/avatar-session/{id}/avatar/{file}  one of those files, streamed
 * Both answer a strong ETag and 304 to a matching If-None-Match; HEAD answers the headers. Only
 * the names the manifest's render kind needs are served (engine avatar/pack-files.ts); any other
 * name, `..`, a slash or a NUL is a 404, and a file is never read outside its pack folder. A kind
 * the operator does not let browsers draw (MOUTHPIECE_CLIENT_RENDER) is a 403 CLIENT_RENDER_DISABLED.
 * A video pack's frames encoded for browsers (base.ivf, mouths.ivf) are listed, with `encodes` and
 * `codec`, only when the pack has them (packs imported before have raw frames only).
 * The listing carries the session's visualConfig.background as `avatar.background` when it has
 * one (the pack's files and their ETags do not depend on it; the listing's ETag does).
 */
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { Type } from '@sinclair/typebox';
import { rendererFiles, type AvatarPack } from '@mouthpiece/engine/jobs';
import { AvatarPackResponse, ErrorResponse } from '@mouthpiece/protocol';
import type { AppContext } from '../app-types.js';
import { avatarPackDirs, createPackLocator } from '../avatars/pack-locator.js';
import { bytesEtag, etagMatches, openPackFile } from '../avatars/pack-file.js';
import { ApiError } from '../errors.js';
import { headerValues } from '../single-value.js';
import { sessionCallPath } from './session-paths.js';

/** The manifest may change (an operator edits a pack): always revalidated, a 304 is cheap. */
const INDEX_CACHE = 'private, no-cache';
/** A file's URL keeps its content for a session's life; a new content is a new ETag in the index. */
const FILE_CACHE = 'private, max-age=86400, immutable';

const errors = { '4xx': ErrorResponse, '5xx': ErrorResponse };

export const avatarPackRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  const packs = createPackLocator(() => avatarPackDirs(ctx.config));
  const vt = Type.Object({ vt: Type.Optional(Type.String({ description: "the whepUrl's viewer token" })) });

  /** The session's pack, when the operator lets browsers draw its kind (MOUTHPIECE_CLIENT_RENDER). */
  const packOf = (avatarId: string): AvatarPack => {
    const pack = packs.find(avatarId);
    if (!pack)
      throw new ApiError('NOT_FOUND', `The session's avatar "${avatarId}" is no longer on this server`);
    const kind = pack.manifest.render;
    if (!ctx.config.clientRenderKinds.includes(kind))
      throw new ApiError(
        'CLIENT_RENDER_DISABLED',
        `This server does not let browsers draw ${kind} avatars (MOUTHPIECE_CLIENT_RENDER), so it does not hand out their packs; use render: 'video' to see this avatar`,
      );
    return pack;
  };

  // GET and HEAD in one route (Fastify's own HEAD route would read a streamed file to its end);
  // replies untyped: the list is sent as the JSON its ETag hashes, a file as a stream
  app.route({
    method: ['GET', 'HEAD'],
    url: sessionCallPath('avatar'),
    config: { auth: 'viewer-url' },
    schema: {
      tags: ['session'],
      summary: "The session's avatar pack: its manifest and the files a renderer in the browser needs",
      params: Type.Object({ sessionId: Type.String() }),
      querystring: vt,
      response: { 200: AvatarPackResponse, ...errors },
    },
    handler: async (req, reply) => {
      const s = req.avatarSession;
      const pack = packOf(s.avatarId);
      const listed = await Promise.all(
        rendererFiles(pack.manifest).map(async ({ name, role, optional, encodes, codec }) => {
          const file = await openPackFile(pack.dir, name);
          if (!file) {
            // a video pack imported before its frames were encoded for browsers has raw frames only
            if (optional) return undefined;
            throw new ApiError('NOT_FOUND', `The avatar pack's file ${name} is missing`);
          }
          await file.close();
          const url = `${sessionCallPath('avatar').replace(':sessionId', s.id)}/${encodeURIComponent(name)}`;
          const { size: bytes, contentType, etag } = file;
          return {
            name,
            role,
            url,
            bytes,
            contentType,
            etag,
            ...(encodes && codec ? { encodes, codec } : {}),
          };
        }),
      );
      const files = listed.filter((f) => f !== undefined);
      const m = pack.manifest;
      const background = ctx.registry.backgroundOf(s.id);
      const json = JSON.stringify({
        success: true,
        avatar: { id: m.id, render: m.render, manifest: m, files, ...(background ? { background } : {}) },
      });
      const etag = bytesEtag(json);
      void reply
        .header('ETag', etag)
        .header('Cache-Control', INDEX_CACHE)
        .type('application/json; charset=utf-8');
      if (notModified(req, etag)) return reply.code(304).send();
      if (req.method === 'HEAD')
        return reply.header('Content-Length', String(Buffer.byteLength(json))).send();
      return reply.send(json);
    },
  });

  app.route<{ Params: { sessionId: string; file: string } }>({
    method: ['GET', 'HEAD'],
    url: sessionCallPath('avatar', '/:file'),
    config: { auth: 'viewer-url' },
    schema: {
      tags: ['session'],
      summary: "One file of the session's avatar pack (a name from the pack's `files`)",
      params: Type.Object({ sessionId: Type.String(), file: Type.String() }),
      querystring: vt,
      response: errors,
    },
    handler: async (req, reply) => {
      const pack = packOf(req.avatarSession.avatarId);
      const name = req.params.file;
      const listed = rendererFiles(pack.manifest).some((f) => f.name === name);
      const file = listed ? await openPackFile(pack.dir, name) : undefined;
      if (!file) throw notInPack(name, pack);
      void reply
        .header('ETag', file.etag)
        .header('Cache-Control', FILE_CACHE)
        .header('Content-Type', file.contentType);
      const unchanged = notModified(req, file.etag);
      if (unchanged || req.method === 'HEAD') {
        await file.close();
        if (unchanged) return reply.code(304).send();
      }
      void reply.header('Content-Length', String(file.size));
      return req.method === 'HEAD' ? reply.send() : reply.send(file.stream());
    },
  });
};

/** If-None-Match is a list: several header lines are one list (RFC 9110 §5.3), not a repeat. */
function notModified(req: FastifyRequest, etag: string): boolean {
  const lines = headerValues(req, 'if-none-match');
  return lines.length > 0 && etagMatches(lines.join(', '), etag);
}

function notInPack(name: string, pack: AvatarPack): ApiError {
  const shown = JSON.stringify(name.length > 80 ? `${name.slice(0, 80)}…` : name);
  const names = rendererFiles(pack.manifest).map((f) => f.name);
  return new ApiError(
    'NOT_FOUND',
    `No file ${shown} in this avatar's pack; its files are listed by GET .../avatar (${names.length ? names.join(', ') : 'none: a vector avatar is its manifest'})`,
  );
}
