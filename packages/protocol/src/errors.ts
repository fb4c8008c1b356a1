import type { EndReason } from './states.js';

/**
 * Stable server error codes. Never reuse or rename a code: clients branch on them.
 * Each code has exactly one HTTP status (ERROR_STATUS) and a default message (ERROR_MESSAGE).
 */
export const ErrorCode = {
  INVALID_CREDENTIAL: 'INVALID_CREDENTIAL',
  CREDENTIAL_FORBIDDEN: 'CREDENTIAL_FORBIDDEN',
  INVALID_TOKEN: 'INVALID_TOKEN',
  FORBIDDEN: 'FORBIDDEN',
  SESSION_NOT_FOUND: 'SESSION_NOT_FOUND',
  SESSION_ENDED: 'SESSION_ENDED',
  TEXT_REQUIRED: 'TEXT_REQUIRED',
  TEXT_TOO_LONG: 'TEXT_TOO_LONG',
  INVALID_AUDIO: 'INVALID_AUDIO',
  INVALID_REQUEST: 'INVALID_REQUEST',
  UNKNOWN_AVATAR: 'UNKNOWN_AVATAR',
  UNKNOWN_VOICE: 'UNKNOWN_VOICE',
  NOT_FOUND: 'NOT_FOUND',
  METHOD_NOT_ALLOWED: 'METHOD_NOT_ALLOWED',
  REQUEST_TIMEOUT: 'REQUEST_TIMEOUT',
  URI_TOO_LONG: 'URI_TOO_LONG',
  HEADERS_TOO_LARGE: 'HEADERS_TOO_LARGE',
  TURN_FINAL: 'TURN_FINAL',
  TURN_PLAYING: 'TURN_PLAYING',
  PAYLOAD_TOO_LARGE: 'PAYLOAD_TOO_LARGE',
  UNSUPPORTED_MEDIA_TYPE: 'UNSUPPORTED_MEDIA_TYPE',
  UNSUPPORTED_OFFER: 'UNSUPPORTED_OFFER',
  RATE_LIMITED: 'RATE_LIMITED',
  SESSION_LIMIT: 'SESSION_LIMIT',
  QUEUE_FULL: 'QUEUE_FULL',
  INTERNAL: 'INTERNAL',
  ENGINE_UNAVAILABLE: 'ENGINE_UNAVAILABLE',
  SERVER_BUSY: 'SERVER_BUSY',
  NOT_READY: 'NOT_READY',
  SHUTTING_DOWN: 'SHUTTING_DOWN',
  STORAGE_UNAVAILABLE: 'STORAGE_UNAVAILABLE',
  RANGE_NOT_SATISFIABLE: 'RANGE_NOT_SATISFIABLE',
  INVALID_IMAGE: 'INVALID_IMAGE',
  UNUSABLE_PORTRAIT: 'UNUSABLE_PORTRAIT',
  AVATAR_EXISTS: 'AVATAR_EXISTS',
  AVATAR_READ_ONLY: 'AVATAR_READ_ONLY',
  INVALID_VIDEO: 'INVALID_VIDEO',
  UNUSABLE_VIDEO: 'UNUSABLE_VIDEO',
  VIDEO_IMPORT_UNAVAILABLE: 'VIDEO_IMPORT_UNAVAILABLE',
  CLIENT_RENDER_DISABLED: 'CLIENT_RENDER_DISABLED',
} as const;
export type ErrorCode = (typeof ErrorCode)[keyof typeof ErrorCode];

/** The HTTP status of every code. A missing code is a compile error. */
export const ERROR_STATUS: Record<ErrorCode, number> = {
  INVALID_CREDENTIAL: 401,
  CREDENTIAL_FORBIDDEN: 403,
  INVALID_TOKEN: 401,
  FORBIDDEN: 403,
  SESSION_NOT_FOUND: 404,
  SESSION_ENDED: 410,
  TEXT_REQUIRED: 400,
  TEXT_TOO_LONG: 400,
  INVALID_AUDIO: 400,
  INVALID_REQUEST: 400,
  UNKNOWN_AVATAR: 400,
  UNKNOWN_VOICE: 400,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  REQUEST_TIMEOUT: 408,
  URI_TOO_LONG: 414,
  HEADERS_TOO_LARGE: 431,
  TURN_FINAL: 409,
  TURN_PLAYING: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  // 422, not 400 or 406: generic WHEP players change mode on those two (docs/design.md §4.9).
  UNSUPPORTED_OFFER: 422,
  RATE_LIMITED: 429,
  SESSION_LIMIT: 429,
  QUEUE_FULL: 429,
  INTERNAL: 500,
  ENGINE_UNAVAILABLE: 503,
  SERVER_BUSY: 503,
  NOT_READY: 503,
  SHUTTING_DOWN: 503,
  STORAGE_UNAVAILABLE: 503,
  RANGE_NOT_SATISFIABLE: 416,
  INVALID_IMAGE: 400,
  UNUSABLE_PORTRAIT: 422,
  AVATAR_EXISTS: 409,
  AVATAR_READ_ONLY: 409,
  INVALID_VIDEO: 400,
  UNUSABLE_VIDEO: 422,
  VIDEO_IMPORT_UNAVAILABLE: 422,
  CLIENT_RENDER_DISABLED: 403,
};

