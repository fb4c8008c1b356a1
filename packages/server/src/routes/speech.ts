/** say-text (JSON) and say-audio (multipart): queue speech; the speech queue's answer picks the status. */
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import {
  ErrorResponse,
  SayAudioResponse,
  SayTextBody,
  SayTextResponse,
  SessionIdParams,
} from '@mouthpiece/protocol';
import type { QueueAnswer } from '@mouthpiece/engine/host';
import type { AppContext } from '../app-types.js';
import { ApiError, formatBytes, unsupportedMediaType } from '../errors.js';
import { oneFormField } from '../single-value.js';
import { engineCall } from './engine-call.js';
import { sessionCallPath } from './session-paths.js';

const errors = { '4xx': ErrorResponse, '5xx': ErrorResponse };
const base = { tags: ['speech'], security: [{ Bearer: [] }], params: SessionIdParams };
const TEXT_BODY_LIMIT = 256 * 1024;

/** Throws for the queue answers that are errors; returns whether the chunk was discarded. */
function checkAnswer(answer: QueueAnswer | 'invalid_audio'): boolean {
  switch (answer) {
    case 'queued':
      return false;
    case 'discarded':
      return true;
    case 'turn_final':
      throw new ApiError('TURN_FINAL');
    case 'turn_playing':
      throw new ApiError('TURN_PLAYING');
    case 'queue_full':
      throw new ApiError('QUEUE_FULL', undefined, { 'Retry-After': '1' });
    case 'invalid_audio':
      throw new ApiError('INVALID_AUDIO');
  }
}

export const sayTextRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  app.removeContentTypeParser('text/plain'); // a text/plain body is a 415, not a string to validate
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    sessionCallPath('say-text'),
    {
      bodyLimit: TEXT_BODY_LIMIT,
      schema: {
        ...base,
        summary: 'Speak text (streamed chunks share a turnId)',
        consumes: ['application/json'],
        body: SayTextBody,
        response: { 200: SayTextResponse, ...errors },
      },
      preValidation: (req, _reply, done) => {
        req.body ??= {};
        done();
      },
    },
    async (req) => {
      const s = req.avatarSession;
      const { text, isFinal = true } = req.body;
      const turnId = req.body.turnId ?? randomUUID();
      if (text === undefined || text.trim() === '') throw new ApiError('TEXT_REQUIRED');
      const limit = ctx.registry.limitsOf(s.id)?.maxTextLength ?? Infinity;
      if (text.length > limit)
        throw new ApiError('TEXT_TOO_LONG', `Text is too long (at most ${limit} characters per call)`);
      const answer = await engineCall(() => ctx.engine.sayText(s.id, { turnId, text, isFinal }), {
        ctx,
        id: s.id,
      });
      const discarded = checkAnswer(answer);
      if (!discarded) ctx.registry.recordUsage(s.credentialId, { charactersSpoken: text.length });
      return discarded ? { success: true as const, turnId, discarded } : { success: true as const, turnId };
    },
  );
};

interface AudioForm {
  audio: Buffer | undefined;
  turnId: string | undefined;
  duration: string | undefined;
}

/**
 * Reads the form's parts in any order. The audio is the file in the field `audio`; the form takes
 * one file, so a single file under another field name (`file`, `blob`, …) is taken as the audio.
 */
async function readAudioForm(req: FastifyRequest, maxBytes: number): Promise<AudioForm> {
  if (!req.isMultipart()) throw unsupportedMediaType(req);
  const form: AudioForm = { audio: undefined, turnId: undefined, duration: undefined };
  try {
    for await (const part of req.parts()) {
      if (part.type === 'file') {
        const bytes = await part.toBuffer();
        if (part.fieldname === 'audio' || (form.audio === undefined && part.fieldname !== 'turnId'))
          form.audio = bytes;
      } else if (part.fieldname === 'turnId' || part.fieldname === 'duration') {
        form[part.fieldname] = oneFormField(form[part.fieldname], part.fieldname, part.value);
      }
    }
  } catch (err) {
    if (err instanceof ApiError) throw err;
    const code = (err as { code?: string }).code;
    if (code === 'FST_REQ_FILE_TOO_LARGE')
      throw new ApiError(
        'PAYLOAD_TOO_LARGE',
        `Payload too large: the audio file is over ${formatBytes(maxBytes)}`,
      );
    // other limits (413) keep their own answer; anything else the parser throws is a malformed body
    if (code?.startsWith('FST_')) throw err;
    throw new ApiError(
      'INVALID_REQUEST',
      `Malformed multipart/form-data body (${(err as Error).message}): send fields "audio", "turnId" and "duration"`,
    );
  }
  return form;
}

export const sayAudioRoutes: FastifyPluginAsync<{ ctx: AppContext }> = async (app, { ctx }) => {
  await app.register(multipart, {
    limits: { fileSize: ctx.config.maxAudioBytes, files: 1, fields: 10, parts: 12, fieldSize: 1024 },
    throwFileSizeLimit: true,
  });
  const r = app.withTypeProvider<TypeBoxTypeProvider>();
  r.post(
    sessionCallPath('say-audio'),
    {
      schema: {
        ...base,
        summary: 'Speak an uploaded MP3 or WAV (multipart: audio, turnId, duration)',
        consumes: ['multipart/form-data'],
        response: { 200: SayAudioResponse, ...errors },
      },
    },
    async (req) => {
      const s = req.avatarSession;
      const form = await readAudioForm(req, ctx.config.maxAudioBytes);
      if (!form.audio)
        throw new ApiError(
          'INVALID_AUDIO',
          'Invalid audio file: the form has no file; send the MP3 or WAV in the field "audio"',
        );
      if (!form.turnId || form.turnId.length > 128)
        throw new ApiError('INVALID_REQUEST', 'Invalid field "turnId": is required');
      const declared = Number(form.duration);
      if (form.duration === undefined || !/^\s*\d*\.?\d+\s*$/.test(form.duration) || !(declared > 0)) {
        throw new ApiError(
          'INVALID_REQUEST',
          'Invalid field "duration": must be a positive number of seconds (the decoded audio is what plays; duration is checked against it)',
        );
      }
      const answer = await engineCall(
        () =>
          ctx.engine.sayAudio(s.id, {
            turnId: form.turnId!,
            audio: new Uint8Array(form.audio!),
            declaredDurationSec: declared,
          }),
        { ctx, id: s.id },
      );
      if (answer.kind === 'invalid_audio') {
        req.log.debug({ reason: answer.reason }, 'audio rejected');
        throw new ApiError('INVALID_AUDIO', `Invalid audio file: ${answer.reason}`);
      }
      const discarded = checkAnswer(answer.kind);
      if (discarded) return { success: true as const, turnId: form.turnId, discarded };
      const decoded = answer.kind === 'queued' ? answer.decodedDurationSec : declared;
      if (Math.abs(decoded - declared) > 0.1 * declared) {
        req.log.warn(
          { sessionId: s.id, declared, decoded },
          'declared audio duration differs from the decoded one',
        );
      }
      ctx.registry.recordUsage(s.credentialId, { audioSeconds: decoded });
      return {
        success: true as const,
        turnId: form.turnId,
        decodedDuration: Math.round(decoded * 1000) / 1000,
      };
    },
  );
};
