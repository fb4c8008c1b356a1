/**
 * The avatar upload form (POST /admin/v1/avatars, multipart): a portrait in `image` (kept in
 * memory, at most MAX_PORTRAIT_BYTES) or a clip in `video` (streamed to a file under the
 * uploads folder, at most MAX_VIDEO_BYTES), and the text fields `id`, `name`, `description`,
 * each given at most once.
 */
import { createWriteStream } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { randomBytes } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError, formatBytes, unsupportedMediaType } from '../errors.js';
import { oneFormField } from '../single-value.js';

/** The largest portrait accepted, in bytes (413 above). */
export const MAX_PORTRAIT_BYTES = 20 * 1024 * 1024;
/** The largest clip accepted, in bytes (413 above). */
export const MAX_VIDEO_BYTES = 200 * 1024 * 1024;

export const FORM_FIELDS =
  'send a portrait in the field "image" (PNG or JPEG) or a clip in the field "video" (MP4, WebM or MOV), and the fields "id", "name" and optionally "description"';

export interface AvatarForm {
  image: Buffer | undefined;
  /** Path of the streamed clip (the caller removes it). */
  video: string | undefined;
  id: string | undefined;
  name: string | undefined;
  description: string | undefined;
}

const TEXT_FIELDS = ['id', 'name', 'description'] as const;

async function readImage(file: AsyncIterable<Buffer>): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of file) {
    size += chunk.length;
    if (size > MAX_PORTRAIT_BYTES)
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `Payload too large: the image is over ${formatBytes(MAX_PORTRAIT_BYTES)}`,
      );
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Reads the form; on any failure the streamed clip (if any) is removed before the error. */
export async function readAvatarForm(req: FastifyRequest, uploadsDir: string): Promise<AvatarForm> {
  if (!req.isMultipart()) throw unsupportedMediaType(req);
  const form: AvatarForm = {
    image: undefined,
    video: undefined,
    id: undefined,
    name: undefined,
    description: undefined,
  };
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        if (form.image || form.video)
          throw new ApiError('INVALID_REQUEST', `The form holds more than one file; ${FORM_FIELDS}`);
        if (part.fieldname === 'video') {
          await mkdir(uploadsDir, { recursive: true });
          const path = join(uploadsDir, `.upload-${randomBytes(6).toString('hex')}`);
          form.video = path;
          await pipeline(part.file, createWriteStream(path));
          if (part.file.truncated)
            throw new ApiError(
              'PAYLOAD_TOO_LARGE',
              `Payload too large: the video is over ${formatBytes(MAX_VIDEO_BYTES)}`,
            );
        } else form.image = await readImage(part.file);
      } else if ((TEXT_FIELDS as readonly string[]).includes(part.fieldname)) {
        const name = part.fieldname as (typeof TEXT_FIELDS)[number];
        form[name] = oneFormField(form[name], name, part.value);
      }
    }
  } catch (err) {
    if (form.video) await rm(form.video, { force: true });
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `Payload too large: ${form.video ? `the video is over ${formatBytes(MAX_VIDEO_BYTES)}` : `the image is over ${formatBytes(MAX_PORTRAIT_BYTES)}`}`,
      );
    if (err instanceof ApiError || code?.startsWith('FST_')) throw err;
    throw new ApiError(
      'INVALID_REQUEST',
      `Malformed multipart/form-data body (${(err as Error).message}): ${FORM_FIELDS}`,
    );
  }
  return form;
}