/** Default messages; the spec's exact wording where the spec gives one. */
export const ERROR_MESSAGE: Record<ErrorCode, string> = {
  INVALID_CREDENTIAL: 'Invalid or expired session credential',
  CREDENTIAL_FORBIDDEN: 'Session credential is not authorized for this operation',
  INVALID_TOKEN: 'Invalid or expired token',
  FORBIDDEN: 'Insufficient permissions',
  SESSION_NOT_FOUND: 'Session not found',
  SESSION_ENDED: 'Session ended',
  TEXT_REQUIRED: 'Text is required',
  TEXT_TOO_LONG: 'Text is too long',
  INVALID_AUDIO: 'Invalid audio file',
  INVALID_REQUEST: 'Bad request',
  UNKNOWN_AVATAR: 'Unknown avatarId (see GET /v1/avatars)',
  UNKNOWN_VOICE: 'Unknown voiceConfig.id (see GET /v1/voices)',
  NOT_FOUND: 'Not found',
  METHOD_NOT_ALLOWED: 'Method not allowed',
  REQUEST_TIMEOUT: 'The request did not arrive in time',
  URI_TOO_LONG: 'Request path too long',
  HEADERS_TOO_LARGE: 'Request headers too large',
  TURN_FINAL: 'Turn is already final',
  TURN_PLAYING: 'Turn is already playing',
  PAYLOAD_TOO_LARGE: 'Payload too large',
  UNSUPPORTED_MEDIA_TYPE: 'Unsupported media type',
  UNSUPPORTED_OFFER: 'The SDP offer has no codec the server can send',
  RATE_LIMITED: 'Too many requests',
  SESSION_LIMIT: 'Too many concurrent sessions for this credential',
  QUEUE_FULL: 'Speech queue is full',
  INTERNAL: 'Internal server error',
  ENGINE_UNAVAILABLE: 'Media engine unavailable',
  SERVER_BUSY: 'Server is at capacity',
  NOT_READY: 'Not ready',
  SHUTTING_DOWN: 'The server is shutting down; retry in a moment',
  STORAGE_UNAVAILABLE: 'Storage is unavailable (locked or failing); nothing was changed, retry in a moment',
  RANGE_NOT_SATISFIABLE: 'Range not satisfiable: the requested bytes are past the end of the file',
  INVALID_IMAGE: 'The image must be a PNG or JPEG file',
  UNUSABLE_PORTRAIT: 'The photo cannot be animated; use a frontal portrait of one person',
  AVATAR_EXISTS: 'An avatar with this id already exists',
  AVATAR_READ_ONLY: 'This avatar is not an uploaded one and cannot be removed',
  INVALID_VIDEO: 'The video must be an MP4, WebM or MOV clip of 20 s to 3 min',
  UNUSABLE_VIDEO: 'The video cannot be made an avatar; record one person facing the camera',
  VIDEO_IMPORT_UNAVAILABLE: 'Video avatars need ffmpeg on the server (apt-get install ffmpeg)',
  CLIENT_RENDER_DISABLED:
    "This server does not let browsers draw this kind of avatar (MOUTHPIECE_CLIENT_RENDER); use render: 'video'",
};

/** Whether a caller may retry a request that failed with this HTTP status. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * The error body of every answer with a status of 400 or more: the contract's
 * `{success:false, error}` plus a stable `code`, and `reason` on a 410 `SESSION_ENDED` (why the
 * session ended). Clients that know only the contract's fields read the same body.
 */
export interface ErrorBody extends ErrorBodyExtra {
  success: false;
  error: string;
  code: ErrorCode;
}

/** Fields an error body may carry beside `success`, `error` and `code`. */
export interface ErrorBodyExtra {
  /** Why the session ended (410 `SESSION_ENDED` only). */
  reason?: EndReason;
}

export function errorBody(code: ErrorCode, message?: string, extra: ErrorBodyExtra = {}): ErrorBody {
  return { success: false, error: message ?? ERROR_MESSAGE[code], code, ...extra };
}
