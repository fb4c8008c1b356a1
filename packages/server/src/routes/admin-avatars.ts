/**
 * Admin API for avatars (registered inside the admin plugin, so its authorization applies):
 * POST /admin/v1/avatars makes an avatar from a portrait (multipart `image`: a photo avatar) or
 * from a clip of a person talking (multipart `video`: a video avatar, imported in its own process),
 * with the fields id, name, description?; DELETE /admin/v1/avatars/:id removes an uploaded one.
 * Uploaded packs live under `<dataDir>/avatars`, which the engine reads with the other pack
 * folders, so an avatar is usable by every engine process as soon as it is answered and after a
 * restart.
 */
import { mkdir, rm } from 'node:fs/promises';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  fileLooksLikeVideo,
  looksLikeVideo,
  PhotoImportError,
  runPhotoImport,
  runVideoImport,
  VideoImportError,
  type VideoImportErrorCode,
} from '@mouthpiece/engine/jobs';
import type { ErrorCode } from '@mouthpiece/protocol';
import type { AdminRoutesOptions } from '../app-types.js';
import { checkNewAvatarId, removeUploadedAvatar, uploadedAvatarsDir } from '../avatars/uploaded-avatars.js';
import { ApiError } from '../errors.js';
import { FORM_FIELDS, MAX_VIDEO_BYTES, readAvatarForm } from './avatar-form.js';

export { MAX_PORTRAIT_BYTES, MAX_VIDEO_BYTES } from './avatar-form.js';

const ImportStatus = {
  not_an_image: 'INVALID_IMAGE',
  image_too_large: 'INVALID_IMAGE',
  no_face: 'UNUSABLE_PORTRAIT',
  face_too_small: 'UNUSABLE_PORTRAIT',
  several_faces: 'UNUSABLE_PORTRAIT',
  invalid_manifest: 'INVALID_REQUEST',
  exists: 'AVATAR_EXISTS',
} as const;

const VideoStatus: Record<VideoImportErrorCode, ErrorCode> = {
  not_a_video: 'INVALID_VIDEO',
  broken_file: 'INVALID_VIDEO',
  too_short: 'INVALID_VIDEO',
  too_long: 'INVALID_VIDEO',
  too_large: 'PAYLOAD_TOO_LARGE',
  no_face: 'UNUSABLE_VIDEO',
  several_faces: 'UNUSABLE_VIDEO',
  face_too_small: 'UNUSABLE_VIDEO',
  face_away: 'UNUSABLE_VIDEO',
  face_covered: 'UNUSABLE_VIDEO',
  ffmpeg_missing: 'VIDEO_IMPORT_UNAVAILABLE',
  invalid_manifest: 'INVALID_REQUEST',
  exists: 'AVATAR_EXISTS',
};

/** Logs an import's stages at info and its tracking progress every 20 %. */
function progressLogger(log: FastifyBaseLogger, avatarId: string) {
  let stage = '';
  let step = -1;
  return (s: string, fraction: number): void => {
    const k = Math.floor(fraction * 5);
    if (s === stage && (s !== 'track' || k === step)) return;
    stage = s;
    step = k;
    log.info({ avatarId, stage: s, percent: Math.round(fraction * 100) }, 'video import progress');
  };
}

