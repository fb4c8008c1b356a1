/**
 * Admin API for avatars (registered inside the admin plugin, so its authorization applies):
 * POST /admin/v1/avatars uploads a portrait (multipart: image, id, name, description?) and makes
 * it a photo avatar; DELETE /admin/v1/avatars/:id removes an uploaded one. Uploaded packs live
 * under `<dataDir>/avatars`, which the engine reads with the other pack folders, so an avatar is
 * usable by every engine process as soon as it is answered and after a restart.
 */
import { existsSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import { Type } from '@sinclair/typebox';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { AdminRoutesOptions } from '../app-types.js';
import type { Config } from '../config.js';
import { ApiError, formatBytes, unsupportedMediaType } from '../errors.js';
import { oneFormField } from '../single-value.js';

/** Uploaded avatar packs: one folder per avatar under the data dir. */
export function uploadedAvatarsDir(config: Pick<Config, 'dataDir'>): string {
  return join(config.dataDir, 'avatars');
}

/** What an avatar id may be (the pack manifest's rule). */
const AVATAR_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;

/** The largest portrait accepted, in bytes (413 above). */
export const MAX_PORTRAIT_BYTES = 20 * 1024 * 1024;

interface PortraitForm {
  image: Buffer | undefined;
  id: string | undefined;
  name: string | undefined;
  description: string | undefined;
}

const FIELDS =
  'send the portrait in the field "image" and the fields "id", "name" and optionally "description"';

async function readPortraitForm(req: FastifyRequest): Promise<PortraitForm> {
  if (!req.isMultipart()) throw unsupportedMediaType(req);
  const form: PortraitForm = { image: undefined, id: undefined, name: undefined, description: undefined };
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (part.fieldname === 'image' || form.image === undefined) form.image = bytes;
      } else if (part.fieldname === 'id' || part.fieldname === 'name' || part.fieldname === 'description') {
        form[part.fieldname] = oneFormField(form[part.fieldname], part.fieldname, part.value);
      }
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `Payload too large: the image is over ${formatBytes(MAX_PORTRAIT_BYTES)}`,
      );
    if (code?.startsWith('FST_')) throw err;
    throw new ApiError(
      'INVALID_REQUEST',
      `Malformed multipart/form-data body (${(err as Error).message}): ${FIELDS}`,
    );
  }
  return form;
}

const ImportStatus = {
  not_an_image: 'INVALID_IMAGE',
  image_too_large: 'INVALID_IMAGE',
  no_face: 'UNUSABLE_PORTRAIT',
  face_too_small: 'UNUSABLE_PORTRAIT',
  several_faces: 'UNUSABLE_PORTRAIT',
  invalid_manifest: 'INVALID_REQUEST',
  exists: 'AVATAR_EXISTS',
} as const;

export const adminAvatarRoutes: FastifyPluginAsync<AdminRoutesOptions> = async (app, { config }) => {
  await app.register(multipart, {
    limits: { fileSize: MAX_PORTRAIT_BYTES, files: 1, fields: 6, parts: 8, fieldSize: 1024 },
    throwFileSizeLimit: true,
  });
  const dir = uploadedAvatarsDir(config);
  const tags = ['admin'];
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  /** Ids being imported now (a second upload of one is refused at once). */
  const importing = new Set<string>();
  /** One face detection at a time: each takes about a second of a core and ~150 MB. */
  let queue: Promise<unknown> = Promise.resolve();

  r.post(
    '/avatars',
    {
      schema: {
        tags,
        summary: 'Add a photo avatar from a portrait (multipart: image, id, name, description?)',
        consumes: ['multipart/form-data'],
      },
    },
    async (req, reply) => {
      const form = await readPortraitForm(req);
      if (!form.image || form.image.length === 0)
        throw new ApiError('INVALID_IMAGE', `The form has no image; ${FIELDS}`);
      if (!form.id) throw new ApiError('INVALID_REQUEST', `Invalid field "id": is required; ${FIELDS}`);
      if (!form.name) throw new ApiError('INVALID_REQUEST', `Invalid field "name": is required; ${FIELDS}`);
      const id = form.id;
      if (!AVATAR_ID.test(id))
        throw new ApiError(
          'INVALID_REQUEST',
          'Invalid field "id": must be lower-case letters, digits and dashes (at most 64), starting with a letter or digit',
        );
      if (
        app.ctx.engine.catalog().avatars.some((a) => a.id === id) ||
        importing.has(id) ||
        existsSync(join(dir, id))
      )
        throw new ApiError('AVATAR_EXISTS', `An avatar with id "${id}" already exists; choose another id`);
      const avatars = await import('@mouthpiece/engine/avatars');
      importing.add(id);
      try {
        await mkdir(dir, { recursive: true });
        const run = queue.then(() =>
          avatars.importPhotoAvatar(
            { id, name: form.name!, description: form.description, image: form.image! },
            dir,
          ),
        );
        queue = run.catch(() => undefined);
        const manifest = await run.catch((err: unknown) => {
          if (err instanceof avatars.PhotoImportError) {
            const field = err.code === 'invalid_manifest' ? 'Invalid field: ' : '';
            throw new ApiError(ImportStatus[err.code], `${field}${err.message}`);
          }
          throw err;
        });
        const catalog = app.ctx.engine.refreshCatalog?.() ?? app.ctx.engine.catalog();
        const entry = catalog.avatars.find((a) => a.id === manifest.id);
        req.log.info({ avatarId: manifest.id }, 'avatar added');
        void reply.status(201);
        return {
          success: true as const,
          avatar: {
            ...(entry ?? { id: manifest.id, name: manifest.name, render: 'photo' as const }),
            previewUrl: `/v1/avatars/${encodeURIComponent(manifest.id)}/preview.png`,
          },
        };
      } finally {
        importing.delete(id);
      }
    },
  );

  r.delete(
    '/avatars/:id',
    { schema: { tags, summary: 'Remove an uploaded avatar', params: Type.Object({ id: Type.String() }) } },
    async (req) => {
      const { id } = req.params;
      const target = join(dir, id);
      if (!AVATAR_ID.test(id) || !existsSync(join(target, 'avatar.json'))) {
        if (app.ctx.engine.catalog().avatars.some((a) => a.id === id))
          throw new ApiError(
            'AVATAR_READ_ONLY',
            `Avatar "${id}" is built in or comes from MOUTHPIECE_AVATARS_DIR; only uploaded avatars can be removed`,
          );
        throw new ApiError('NOT_FOUND', `No uploaded avatar "${id}"`);
      }
      // renamed away first, so the pack disappears at once; sessions using it keep their copy in memory
      const gone = join(dir, `.removed-${id}-${Date.now()}`);
      await rename(target, gone);
      await rm(gone, { recursive: true, force: true });
      app.ctx.engine.refreshCatalog?.();
      req.log.info({ avatarId: id }, 'avatar removed');
      return { success: true as const, id };
    },
  );
};