export const adminAvatarRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (app, { config }) => {
  await app.register(multipart, {
    limits: { fileSize: MAX_VIDEO_BYTES, files: 2, fields: 6, parts: 8, fieldSize: 1024 },
    throwFileSizeLimit: true,
  });
  const dir = uploadedAvatarsDir(config);
  const tags = ['admin'];
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  /** Ids being imported now (a second upload of one is refused at once). */
  const importing = new Set<string>();
  /** One import at a time: a face detection takes a second of a core, a clip about a core for a minute. */
  let queue: Promise<unknown> = Promise.resolve();
  const queued = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.catch(() => undefined);
    return run;
  };

  const photo = async (id: string, name: string, description: string | undefined, image: Buffer) => {
    if (looksLikeVideo(image))
      throw new ApiError(
        'INVALID_IMAGE',
        'The field "image" holds a video; send a clip in the field "video"',
      );
    // in a child process (decoding and face detection load Skia and face-api)
    const manifest = await queued(() => runPhotoImport({ id, name, description, image }, dir)).catch(
      (err: unknown) => {
        if (err instanceof PhotoImportError) {
          const field = err.code === 'invalid_manifest' ? 'Invalid field: ' : '';
          throw new ApiError(ImportStatus[err.code], `${field}${err.message}`);
        }
        throw err;
      },
    );
    return manifest;
  };

  const video = async (
    id: string,
    name: string,
    description: string | undefined,
    file: string,
    log: FastifyBaseLogger,
  ) => {
    if (!(await fileLooksLikeVideo(file)))
      throw new ApiError(
        'INVALID_VIDEO',
        'The field "video" is not a video (it does not begin like an MP4, WebM or MOV file); send an MP4, WebM or MOV clip',
      );
    const onProgress = progressLogger(log, id);
    const { manifest, stats } = await queued(() =>
      runVideoImport({ id, name, description, file }, dir, onProgress),
    ).catch((err: unknown) => {
      if (err instanceof VideoImportError) {
        const field = err.code === 'invalid_manifest' ? 'Invalid field: ' : '';
        throw new ApiError(VideoStatus[err.code], `${field}${err.message}`);
      }
      throw err;
    });
    log.info({ avatarId: id, ...stats }, 'video avatar imported');
    return manifest;
  };

  r.post(
    '/avatars',
    {
      schema: {
        tags,
        summary:
          'Add a photo avatar from a portrait (multipart: image) or a video avatar from a clip (multipart: video), with id, name, description?',
        consumes: ['multipart/form-data'],
      },
    },
    async (req, reply) => {
      const form = await readAvatarForm(req, dir);
      try {
        if (!form.video && (!form.image || form.image.length === 0))
          throw new ApiError('INVALID_IMAGE', `The form has no image or video; ${FORM_FIELDS}`);
        if (!form.id)
          throw new ApiError('INVALID_REQUEST', `Invalid field "id": is required; ${FORM_FIELDS}`);
        if (!form.name)
          throw new ApiError('INVALID_REQUEST', `Invalid field "name": is required; ${FORM_FIELDS}`);
        const id = form.id;
        const known = (a: string) =>
          importing.has(a) || app.ctx.engine.catalog().avatars.some((x) => x.id === a);
        const idCheck = checkNewAvatarId(dir, id, known);
        if (!idCheck.ok)
          throw idCheck.reason === 'invalid'
            ? new ApiError('INVALID_REQUEST', `Invalid field "id": ${idCheck.message}`)
            : new ApiError('AVATAR_EXISTS', idCheck.message);
        importing.add(id);
        try {
          await mkdir(dir, { recursive: true });
          const manifest = form.video
            ? await video(id, form.name, form.description, form.video, req.log)
            : await photo(id, form.name, form.description, form.image!);
          const catalog = app.ctx.engine.refreshCatalog?.() ?? app.ctx.engine.catalog();
          const entry = catalog.avatars.find((a) => a.id === manifest.id);
          req.log.info({ avatarId: manifest.id, render: manifest.render }, 'avatar added');
          void reply.status(201);
          return {
            success: true as const,
            avatar: {
              ...(entry ?? { id: manifest.id, name: manifest.name, render: manifest.render }),
              previewUrl: `/v1/avatars/${encodeURIComponent(manifest.id)}/preview.png`,
            },
          };
        } finally {
          importing.delete(id);
        }
      } finally {
        if (form.video) await rm(form.video, { force: true });
      }
    },
  );

  r.delete(
    '/avatars/:id',
    { schema: { tags, summary: 'Remove an uploaded avatar', params: Type.Object({ id: Type.String() }) } },
    async (req) => {
      const { id } = req.params;
      const removed = await removeUploadedAvatar(dir, id, (a) =>
        app.ctx.engine.catalog().avatars.some((x) => x.id === a),
      );
      if (!removed.ok)
        throw removed.reason === 'read_only'
          ? new ApiError(
              'AVATAR_READ_ONLY',
              `Avatar "${id}" is built in or comes from MOUTHPIECE_AVATARS_DIR; only uploaded avatars can be removed`,
            )
          : new ApiError('NOT_FOUND', `No uploaded avatar "${id}"`);
      app.ctx.engine.refreshCatalog?.();
      req.log.info({ avatarId: id }, 'avatar removed');
      return { success: true as const, id };
    },
  );
};
